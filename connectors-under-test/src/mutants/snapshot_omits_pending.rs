//! **Snapshot omits unassigned splits**: the enumerator's checkpoint holds only what it has
//! assigned, not the splits it discovered (or got back) and has not handed out yet.
//!
//! Story: FLIP-27 defines the enumerator's state as the unassigned splits plus those assigned
//! since the last checkpoint; enumerators that checkpoint only their assignments lose every
//! split waiting for a reader when the job restores from that checkpoint.
//!
//! Caught by: `split-accounting` — a split waiting in the enumerator at a checkpoint is in
//! no place in that completed checkpoint ("vanished"); and `no-loss` once a global,
//! job-master or rescale restore starts from it. Splits wait in the enumerator while their
//! reader is restarting, so the failure cases find it.

use super::buggy_log_source::LogBug;
use crate::log_source::LogEnumState;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SnapshotOmitsPending;

impl LogBug for SnapshotOmitsPending {
    const NAME: &'static str = "snapshot-omits-pending";
    fn enumerator_snapshot(&self, mut state: LogEnumState) -> LogEnumState {
        state.pending.clear(); // the bug: waiting splits are not part of the checkpoint
        state
    }
}
