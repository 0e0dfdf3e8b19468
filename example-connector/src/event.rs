//! The connector's own element type, and the formats it travels in.
//!
//! An [`Event`] is what the feed source emits and the staging sink takes. It reaches the
//! external systems only as bytes: the feed carries events as messages (headers, and a JSON
//! value), the store keeps what the sink's serializer wrote (a binary layout). The source's
//! deserializer and the sink's serializer are the connector's own code
//! ([`crate::source::decode_message`], [`crate::sink::encode_event`]); this module holds the
//! formats' reference codecs, which the other side of each system uses: the producer that
//! writes the feed ([`FeedMessage::produce`]) and the downstream reader of the store
//! ([`decode_stored`]). A serializer that drops a field is caught by what a downstream
//! reader decodes, not by the serializer's own opinion.
//!
//! [`EventCodec`] tells the suites how a test record and an event map onto each other.

use connsim::api::ElementCodec;
use connsim::record::RecordId;
use connsim::Record;
use serde::{Deserialize, Serialize};

/// One event: what the connector reads and writes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Unique id (the feed's `event-id` header).
    pub id: u64,
    /// The user it is about (its key).
    pub user: u64,
    /// When it happened (event time, ms).
    pub at_ms: i64,
    /// What happened.
    pub body: Vec<u8>,
}

/// Maps the suites' test records onto events and back.
#[derive(Clone, Copy, Debug, Default)]
pub struct EventCodec;

impl ElementCodec for EventCodec {
    type Element = Event;
    fn element(record: &Record) -> Event {
        Event { id: record.id.0, user: record.key, at_ms: record.event_time_ms, body: record.payload.clone() }
    }
    fn record(event: &Event) -> Result<Record, String> {
        Ok(Record {
            id: RecordId(event.id),
            key: event.user,
            event_time_ms: event.at_ms,
            payload: event.body.clone(),
            extras: None,
        })
    }
}

/// A message of the feed: headers and a value, as a Kafka-like log carries them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedMessage {
    /// Headers, in the order the producer wrote them.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The value: the event's other fields as JSON.
    pub value: Vec<u8>,
}

/// The JSON value of a feed message.
#[derive(Serialize, Deserialize)]
pub(crate) struct FeedValue {
    pub(crate) user: u64,
    pub(crate) at_ms: i64,
    pub(crate) body: String,
}

/// The header that carries the event's id.
pub const EVENT_ID: &str = "event-id";
/// The header a traced producer writes first: its trace id (decimal), not the event's.
pub const TRACE_ID: &str = "trace-id";

impl FeedMessage {
    /// How the upstream producer writes `event` to the feed: header `event-id` (decimal),
    /// the rest as JSON; a traced producer (every tenth event here) writes a `trace-id`
    /// header first.
    pub fn produce(event: &Event) -> Self {
        let mut headers = Vec::new();
        if event.id.is_multiple_of(10) {
            headers.push((TRACE_ID.to_string(), (1_000_000_000 + event.id).to_string().into_bytes()));
        }
        headers.push((EVENT_ID.to_string(), event.id.to_string().into_bytes()));
        let body = String::from_utf8(event.body.clone()).expect("the feed carries text bodies");
        let value = FeedValue { user: event.user, at_ms: event.at_ms, body };
        Self { headers, value: serde_json::to_vec(&value).expect("JSON of plain fields") }
    }
}

/// The store's binary layout, as a downstream reader of the store decodes it: `id`, `user`,
/// `at_ms` (8 bytes little-endian each), the body's length (4 bytes little-endian) and the
/// body. Anything else (short, long, a length past the end) is no event.
pub fn decode_stored(bytes: &[u8]) -> Result<Event, String> {
    let word = |at: usize| -> Result<[u8; 8], String> {
        bytes
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| format!("{} bytes: no field at {at}", bytes.len()))
    };
    let (id, user, at_ms) = (u64::from_le_bytes(word(0)?), u64::from_le_bytes(word(8)?), i64::from_le_bytes(word(16)?));
    let len = bytes.get(24..28).ok_or_else(|| format!("{} bytes: no body length", bytes.len()))?;
    let len = u32::from_le_bytes(len.try_into().expect("four bytes")) as usize;
    let body = bytes.get(28..).filter(|b| b.len() == len).ok_or_else(|| {
        format!("{} bytes: the body should be {len} bytes, {} are left", bytes.len(), bytes.len().saturating_sub(28))
    })?;
    Ok(Event { id, user, at_ms, body: body.to_vec() })
}
