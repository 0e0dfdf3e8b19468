//! The job master's checkpoint coordinator: trigger (enumerator snapshot, valve closed),
//! barriers (valve opened), acks, completion, the final checkpoint and stop-with-savepoint,
//! and the global committer's commits.

use super::{Internal, JobMaster, JobStatus, Pending};
use crate::api::{Boundedness, Sink, Source, SplitEnumerator, EnumeratorState};
use crate::cluster::protocol::{SubtaskState, ToTask, JOB_MASTER};
use crate::cluster::store::CompletedCheckpoint;
use crate::history::{CheckpointId, EventKind};
use std::collections::BTreeMap;
use std::time::Duration;

impl<Src: Source, Snk: Sink> JobMaster<Src, Snk> {
    pub(super) async fn on_tick(&mut self) {
        let now = crate::net::now();
        if let Some(p) = &self.pending {
            if now - p.started >= Duration::from_millis(self.cfg.checkpoint_timeout_ms) {
                self.abort_pending("timed out").await;
            }
        }
        self.trigger();
    }

    /// Triggers a checkpoint (a stopping savepoint when one was asked for), unless one is
    /// pending, the job is finishing, or a subtask is not deployed.
    pub(super) fn trigger(&mut self) {
        let now = crate::net::now();
        let all_deployed = self.expected.lock().unwrap().iter().all(Option::is_some);
        if self.pending.is_some() || self.finishing.is_some() || !all_deployed || self.done {
            return;
        }
        let c = self.store.next_checkpoint_id();
        let stop = self.stop_requested;
        let (enumerator, state) =
            match crate::cluster::wall::round_trip(&self.enumerator.snapshot_state(c), "the enumerator's state") {
                Ok(crossed) => crossed,
                Err(e) => return self.fail_job(e),
            };
        self.record(EventKind::CheckpointTriggered { checkpoint: c, pending: state.pending_splits() });
        self.tracker.snapshot(c);
        if self.cfg.coordinator_valve {
            for slot in &mut self.slots {
                slot.held = Some(Vec::new());
            }
        }
        self.pending = Some(Pending { id: c, enumerator, acks: BTreeMap::new(), started: now, triggered: false, stop });
        // Writing the enumerator's state to checkpoint storage takes time; events wait meanwhile.
        let internal = self.internal.clone();
        madsim::task::spawn(async move {
            madsim::time::sleep(Duration::from_millis(2)).await;
            let _ = internal.send(Internal::Stored(c));
        });
    }

    pub(super) fn open_valves(&mut self) {
        let checkpoint = self.pending.as_ref().map_or(0, |p| p.id);
        for (subtask, slot) in self.slots.iter_mut().enumerate() {
            let held = slot.held.take().unwrap_or_default();
            if !held.is_empty() {
                self.history.record(JOB_MASTER, EventKind::ValveReleased { subtask, checkpoint, events: held.len() });
            }
            for msg in held {
                slot.downlink.send(msg);
            }
        }
    }

    pub(super) fn send_barriers(&mut self, c: CheckpointId) {
        let stop = match &mut self.pending {
            Some(p) if p.id == c => {
                p.triggered = true;
                p.stop
            }
            _ => return,
        };
        for slot in &self.slots {
            slot.downlink.send(ToTask::Trigger { attempt: slot.attempt, checkpoint: c, stop });
        }
        self.open_valves();
    }

    /// Gives up a stop-with-savepoint: if its barriers went out, sources may have stopped, so
    /// everything restarts from the last completed checkpoint (as when the savepoint fails).
    pub(super) async fn cancel_stop(&mut self) {
        self.stop_requested = false;
        let stopping = self.pending.as_ref().is_some_and(|p| p.stop) || matches!(self.finishing, Some((_, _, true)));
        if stopping {
            self.abort_quietly("stop-with-savepoint cancelled");
            self.restore_all("global", "stop-with-savepoint cancelled".into()).await;
        }
    }

    /// Aborts the pending checkpoint. A stopping savepoint whose barriers went out may have
    /// stopped some sources already: then everything restarts from the last completed
    /// checkpoint and the job keeps running (the stop failed).
    pub(super) async fn abort_pending(&mut self, reason: &str) {
        let stopped_some = self.abort_quietly(reason);
        if stopped_some {
            self.restore_all("global", format!("stop-with-savepoint failed: {reason}")).await;
        }
    }

