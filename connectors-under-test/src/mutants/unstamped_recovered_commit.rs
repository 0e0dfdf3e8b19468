//! **Recovered snapshots committed without their checkpoint id**: on restore, the table
//! sink's global committer commits the recovered global committables as catch-up snapshots
//! that keep the table's previous checkpoint stamp, leaving the next regular commit to
//! advance it.
//!
//! Story: Iceberg's Flink committer recognises a commit that already happened only by the
//! checkpoint id stamped in the snapshot summary (`flink.max-committed-checkpoint-id`); a
//! recovery path that commits without writing it (a replace or fast-append that builds its
//! summary elsewhere) is harmless as long as a regular commit follows. A committer task
//! that dies inside that recovered commit comes back to a table whose stamp says the
//! snapshot was never committed, and commits the same data files again.
//!
//! Caught by: `no-duplicates`, in the case that crashes at every two-phase-commit phase,
//! where the global committer's task executor crashes inside the commit of what it
//! recovered ([`Phase::InsideRecoveredCommit`]).
//!
//! [`Phase::InsideRecoveredCommit`]: connsim::cluster::Phase::InsideRecoveredCommit

use super::buggy_table_sink::TableBug;
use connsim::history::CheckpointId;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct UnstampedRecoveredCommit;

impl TableBug for UnstampedRecoveredCommit {
    const NAME: &'static str = "unstamped-recovered-commit";
    fn stamp(&self, checkpoint: CheckpointId, recovered: bool, current: CheckpointId) -> CheckpointId {
        if recovered {
            current // the bug: the stamp stays where it was
        } else {
            checkpoint
        }
    }
}
