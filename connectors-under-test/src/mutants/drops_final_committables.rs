//! **End-of-input committables dropped**: at the end of a bounded input the writer drops
//! what it still holds instead of handing it to the final checkpoint.
//!
//! Story: FLINK-26403 (apache/flink PR #18938) and FLINK-34117 — the committables of the
//! final checkpoint at end of input were never committed, so a bounded job finished without
//! its last records.
//!
//! Caught by: `no-loss` on every bounded run: the records after the last regular checkpoint
//! never become visible.

use super::buggy_file_sink::FileBug;
use crate::file_sink::FileWriter;
use connsim::ConnectorError;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DropsFinalCommittables;

impl FileBug for DropsFinalCommittables {
    const NAME: &'static str = "drops-final-committables";
    async fn flush(&self, w: &mut FileWriter, end_of_input: bool) -> Result<(), ConnectorError> {
        if end_of_input {
            // The bug: the last buffer and the open file are dropped, not prepared.
            w.buffer.clear();
            w.buffered = 0;
            w.file = None;
            return Ok(());
        }
        connsim::api::SinkWriter::flush(w, false).await
    }
}
