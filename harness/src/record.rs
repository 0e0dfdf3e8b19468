//! Records: the unit the checker accounts for.
//!
//! Every record carries a [`RecordId`] that is unique within a run, so the
//! checks can say exactly which record was lost, duplicated or invented.

use serde::{Deserialize, Serialize};

mod digest;
mod extras;
pub mod ids;
mod real_data;
pub(crate) use digest::{fnv1a, FNV_OFFSET};
pub use digest::{Digest, DigestBuilder, Field};
pub use extras::{Carries, Extras, Header};
pub use ids::{IdMap, IdSet};
pub use real_data::{DataKind, DataShape, START_DATES};
mod line;
pub use line::push_decimal;

/// Identity of one produced record, unique within a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RecordId(pub u64);

impl std::fmt::Display for RecordId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// One record as a downstream reader sees it: its identity and its content's digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Seen {
    /// Which record.
    pub id: RecordId,
    /// What it holds ([`Record::digest`]).
    pub digest: Digest,
}

impl Seen {
    /// How a reader sees `record`.
    pub fn of(record: &Record) -> Self {
        Self { id: record.id, digest: record.digest() }
    }
}

/// One record flowing from a source system through a connector into a sink system.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Unique identity, assigned when the record was produced.
    pub id: RecordId,
    /// Partitioning key.
    pub key: u64,
    /// Event time in milliseconds.
    pub event_time_ms: i64,
    /// Opaque payload (the value; empty for a tombstone, see [`Extras::null_value`]).
    #[serde(with = "crate::bytes")]
    pub payload: Vec<u8>,
    /// A null key, a null value or headers, when the record has any (`None` for a plain
    /// record: no allocation).
    #[serde(default)]
    pub extras: Option<Box<Extras>>,
}

impl Record {
    /// A plain record: no null key or value, no headers.
    pub fn new(id: RecordId, key: u64, event_time_ms: i64, payload: Vec<u8>) -> Self {
        Self { id, key, event_time_ms, payload, extras: None }
    }

    /// The digest of this record's content (key, event time, value, headers; not its id).
    pub fn digest(&self) -> Digest {
        let mut d = DigestBuilder::new(self.key, self.event_time_ms);
        d.bytes(&self.payload);
        if let Some(e) = &self.extras {
            d.extras(e);
        }
        d.finish()
    }

    /// The record's null key, null value and headers (all absent for a plain record).
    pub fn extras(&self) -> &Extras {
        static NONE: Extras = Extras { null_key: false, null_value: false, headers: Vec::new() };
        self.extras.as_deref().unwrap_or(&NONE)
    }
}
