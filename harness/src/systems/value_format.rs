//! What a key-value store's values and a table's rows hold: bytes, as the real systems do.
//!
//! A connector's serializer makes them; a downstream reader decodes them. A [`ValueFormat`]
//! is the test's side of that contract: how a downstream reader turns one value back into the
//! test record's id and content, which is what `no-corruption` judges. A value it cannot
//! decode is visible garbage, named by the output and the row.
//!
//! [`RecordValueFormat`] is connsim's own layout for its [`Record`]: what a connector of
//! `Record` elements writes when it has no serializer of its own.

use crate::record::{DigestBuilder, Record, RecordId, Seen};

/// How a downstream reader decodes one value (a key-value store's value, a table's row).
pub trait ValueFormat: Send + Sync + 'static {
    /// The record id and content digest `value` carries, or why it carries none (the report
    /// shows it as visible garbage).
    fn seen(&self, value: &[u8]) -> Result<Seen, String>;
}

/// connsim's layout for a [`Record`] as one value: the id, the key and the event time as 8
/// big-endian bytes each, then the payload.
#[derive(Clone, Copy, Debug, Default)]
pub struct RecordValueFormat;

impl RecordValueFormat {
    /// Serializes `record`.
    pub fn encode(record: &Record) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(24 + record.payload.len());
        bytes.extend_from_slice(&record.id.0.to_be_bytes());
        bytes.extend_from_slice(&record.key.to_be_bytes());
        bytes.extend_from_slice(&record.event_time_ms.to_be_bytes());
        bytes.extend_from_slice(&record.payload);
        bytes
    }

    /// Deserializes what [`RecordValueFormat::encode`] wrote, or says what is wrong with it.
    pub fn decode(value: &[u8]) -> Result<Record, String> {
        let (id, key, event_time_ms, payload) = Self::parts(value)?;
        Ok(Record { id, key, event_time_ms, payload: payload.to_vec() })
    }

    fn parts(value: &[u8]) -> Result<(RecordId, u64, i64, &[u8]), String> {
        let short = || format!("{} bytes, fewer than the 24 of a record's id, key and event time", value.len());
        let (id, rest) = value.split_first_chunk::<8>().ok_or_else(short)?;
        let (key, rest) = rest.split_first_chunk::<8>().ok_or_else(short)?;
        let (time, payload) = rest.split_first_chunk::<8>().ok_or_else(short)?;
        Ok((RecordId(u64::from_be_bytes(*id)), u64::from_be_bytes(*key), i64::from_be_bytes(*time), payload))
    }
}

impl ValueFormat for RecordValueFormat {
    fn seen(&self, value: &[u8]) -> Result<Seen, String> {
        let (id, key, time, payload) = Self::parts(value)?;
        let mut digest = DigestBuilder::new(key, time);
        digest.bytes(payload);
        Ok(Seen { id, digest: digest.finish() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_whole_and_with_its_digest_and_a_short_value_says_so() {
        let record = Record { id: RecordId(9), key: 3, event_time_ms: -5, payload: b"value-3".to_vec() };
        let bytes = RecordValueFormat::encode(&record);
        assert_eq!(RecordValueFormat::decode(&bytes).unwrap(), record);
        assert_eq!(RecordValueFormat.seen(&bytes).unwrap(), Seen::of(&record));
        let short = RecordValueFormat.seen(&bytes[..20]).unwrap_err();
        assert_eq!(short, "20 bytes, fewer than the 24 of a record's id, key and event time");
    }
}
