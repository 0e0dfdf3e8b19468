//! The element of the reference upsert and table sinks, a [`Row`], and their serializers:
//! the upsert sink writes a row as the JSON document
//! `{"id":…,"key":…,"at_ms":…,"body":"<hex>"}` ([`encode_row`]), the table sink in a binary
//! layout ([`encode_row_binary`]). [`RowCodec`] gives the suites' test records to the sinks as
//! rows; [`JsonRowFormat`] and [`BinaryRowFormat`] are how a downstream reader of the store
//! and of the table decodes a value back.

use connsim::api::ElementCodec;
use connsim::record::{DigestBuilder, Seen};
use connsim::systems::ValueFormat;
use connsim::{Record, RecordId};
use serde::{Deserialize, Serialize};

/// One row the upsert sink writes: its primary key is `r<id>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The row's id (its primary key's number).
    pub id: u64,
    /// The business key.
    pub key: u64,
    /// When the row's event happened, in milliseconds.
    pub at_ms: i64,
    /// The row's content.
    pub body: Vec<u8>,
}

/// The JSON document of a row.
#[derive(Serialize, Deserialize)]
struct RowJson {
    id: u64,
    key: u64,
    at_ms: i64,
    /// The body in lowercase hex.
    body: String,
}

/// The upsert sink's serializer: `row` as its JSON document.
pub fn encode_row(row: &Row) -> Vec<u8> {
    let body = row.body.iter().map(|b| format!("{b:02x}")).collect();
    serde_json::to_vec(&RowJson { id: row.id, key: row.key, at_ms: row.at_ms, body }).expect("a row serializes")
}

/// Reads a row's JSON document back, or says what is wrong with it.
pub fn decode_row(bytes: &[u8]) -> Result<Row, String> {
    let json: RowJson = serde_json::from_slice(bytes).map_err(|e| format!("not a row: {e}"))?;
    let hex = json.body.as_bytes();
    if !hex.len().is_multiple_of(2) {
        return Err(format!("the body has an odd number of hex digits ({})", hex.len()));
    }
    let digit = |c: u8| (c as char).to_digit(16).ok_or_else(|| format!("{:?} is no hex digit", c as char));
    let body = hex.chunks(2).map(|p| Ok((digit(p[0])? * 16 + digit(p[1])?) as u8)).collect::<Result<_, String>>()?;
    Ok(Row { id: json.id, key: json.key, at_ms: json.at_ms, body })
}

/// The table sink's serializer: `row` as the id, the key and the time as 8 bytes
/// little-endian each, the body's length as 4, the body.
pub fn encode_row_binary(row: &Row) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(28 + row.body.len());
    bytes.extend_from_slice(&row.id.to_le_bytes());
    bytes.extend_from_slice(&row.key.to_le_bytes());
    bytes.extend_from_slice(&row.at_ms.to_le_bytes());
    bytes.extend_from_slice(&(row.body.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&row.body);
    bytes
}

/// The id, key, time and body of a binary row, or what is wrong with it.
fn binary_parts(bytes: &[u8]) -> Result<(u64, u64, i64, &[u8]), String> {
    let short = || format!("{} bytes, fewer than the 28 of a row's header", bytes.len());
    let (id, rest) = bytes.split_first_chunk::<8>().ok_or_else(short)?;
    let (key, rest) = rest.split_first_chunk::<8>().ok_or_else(short)?;
    let (at, rest) = rest.split_first_chunk::<8>().ok_or_else(short)?;
    let (len, body) = rest.split_first_chunk::<4>().ok_or_else(short)?;
    let len = u32::from_le_bytes(*len) as usize;
    if body.len() != len {
        return Err(format!("the body should be {len} bytes and is {}", body.len()));
    }
    Ok((u64::from_le_bytes(*id), u64::from_le_bytes(*key), i64::from_le_bytes(*at), body))
}

/// Reads a binary row back, or says what is wrong with it.
pub fn decode_row_binary(bytes: &[u8]) -> Result<Row, String> {
    let (id, key, at_ms, body) = binary_parts(bytes)?;
    Ok(Row { id, key, at_ms, body: body.to_vec() })
}

/// Test records as rows: the record's id, key, event time and payload.
#[derive(Clone, Copy, Debug, Default)]
pub struct RowCodec;

impl ElementCodec for RowCodec {
    type Element = Row;
    fn element(record: &Record) -> Row {
        Row { id: record.id.0, key: record.key, at_ms: record.event_time_ms, body: record.payload.clone() }
    }
    fn record(row: &Row) -> Result<Record, String> {
        Ok(Record {
            id: RecordId(row.id),
            key: row.key,
            event_time_ms: row.at_ms,
            payload: row.body.clone(),
            extras: None,
        })
    }
}

/// How a downstream reader of the store decodes a value: a row's JSON document.
#[derive(Clone, Copy, Debug, Default)]
pub struct JsonRowFormat;

impl ValueFormat for JsonRowFormat {
    fn seen(&self, value: &[u8]) -> Result<Seen, String> {
        let row = decode_row(value)?;
        let mut digest = DigestBuilder::new(row.key, row.at_ms);
        digest.bytes(&row.body);
        Ok(Seen { id: RecordId(row.id), digest: digest.finish() })
    }
}

/// How a downstream reader of the table decodes a row: the binary layout.
#[derive(Clone, Copy, Debug, Default)]
pub struct BinaryRowFormat;

impl ValueFormat for BinaryRowFormat {
    fn seen(&self, value: &[u8]) -> Result<Seen, String> {
        let (id, key, at_ms, body) = binary_parts(value)?;
        let mut digest = DigestBuilder::new(key, at_ms);
        digest.bytes(body);
        Ok(Seen { id: RecordId(id), digest: digest.finish() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_reads_back_as_the_record_it_carries_and_a_bad_document_says_why() {
        let record =
            Record { id: RecordId(5), key: 12, event_time_ms: -4, payload: b"value-12\x00\xff".to_vec(), extras: None };
        let bytes = encode_row(&RowCodec::element(&record));
        assert!(std::str::from_utf8(&bytes).unwrap().starts_with(r#"{"id":5,"key":12,"at_ms":-4,"body":""#));
        assert_eq!(RowCodec::record(&decode_row(&bytes).unwrap()).unwrap(), record);
        assert_eq!(JsonRowFormat.seen(&bytes).unwrap(), Seen::of(&record));
        assert!(JsonRowFormat.seen(b"{\"id\":1}").unwrap_err().starts_with("not a row: missing field"));
        let odd = br#"{"id":1,"key":2,"at_ms":3,"body":"abc"}"#;
        assert_eq!(JsonRowFormat.seen(odd).unwrap_err(), "the body has an odd number of hex digits (3)");
    }

    #[test]
    fn a_binary_row_reads_back_and_a_wrong_length_says_so() {
        let record = Record { id: RecordId(6), key: 1, event_time_ms: 9, payload: b"abc".to_vec(), extras: None };
        let mut bytes = encode_row_binary(&RowCodec::element(&record));
        assert_eq!(RowCodec::record(&decode_row_binary(&bytes).unwrap()).unwrap(), record);
        assert_eq!(BinaryRowFormat.seen(&bytes).unwrap(), Seen::of(&record));
        bytes.pop();
        assert_eq!(BinaryRowFormat.seen(&bytes).unwrap_err(), "the body should be 3 bytes and is 2");
        assert!(BinaryRowFormat.seen(&bytes[..10]).unwrap_err().contains("fewer than the 28"));
    }
}
