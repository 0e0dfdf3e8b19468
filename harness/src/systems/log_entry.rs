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

use crate::record::{DigestBuilder, Extras, Record, RecordId, Seen};
use serde::{Deserialize, Serialize};

/// One header of a log entry (Kafka's record header: a string key, a nullable value); the
/// same as a [`Record`]'s.
pub type LogHeader = crate::record::Header;

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

/// connsim's layout for a [`Record`] on a log: the key as 8 big-endian bytes (null for a
/// null key); the value as the record id (8 big-endian bytes) followed by the payload; the
/// event time as the timestamp; the record's headers. A tombstone's value is null, so its id
/// rides in one more header after the record's own, [`RecordLogFormat::TOMBSTONE_ID`].
#[derive(Clone, Copy, Debug, Default)]
pub struct RecordLogFormat;

/// A record as [`RecordLogFormat`] reads it from an entry.
struct Parts<'a> {
    id: RecordId,
    /// The key: null, a record's, or bytes no record's key encodes to.
    key: Result<Option<u64>, &'a [u8]>,
    payload: Option<&'a [u8]>,
    headers: &'a [LogHeader],
}

impl RecordLogFormat {
    /// The header that carries a tombstone's record id (8 big-endian bytes), last.
    pub const TOMBSTONE_ID: &'static str = "connsim.id";

    /// Serializes `record`.
    pub fn encode(record: &Record) -> LogEntry {
        let extras = record.extras();
        let value = (!extras.null_value).then(|| {
            let mut value = Vec::with_capacity(8 + record.payload.len());
            value.extend_from_slice(&record.id.0.to_be_bytes());
            value.extend_from_slice(&record.payload);
            value
        });
        let mut headers = extras.headers.clone();
        if extras.null_value {
            headers.push(LogHeader { key: Self::TOMBSTONE_ID.into(), value: Some(record.id.0.to_be_bytes().to_vec()) });
        }
        LogEntry {
            key: (!extras.null_key).then(|| record.key.to_be_bytes().to_vec()),
            value,
            headers,
            timestamp_ms: record.event_time_ms,
        }
    }

    /// Deserializes what [`RecordLogFormat::encode`] wrote, or says what is wrong with it.
    pub fn decode(entry: &LogEntry) -> Result<Record, String> {
        let p = Self::parts(entry)?;
        Self::record_key(&p)?;
        Ok(Self::record(&p, p.payload.unwrap_or_default().to_vec(), entry.timestamp_ms))
    }

    /// [`RecordLogFormat::decode`] of an entry the caller owns: the value's bytes become the
    /// payload without a copy (a consumer's per-record path).
    pub fn into_record(mut entry: LogEntry) -> Result<Record, String> {
        let p = Self::parts(&entry)?;
        Self::record_key(&p)?;
        let mut record = Self::record(&p, Vec::new(), entry.timestamp_ms);
        if let Some(mut payload) = entry.value.take() {
            payload.drain(..8);
            record.payload = payload;
        }
        Ok(record)
    }

    /// The record's key, or why the entry's is none.
    fn record_key(p: &Parts<'_>) -> Result<Option<u64>, String> {
        p.key.map_err(|k| format!("the key has {} bytes, not 8", k.len()))
    }

    fn record(p: &Parts<'_>, payload: Vec<u8>, timestamp_ms: i64) -> Record {
        let key = p.key.unwrap_or(None);
        let extras = Extras { null_key: key.is_none(), null_value: p.payload.is_none(), headers: p.headers.to_vec() };
        let extras = (!extras.is_empty()).then(|| Box::new(extras));
        Record { id: p.id, key: key.unwrap_or(0), event_time_ms: timestamp_ms, payload, extras }
    }

    fn parts(entry: &LogEntry) -> Result<Parts<'_>, String> {
        let key = match entry.key.as_deref() {
            Some(k) => <[u8; 8]>::try_from(k).map(|k| Some(u64::from_be_bytes(k))).map_err(|_| k),
            None => Ok(None),
        };
        let Some(value) = entry.value.as_deref() else {
            let tombstone = match entry.headers.split_last() {
                Some((last, rest)) if last.key == Self::TOMBSTONE_ID => Some((last, rest)),
                _ => None,
            };
            let (last, headers) = tombstone.ok_or_else(|| {
                format!("the value is null and no {} header (a tombstone's record id) comes last", Self::TOMBSTONE_ID)
            })?;
            let id = last.value.as_deref().and_then(|v| <[u8; 8]>::try_from(v).ok()).ok_or_else(|| {
                format!("the {} header does not hold 8 bytes (a tombstone's record id)", Self::TOMBSTONE_ID)
            })?;
            return Ok(Parts { id: RecordId(u64::from_be_bytes(id)), key, payload: None, headers });
        };
        let (id, payload) = value
            .split_first_chunk::<8>()
            .ok_or_else(|| format!("the value has {} bytes, fewer than the 8 of a record id", value.len()))?;
        Ok(Parts { id: RecordId(u64::from_be_bytes(*id)), key, payload: Some(payload), headers: &entry.headers })
    }
}

