//! **Resets to the end of the partition when its position is gone**: a reader whose fetch is
//! answered `OffsetOutOfRange` (retention deleted its position) seeks to the partition's end
//! offset instead of its log start, skipping every record retention has not deleted yet.
//!
//! Story: Kafka's `auto.offset.reset=latest` is the classic silent data loss of Kafka
//! consumers: after a long outage or a restore from an old checkpoint, the consumer's
//! position has been deleted, and "latest" skips the backlog that is still there (Flink's
//! Kafka source leaves the reset strategy to the user's `OffsetsInitializer`; the
//! flink-connector-kafka docs warn about exactly this case). Here the reader looks up the
//! wrong end of the partition. It is harmless until a reader falls behind retention: only
//! then is its position out of range, and every other case passes.
//!
//! Caught by: `no-loss` in "the source falls behind retention" (records the log still had
//! when the reader was told its position was gone never reach the output).

use super::buggy_log_source::LogBug;
use crate::log_source::{LogSource, OffsetReset};

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ResetsToLatest;

impl LogBug for ResetsToLatest {
    const NAME: &'static str = "resets-to-latest";
    fn source(&self, source: LogSource) -> LogSource {
        LogSource { on_out_of_range: OffsetReset::Latest, ..source } // the bug
    }
}
