//! Durable job storage, outside every node: it survives any crash, including the job
//! master's. It holds the latest completed checkpoint and what Flink keeps in its
//! high-availability services: the leader epoch (so a new job-master incarnation fences the
//! old one's attempts), the checkpoint-id counter (ids are never reused) and the job's
//! parallelism (changed by a rescale).

use super::protocol::SubtaskState;
use crate::history::CheckpointId;
use std::sync::{Arc, Mutex};

/// One completed checkpoint.
#[derive(Clone, Debug)]
pub struct CompletedCheckpoint {
    /// Its id.
    pub id: CheckpointId,
    /// The enumerator's state (serialized `Source::EnumState`).
    pub enumerator: Vec<u8>,
    /// Per subtask, in subtask order.
    pub subtasks: Vec<SubtaskState>,
    /// How many of the subtasks had a reader (the rest only a writer).
    pub readers: usize,
    /// How many of the subtasks had a writer (the rest only a reader).
    pub writers: usize,
    /// Global committables not yet committed (`Vec<(CheckpointId, GlobalCommittable)>`), when
    /// the sink has a global committer.
    pub global: Vec<u8>,
    /// Taken as a savepoint (stop-with-savepoint).
    pub savepoint: bool,
}

#[derive(Default)]
struct Durable {
    latest: Option<CompletedCheckpoint>,
    epoch: u64,
    last_checkpoint_id: CheckpointId,
    parallelism: Option<usize>,
}

/// Where completed checkpoints and the job's durable coordinates are kept.
#[derive(Clone, Default)]
pub struct CheckpointStore {
    inner: Arc<Mutex<Durable>>,
}

impl CheckpointStore {
    /// Stores a completed checkpoint as the latest.
    pub fn put(&self, cp: CompletedCheckpoint) {
        self.inner.lock().unwrap().latest = Some(cp);
    }
    /// The latest completed checkpoint.
    pub fn latest(&self) -> Option<CompletedCheckpoint> {
        self.inner.lock().unwrap().latest.clone()
    }
    /// A job-master incarnation starts: its epoch, higher than every earlier one.
    pub fn next_epoch(&self) -> u64 {
        let mut d = self.inner.lock().unwrap();
        d.epoch += 1;
        d.epoch
    }
    /// A fresh checkpoint id, never handed out before.
    pub fn next_checkpoint_id(&self) -> CheckpointId {
        let mut d = self.inner.lock().unwrap();
        d.last_checkpoint_id += 1;
        d.last_checkpoint_id
    }
    /// The job's parallelism, when a rescale changed it from the configured one.
    pub fn parallelism(&self) -> Option<usize> {
        self.inner.lock().unwrap().parallelism
    }
    /// Sets the parallelism the next job-master incarnation runs with.
    pub fn set_parallelism(&self, p: usize) {
        self.inner.lock().unwrap().parallelism = Some(p);
    }
}
