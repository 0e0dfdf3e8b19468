//! Records: the unit the checker accounts for.
//!
//! Every record carries a [`RecordId`] that is unique within a run, so the
//! checks can say exactly which record was lost, duplicated or invented.

use serde::{Deserialize, Serialize};

/// Identity of one produced record, unique within a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RecordId(pub u64);

impl std::fmt::Display for RecordId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// One record flowing from a source system through a connector into a sink system.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Unique identity, assigned when the record was produced.
    pub id: RecordId,
    /// Partitioning key.
    pub key: u64,
    /// Event time in milliseconds.
    pub event_time_ms: i64,
    /// Opaque payload.
    pub payload: Vec<u8>,
}

impl Record {
    /// Encodes the record as one JSON line (the harness's file format, see [`Record::decode_lines`]).
    pub fn encode_line(&self) -> Vec<u8> {
        let mut line = serde_json::to_vec(self).expect("records always serialize");
        line.push(b'\n');
        line
    }

    /// Decodes JSON lines written by [`Record::encode_line`]; a line that does not decode
    /// is returned as an error with its index, so a corrupt file is evidence, not a panic.
    pub fn decode_lines(bytes: &[u8]) -> Result<Vec<Record>, String> {
        bytes
            .split(|b| *b == b'\n')
            .enumerate()
            .filter(|(_, line)| !line.is_empty())
            .map(|(i, line)| {
                serde_json::from_slice(line).map_err(|e| format!("line {i} is not a record: {e}"))
            })
            .collect()
    }
}
