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
    /// Encodes the record as one line of the harness's file format:
    /// `id<TAB>key<TAB>event_time_ms<TAB>hex(payload)<LF>` (see [`Record::decode_lines`]).
    pub fn encode_line(&self) -> Vec<u8> {
        use std::fmt::Write;
        let mut line = String::with_capacity(32 + 2 * self.payload.len());
        let _ = write!(line, "{}\t{}\t{}\t", self.id.0, self.key, self.event_time_ms);
        for b in &self.payload {
            let _ = write!(line, "{b:02x}");
        }
        line.push('\n');
        line.into_bytes()
    }

    /// Decodes lines written by [`Record::encode_line`]; a line that does not decode is
    /// returned as an error with its index, so a corrupt file is evidence, not a panic.
    pub fn decode_lines(bytes: &[u8]) -> Result<Vec<Record>, String> {
        bytes
            .split(|b| *b == b'\n')
            .enumerate()
            .filter(|(_, line)| !line.is_empty())
            .map(|(i, line)| decode_line(line).ok_or_else(|| format!("line {i} is not a record")))
            .collect()
    }
}

impl Record {
    /// Like [`Record::decode_lines`] but returns only the ids; every line is still fully
    /// validated, so a corrupt file is reported the same way.
    pub fn decode_ids(bytes: &[u8]) -> Result<Vec<RecordId>, String> {
        bytes
            .split(|b| *b == b'\n')
            .enumerate()
            .filter(|(_, line)| !line.is_empty())
            .map(|(i, line)| validate_line(line).ok_or_else(|| format!("line {i} is not a record")))
            .collect()
    }
}

/// Checks a line's shape without building the record; returns its id.
fn validate_line(line: &[u8]) -> Option<RecordId> {
    let mut fields = line.split(|b| *b == b'\t');
    let number = |f: &[u8], signed: bool| {
        let digits = if signed { f.strip_prefix(b"-").unwrap_or(f) } else { f };
        !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
    };
    let id = fields.next()?;
    let (key, time, hex) = (fields.next()?, fields.next()?, fields.next()?);
    let ok = number(id, false)
        && number(key, false)
        && number(time, true)
        && hex.len() % 2 == 0
        && hex.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && fields.next().is_none();
    ok.then(|| std::str::from_utf8(id).ok()?.parse().ok().map(RecordId)).flatten()
}

fn decode_line(line: &[u8]) -> Option<Record> {
    let line = std::str::from_utf8(line).ok()?;
    let mut fields = line.split('\t');
    let id = RecordId(fields.next()?.parse().ok()?);
    let key = fields.next()?.parse().ok()?;
    let event_time_ms = fields.next()?.parse().ok()?;
    let hex = fields.next()?.as_bytes();
    if fields.next().is_some() || hex.len() % 2 != 0 {
        return None;
    }
    let payload = hex
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    Some(Record { id, key, event_time_ms, payload })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_garbage_is_an_error() {
        let records = vec![
            Record { id: RecordId(7), key: 3, event_time_ms: -5, payload: b"a\tb\nc".to_vec() },
            Record { id: RecordId(8), key: 0, event_time_ms: 0, payload: vec![] },
        ];
        let bytes: Vec<u8> = records.iter().flat_map(Record::encode_line).collect();
        assert_eq!(Record::decode_lines(&bytes).unwrap(), records);
        let mut corrupt = bytes.clone();
        corrupt.extend_from_slice(b"9\tx\t0\t\n");
        assert_eq!(Record::decode_lines(&corrupt).unwrap_err(), "line 2 is not a record");
        assert_eq!(Record::decode_ids(&bytes).unwrap(), vec![RecordId(7), RecordId(8)]);
        assert_eq!(Record::decode_ids(&corrupt).unwrap_err(), "line 2 is not a record");
    }
}
