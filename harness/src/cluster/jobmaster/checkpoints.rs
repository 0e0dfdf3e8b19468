//! The job master's checkpoint coordinator: trigger (enumerator snapshot, valve closed),
//! barriers (valve opened), acks, completion, the final checkpoint and stop-with-savepoint,
//! checkpoints pending at once (up to the configured maximum), their expiry and abortion.
//! A global committer is a task like any other: its acknowledgement carries its state.

use super::{Internal, JobMaster, JobStatus, Pending};
use crate::api::{Boundedness, EnumeratorState, Sink, Source, SplitEnumerator};
use crate::cluster::protocol::{SubtaskState, ToTask, JOB_MASTER};
use crate::cluster::store::CompletedCheckpoint;
use crate::history::{AbortReason, CheckpointId, EventKind, FailoverScope};
use std::collections::BTreeMap;
use std::time::Duration;

impl<Src: Source, Snk: Sink> JobMaster<Src, Snk> {
    pub(super) async fn on_tick(&mut self) {
        let now = crate::net::now();
        let timeout = Duration::from_millis(self.cfg.checkpoints.timeout_ms);
        let expired: Vec<CheckpointId> =
            self.checkpoints.pending.values().filter(|p| now - p.started >= timeout).map(|p| p.id).collect();
        for c in expired {
            self.abort_pending(c, AbortReason::TimedOut).await;
        }
        self.trigger();
    }

    /// Triggers a checkpoint (a stopping savepoint when one was asked for), unless as many
    /// as allowed are pending, the last one's barriers are not out yet, a stopping savepoint
    /// is pending, the job is finishing, a subtask is not deployed, or the enumerator has not
    /// started.
    pub(super) fn trigger(&mut self) {
        let now = crate::net::now();
        let all_deployed = self.scheduler.expected.lock().unwrap().iter().all(Option::is_some);
        let busy = self.checkpoints.pending.len() >= self.cfg.checkpoints.max_concurrent.max(1)
            || self.checkpoints.pending.values().any(|p| !p.triggered || p.stop);
        let starting = self.coordinator.starting.is_some();
        if busy || self.checkpoints.finishing.is_some() || !all_deployed || starting || self.done {
            return;
        }
        let c = self.checkpoints.store.next_checkpoint_id();
        let stop = self.checkpoints.stop_requested;
        let (enumerator, state) = match crate::cluster::wall::round_trip(
            &self.coordinator.enumerator.as_mut().expect("triggered only once it started").snapshot_state(c),
            "the enumerator's state",
        ) {
            Ok(crossed) => crossed,
            Err(e) => return self.fail_job(e),
        };
        self.record(EventKind::CheckpointTriggered { checkpoint: c, pending: state.pending_splits() });
        self.coordinator.tracker.snapshot(c);
        if self.cfg.coordinator_valve {
            for slot in &mut self.scheduler.slots {
                slot.held = Some(Vec::new());
            }
        }
        let pending = Pending { id: c, enumerator, acks: BTreeMap::new(), started: now, triggered: false, stop };
        self.checkpoints.pending.insert(c, pending);
        // Writing the enumerator's state to checkpoint storage takes time; events wait meanwhile.
        let internal = self.internal.clone();
        madsim::task::spawn(async move {
            madsim::time::sleep(Duration::from_millis(2)).await;
            let _ = internal.send(Internal::Stored(c));
        });
    }

