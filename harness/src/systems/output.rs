//! Output readers: a sink's output as a downstream reader sees it, content included.
//!
//! The harness, not the models, decides what became visible: it reads every declared output
//! after each request an external system served, when a system node crashes or restarts, and
//! once more at the end, and records what appeared and what vanished
//! ([`crate::history::EventKind::Appeared`], [`crate::history::EventKind::Vanished`]). A
//! model only has to say how a real downstream reader reads it.
//!
//! ```text
//!  model state ──parts()──▶ [Part { name, version, end }, …]   (cheap: names and counters)
//!              ──read(part, from)──▶ entries at positions from..end   (only parts that changed)
//! ```
//!
//! An output is a list of parts in the order a reader reads them (files of a directory,
//! partitions of a topic, the snapshots of a table). Each part has a `version` that changes
//! whenever entries already read may have changed, and an `end` position; while the version
//! stays the same and `end` grows, the harness reads only the new tail. So observing costs
//! what changed, not the size of the output.

use crate::record::{Digest, RecordId, Seen};

/// One part of an output, as [`OutputReader::parts`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Stable name: a path, a partition, a table's snapshot log.
    pub name: String,
    /// Changes whenever entries before `end` may have changed (rewritten, truncated, removed);
    /// stays the same while the part only grows.
    pub version: u64,
    /// One past the last visible position, in the reader's own units (offsets, snapshots, …).
    pub end: u64,
}

/// One visible entry of a part.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Entry {
    /// A record: its id and its content's digest.
    Record(Seen),
    /// Visible content that is not a record (a torn line, bytes that do not decode),
    /// described for the report.
    Garbage(String),
}

impl Entry {
    /// A record entry.
    pub fn record(id: RecordId, digest: Digest) -> Self {
        Entry::Record(Seen { id, digest })
    }
}

/// What a sink's output looks like to a downstream reader right now.
///
/// Implement it with the semantics of the real reader (a read-committed consumer stops at
/// the last stable offset; a directory listing shows the files that are there, with the
/// bytes they hold now), and return each record's content digest
/// ([`crate::Record::digest`], or [`crate::record::DigestBuilder`] while decoding), so the
/// checks see what a user would see.
pub trait OutputReader: Send + Sync + 'static {
    /// The output's name in reports and in the history.
    fn location(&self) -> String;
    /// A number that changes whenever what a downstream reader sees may have changed; the
    /// harness skips [`OutputReader::parts`] while it stays the same. `None`: always list.
    fn version(&self) -> Option<u64> {
        None
    }
    /// The parts, in the order a downstream reader reads them.
    fn parts(&self) -> Vec<Part>;
    /// The entries of part `part` at positions `from..end`, in reading order (empty if the
    /// part is gone).
    fn read(&self, part: &str, from: u64) -> Vec<Entry>;
}

/// Reads a whole output in reading order (the final reconciliation, and tests).
pub fn read_all(output: &dyn OutputReader) -> Vec<(String, Vec<Entry>)> {
    output.parts().into_iter().map(|p| (p.name.clone(), output.read(&p.name, 0))).collect()
}
