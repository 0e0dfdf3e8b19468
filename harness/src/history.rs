//! The history: one totally ordered, append-only list of everything that happened in a run.
//!
//! Nodes, the gateway and the external-system models append [`Event`]s; the checks read
//! them after the run. The history serializes as JSON lines and hashes (FNV-1a over its
//! bincode form), which is what the determinism self-check compares.

use crate::record::RecordId;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// Checkpoint identifier; 0 means "no checkpoint".
pub type CheckpointId = u64;

/// One step of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Virtual time since the start of the run, in microseconds.
    pub t_us: u64,
    /// Name of the node (or system) that recorded it.
    pub node: String,
    /// What happened.
    pub kind: EventKind,
}

/// What happened. Subtask attempts are numbered from 1 and grow with every deployment.
///
/// Field names are uniform across variants: `subtask` (index), `attempt` (deployment),
/// `checkpoint` (id), `split`/`splits` (split ids), `ids` (record ids).
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// A record was produced into a source system at position `pos` of split `split`.
    Produced { id: RecordId, split: String, pos: u64 },
    /// The job was started.
    JobStarted { parallelism: usize },
    /// A subtask attempt was deployed, restored from `checkpoint` (0: fresh).
    Deployed { subtask: usize, attempt: u64, checkpoint: CheckpointId },
    /// A reader registered with the source coordinator.
    ReaderRegistered { subtask: usize, attempt: u64 },
    /// The enumerator assigned splits to a subtask.
    SplitsAssigned { subtask: usize, attempt: u64, splits: Vec<String> },
    /// Splits went back to the enumerator after a failure of `subtask`.
    SplitsReturned { subtask: usize, splits: Vec<String> },
    /// A reader finished a split.
    SplitFinished { subtask: usize, attempt: u64, split: String },
    /// A subtask emitted records (in this order).
    Emitted { subtask: usize, attempt: u64, ids: Vec<RecordId> },
    /// The coordinator started checkpoint `checkpoint`; the enumerator held `pending` splits.
    CheckpointTriggered { checkpoint: CheckpointId, pending: Vec<String> },
    /// The coordinator's valve held `events` for a subtask between the enumerator's snapshot
    /// for `checkpoint` and the barrier, and sent them now (after the barrier).
    ValveReleased { subtask: usize, checkpoint: CheckpointId, events: usize },
    /// A subtask's barrier passed; its reader held `splits`.
    Barrier { subtask: usize, attempt: u64, checkpoint: CheckpointId, splits: Vec<String> },
    /// A subtask acknowledged a checkpoint.
    Acked { subtask: usize, attempt: u64, checkpoint: CheckpointId },
    /// The checkpoint is complete and durable.
    CheckpointCompleted { checkpoint: CheckpointId },
    /// The checkpoint was aborted.
    CheckpointAborted { checkpoint: CheckpointId, reason: String },
    /// A committer asked the external system to commit.
    CommitAttempt { subtask: usize, attempt: u64, checkpoint: CheckpointId, requests: usize },
    /// The outcome of one commit request.
    CommitOutcome { subtask: usize, attempt: u64, checkpoint: CheckpointId, outcome: String },
    /// The outcome of committing one checkpoint's global committable.
    GlobalCommitOutcome { checkpoint: CheckpointId, outcome: String },
    /// A node was crashed.
    Crashed { node: String },
    /// A node was restarted.
    Restarted { node: String },
    /// The job master started a failover.
    Failover { strategy: String, subtasks: Vec<usize>, checkpoint: CheckpointId, cause: String },
    /// A subtask finished its input.
    SubtaskFinished { subtask: usize, attempt: u64 },
    /// Records became visible to downstream readers of `location`.
    Visible { location: String, ids: Vec<RecordId> },
    /// The gateway applied a fault to a message.
    Fault { fault: String, from: String, to: String, kind: String },
    /// A fault rule was installed or removed.
    FaultRule { description: String },
    /// The job finished (all input read and committed).
    JobFinished,
    /// A subtask declined a checkpoint.
    Declined { subtask: usize, attempt: u64, checkpoint: CheckpointId },
    /// A subtask reached a phase a scenario aimed a crash at; its task executor crashes now.
    CrashPoint { node: String, subtask: Option<usize>, phase: String, checkpoint: CheckpointId },
    /// The job stopped at a savepoint (stop-with-savepoint); it may be resumed from it.
    JobStopped { savepoint: CheckpointId },
    /// A node was shut down in order (the job was stopped or cancelled), not crashed.
    NodeStopped { node: String },
    /// A scenario step began (for the timeline).
    Step { step: String },
    /// The job failed and will not recover.
    JobFailed { reason: String },
    /// Connector code returned an error.
    ConnectorError { subtask: Option<usize>, message: String },
}

/// Shared, append-only history of one run.
#[derive(Clone, Default)]
pub struct History {
    events: Arc<Mutex<Vec<Event>>>,
    produced: Arc<std::sync::atomic::AtomicUsize>,
    last_completed: Arc<std::sync::atomic::AtomicU64>,
}

impl History {
    /// Creates an empty history.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends an event stamped with the current virtual time.
    pub fn record(&self, node: &str, kind: EventKind) {
        let t_us = madsim::time::TimeHandle::try_current()
            .map(|t| t.elapsed().as_micros() as u64)
            .unwrap_or(0);
        match &kind {
            EventKind::Produced { .. } => {
                self.produced.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            EventKind::CheckpointCompleted { checkpoint } => {
                self.last_completed.fetch_max(*checkpoint, std::sync::atomic::Ordering::Relaxed);
            }
            _ => {}
        }
        self.events.lock().unwrap().push(Event { t_us, node: node.to_string(), kind });
    }

    /// A copy of all events so far.
    pub fn events(&self) -> Vec<Event> {
        self.events.lock().unwrap().clone()
    }

    /// Takes all events out (the run is over); later `record` calls start a new list.
    pub fn take(&self) -> Vec<Event> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }

    /// Number of records produced into source systems so far.
    pub fn produced(&self) -> usize {
        self.produced.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The highest checkpoint id completed so far (0: none).
    pub fn last_completed(&self) -> CheckpointId {
        self.last_completed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Number of events so far.
    pub fn len(&self) -> usize {
        self.events.lock().unwrap().len()
    }

    /// Whether nothing was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Serializes events as JSON lines.
pub fn to_json_lines(events: &[Event]) -> String {
    let mut out = String::new();
    for e in events {
        out.push_str(&serde_json::to_string(e).expect("events serialize"));
        out.push('\n');
    }
    out
}

/// FNV-1a hash over the events' bincode form: equal hashes mean identical histories.
pub fn hash(events: &[Event]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut buf = Vec::new();
    for e in events {
        buf.clear();
        bincode::serialize_into(&mut buf, e).expect("events serialize");
        for &b in &buf {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
