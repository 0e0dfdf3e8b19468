//! **No `NoMoreSplits` after restore**: a bounded enumerator restored from a checkpoint
//! assigns its splits but never tells the readers that no more will come.
//!
//! Story: FLINK-31006 (apache/flink-connector-kafka PR #318): a restored bounded Kafka
//! enumerator never signalled no-more-splits, so readers waited for ever and the job never
//! finished.
//!
//! Caught by: `liveness` ("the bounded job did not finish") after any restore of the
//! enumerator: a global failover, a job-master failover, a rescale, a savepoint.

use super::buggy_log_source::{BuggyEnumerator, LogBug};
use crate::log_source::LogSplit;
use connsim::api::{EnumeratorContext, SplitEnumerator};

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct NoMoreSplitsAfterRestore;

impl LogBug for NoMoreSplitsAfterRestore {
    const NAME: &'static str = "no-more-splits-after-restore";
    fn add_reader(&self, e: &mut BuggyEnumerator<Self>, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        if e.restored {
            e.inner.assign_pending_signalling(ctx, false); // the bug: no signal once restored
        } else {
            e.inner.add_reader(subtask, ctx);
        }
    }
    fn add_splits_back(
        &self,
        e: &mut BuggyEnumerator<Self>,
        splits: Vec<LogSplit>,
        subtask: usize,
        ctx: &mut EnumeratorContext<LogSplit>,
    ) {
        if e.restored {
            e.inner.take_back(splits);
            e.inner.assign_pending_signalling(ctx, false);
        } else {
            e.inner.add_splits_back(splits, subtask, ctx);
        }
    }
}
