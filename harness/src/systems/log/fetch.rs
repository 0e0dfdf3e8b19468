//! A read-committed fetch, answered from the partition's own entries: the reply is written
//! while the log is locked, from borrowed entries, in exactly the bytes of
//! `LogResponse::Fetched` (a consumer's per-record path copies nothing on the log's side).

use super::state::{Partition, Status};
#[cfg(test)]
use super::LogResponse;
use super::{LogEntry, LogRequest, State};
use serde::ser::{SerializeSeq, SerializeStructVariant};
use serde::{Serialize, Serializer};

/// The committed entries from `offset` on, at most `max`, stopping at the first open
/// transaction (the last stable offset), and the offset to fetch next.
pub(super) fn committed(part: &Partition, offset: u64, max: usize) -> (Vec<(u64, &LogEntry)>, u64) {
    let mut entries = Vec::new();
    let mut next = offset;
    let lso = part.lso();
    while next < lso && entries.len() < max {
        let e = &part.entries[next as usize];
        if e.status == Status::Committed {
            entries.push((next, &e.entry));
        }
        next += 1;
    }
    (entries, next)
}

/// What a fetch of a known partition at or after its start answers, borrowed; None for
/// every other request and for a fetch that errs (the owned path answers those, and records
/// what they need).
pub(super) fn borrowed<'a>(s: &'a State, req: &LogRequest) -> Option<Fetched<'a>> {
    let LogRequest::Fetch { topic, partition, offset, max } = req else { return None };
    let part = s.topics.get(topic)?.get(*partition as usize)?;
    if *offset < part.start {
        return None;
    }
    let (entries, next_offset) = committed(part, *offset, *max);
    Some(Fetched { entries, next_offset })
}

/// `LogResponse::Fetched` over borrowed entries: serializes to the same bytes.
pub(super) struct Fetched<'a> {
    entries: Vec<(u64, &'a LogEntry)>,
    next_offset: u64,
}

/// The position of `Fetched` among `LogResponse`'s variants (serde numbers them in order).
const FETCHED_VARIANT: u32 = 2;

impl Serialize for Fetched<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Entries<'b>(&'b [(u64, &'b LogEntry)]);
        impl Serialize for Entries<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
                for e in self.0 {
                    seq.serialize_element(e)?;
                }
                seq.end()
            }
        }
        let mut v = serializer.serialize_struct_variant("LogResponse", FETCHED_VARIANT, "Fetched", 2)?;
        v.serialize_field("entries", &Entries(&self.entries))?;
        v.serialize_field("next_offset", &self.next_offset)?;
        v.end()
    }
}

#[cfg(test)]
impl Fetched<'_> {
    /// The owned response (what the log's other paths return).
    pub(super) fn to_owned(&self) -> LogResponse {
        let entries = self.entries.iter().map(|(o, e)| (*o, (*e).clone())).collect();
        LogResponse::Fetched { entries, next_offset: self.next_offset }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::log_entry::LogHeader;

    #[test]
    fn a_borrowed_fetch_serializes_to_the_bytes_of_the_owned_response() {
        let a = LogEntry { key: Some(vec![1, 2]), value: Some(b"abc".to_vec()), headers: vec![], timestamp_ms: -4 };
        let b = LogEntry {
            key: None,
            value: None,
            headers: vec![LogHeader { key: "h".into(), value: Some(vec![9]) }],
            timestamp_ms: 7,
        };
        for entries in [vec![], vec![(3, &a)], vec![(3, &a), (5, &b)]] {
            let borrowed = Fetched { entries, next_offset: 6 };
            let owned = borrowed.to_owned();
            assert!(matches!(owned, LogResponse::Fetched { .. }), "variant {FETCHED_VARIANT} is Fetched");
            assert_eq!(bincode::serialize(&borrowed).unwrap(), bincode::serialize(&owned).unwrap());
            assert_eq!(serde_json::to_string(&borrowed).unwrap(), serde_json::to_string(&owned).unwrap());
        }
    }
}
