//! **Assigns to an unregistered reader**: splits handed back after a reader failed are
//! assigned straight back to that reader, before its next attempt has registered.
//!
//! Story: FLINK-20261 (and apache/flink PR #19250, GoogleCloudDataproc/flink-bigquery-connector
//! PR #305): enumerators assigned splits to readers that had failed or not registered yet;
//! the splits were stranded and never read.
//!
//! Caught by: `liveness` — connsim's coordinator refuses the assignment (as Flink's does)
//! and fails the job with a message naming the splits and the reader, instead of losing
//! them silently. Any region failover of a reader that owned splits finds it.

use super::buggy_log_source::{BuggyEnumerator, LogBug};
use crate::log_source::LogSplit;
use connsim::api::EnumeratorContext;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct AssignsUnregistered;

impl LogBug for AssignsUnregistered {
    const NAME: &'static str = "assigns-unregistered";
    fn add_splits_back(
        &self,
        _e: &mut BuggyEnumerator<Self>,
        splits: Vec<LogSplit>,
        subtask: usize,
        ctx: &mut EnumeratorContext<LogSplit>,
    ) {
        ctx.assign_splits(subtask, splits); // the bug: that reader is gone until it registers again
    }
}
