//! **Stale reader snapshot**: the reader's snapshot reports each split's position from
//! before the last records it emitted.
//!
//! Story: Flink's `RecordEmitter` contract says the split state must advance with every
//! emitted record; readers that update the position only when a fetch completes, or copy
//! the state before emitting, checkpoint a position behind what downstream already has.
//! After a restore those records are read and written again.
//!
//! Caught by: `no-duplicates` (exactly-once sinks) after any restore from a checkpoint
//! taken while a split was being read.

use super::buggy_log_source::LogBug;
use crate::log_source::LogSplit;

/// How far behind the reported position is (one fetch).
const BEHIND: u64 = 8;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct StaleReaderSnapshot;

impl LogBug for StaleReaderSnapshot {
    const NAME: &'static str = "stale-reader-snapshot";
    fn reader_snapshot(&self, splits: Vec<LogSplit>) -> Vec<LogSplit> {
        splits
            .into_iter()
            .map(|mut s| {
                s.offset = s.offset.saturating_sub(BEHIND); // the bug: the position before the last batch
                s
            })
            .collect()
    }
}
