//! The job master's recovery: redeploying attempts (restoring, and dealing state out again
//! after a rescale), region and global failover, restoring everything for a new incarnation,
//! and failing the job for good.

use super::{JobMaster, JobStatus};
use crate::api::{EnumeratorContext, Sink, Source, Split, SplitEnumerator};
use crate::cluster::config::FailoverStrategy;
use crate::cluster::downlink::Downlink;
use crate::cluster::protocol::{task_executor, Addressed, SubtaskState, ToTask};
use crate::cluster::rescale;
use crate::history::{AbortReason, CheckpointId, EventKind, FailoverScope};

impl<Src: Source, Snk: Sink> JobMaster<Src, Snk> {
    /// The state subtask `subtask` restores from: the latest completed checkpoint's, dealt
    /// out again when that checkpoint was taken with another parallelism.
    pub(super) fn restore_state(&self, subtask: usize) -> Result<Option<(CheckpointId, SubtaskState)>, String> {
        let Some(cp) = self.checkpoints.store.latest() else { return Ok(None) };
        if cp.readers == self.coordinator.readers && cp.subtasks.len() == self.scheduler.slots.len() {
            return Ok(Some((cp.id, cp.subtasks[subtask].clone())));
        }
        // The global committer's state is its own: it is not dealt out with the others'.
        let old = cp.readers.max(cp.writers).min(cp.subtasks.len());
        let downstream = &self.scheduler.downstream;
        if downstream.global && downstream.contains(subtask) {
            let state = cp.subtasks.get(old).cloned().unwrap_or_else(rescale::empty);
            return Ok(Some((cp.id, rescale::global_state(state, self.cfg.runtime_bug))));
        }
        // The committers' states are theirs, dealt out among them when their count changed.
        if downstream.committers() && downstream.contains(subtask) {
            let states = rescale::committers(&cp.subtasks[old..], downstream.tasks.len())?;
            return Ok(Some((cp.id, states[subtask - downstream.tasks.start].clone())));
        }
        let states = rescale::redistribute::<Src, Snk>(
            &cp.subtasks[..old],
            cp.writers,
            self.coordinator.readers,
            self.cfg.writers(self.coordinator.readers),
            self.cfg.runtime_bug,
        )?;
        Ok(Some((cp.id, states[subtask].clone())))
    }

    pub(super) fn redeploy(&mut self, subtask: usize) {
        let restore = match self.restore_state(subtask) {
            Ok(r) => r,
            Err(e) => return self.fail_job(e),
        };
        let (p, writers) = (self.coordinator.readers, self.cfg.writers(self.coordinator.readers));
        let previous = (self.scheduler.slots[subtask].executor, self.scheduler.slots[subtask].attempt);
        let executor = self.place(subtask);
        let slot = &mut self.scheduler.slots[subtask];
        slot.attempt += 1;
        slot.executor = executor;
        slot.no_more_splits = false;
        slot.last_seq = 0;
        slot.held = None;
        slot.downlink = Downlink::start(self.endpoint.clone(), subtask, slot.attempt, executor, self.reports.clone());
        self.scheduler.expected.lock().unwrap()[subtask] = None;
        slot.downlink.send(ToTask::Deploy {
            subtask,
            attempt: slot.attempt,
            parallelism: p,
            writers,
            restore,
            deadline_ms: 0,
            job: self.checkpoints.store.job(),
        });
        if previous.0 != executor {
            // Cancel the attempt left behind, as Flink cancels a failed region's executions
            // (best effort: an unreachable task executor cancels it when its lease runs out).
            let close = Addressed { subtask, msg: ToTask::Close { attempt: previous.1 } };
            self.endpoint.send(&task_executor(previous.0), "Close", &close);
        }
    }

    /// Marks a task executor as suspected lost: no attempt is deployed there while another
    /// has a free slot.
    pub(super) fn suspect(&mut self, executor: usize) {
        let since = &mut self.scheduler.suspects[executor];
        since.get_or_insert(crate::net::now());
    }

    /// Where the next attempt of `subtask` goes: where it is unless that task executor is
    /// suspected lost; then a free slot on a task executor that is not suspected (the lowest);
    /// failing that, the free one suspected longest ago; failing that, where it is.
    /// A task downstream of the writers goes where the subtask whose slot it shares goes
    /// (Flink's slot sharing: the global committer, subtask 0's; committer `j`, subtask
    /// `j`'s), so it needs no free slot of its own.
    fn place(&self, subtask: usize) -> usize {
        let downstream = &self.scheduler.downstream;
        if downstream.contains(subtask) {
            return self.scheduler.slots[downstream.host(subtask)].executor;
        }
        let current = self.scheduler.slots[subtask].executor;
        if self.scheduler.suspects[current].is_none() {
            return current;
        }
        let slots = self.cfg.slots_per_task_executor.max(1);
        // The tasks downstream of the writers share slots: they take none.
        let used = |e: usize| {
            let others =
                self.scheduler.slots.iter().enumerate().filter(|(s, _)| *s != subtask && !downstream.contains(*s));
            others.filter(|(_, slot)| slot.executor == e).count()
        };
        let free: Vec<usize> =
            (0..self.scheduler.suspects.len()).filter(|&e| e != current && used(e) < slots).collect();
        if let Some(&e) = free.iter().find(|&&e| self.scheduler.suspects[e].is_none()) {
            return e;
        }
        free.into_iter().min_by_key(|&e| (self.scheduler.suspects[e], e)).unwrap_or(current)
    }

