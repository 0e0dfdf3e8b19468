//! What real systems' records carry beyond an id, a key, an event time and a payload: a
//! null key, a null value (a tombstone), headers.
//!
//! Most records have none of it, so a [`Record`](super::Record) holds it boxed and only when
//! there is some ([`Record::extras`](super::Record::extras)). Which of it a connector can
//! carry end to end is its own declaration ([`Carries`]): the suites' data holds only what
//! both the source and the sink of a run carry, and the checks compare every field of it.

use serde::{Deserialize, Serialize};

/// One header of a record (Kafka's record header: a string name, a nullable value).
/// Repeated names are allowed and kept in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Header name.
    pub key: String,
    /// Header value; `None` is a null value.
    #[serde(with = "crate::bytes::option")]
    pub value: Option<Vec<u8>>,
}

/// A record's null key, null value and headers; [`Extras::default`] is none of them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extras {
    /// The key is null. The record's `key` then only routes it (a key-by exchange), and a
    /// downstream reader must see no key at all.
    pub null_key: bool,
    /// The value is null: a tombstone. The record's `payload` is then empty, and a downstream
    /// reader must see no value at all (not an empty one).
    pub null_value: bool,
    /// Headers, in order.
    pub headers: Vec<Header>,
}

impl Extras {
    /// Whether there is nothing in it (a plain record).
    pub fn is_empty(&self) -> bool {
        !self.null_key && !self.null_value && self.headers.is_empty()
    }
}

/// What a connector carries end to end, beyond every record's id, key, event time and
/// payload: declared by a source or sink setup (or a suite's context) so the suites' data
/// holds no shape it cannot carry (a row type without headers, a format without nulls).
/// [`Carries::ALL`] by default; a run's data has what both its source and its sink carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carries {
    /// Records with a null key.
    pub null_keys: bool,
    /// Records with a null value (tombstones).
    pub tombstones: bool,
    /// Records with headers.
    pub headers: bool,
    /// Payloads that are not UTF-8 (arbitrary bytes).
    pub binary_payloads: bool,
}

impl Carries {
    /// Everything a Kafka record can hold.
    pub const ALL: Carries = Carries { null_keys: true, tombstones: true, headers: true, binary_payloads: true };
    /// Plain records only: a non-null key and value, no headers, UTF-8 payloads.
    pub const PLAIN: Carries = Carries { null_keys: false, tombstones: false, headers: false, binary_payloads: false };

    /// What both carry.
    pub fn and(self, other: Carries) -> Carries {
        Carries {
            null_keys: self.null_keys && other.null_keys,
            tombstones: self.tombstones && other.tombstones,
            headers: self.headers && other.headers,
            binary_payloads: self.binary_payloads && other.binary_payloads,
        }
    }

    /// The shapes left out, by name, for reports ("" when none is).
    pub fn left_out(self) -> String {
        let all = [
            (self.null_keys, "null keys"),
            (self.tombstones, "tombstones"),
            (self.headers, "headers"),
            (self.binary_payloads, "binary payloads"),
        ];
        all.iter().filter(|(on, _)| !on).map(|(_, name)| *name).collect::<Vec<_>>().join(", ")
    }
}

impl Default for Carries {
    fn default() -> Self {
        Carries::ALL
    }
}
