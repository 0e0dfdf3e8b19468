//! `rdkafka::message`: messages, headers, timestamps, and the byte conversions of keys and
//! payloads.

use std::marker::PhantomData;

/// A message's timestamp (`rdkafka::message::Timestamp`).
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
    /// Milliseconds since the epoch, if available.
    pub fn to_millis(self) -> Option<i64> {
        match self {
            Timestamp::NotAvailable | Timestamp::CreateTime(-1) | Timestamp::LogAppendTime(-1) => None,
            Timestamp::CreateTime(t) | Timestamp::LogAppendTime(t) => Some(t),
        }
    }
}

impl From<i64> for Timestamp {
    fn from(t: i64) -> Timestamp {
        Timestamp::CreateTime(t)
    }
}

/// One header (`rdkafka::message::Header`).
#[derive(Debug, Clone, Eq, PartialEq, Ord, PartialOrd)]
pub struct Header<'a, V> {
    /// Its key.
    pub key: &'a str,
    /// Its value, if any.
    pub value: Option<V>,
}

/// Read access to headers (`rdkafka::message::Headers`).
pub trait Headers {
    /// How many there are.
    fn count(&self) -> usize;
    /// The header at `idx`, if there is one.
    fn try_get(&self, idx: usize) -> Option<Header<'_, &[u8]>>;
    /// The header at `idx`; panics if there is none.
    fn get(&self, idx: usize) -> Header<'_, &[u8]> {
        self.try_get(idx).unwrap_or_else(|| panic!("header index out of bounds: {idx}"))
    }
    /// Every header in order.
    fn iter(&self) -> HeadersIter<'_, Self>
    where
        Self: Sized,
    {
        HeadersIter { headers: self, index: 0 }
    }
}

/// An iterator over headers.
pub struct HeadersIter<'a, H> {
    headers: &'a H,
    index: usize,
}

impl<'a, H: Headers> Iterator for HeadersIter<'a, H> {
    type Item = Header<'a, &'a [u8]>;
    fn next(&mut self) -> Option<Self::Item> {
        let h = self.headers.try_get(self.index)?;
        self.index += 1;
        Some(h)
    }
}

/// Headers a producer attaches, or a consumer owns (`rdkafka::message::OwnedHeaders`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnedHeaders {
    headers: Vec<(String, Option<Vec<u8>>)>,
}

impl OwnedHeaders {
    /// No headers.
    pub fn new() -> OwnedHeaders {
        OwnedHeaders::default()
    }
    /// No headers, with room for `capacity`.
    pub fn new_with_capacity(capacity: usize) -> OwnedHeaders {
        OwnedHeaders { headers: Vec::with_capacity(capacity) }
    }
    /// Adds a header.
    pub fn insert<V: ToBytes + ?Sized>(mut self, header: Header<'_, &V>) -> OwnedHeaders {
        self.headers.push((header.key.to_string(), header.value.map(|v| v.to_bytes().to_vec())));
        self
    }
    pub(crate) fn from_log(headers: Vec<connsim::systems::LogHeader>) -> OwnedHeaders {
        OwnedHeaders { headers: headers.into_iter().map(|h| (h.key, h.value)).collect() }
    }
    pub(crate) fn to_log(&self) -> Vec<connsim::systems::LogHeader> {
        self.headers.iter().map(|(k, v)| connsim::systems::LogHeader { key: k.clone(), value: v.clone() }).collect()
    }
}

impl Headers for OwnedHeaders {
    fn count(&self) -> usize {
        self.headers.len()
    }
    fn try_get(&self, idx: usize) -> Option<Header<'_, &[u8]>> {
        self.headers.get(idx).map(|(k, v)| Header { key: k.as_str(), value: v.as_deref() })
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
    /// The topic.
    fn topic(&self) -> &str;
    /// The partition.
    fn partition(&self) -> i32;
    /// The offset.
    fn offset(&self) -> i64;
    /// The timestamp.
    fn timestamp(&self) -> Timestamp;
    /// The headers, if any.
    fn headers(&self) -> Option<&Self::Headers>;
    /// The payload converted, e.g. to `str`.
    fn payload_view<P: ?Sized + FromBytes>(&self) -> Option<Result<&P, P::Error>> {
        self.payload().map(P::from_bytes)
    }
    /// The key converted, e.g. to `str`.
    fn key_view<K: ?Sized + FromBytes>(&self) -> Option<Result<&K, K::Error>> {
        self.key().map(K::from_bytes)
    }
}

/// A message that owns its data (`rdkafka::message::OwnedMessage`).
#[derive(Clone, Debug, PartialEq, Eq)]
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

/// A message a consumer returned (`rdkafka::message::BorrowedMessage`); it lives no longer
/// than the consumer, as rdkafka's does.
#[derive(Debug)]
pub struct BorrowedMessage<'a> {
    message: OwnedMessage,
    consumer: PhantomData<&'a ()>,
}

impl BorrowedMessage<'_> {
    pub(crate) fn new(message: OwnedMessage) -> Self {
        BorrowedMessage { message, consumer: PhantomData }
    }
    /// An owned copy.
    pub fn detach(&self) -> OwnedMessage {
        self.message.clone()
    }
}

impl Message for BorrowedMessage<'_> {
    type Headers = OwnedHeaders;
    fn key(&self) -> Option<&[u8]> {
        self.message.key()
    }
    fn payload(&self) -> Option<&[u8]> {
        self.message.payload()
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
    fn headers(&self) -> Option<&OwnedHeaders> {
        self.message.headers()
    }
}

/// Bytes a key or payload is made of (`rdkafka::message::ToBytes`).
pub trait ToBytes {
    /// The bytes.
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
impl<T: ToBytes + ?Sized> ToBytes for &T {
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
    /// The view.
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