    pub(super) async fn failover(&mut self, failed: Vec<usize>, cause: String) {
        if self.done {
            return;
        }
        // Behind an all-to-all exchange every subtask reads from every other, and a task
        // downstream of the writers from every writer: the job is one region, and a failure
        // anywhere restarts all of it (Flink's failover regions).
        let one_region = self.cfg.exchange.all_to_all() || !self.scheduler.downstream.tasks.is_empty();
        let failed = if one_region { (0..self.scheduler.slots.len()).collect() } else { failed };
        // A failure while a stopping savepoint is under way may leave sources stopped that
        // no region restart would resume: the whole job restarts instead.
        let stopping = self.checkpoints.pending.values().any(|p| p.stop)
            || matches!(self.checkpoints.finishing, Some((_, _, true)));
        self.abort_all(AbortReason::Failover);
        self.checkpoints.finishing = None;
        if self.cfg.failover == FailoverStrategy::Global || stopping {
            return self.restore_all(FailoverScope::Global, cause).await;
        }
        let checkpoint = self.checkpoints.store.latest().map_or(0, |c| c.id);
        self.record(EventKind::Failover {
            strategy: FailoverScope::Region,
            subtasks: failed.clone(),
            checkpoint,
            cause,
        });
        // Every failed reader is gone before any split goes back: the enumerator must not
        // hand a returned split to a reader of the same region (Flink fails all of a
        // region's tasks before it resets them).
        // An enumerator still starting never saw these readers: what they asked is dropped.
        let coordinator = &mut self.coordinator;
        for &subtask in failed.iter().filter(|s| **s < coordinator.readers) {
            coordinator.ctx.registered.remove(&subtask);
            match (coordinator.starting.as_mut(), coordinator.enumerator.as_mut()) {
                (Some(starting), _) => starting.forget(subtask),
                (None, Some(enumerator)) => enumerator.reader_failed(subtask, &mut coordinator.ctx),
                (None, None) => unreachable!("an enumerator is in place or starting"),
            }
        }
        for subtask in failed {
            // Nothing is assigned before the enumerator started, so nothing goes back then.
            let returned = self.coordinator.tracker.take_uncheckpointed(subtask);
            if !returned.is_empty() {
                self.record(EventKind::SplitsReturned { subtask, splits: returned.iter().map(Split::id).collect() });
                let (enumerator, ctx) = self.coordinator.enumerator_mut().expect("splits were assigned: it started");
                enumerator.add_splits_back(returned, subtask, ctx);
            }
            self.redeploy(subtask);
        }
        self.wire();
        self.apply_actions();
    }

    /// Tells every attempt where the others run, when the job has an exchange: its channels
    /// connect only the attempts named here. Sent after every deployment.
    pub(super) fn wire(&mut self) {
        if !self.cfg.exchange.all_to_all() && self.scheduler.downstream.tasks.is_empty() {
            return;
        }
        let peers: Vec<(usize, u64)> = self.scheduler.slots.iter().map(|s| (s.executor, s.attempt)).collect();
        for slot in &self.scheduler.slots {
            slot.downlink.send(ToTask::Wire { attempt: slot.attempt, peers: peers.clone() });
        }
    }

    /// Restarts everything — enumerator, global committer, every subtask — from the latest
    /// completed checkpoint. `strategy` names why in the history: a global failover, a new
    /// job-master incarnation, or a rescale.
    pub(super) async fn restore_all(&mut self, strategy: FailoverScope, cause: String) {
        let latest = self.checkpoints.store.latest();
        let checkpoint = latest.as_ref().map_or(0, |c| c.id);
        let all: Vec<usize> = (0..self.scheduler.slots.len()).collect();
        self.abort_all(AbortReason::Failover);
        self.checkpoints.finishing = None;
        self.record(EventKind::Failover { strategy, subtasks: all.clone(), checkpoint, cause });
        self.coordinator.tracker.reset();
        self.coordinator.ctx = EnumeratorContext::new(self.coordinator.readers, self.endpoint.clone());
        // The enumerator being replaced is closed first (it may hold connections), and what
        // it started stops.
        self.stop_calls();
        // One whose start is being retried is dropped with the retry, unclosed (it never
        // started), unless its last try has just started it.
        let mut retried = self.coordinator.starting.take().and_then(|mut s| s.started_unseen());
        if let Some(enumerator) = retried.as_mut().or(self.coordinator.enumerator.as_mut()) {
            enumerator.close().await;
        }
        self.coordinator.enumerator = Some(match latest {
            Some(cp) => match crate::bytes::decode(&cp.enumerator) {
                Ok(state) => self.coordinator.source.restore_enumerator(&self.coordinator.ctx, state),
                Err(e) => return self.fail_job(format!("enumerator state did not deserialize: {e}")),
            },
            None => self.coordinator.source.create_enumerator(&self.coordinator.ctx),
        });
        for subtask in all {
            self.redeploy(subtask);
            if self.done {
                return;
            }
        }
        self.wire();
        self.start_enumerator().await;
    }

    pub(super) fn fail_job(&mut self, reason: String) {
        self.record(EventKind::JobFailed { reason: reason.clone() });
        *self.status.lock().unwrap() = JobStatus::Failed(reason);
        self.done = true;
    }
}
