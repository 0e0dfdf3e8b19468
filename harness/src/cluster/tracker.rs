//! Which splits went to which subtask since the last completed checkpoint (Flink's
//! `SplitAssignmentTracker`): after a region failover exactly these go back to the enumerator.

use crate::history::CheckpointId;
use std::collections::BTreeMap;

/// Assignments not yet covered by a completed checkpoint.
pub(crate) struct AssignmentTracker<S> {
    /// Assignments made after the enumerator's last snapshot.
    current: BTreeMap<usize, Vec<S>>,
    /// Assignments made before the snapshot of each pending (not yet completed) checkpoint.
    by_checkpoint: BTreeMap<CheckpointId, BTreeMap<usize, Vec<S>>>,
}

impl<S> AssignmentTracker<S> {
    pub fn new() -> Self {
        Self { current: BTreeMap::new(), by_checkpoint: BTreeMap::new() }
    }

    pub fn record(&mut self, subtask: usize, splits: impl IntoIterator<Item = S>) {
        self.current.entry(subtask).or_default().extend(splits);
    }

    /// The enumerator was snapshotted for `checkpoint`.
    pub fn snapshot(&mut self, checkpoint: CheckpointId) {
        self.by_checkpoint.insert(checkpoint, std::mem::take(&mut self.current));
    }

    /// `checkpoint` completed: its assignments are now in the readers' checkpointed state.
    pub fn complete(&mut self, checkpoint: CheckpointId) {
        self.by_checkpoint.retain(|&c, _| c > checkpoint);
    }

    /// Removes and returns everything assigned to `subtask` since the last completed checkpoint.
    pub fn take_uncheckpointed(&mut self, subtask: usize) -> Vec<S> {
        let mut out = Vec::new();
        for per_subtask in self.by_checkpoint.values_mut() {
            out.extend(per_subtask.remove(&subtask).unwrap_or_default());
        }
        out.extend(self.current.remove(&subtask).unwrap_or_default());
        out
    }

    /// Forgets everything (global failover restores the enumerator itself).
    pub fn reset(&mut self) {
        self.current.clear();
        self.by_checkpoint.clear();
    }
}
