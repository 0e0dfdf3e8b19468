//! **Returned splits restart from the earliest offset**: when splits come back from a failed
//! reader, the enumerator re-initializes them from offset 0 instead of the start position
//! the source was configured with.
//!
//! Story: a source that re-applies its start position wrongly on recovery reads data it was
//! configured to skip (apache/seatunnel issue #8763: after a restart the Kafka source
//! consumed from the beginning instead of where it was; apache/flink-connector-kafka PR
//! #267 on start and reset positions being separate concerns). It only shows when a reader
//! fails before a checkpoint covered its splits, and only with a start other than earliest.
//!
//! Caught by: `no-phantoms` (records from before the split's declared start became visible)
//! with a source context that starts at an offset.

use super::buggy_log_source::{BuggyEnumerator, LogBug};
use crate::log_source::LogSplit;
use connsim::api::{EnumeratorContext, SplitEnumerator};

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct RestartsReturnedSplits;

impl LogBug for RestartsReturnedSplits {
    const NAME: &'static str = "restarts-returned-splits";
    fn add_splits_back(
        &self,
        e: &mut BuggyEnumerator<Self>,
        splits: Vec<LogSplit>,
        subtask: usize,
        ctx: &mut EnumeratorContext<LogSplit>,
    ) {
        let reset = splits.into_iter().map(|s| LogSplit { offset: 0, ..s }).collect(); // the bug
        e.inner.add_splits_back(reset, subtask, ctx)
    }
}
