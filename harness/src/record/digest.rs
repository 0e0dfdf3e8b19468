//! Record digests: what a record holds, field by field, in one `u64`.
//!
//! A digest is four 16-bit lanes, one per field a downstream reader sees: the key (null
//! included), the event time, the value (null included) and the headers (order and repeats
//! included). Equal content gives an equal digest; when two digests differ, the lanes that
//! differ name the fields ([`Field::differing`]), so a report says "the headers changed",
//! not only "the content changed". A changed field goes unnoticed only if its lane collides,
//! one chance in 65,536 per record; a bug that changes a field changes it on many records.

use super::{Extras, Header};

/// A digest of a record's content (key, event time, value, headers; not its id): equal
/// content, equal digest. The history carries it for every produced record; output readers
/// return it for every visible one, so the checks can tell when a sink changed what it
/// wrote, and which field ([`Field::differing`]).
pub type Digest = u64;

/// FNV-1a's starting state.
pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a: `h` moved on by `bytes` (start from [`FNV_OFFSET`]; feeding bytes in pieces or at
/// once gives the same hash). Record digests, the history hash and the key-value store's
/// buckets use it.
#[inline]
pub(crate) fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// One field of a record as a downstream reader sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The key, or that it is null.
    Key,
    /// The event time (a Kafka record's timestamp).
    EventTime,
    /// The value (the payload), or that it is null (a tombstone).
    Value,
    /// The headers: names, values (null included), order and repeats.
    Headers,
}

impl Field {
    /// Every field, in the order of their lanes.
    pub const ALL: [Field; 4] = [Field::Key, Field::EventTime, Field::Value, Field::Headers];

    /// The fields whose lanes differ between two digests (empty when they are equal).
    pub fn differing(a: Digest, b: Digest) -> Vec<Field> {
        Self::ALL.into_iter().filter(|f| f.lane(a) != f.lane(b)).collect()
    }

    /// The field's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Field::Key => "key",
            Field::EventTime => "event time",
            Field::Value => "value",
            Field::Headers => "headers",
        }
    }

    fn shift(self) -> u32 {
        match self {
            Field::Key => 48,
            Field::EventTime => 32,
            Field::Value => 16,
            Field::Headers => 0,
        }
    }

    fn lane(self, d: Digest) -> u16 {
        (d >> self.shift()) as u16
    }
}

/// What the tags below mark, so that no two shapes of a field hash alike (a null key is not
/// key 0; a null value is not an empty one; a header with a null value is not one with an
/// empty value).
const PRESENT: u8 = 1;
const NULL: u8 = 0;
const OTHER: u8 = 2;

/// Builds a [`Digest`] field by field, so a reader can digest a record it decodes without
/// building it: [`DigestBuilder::new`] with the key and event time, then the value's bytes
/// ([`DigestBuilder::bytes`], in pieces or at once), and for records with more, a null key,
/// a null value or headers in order.
#[derive(Clone, Copy, Debug)]
pub struct DigestBuilder {
    key: u64,
    time: u64,
    value: u64,
    headers: u64,
    null_value: bool,
}