impl LogFormat for RecordLogFormat {
    fn entry(&self, record: &Record) -> LogEntry {
        Self::encode(record)
    }
    fn seen(&self, entry: &LogEntry) -> Result<Seen, String> {
        let p = Self::parts(entry)?;
        let mut digest = DigestBuilder::new(p.key.unwrap_or(None).unwrap_or(0), entry.timestamp_ms);
        match p.payload {
            Some(payload) => digest.bytes(payload),
            None => digest.null_value(),
        }
        match p.key {
            Ok(Some(_)) => {}
            Ok(None) => digest.null_key(),
            // A downstream reader still finds the record by its value's id; its key is wrong.
            Err(bytes) => digest.key_bytes(bytes),
        }
        digest.headers(p.headers);
        Ok(Seen { id: p.id, digest: digest.finish() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Record {
        Record::new(RecordId(7), 42, -3, b"value-42".to_vec())
    }

    fn real() -> Vec<Record> {
        let extras = |null_key, null_value, headers: &[(&str, Option<&[u8]>)]| {
            let headers = headers.iter().map(|(k, v)| LogHeader { key: k.to_string(), value: v.map(<[u8]>::to_vec) });
            Some(Box::new(Extras { null_key, null_value, headers: headers.collect() }))
        };
        vec![
            record(),
            Record { extras: extras(true, false, &[]), key: 0, ..record() },
            Record { extras: extras(false, true, &[]), payload: vec![], ..record() },
            Record {
                extras: extras(true, true, &[("a", None), ("a", Some(&[0, 255]))]),
                key: 0,
                payload: vec![],
                ..record()
            },
            Record {
                extras: extras(false, false, &[("trace", Some(b"t")), (RecordLogFormat::TOMBSTONE_ID, None)]),
                ..record()
            },
        ]
    }

    #[test]
    fn a_record_reads_back_whole_and_with_its_digest() {
        for r in real() {
            let entry = RecordLogFormat::encode(&r);
            assert_eq!(RecordLogFormat::decode(&entry).unwrap(), r);
            assert_eq!(RecordLogFormat::into_record(entry.clone()).unwrap(), r);
            assert_eq!(RecordLogFormat.seen(&entry).unwrap(), Seen::of(&r));
            let wire: LogEntry = bincode::deserialize(&bincode::serialize(&entry).unwrap()).unwrap();
            assert_eq!(wire, entry);
        }
    }

    #[test]
    fn nulls_and_headers_are_the_entrys_own() {
        let [_, null_key, tombstone, both, _] = &real()[..] else { unreachable!() };
        let e = RecordLogFormat::encode(null_key);
        assert_eq!((e.key, e.value.is_some(), e.headers.len()), (None, true, 0));
        let e = RecordLogFormat::encode(tombstone);
        assert_eq!((e.key.is_some(), e.value, e.headers.len()), (true, None, 1), "the id rides in the last header");
        let e = RecordLogFormat::encode(both);
        assert_eq!(e.headers.iter().map(|h| h.key.as_str()).collect::<Vec<_>>(), ["a", "a", "connsim.id"]);
        // What a downstream reader sees names the field a sink changed.
        let mut dropped = RecordLogFormat::encode(&real()[4]);
        dropped.headers.clear();
        let fields =
            crate::record::Field::differing(RecordLogFormat.seen(&dropped).unwrap().digest, real()[4].digest());
        assert_eq!(fields, [crate::record::Field::Headers]);
        let mut text_key = RecordLogFormat::encode(null_key);
        text_key.key = Some(b"<null>".to_vec());
        let fields =
            crate::record::Field::differing(RecordLogFormat.seen(&text_key).unwrap().digest, null_key.digest());
        assert_eq!(fields, [crate::record::Field::Key]);
    }

    #[test]
    fn entries_that_are_not_records_say_what_is_wrong() {
        let mut entry = RecordLogFormat::encode(&record());
        entry.key = Some(vec![1, 2]);
        assert_eq!(RecordLogFormat::decode(&entry).unwrap_err(), "the key has 2 bytes, not 8");
        assert_eq!(RecordLogFormat::into_record(entry.clone()).unwrap_err(), "the key has 2 bytes, not 8");
        let seen = RecordLogFormat.seen(&entry).unwrap();
        assert_eq!(crate::record::Field::differing(seen.digest, record().digest()), [crate::record::Field::Key]);
        let mut entry = RecordLogFormat::encode(&record());
        entry.value = Some(vec![0; 5]);
        assert!(RecordLogFormat.seen(&entry).unwrap_err().contains("5 bytes, fewer than the 8"));
        entry.value = None;
        let no_id = "the value is null and no connsim.id header (a tombstone's record id) comes last";
        assert_eq!(RecordLogFormat.seen(&entry).unwrap_err(), no_id);
        assert_eq!(RecordLogFormat::decode(&entry).unwrap_err(), no_id);
        entry.headers.push(LogHeader { key: RecordLogFormat::TOMBSTONE_ID.into(), value: Some(vec![1]) });
        assert!(RecordLogFormat::into_record(entry).unwrap_err().contains("does not hold 8 bytes"));
    }
}