    /// Aborts the pending checkpoint; true if it was a stopping savepoint whose barriers went out.
    pub(super) fn abort_quietly(&mut self, reason: &str) -> bool {
        let mut stopped_some = false;
        if let Some(p) = self.pending.take() {
            self.record(EventKind::CheckpointAborted { checkpoint: p.id, reason: reason.to_string() });
            stopped_some = p.stop && p.triggered;
            if p.stop {
                self.stop_requested = false;
            }
        }
        self.open_valves();
        stopped_some
    }

    pub(super) async fn on_ack(&mut self, subtask: usize, attempt: u64, c: CheckpointId, state: SubtaskState) {
        let Some(p) = &mut self.pending else { return };
        if p.id != c || !p.triggered {
            return;
        }
        p.acks.insert(subtask, state);
        let acks = p.acks.len();
        self.record(EventKind::Acked { subtask, attempt, checkpoint: c });
        if acks < self.slots.len() {
            return;
        }
        let p = self.pending.take().expect("checked above");
        let stop = p.stop;
        let final_checkpoint =
            stop || (self.source.boundedness() == Boundedness::Bounded && p.acks.values().all(|s| s.finished));
        let subtasks: Vec<SubtaskState> = p.acks.into_values().collect();
        let global = match &mut self.global {
            Some(g) => match g.combine(c, &subtasks) {
                Ok(bytes) => bytes,
                Err(e) => return self.fail_job(e),
            },
            None => Vec::new(),
        };
        self.store.put(CompletedCheckpoint { id: c, enumerator: p.enumerator, subtasks, global, savepoint: stop });
        self.record(EventKind::CheckpointCompleted { checkpoint: c });
        if self.hooks.at_job_master(crate::cluster::Phase::BeforeNotify, c) {
            std::future::pending::<()>().await; // a scenario crashes the job master here
        }
        self.tracker.complete(c);
        self.enumerator.notify_checkpoint_complete(c);
        self.apply_actions();
        for slot in &self.slots {
            slot.downlink.send(if final_checkpoint {
                ToTask::NotifyFinal { attempt: slot.attempt, checkpoint: c }
            } else {
                ToTask::Notify { attempt: slot.attempt, checkpoint: c }
            });
        }
        if final_checkpoint {
            self.finishing = Some((c, (0..self.slots.len()).collect(), stop));
        }
        self.commit_global().await;
    }

    pub(super) async fn commit_global(&mut self) {
        let Some(g) = &mut self.global else { return };
        if let Err(e) = g.commit(&self.history, JOB_MASTER, &self.hooks).await {
            self.fail_job(e);
        }
    }

    /// The job is done: every attempt closes its components (best effort: a task executor
    /// that does not answer in time is left to the end of the run), then the enumerator.
    pub(super) async fn close_all(&mut self) {
        let calls = self.slots.iter().enumerate().map(|(subtask, slot)| {
            let (endpoint, attempt, executor) = (self.endpoint.clone(), slot.attempt, slot.executor);
            madsim::task::spawn(async move {
                let close = crate::cluster::protocol::Addressed { subtask, msg: ToTask::Close { attempt } };
                let te = crate::cluster::protocol::task_executor(executor);
                let _ = endpoint.call::<_, bool>(&te, "Close", &close, Duration::from_millis(200)).await;
            })
        });
        for call in calls.collect::<Vec<_>>() {
            let _ = call.await;
        }
        self.enumerator.close().await;
    }

    /// Every subtask committed the final checkpoint: commit what the global committer still
    /// holds, then the job is finished.
    pub(super) async fn finish(&mut self) {
        if let Some(g) = &mut self.global {
            while !g.is_idle() {
                if let Err(e) = g.commit(&self.history, JOB_MASTER, &self.hooks).await {
                    return self.fail_job(e);
                }
                if !g.is_idle() {
                    madsim::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
        self.close_all().await;
        if let Some((c, _, true)) = self.finishing {
            self.record(EventKind::JobStopped { savepoint: c });
            *self.status.lock().unwrap() = JobStatus::Stopped(c);
            self.done = true;
            return;
        }
        if let Some(g) = &mut self.global {
            if let Err(e) = g.end_of_input().await {
                return self.fail_job(format!("global committer end of input: {e}"));
            }
        }
        self.record(EventKind::JobFinished);
        *self.status.lock().unwrap() = JobStatus::Finished;
        self.done = true;
    }
}
