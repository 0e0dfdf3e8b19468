//! The job master's recovery: redeploying attempts (restoring, and dealing state out again
//! after a rescale), region and global failover, restoring everything for a new incarnation,
//! and failing the job for good.

use super::{JobMaster, JobStatus};
use crate::api::{EnumeratorContext, Sink, Source, Split, SplitEnumerator};
use crate::cluster::config::FailoverStrategy;
use crate::cluster::downlink::Downlink;
use crate::cluster::protocol::{SubtaskState, ToTask};
use crate::cluster::rescale;
use crate::cluster::protocol::JOB_MASTER;
use crate::error::RetryHint;
use crate::history::{CheckpointId, EventKind};
use std::time::Duration;

impl<Src: Source, Snk: Sink> JobMaster<Src, Snk> {
    /// The state subtask `subtask` restores from: the latest completed checkpoint's, dealt
    /// out again when that checkpoint was taken with another parallelism.
    pub(super) fn restore_state(&self, subtask: usize) -> Result<Option<(CheckpointId, SubtaskState)>, String> {
        let Some(cp) = self.store.latest() else { return Ok(None) };
        if cp.subtasks.len() == self.slots.len() {
            return Ok(Some((cp.id, cp.subtasks[subtask].clone())));
        }
        let states = rescale::redistribute::<Src, Snk>(&cp.subtasks, self.slots.len())?;
        Ok(Some((cp.id, states[subtask].clone())))
    }

    pub(super) fn redeploy(&mut self, subtask: usize) {
        let restore = match self.restore_state(subtask) {
            Ok(r) => r,
            Err(e) => return self.fail_job(e),
        };
        let p = self.slots.len();
        let slot = &mut self.slots[subtask];
        slot.attempt += 1;
        slot.no_more_splits = false;
        slot.last_seq = 0;
        slot.held = None;
        slot.downlink = Downlink::start(self.endpoint.clone(), subtask, slot.attempt, self.reports.clone());
        self.expected.lock().unwrap()[subtask] = None;
        slot.downlink.send(ToTask::Deploy { subtask, attempt: slot.attempt, parallelism: p, restore });
    }

    pub(super) async fn failover(&mut self, failed: Vec<usize>, cause: String) {
        if self.done {
            return;
        }
        // A failure while a stopping savepoint is under way may leave sources stopped that
        // no region restart would resume: the whole job restarts instead.
        let stopping = self.pending.as_ref().is_some_and(|p| p.stop) || matches!(self.finishing, Some((_, _, true)));
        self.abort_quietly("failover");
        self.finishing = None;
        if self.cfg.failover == FailoverStrategy::Global || stopping {
            return self.restore_all("global", cause).await;
        }
        let checkpoint = self.store.latest().map_or(0, |c| c.id);
        self.record(EventKind::Failover { strategy: "region".into(), subtasks: failed.clone(), checkpoint, cause });
        for subtask in failed {
            let returned = self.tracker.take_uncheckpointed(subtask);
            self.ctx.registered.remove(&subtask);
            self.enumerator.reader_failed(subtask, &mut self.ctx);
            if !returned.is_empty() {
                self.record(EventKind::SplitsReturned { subtask, splits: returned.iter().map(Split::id).collect() });
                self.enumerator.add_splits_back(returned, subtask, &mut self.ctx);
            }
            self.redeploy(subtask);
        }
        self.apply_actions();
    }

    /// Restarts everything — enumerator, global committer, every subtask — from the latest
    /// completed checkpoint. `strategy` names why in the history: a global failover, a new
    /// job-master incarnation, or a rescale.
    pub(super) async fn restore_all(&mut self, strategy: &str, cause: String) {
        let latest = self.store.latest();
        let checkpoint = latest.as_ref().map_or(0, |c| c.id);
        let all: Vec<usize> = (0..self.slots.len()).collect();
        self.abort_quietly("failover");
        self.finishing = None;
        self.record(EventKind::Failover { strategy: strategy.into(), subtasks: all.clone(), checkpoint, cause });
        self.tracker.reset();
        self.ctx = EnumeratorContext::new(self.slots.len(), self.endpoint.clone());
        if let Some(g) = &mut self.global {
            // As Flink's restart strategy does, a restore that fails for a reason that may
            // pass (an unreachable system) is tried again after a restart delay.
            loop {
                match g.restore(latest.as_ref()).await {
                    Ok(()) => break,
                    Err(e) if e.hint != RetryHint::FailJob => {
                        let message = format!("global committer restore: {e}; retrying in 50 ms");
                        self.history.record(JOB_MASTER, EventKind::ConnectorError { subtask: None, message });
                        madsim::time::sleep(Duration::from_millis(50)).await;
                    }
                    Err(e) => return self.fail_job(format!("global committer restore: {e}")),
                }
            }
        }
        // The enumerator being replaced is closed first (it may hold connections), and what
        // it started stops.
        self.stop_calls();
        self.enumerator.close().await;
        self.enumerator = match latest {
            Some(cp) => match bincode::deserialize(&cp.enumerator) {
                Ok(state) => self.source.restore_enumerator(&self.ctx, state),
                Err(e) => return self.fail_job(format!("enumerator state did not deserialize: {e}")),
            },
            None => self.source.create_enumerator(&self.ctx),
        };
        for subtask in all {
            self.redeploy(subtask);
            if self.done {
                return;
            }
        }
        self.start_enumerator().await;
        self.commit_global().await;
    }

    pub(super) fn fail_job(&mut self, reason: String) {
        self.record(EventKind::JobFailed { reason: reason.clone() });
        *self.status.lock().unwrap() = JobStatus::Failed(reason);
        self.done = true;
    }
}
