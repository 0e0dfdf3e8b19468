//! What a partition of the log holds: bytes, as a Kafka broker stores a record.
//!
//! A log entry is a key and a value (either may be null), headers and a timestamp; the
//! broker never looks inside them. A connector's serializer makes the entries it produces,
//! its deserializer reads the entries it fetches. A topic's [`LogFormat`] is the test's side
//! of that contract: how an upstream producer writes a test record into the topic, and how a
//! downstream consumer decodes an entry back into the record's id and content, which is what
//! `no-corruption` and the other checks judge. Bytes the format cannot decode in a topic
//! read as output are visible garbage, named by topic, partition and offset.
//!
//! [`RecordLogFormat`] is connsim's own layout for its [`Record`]: what a connector of
//! `Record` elements writes when it has no serializer of its own.

use crate::record::{DigestBuilder, Record, RecordId, Seen};
use serde::{Deserialize, Serialize};

/// One header of a log entry (Kafka's record header: a string key, a nullable value).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogHeader {
    /// Header name.
    pub key: String,
    /// Header value; `None` is a null value.
    #[serde(with = "crate::bytes::option")]
    pub value: Option<Vec<u8>>,
}

/// One entry of a log partition: what a producer sent and a consumer fetches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry {
    /// Key bytes; `None` is a null key.
    #[serde(with = "crate::bytes::option")]
    pub key: Option<Vec<u8>>,
    /// Value bytes; `None` is a null value (a tombstone).
    #[serde(with = "crate::bytes::option")]
    pub value: Option<Vec<u8>>,
    /// Headers, in the order the producer added them.
    pub headers: Vec<LogHeader>,
    /// The producer's timestamp, in milliseconds.
    pub timestamp_ms: i64,
}

/// How test records are written into a topic and read back out of it.
///
/// Declare one per topic ([`crate::systems::PartitionedLog::create_topic_with`]) when your
/// connector has its own serializer: `entry` is what an upstream producer of your source's
/// input writes, `seen` what a downstream consumer of your sink's output decodes. Both must
/// agree with your connector's serializer and deserializer as the real ones would.
pub trait LogFormat: Send + Sync + 'static {
    /// The entry an upstream producer writes for `record`.
    fn entry(&self, record: &Record) -> LogEntry;
    /// The record id and content digest a downstream consumer decodes from `entry`, or why
    /// the entry is not a record (the report shows it as visible garbage).
    fn seen(&self, entry: &LogEntry) -> Result<Seen, String>;
}

/// connsim's layout for a [`Record`] on a log: the key as 8 big-endian bytes; the value as
/// the record id (8 big-endian bytes) followed by the payload; the event time as the
/// timestamp; no headers.
#[derive(Clone, Copy, Debug, Default)]
pub struct RecordLogFormat;

impl RecordLogFormat {
    /// Serializes `record`.
    pub fn encode(record: &Record) -> LogEntry {
        let mut value = Vec::with_capacity(8 + record.payload.len());
        value.extend_from_slice(&record.id.0.to_be_bytes());
        value.extend_from_slice(&record.payload);
        LogEntry {
            key: Some(record.key.to_be_bytes().to_vec()),
            value: Some(value),
            headers: Vec::new(),
            timestamp_ms: record.event_time_ms,
        }
    }

    /// Deserializes what [`RecordLogFormat::encode`] wrote, or says what is wrong with it.
    pub fn decode(entry: &LogEntry) -> Result<Record, String> {
        let (id, key, payload) = Self::parts(entry)?;
        Ok(Record { id, key, event_time_ms: entry.timestamp_ms, payload: payload.to_vec() })
    }

    /// [`RecordLogFormat::decode`] of an entry the caller owns: the value's bytes become the
    /// payload without a copy (a consumer's per-record path).
    pub fn into_record(entry: LogEntry) -> Result<Record, String> {
        let (id, key) = Self::parts(&entry).map(|(id, key, _)| (id, key))?;
        let mut payload = entry.value.expect("parts() found a value");
        payload.drain(..8);
        Ok(Record { id, key, event_time_ms: entry.timestamp_ms, payload })
    }

    fn parts(entry: &LogEntry) -> Result<(RecordId, u64, &[u8]), String> {
        let key = match entry.key.as_deref() {
            Some(k) => <[u8; 8]>::try_from(k).map_err(|_| format!("the key has {} bytes, not 8", k.len()))?,
            None => return Err("the key is null".into()),
        };
        let value = entry.value.as_deref().ok_or("the value is null")?;
        let (id, payload) = value
            .split_first_chunk::<8>()
            .ok_or_else(|| format!("the value has {} bytes, fewer than the 8 of a record id", value.len()))?;
        Ok((RecordId(u64::from_be_bytes(*id)), u64::from_be_bytes(key), payload))
    }
}

impl LogFormat for RecordLogFormat {
    fn entry(&self, record: &Record) -> LogEntry {
        Self::encode(record)
    }
    fn seen(&self, entry: &LogEntry) -> Result<Seen, String> {
        let (id, key, payload) = Self::parts(entry)?;
        let mut digest = DigestBuilder::new(key, entry.timestamp_ms);
        digest.bytes(payload);
        Ok(Seen { id, digest: digest.finish() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Record {
        Record { id: RecordId(7), key: 42, event_time_ms: -3, payload: b"value-42".to_vec() }
    }

    #[test]
    fn a_record_reads_back_whole_and_with_its_digest() {
        let entry = RecordLogFormat::encode(&record());
        assert_eq!(RecordLogFormat::decode(&entry).unwrap(), record());
        assert_eq!(RecordLogFormat::into_record(entry.clone()).unwrap(), record());
        assert_eq!(RecordLogFormat.seen(&entry).unwrap(), Seen::of(&record()));
        let wire: LogEntry = bincode::deserialize(&bincode::serialize(&entry).unwrap()).unwrap();
        assert_eq!(wire, entry);
    }

    #[test]
    fn entries_that_are_not_records_say_what_is_wrong() {
        let mut entry = RecordLogFormat::encode(&record());
        entry.key = Some(vec![1, 2]);
        assert_eq!(RecordLogFormat.seen(&entry).unwrap_err(), "the key has 2 bytes, not 8");
        entry.key = None;
        assert_eq!(RecordLogFormat::decode(&entry).unwrap_err(), "the key is null");
        assert_eq!(RecordLogFormat::into_record(entry.clone()).unwrap_err(), "the key is null");
        let mut entry = RecordLogFormat::encode(&record());
        entry.value = Some(vec![0; 5]);
        assert!(RecordLogFormat.seen(&entry).unwrap_err().contains("5 bytes, fewer than the 8"));
        entry.value = None;
        assert_eq!(RecordLogFormat.seen(&entry).unwrap_err(), "the value is null");
    }
}
