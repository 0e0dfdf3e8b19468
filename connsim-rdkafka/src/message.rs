//! `rdkafka::message`: messages, headers, timestamps, delivery results, and the byte
//! conversions of keys and payloads.

use crate::error::KafkaError;
use crate::util::millis_to_epoch;
use std::marker::PhantomData;
use std::time::SystemTime;

mod headers;

pub use headers::{BorrowedHeaders, Header, Headers, HeadersIter, OwnedHeaders};

/// A message's timestamp (`rdkafka::message::Timestamp`), in milliseconds since the epoch.
#[derive(Debug, PartialOrd, Ord, PartialEq, Eq, Clone, Copy)]
pub enum Timestamp {
    /// None given.
    NotAvailable,
    /// Set by the producer.
    CreateTime(i64),
    /// Set by the broker.
    LogAppendTime(i64),
}

impl Timestamp {
    /// Milliseconds since the epoch, `None` if not available (or -1, librdkafka's none).
    pub fn to_millis(self) -> Option<i64> {
        match self {
            Timestamp::NotAvailable | Timestamp::CreateTime(-1) | Timestamp::LogAppendTime(-1) => None,
            Timestamp::CreateTime(t) | Timestamp::LogAppendTime(t) => Some(t),
        }
    }

    /// A creation time of now (in the simulation, madsim's clock).
    pub fn now() -> Timestamp {
        Timestamp::from(SystemTime::now())
    }
}

impl From<i64> for Timestamp {
    /// A creation time.
    fn from(millis: i64) -> Timestamp {
        Timestamp::CreateTime(millis)
    }
}

impl From<SystemTime> for Timestamp {
    /// A creation time, in milliseconds since the epoch (0 before it).
    fn from(time: SystemTime) -> Timestamp {
        Timestamp::CreateTime(millis_to_epoch(time))
    }
}

/// A consumed or produced message (`rdkafka::message::Message`).
pub trait Message {
    /// The headers type.
    type Headers: Headers;

    /// The key, if any.
    fn key(&self) -> Option<&[u8]>;

    /// The payload, if any.
    fn payload(&self) -> Option<&[u8]>;

    /// The payload, writable.
    ///
    /// # Safety
    ///
    /// librdkafka does not promise that writing a message's payload is safe; in the
    /// simulation it is.
    unsafe fn payload_mut(&mut self) -> Option<&mut [u8]>;

    /// The topic.
    fn topic(&self) -> &str;

    /// The partition.
    fn partition(&self) -> i32;

    /// The offset.
    fn offset(&self) -> i64;

    /// The timestamp.
    fn timestamp(&self) -> Timestamp;

    /// The payload viewed as `P`, e.g. `str`, without a copy.
    fn payload_view<P: ?Sized + FromBytes>(&self) -> Option<Result<&P, P::Error>> {
        self.payload().map(P::from_bytes)
    }

    /// The key viewed as `K`, e.g. `str`, without a copy.
    fn key_view<K: ?Sized + FromBytes>(&self) -> Option<Result<&K, K::Error>> {
        self.key().map(K::from_bytes)
    }

    /// The headers, `None` if the message has none.
    fn headers(&self) -> Option<&Self::Headers>;
}

/// A message that owns its data (`rdkafka::message::OwnedMessage`).
#[derive(Debug, Clone)]
pub struct OwnedMessage {
    payload: Option<Vec<u8>>,
    key: Option<Vec<u8>>,
    topic: String,
    timestamp: Timestamp,
    partition: i32,
    offset: i64,
    headers: Option<OwnedHeaders>,
}

impl OwnedMessage {
    /// A message from its parts.
    pub fn new(
        payload: Option<Vec<u8>>,
        key: Option<Vec<u8>>,
        topic: String,
        timestamp: Timestamp,
        partition: i32,
        offset: i64,
        headers: Option<OwnedHeaders>,
    ) -> OwnedMessage {
        OwnedMessage { payload, key, topic, timestamp, partition, offset, headers }
    }

    /// Takes the headers out.
    pub fn detach_headers(&mut self) -> Option<OwnedHeaders> {
        self.headers.take()
    }

    /// The message with these headers (`None`: without).
    pub fn replace_headers(mut self, headers: Option<OwnedHeaders>) -> Self {
        self.headers = headers;
        self
    }

    /// The message with this payload (`None`: without).
    pub fn set_payload(mut self, payload: Option<Vec<u8>>) -> Self {
        self.payload = payload;
        self
    }

    /// The message with this key (`None`: without).
    pub fn set_key(mut self, key: Option<Vec<u8>>) -> Self {
        self.key = key;
        self
    }

    /// The message in this topic.
    pub fn set_topic(mut self, topic: String) -> Self {
        self.topic = topic;
        self
    }

    /// The message with this timestamp.
    pub fn set_timestamp(mut self, timestamp: Timestamp) -> Self {
        self.timestamp = timestamp;
        self
    }

    /// The message in this partition.
    pub fn set_partition(mut self, partition: i32) -> Self {
        self.partition = partition;
        self
    }

