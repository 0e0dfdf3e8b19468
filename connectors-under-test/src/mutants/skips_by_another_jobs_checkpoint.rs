//! **Commits skipped by another job's checkpoint id**: the table sink's global committer
//! takes the checkpoint id stamped on the table's latest snapshot, whichever job committed
//! it, for what is already committed.
//!
//! Story: a sink that recognises its own commits only by the checkpoint id it stamps in the
//! external system (a fixed transaction application id, or Iceberg's
//! `flink.max-committed-checkpoint-id` read without the `flink.job-id` beside it). Across
//! failovers and restores of one job the ids only grow, and it is right. A new job numbers
//! its checkpoints again: started without state from 1, or from an older savepoint on from
//! that savepoint's id. Each commit of the new job at or below the last job's highest id is
//! taken for one already done, and its data never becomes visible.
//!
//! Caught by: `no-loss`, only where a new job starts without state or from an older
//! savepoint: every other case passes.

use super::buggy_table_sink::TableBug;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SkipsByAnotherJobsCheckpoint;

impl TableBug for SkipsByAnotherJobsCheckpoint {
    const NAME: &'static str = "skips-by-another-jobs-checkpoint";
    fn by_job(&self) -> bool {
        false // the bug: the latest snapshot's checkpoint, whichever job stamped it
    }
}