impl DigestBuilder {
    /// Starts a digest of a record with this key and event time.
    pub fn new(key: u64, event_time_ms: i64) -> Self {
        Self {
            key: fnv1a(fnv1a(FNV_OFFSET, &[PRESENT]), &key.to_le_bytes()),
            time: fnv1a(FNV_OFFSET, &event_time_ms.to_le_bytes()),
            value: FNV_OFFSET,
            headers: FNV_OFFSET,
            null_value: false,
        }
    }
    /// Adds value bytes (call it for the whole value, in pieces or at once).
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.value = fnv1a(self.value, bytes);
    }
    /// The key is null (whatever key [`DigestBuilder::new`] was given).
    pub fn null_key(&mut self) {
        self.key = fnv1a(FNV_OFFSET, &[NULL]);
    }
    /// The key is `bytes`, which no record's key encodes to (a reader found a key of the
    /// wrong length, say): it digests apart from every record's key, so the key is named.
    pub fn key_bytes(&mut self, bytes: &[u8]) {
        self.key = fnv1a(fnv1a(FNV_OFFSET, &[OTHER]), bytes);
    }
    /// The value is null: a tombstone (no value bytes follow).
    pub fn null_value(&mut self) {
        self.null_value = true;
    }
    /// Adds the next header, in the order the record carries them.
    pub fn header(&mut self, name: &str, value: Option<&[u8]>) {
        let mut h = fnv1a(self.headers, &(name.len() as u64).to_le_bytes());
        h = fnv1a(h, name.as_bytes());
        h = match value {
            Some(v) => fnv1a(fnv1a(fnv1a(h, &[PRESENT]), &(v.len() as u64).to_le_bytes()), v),
            None => fnv1a(h, &[NULL]),
        };
        self.headers = h;
    }
    /// Adds every header of `headers`, in order.
    pub fn headers(&mut self, headers: &[Header]) {
        headers.iter().for_each(|h| self.header(&h.key, h.value.as_deref()));
    }
    /// Adds a record's null key, null value and headers.
    pub fn extras(&mut self, e: &Extras) {
        if e.null_key {
            self.null_key();
        }
        if e.null_value {
            self.null_value();
        }
        self.headers(&e.headers);
    }
    /// The digest.
    pub fn finish(self) -> Digest {
        let value = if self.null_value { fnv1a(self.value, &[NULL, NULL]) } else { fnv1a(self.value, &[PRESENT]) };
        let lane = |h: u64, f: Field| u64::from(fold(h)) << f.shift();
        lane(self.key, Field::Key)
            | lane(self.time, Field::EventTime)
            | lane(value, Field::Value)
            | lane(self.headers, Field::Headers)
    }
}

/// A 64-bit hash folded to a lane: every input bit reaches it.
fn fold(h: u64) -> u16 {
    (h ^ (h >> 16) ^ (h >> 32) ^ (h >> 48)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(f: impl FnOnce(&mut DigestBuilder)) -> Digest {
        digest_of(3, 1_709_251_199_000, f)
    }

    fn digest_of(key: u64, time: i64, f: impl FnOnce(&mut DigestBuilder)) -> Digest {
        let mut d = DigestBuilder::new(key, time);
        f(&mut d);
        d.finish()
    }

    #[test]
    fn each_field_changes_its_own_lane_only() {
        let base = digest(|d| d.bytes(b"v"));
        let cases: [(Digest, Field); 9] = [
            (digest_of(4, 1_709_251_199_000, |d| d.bytes(b"v")), Field::Key),
            (digest(|d| (d.bytes(b"v"), d.null_key()).0), Field::Key),
            (digest(|d| (d.bytes(b"v"), d.key_bytes(b"<null>")).0), Field::Key),
            (digest(|d| d.bytes(b"w")), Field::Value),
            (digest(|d| d.null_value()), Field::Value),
            (digest(|d| (d.bytes(b"v"), d.header("h", None)).0), Field::Headers),
            (digest(|d| (d.bytes(b"v"), d.header("h", Some(b""))).0), Field::Headers),
            (digest_of(3, 1_709_251_199_001, |d| d.bytes(b"v")), Field::EventTime),
            (digest(|d| (d.bytes(b"v"), d.header("h", Some(b"1")), d.header("h", Some(b"1"))).0), Field::Headers),
        ];
        for (other, field) in cases {
            assert_eq!(Field::differing(base, other), vec![field], "{field:?}");
        }
        assert!(Field::differing(base, base).is_empty());
    }

    #[test]
    fn nulls_and_empties_and_header_order_digest_apart() {
        assert_ne!(digest(|d| d.null_value()), digest(|_| {}), "a tombstone is not an empty value");
        assert_ne!(digest(|d| d.null_key()), DigestBuilder::new(0, 1_709_251_199_000).finish(), "null is not key 0");
        let ab = digest(|d| (d.header("a", Some(b"1")), d.header("b", None)).0);
        let ba = digest(|d| (d.header("b", None), d.header("a", Some(b"1"))).0);
        assert_ne!(ab, ba, "header order counts");
        assert_ne!(digest(|d| d.header("ab", Some(b""))), digest(|d| d.header("a", Some(b"b"))), "lengths frame them");
        let headers = [Header { key: "a".into(), value: Some(b"1".to_vec()) }, Header { key: "b".into(), value: None }];
        assert_eq!(digest(|d| d.headers(&headers)), ab);
        let mut pieces = DigestBuilder::new(3, 1_709_251_199_000);
        pieces.bytes(b"ab");
        pieces.bytes(b"c");
        assert_eq!(pieces.finish(), digest(|d| d.bytes(b"abc")), "value bytes in pieces or at once");
    }
}