    /// The message at this offset.
    pub fn set_offset(mut self, offset: i64) -> Self {
        self.offset = offset;
        self
    }

    /// Where a produced message landed, for its delivery report.
    pub(crate) fn landed(&mut self, partition: i32, offset: i64, timestamp: Timestamp) {
        (self.partition, self.offset, self.timestamp) = (partition, offset, timestamp);
    }
}

impl Message for OwnedMessage {
    type Headers = OwnedHeaders;
    fn key(&self) -> Option<&[u8]> {
        self.key.as_deref()
    }
    fn payload(&self) -> Option<&[u8]> {
        self.payload.as_deref()
    }
    unsafe fn payload_mut(&mut self) -> Option<&mut [u8]> {
        self.payload.as_deref_mut()
    }
    fn topic(&self) -> &str {
        &self.topic
    }
    fn partition(&self) -> i32 {
        self.partition
    }
    fn offset(&self) -> i64 {
        self.offset
    }
    fn timestamp(&self) -> Timestamp {
        self.timestamp
    }
    fn headers(&self) -> Option<&OwnedHeaders> {
        self.headers.as_ref()
    }
}

/// A message a consumer returned, or a producer's delivery report shows
/// (`rdkafka::message::BorrowedMessage`); it lives no longer than its client, as rdkafka's.
/// rdkafka's wraps librdkafka's message (and has `ptr`/`topic_ptr` for it); a simulated one
/// holds the message.
#[derive(Debug)]
pub struct BorrowedMessage<'a> {
    message: OwnedMessage,
    client: PhantomData<&'a ()>,
}

impl BorrowedMessage<'_> {
    /// The message, borrowed from its client.
    pub(crate) fn new(message: OwnedMessage) -> Self {
        BorrowedMessage { message, client: PhantomData }
    }

    /// The key's length in bytes, 0 without a key.
    pub fn key_len(&self) -> usize {
        self.message.key().map_or(0, <[u8]>::len)
    }

    /// The payload's length in bytes, 0 without a payload.
    pub fn payload_len(&self) -> usize {
        self.message.payload().map_or(0, <[u8]>::len)
    }

    /// An owned copy, that outlives the client.
    pub fn detach(&self) -> OwnedMessage {
        self.message.clone()
    }
}

impl Message for BorrowedMessage<'_> {
    type Headers = BorrowedHeaders;
    fn key(&self) -> Option<&[u8]> {
        self.message.key()
    }
    fn payload(&self) -> Option<&[u8]> {
        self.message.payload()
    }
    unsafe fn payload_mut(&mut self) -> Option<&mut [u8]> {
        // SAFETY: the simulated message owns its payload.
        unsafe { self.message.payload_mut() }
    }
    fn topic(&self) -> &str {
        self.message.topic()
    }
    fn partition(&self) -> i32 {
        self.message.partition()
    }
    fn offset(&self) -> i64 {
        self.message.offset()
    }
    fn timestamp(&self) -> Timestamp {
        self.message.timestamp()
    }
    fn headers(&self) -> Option<&BorrowedHeaders> {
        self.message.headers().map(OwnedHeaders::as_borrowed)
    }
}

/// A produced message's delivery report (`rdkafka::message::DeliveryResult`, which
/// `rdkafka::producer` re-exports): the message where it landed, or why not with the message.
pub type DeliveryResult<'a> = Result<BorrowedMessage<'a>, (KafkaError, BorrowedMessage<'a>)>;

/// Bytes a key or payload is made of (`rdkafka::message::ToBytes`).
pub trait ToBytes {
    /// The bytes, without a copy.
    fn to_bytes(&self) -> &[u8];
}

impl ToBytes for [u8] {
    fn to_bytes(&self) -> &[u8] {
        self
    }
}

impl ToBytes for str {
    fn to_bytes(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl ToBytes for Vec<u8> {
    fn to_bytes(&self) -> &[u8] {
        self
    }
}

impl ToBytes for String {
    fn to_bytes(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// For a sized `T` only, as rdkafka's (`&str` is no `ToBytes`; `str` is).
impl<T: ToBytes> ToBytes for &T {
    fn to_bytes(&self) -> &[u8] {
        (*self).to_bytes()
    }
}

impl ToBytes for () {
    fn to_bytes(&self) -> &[u8] {
        &[]
    }
}

impl<const N: usize> ToBytes for [u8; N] {
    fn to_bytes(&self) -> &[u8] {
        self
    }
}

/// A view of bytes (`rdkafka::message::FromBytes`).
pub trait FromBytes {
    /// Why the bytes are not one.
    type Error;
    /// The view, without a copy.
    fn from_bytes(bytes: &[u8]) -> Result<&Self, Self::Error>;
}

impl FromBytes for [u8] {
    type Error = ();
    fn from_bytes(bytes: &[u8]) -> Result<&Self, ()> {
        Ok(bytes)
    }
}

impl FromBytes for str {
    type Error = std::str::Utf8Error;
    fn from_bytes(bytes: &[u8]) -> Result<&Self, Self::Error> {
        std::str::from_utf8(bytes)
    }
}
