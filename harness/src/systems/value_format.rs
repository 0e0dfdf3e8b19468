//! What a key-value store's values and a table's rows hold: bytes, as the real systems do.
//!
//! A connector's serializer makes them; a downstream reader decodes them. A [`ValueFormat`]
//! is the test's side of that contract: how a downstream reader turns one value back into the
//! test record's id and content, which is what `no-corruption` judges. A value it cannot
//! decode is visible garbage, named by the output and the row.
//!
//! [`RecordValueFormat`] is connsim's own layout for its [`Record`]: what a connector of
//! `Record` elements writes when it has no serializer of its own.

use crate::record::{DigestBuilder, Extras, Record, RecordId, Seen};

/// How a downstream reader decodes one value (a key-value store's value, a table's row).
pub trait ValueFormat: Send + Sync + 'static {
    /// The record id and content digest `value` carries, or why it carries none (the report
    /// shows it as visible garbage).
    fn seen(&self, value: &[u8]) -> Result<Seen, String>;
}

/// connsim's layout for a [`Record`] as one value: the id, the key and the event time as 8
/// big-endian bytes each; a flags byte (1: the key is null, 2: the value is null, 4:
/// headers follow); the headers, when there are any, as a 4-byte count and per header its
/// name's length (4 bytes) and name, then its value's length (4 bytes, `u32::MAX` for null)
/// and value; then the payload. Every length is big-endian.
#[derive(Clone, Copy, Debug, Default)]
pub struct RecordValueFormat;

const NULL_KEY: u8 = 1;
const NULL_VALUE: u8 = 2;
const HEADERS: u8 = 4;

impl RecordValueFormat {
    /// Serializes `record`.
    pub fn encode(record: &Record) -> Vec<u8> {
        let e = record.extras();
        let mut bytes = Vec::with_capacity(25 + record.payload.len());
        bytes.extend_from_slice(&record.id.0.to_be_bytes());
        bytes.extend_from_slice(&record.key.to_be_bytes());
        bytes.extend_from_slice(&record.event_time_ms.to_be_bytes());
        let flags = [(e.null_key, NULL_KEY), (e.null_value, NULL_VALUE), (!e.headers.is_empty(), HEADERS)];
        bytes.push(flags.iter().filter(|(on, _)| *on).map(|(_, bit)| bit).sum());
        if !e.headers.is_empty() {
            bytes.extend_from_slice(&(e.headers.len() as u32).to_be_bytes());
            for h in &e.headers {
                bytes.extend_from_slice(&(h.key.len() as u32).to_be_bytes());
                bytes.extend_from_slice(h.key.as_bytes());
                match &h.value {
                    Some(v) => {
                        bytes.extend_from_slice(&(v.len() as u32).to_be_bytes());
                        bytes.extend_from_slice(v);
                    }
                    None => bytes.extend_from_slice(&u32::MAX.to_be_bytes()),
                }
            }
        }
        bytes.extend_from_slice(&record.payload);
        bytes
    }

    /// Deserializes what [`RecordValueFormat::encode`] wrote, or says what is wrong with it.
    pub fn decode(value: &[u8]) -> Result<Record, String> {
        let (id, key, event_time_ms, extras, payload) = Self::parts(value)?;
        let extras = (!extras.is_empty()).then(|| Box::new(extras));
        Ok(Record { id, key, event_time_ms, payload: payload.to_vec(), extras })
    }

    fn parts(value: &[u8]) -> Result<(RecordId, u64, i64, Extras, &[u8]), String> {
        let short = || format!("{} bytes, fewer than the 25 of a record's id, key, event time and flags", value.len());
        let (id, rest) = value.split_first_chunk::<8>().ok_or_else(short)?;
        let (key, rest) = rest.split_first_chunk::<8>().ok_or_else(short)?;
        let (time, rest) = rest.split_first_chunk::<8>().ok_or_else(short)?;
        let (&flags, mut rest) = rest.split_first().ok_or_else(short)?;
        if flags & !(NULL_KEY | NULL_VALUE | HEADERS) != 0 {
            return Err(format!("the flags byte is {flags:#04x}, with bits no record sets"));
        }
        let mut extras =
            Extras { null_key: flags & NULL_KEY != 0, null_value: flags & NULL_VALUE != 0, ..Extras::default() };
        let cut = |rest: &mut &[u8], n: usize| -> Result<Vec<u8>, String> {
            let piece = rest.get(..n).ok_or("a header runs past the value's end")?.to_vec();
            *rest = &rest[n..];
            Ok(piece)
        };
        let len = |rest: &mut &[u8]| -> Result<u32, String> {
            Ok(u32::from_be_bytes(cut(rest, 4)?.try_into().expect("4 bytes")))
        };
        if flags & HEADERS != 0 {
            for _ in 0..len(&mut rest)? {
                let n = len(&mut rest)?;
                let key = String::from_utf8(cut(&mut rest, n as usize)?).map_err(|_| "a header name is not UTF-8")?;
                let value = match len(&mut rest)? {
                    u32::MAX => None,
                    n => Some(cut(&mut rest, n as usize)?),
                };
                extras.headers.push(crate::record::Header { key, value });
            }
            if extras.headers.is_empty() {
                return Err("the flags say headers follow, and there are none".into());
            }
        }
        if extras.null_value && !rest.is_empty() {
            return Err(format!("the value is null and {} bytes of payload follow", rest.len()));
        }
        Ok((RecordId(u64::from_be_bytes(*id)), u64::from_be_bytes(*key), i64::from_be_bytes(*time), extras, rest))
    }
}

impl ValueFormat for RecordValueFormat {
    fn seen(&self, value: &[u8]) -> Result<Seen, String> {
        let (id, key, time, extras, payload) = Self::parts(value)?;
        let mut digest = DigestBuilder::new(key, time);
        digest.bytes(payload);
        digest.extras(&extras);
        Ok(Seen { id, digest: digest.finish() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_whole_and_with_its_digest_and_a_short_value_says_so() {
        let plain = Record::new(RecordId(9), 3, -5, b"value-3".to_vec());
        let headers = vec![
            crate::record::Header { key: "a".into(), value: None },
            crate::record::Header { key: "a".into(), value: Some(vec![0, 0xff]) },
        ];
        let real = Record {
            extras: Some(Box::new(Extras { null_key: true, null_value: true, headers })),
            payload: vec![],
            ..plain.clone()
        };
        for record in [plain.clone(), real] {
            let bytes = RecordValueFormat::encode(&record);
            assert_eq!(RecordValueFormat::decode(&bytes).unwrap(), record);
            assert_eq!(RecordValueFormat.seen(&bytes).unwrap(), Seen::of(&record));
        }
        let bytes = RecordValueFormat::encode(&plain);
        let short = RecordValueFormat.seen(&bytes[..20]).unwrap_err();
        assert_eq!(short, "20 bytes, fewer than the 25 of a record's id, key, event time and flags");
        let mut odd = bytes.clone();
        odd[24] = 8;
        assert!(RecordValueFormat.seen(&odd).unwrap_err().contains("bits no record sets"));
    }
}
