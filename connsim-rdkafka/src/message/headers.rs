//! Headers (`rdkafka::message::{Header, Headers, BorrowedHeaders, OwnedHeaders}`): key-value
//! pairs a message carries, in order, a key possibly repeated and a value possibly null.

use super::{FromBytes, ToBytes};
use std::fmt;

/// One header (`rdkafka::message::Header`).
#[derive(Debug, Clone, Eq, PartialEq, Ord, PartialOrd)]
pub struct Header<'a, V> {
    /// Its key.
    pub key: &'a str,
    /// Its value, if any (`None` is a null value, unlike an empty one).
    pub value: Option<V>,
}

impl<'a> Header<'a, &'a [u8]> {
    /// The header with its value viewed as `V`.
    fn parse<V: FromBytes + ?Sized>(&self) -> Result<Header<'a, &'a V>, V::Error> {
        Ok(Header { key: self.key, value: self.value.map(V::from_bytes).transpose()? })
    }
}

/// Read access to headers (`rdkafka::message::Headers`).
pub trait Headers {
    /// How many there are.
    fn count(&self) -> usize;

    /// The header at `idx`; panics if there is none.
    fn get(&self, idx: usize) -> Header<'_, &[u8]> {
        self.try_get(idx).unwrap_or_else(|| out_of_bounds(self.count(), idx))
    }

    /// The header at `idx` with its value viewed as `V`; panics if there is none.
    fn get_as<V>(&self, idx: usize) -> Result<Header<'_, &V>, V::Error>
    where
        V: FromBytes + ?Sized,
    {
        self.try_get_as(idx).unwrap_or_else(|| out_of_bounds(self.count(), idx))
    }

    /// The header at `idx`, if there is one.
    fn try_get(&self, idx: usize) -> Option<Header<'_, &[u8]>>;

    /// The header at `idx` with its value viewed as `V`, if there is one.
    fn try_get_as<V>(&self, idx: usize) -> Option<Result<Header<'_, &V>, V::Error>>
    where
        V: FromBytes + ?Sized,
    {
        self.try_get(idx).map(|header| header.parse())
    }

    /// Every header in order.
    fn iter(&self) -> HeadersIter<'_, Self>
    where
        Self: Sized,
    {
        HeadersIter { headers: self, index: 0 }
    }
}

/// rdkafka's panic for a header index past the end.
fn out_of_bounds(count: usize, idx: usize) -> ! {
    panic!("headers index out of bounds: the count is {count} but the index is {idx}")
}

/// An iterator over [`Headers`] (`rdkafka::message::HeadersIter`).
pub struct HeadersIter<'a, H> {
    headers: &'a H,
    index: usize,
}

impl<'a, H: Headers> Iterator for HeadersIter<'a, H> {
    type Item = Header<'a, &'a [u8]>;
    fn next(&mut self) -> Option<Self::Item> {
        let header = (self.index < self.headers.count()).then(|| self.headers.get(self.index))?;
        self.index += 1;
        Some(header)
    }
}

/// Headers seen through a message or an [`OwnedHeaders`] (`rdkafka::message::BorrowedHeaders`),
/// what a consumed message's [`Message::headers`](super::Message::headers) returns. rdkafka's
/// is a view of librdkafka's headers; a simulated one holds them, inside the message or the
/// [`OwnedHeaders`].
pub struct BorrowedHeaders {
    headers: Vec<(String, Option<Vec<u8>>)>,
}

impl BorrowedHeaders {
    /// An owned copy, that outlives the message.
    pub fn detach(&self) -> OwnedHeaders {
        OwnedHeaders { inner: BorrowedHeaders { headers: self.headers.clone() } }
    }
}

impl Headers for BorrowedHeaders {
    fn count(&self) -> usize {
        self.headers.len()
    }
    /// The header at `idx`; its key ends at its first NUL, as rdkafka reads librdkafka's
    /// NUL-terminated name.
    fn try_get(&self, idx: usize) -> Option<Header<'_, &[u8]>> {
        let (key, value) = self.headers.get(idx)?;
        Some(Header { key: key.split('\0').next().unwrap_or_default(), value: value.as_deref() })
    }
}

/// Headers a producer attaches, or a consumer owns (`rdkafka::message::OwnedHeaders`).
pub struct OwnedHeaders {
    inner: BorrowedHeaders,
}

impl OwnedHeaders {
    /// No headers (room for 5, as rdkafka's).
    pub fn new() -> OwnedHeaders {
        OwnedHeaders::new_with_capacity(5)
    }

    /// No headers, with room for `initial_capacity`.
    pub fn new_with_capacity(initial_capacity: usize) -> OwnedHeaders {
        OwnedHeaders { inner: BorrowedHeaders { headers: Vec::with_capacity(initial_capacity) } }
    }

    /// Adds a header after the others (a key may repeat).
    pub fn insert<V>(mut self, header: Header<'_, &V>) -> OwnedHeaders
    where
        V: ToBytes + ?Sized,
    {
        let value = header.value.map(|v| v.to_bytes().to_vec());
        self.inner.headers.push((header.key.to_owned(), value));
        self
    }

    /// The same headers, read-only.
    pub fn as_borrowed(&self) -> &BorrowedHeaders {
        &self.inner
    }

    /// Headers as the log stores them.
    pub(crate) fn from_log(headers: Vec<connsim::systems::LogHeader>) -> OwnedHeaders {
        OwnedHeaders { inner: BorrowedHeaders { headers: headers.into_iter().map(|h| (h.key, h.value)).collect() } }
    }

    /// The headers for the log.
    pub(crate) fn to_log(&self) -> Vec<connsim::systems::LogHeader> {
        let headers = self.inner.headers.iter();
        headers.map(|(key, value)| connsim::systems::LogHeader { key: key.clone(), value: value.clone() }).collect()
    }
}

impl Default for OwnedHeaders {
    fn default() -> OwnedHeaders {
        OwnedHeaders::new()
    }
}

impl Clone for OwnedHeaders {
    fn clone(&self) -> OwnedHeaders {
        self.inner.detach()
    }
}

impl fmt::Debug for OwnedHeaders {
    /// The headers (rdkafka's shows librdkafka's pointer).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Headers for OwnedHeaders {
    fn count(&self) -> usize {
        self.inner.count()
    }
    fn try_get(&self, idx: usize) -> Option<Header<'_, &[u8]>> {
        self.inner.try_get(idx)
    }
}
