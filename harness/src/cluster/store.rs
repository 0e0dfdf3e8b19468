//! Durable checkpoint storage, outside every node: it survives any crash.

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
    /// Global committables not yet committed (`Vec<(CheckpointId, GlobalCommittable)>`), when
    /// the sink has a global committer.
    pub global: Vec<u8>,
}

/// Where completed checkpoints are kept.
#[derive(Clone, Default)]
pub struct CheckpointStore {
    latest: Arc<Mutex<Option<CompletedCheckpoint>>>,
}

impl CheckpointStore {
    /// Stores a completed checkpoint as the latest.
    pub fn put(&self, cp: CompletedCheckpoint) {
        *self.latest.lock().unwrap() = Some(cp);
    }
    /// The latest completed checkpoint.
    pub fn latest(&self) -> Option<CompletedCheckpoint> {
        self.latest.lock().unwrap().clone()
    }
}