    /// Releases the events held back since checkpoint `checkpoint`'s enumerator snapshot.
    pub(super) fn open_valves(&mut self, checkpoint: CheckpointId) {
        for (subtask, slot) in self.scheduler.slots.iter_mut().enumerate() {
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
        let stop = match self.checkpoints.pending.get_mut(&c) {
            Some(p) if !p.triggered => {
                p.triggered = true;
                p.stop
            }
            _ => return,
        };
        for slot in &self.scheduler.slots {
            slot.downlink.send(ToTask::Trigger { attempt: slot.attempt, checkpoint: c, stop });
        }
        self.open_valves(c);
    }

    /// Gives up a stop-with-savepoint: if its barriers went out, sources may have stopped, so
    /// everything restarts from the last completed checkpoint (as when the savepoint fails).
    pub(super) async fn cancel_stop(&mut self) {
        self.checkpoints.stop_requested = false;
        let stopping = self.checkpoints.pending.values().any(|p| p.stop)
            || matches!(self.checkpoints.finishing, Some((_, _, true)));
        if stopping {
            self.abort_all(AbortReason::SavepointCancelled);
            self.restore_all(FailoverScope::Global, "stop-with-savepoint cancelled".into()).await;
        }
    }

    /// Aborts pending checkpoint `c`. A stopping savepoint whose barriers went out may have
    /// stopped some sources already: then everything restarts from the last completed
    /// checkpoint and the job keeps running (the stop failed).
    pub(super) async fn abort_pending(&mut self, c: CheckpointId, reason: AbortReason) {
        let stopped_some = self.abort_quietly(c, reason.clone());
        if stopped_some {
            self.restore_all(FailoverScope::Global, format!("stop-with-savepoint failed: {reason}")).await;
        }
    }

    /// Aborts every pending checkpoint; true if one was a stopping savepoint whose barriers went out.
    pub(super) fn abort_all(&mut self, reason: AbortReason) -> bool {
        let ids: Vec<CheckpointId> = self.checkpoints.pending.keys().copied().collect();
        let mut stopped_some = false;
        for c in ids {
            stopped_some |= self.abort_quietly(c, reason.clone());
        }
        self.open_valves(0);
        stopped_some
    }

    /// Aborts pending checkpoint `c` and tells the enumerator and every subtask (best effort,
    /// as Flink's `notifyCheckpointAborted`); true if it was a stopping savepoint whose
    /// barriers went out.
    pub(super) fn abort_quietly(&mut self, c: CheckpointId, reason: AbortReason) -> bool {
        let Some(p) = self.checkpoints.pending.remove(&c) else { return false };
        self.record(EventKind::CheckpointAborted { checkpoint: c, reason });
        if p.stop {
            self.checkpoints.stop_requested = false;
        }
        if !p.triggered {
            self.open_valves(c); // the valve closed for it is still closed
        }
        if let Some(enumerator) = self.coordinator.enumerator.as_mut() {
            enumerator.notify_checkpoint_aborted(c);
        }
        self.apply_actions();
        for slot in &self.scheduler.slots {
            slot.downlink.send(ToTask::Abort { attempt: slot.attempt, checkpoint: c });
        }
        p.stop && p.triggered
    }

    pub(super) async fn on_ack(&mut self, subtask: usize, attempt: u64, c: CheckpointId, state: SubtaskState) {
        let Some(p) = self.checkpoints.pending.get_mut(&c) else { return };
        if !p.triggered {
            return;
        }
        p.acks.insert(subtask, state);
        let acks = p.acks.len();
        self.record(EventKind::Acked { subtask, attempt, checkpoint: c });
        if acks < self.scheduler.slots.len() {
            return;
        }
        let p = self.checkpoints.pending.remove(&c).expect("checked above");
        // An older checkpoint still pending (an acknowledgement of it was lost) is subsumed
        // by c, as in Flink: it must never complete after c.
        let older: Vec<CheckpointId> = self.checkpoints.pending.range(..c).map(|(&o, _)| o).collect();
        for o in older {
            self.abort_quietly(o, AbortReason::SubsumedBy(c));
        }
        let stop = p.stop;
        let final_checkpoint = stop
            || (self.coordinator.source.boundedness() == Boundedness::Bounded && p.acks.values().all(|s| s.finished));
        let subtasks: Vec<SubtaskState> = p.acks.into_values().collect();
        let (readers, writers) = (self.coordinator.readers, self.cfg.writers(self.coordinator.readers));
        self.checkpoints.store.put(CompletedCheckpoint {
            id: c,
            enumerator: p.enumerator,
            subtasks,
            readers,
            writers,
            savepoint: stop,
        });
        self.record(EventKind::CheckpointCompleted { checkpoint: c });
        if self.hooks.at_job_master(crate::cluster::hooks::Phase::BeforeNotify, c) {
            std::future::pending::<()>().await; // a scenario crashes the job master here
        }
        self.coordinator.tracker.complete(c);
        if let Some(enumerator) = self.coordinator.enumerator.as_mut() {
            enumerator.notify_checkpoint_complete(c);
        }
        self.apply_actions();
        for slot in &self.scheduler.slots {
            slot.downlink.send(if final_checkpoint {
                ToTask::NotifyFinal { attempt: slot.attempt, checkpoint: c }
            } else {
                ToTask::Notify { attempt: slot.attempt, checkpoint: c }
            });
        }
        if final_checkpoint {
            self.checkpoints.finishing = Some((c, (0..self.scheduler.slots.len()).collect(), stop));
            // Nothing was read after the final checkpoint's barriers: later ones are moot.
            self.abort_all(AbortReason::JobFinishing);
        }
    }

    /// The job is done: every attempt closes its components (best effort: a task executor
    /// that does not answer in time is left to the end of the run), then the enumerator.
    pub(super) async fn close_all(&mut self) {
        let calls = self.scheduler.slots.iter().enumerate().map(|(subtask, slot)| {
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
        if let Some(enumerator) = self.coordinator.enumerator.as_mut() {
            enumerator.close().await;
        }
    }

    /// Every subtask (and the global committer) committed the final checkpoint: the job is
    /// finished.
    pub(super) async fn finish(&mut self) {
        self.close_all().await;
        if let Some((c, _, true)) = self.checkpoints.finishing {
            self.record(EventKind::JobStopped { savepoint: c });
            *self.status.lock().unwrap() = JobStatus::Stopped(c);
            self.done = true;
            return;
        }
        self.record(EventKind::JobFinished);
        *self.status.lock().unwrap() = JobStatus::Finished;
        self.done = true;
    }
}
