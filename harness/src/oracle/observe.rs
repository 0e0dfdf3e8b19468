//! Observed visibility: the harness reads the sink's output as a downstream reader would and
//! records what appeared and what vanished, with the reason it looked.
//!
//! ```text
//!  system node serves a request ─┐
//!  system node crashes/restarts ─┼─▶ Observer::observe(cause) ─▶ OutputReader (changed parts only)
//!  start of the run, end of run ─┘        │ diff against what it saw last (multisets per part)
//!                                         ▼
//!                          history: Appeared / Vanished { output, part, records, cause }
//! ```
//!
//! Models announce nothing. Every [`AUDIT_EVERY`]th observation lists the parts even when
//! the output's version says nothing changed, so a version that lies is found while the run
//! goes on; the final reconciliation reads everything in full. What only an audit or the
//! final read finds was never seen appearing, and `no-unobserved-visibility` fails on it.

use crate::history::{Cause, EventKind, History};
use crate::record::{IdMap, RecordId};
use crate::systems::{Entry, OutputReader, Part};
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

/// What the observer last read of one part.
struct Cached {
    version: u64,
    end: u64,
    entries: Vec<Entry>,
}

/// How often an observation audits the parts listing instead of trusting the version.
pub(crate) const AUDIT_EVERY: u64 = 16;

struct State {
    version: Option<u64>,
    /// Observations so far.
    observations: u64,
    parts: BTreeMap<String, Cached>,
    /// How many copies of each record are visible now (only asked, never iterated).
    counts: IdMap<u32>,
    /// Grows with every observed change.
    changes: u64,
    /// The reader panicked once; the output is not read any more.
    broken: bool,
}

/// Reads one output after every change that could affect it. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Observer {
    output: Arc<dyn OutputReader>,
    location: String,
    history: History,
    state: Arc<Mutex<State>>,
    /// False for a run without verification: nothing is read.
    reads: bool,
}

/// Runs the reader, turning a panic into an error naming the output.
fn guarded<T>(location: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let msg = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic payload".into());
        format!("the output reader of {location} panicked: {msg}")
    })
}

/// [`guarded`] for reading one part: the error names the part too.
fn guarded_read<T>(location: &str, part: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    guarded(location, f).map_err(|e| e.replacen(" panicked", &format!(" panicked reading part {part}"), 1))
}

/// What appeared in and vanished from one part.
#[derive(Default)]
struct Diff {
    appeared: Vec<Entry>,
    vanished: Vec<Entry>,
}

/// Multiset difference between what was there and what is there now, in reading order.
fn diff(old: &[Entry], new: &[Entry]) -> Diff {
    // A part seen for the first time (or gone): no multiset to build.
    if old.is_empty() || new.is_empty() {
        return Diff { appeared: new.to_vec(), vanished: old.to_vec() };
    }
    let mut left: BTreeMap<&Entry, usize> = BTreeMap::new();
    for e in old {
        *left.entry(e).or_default() += 1;
    }
    let mut d = Diff::default();
    for e in new {
        match left.get_mut(e) {
            Some(n) if *n > 0 => *n -= 1,
            _ => d.appeared.push(e.clone()),
        }
    }
    for e in old {
        if let Some(n) = left.get_mut(e) {
            if *n > 0 {
                *n -= 1;
                d.vanished.push(e.clone());
            }
        }
    }
    d
}

fn split(entries: Vec<Entry>) -> (Vec<crate::record::Seen>, Vec<String>) {
    let mut records = Vec::new();
    let mut garbage = Vec::new();
    for e in entries {
        match e {
            Entry::Record(s) => records.push(s),
            Entry::Garbage(g) => garbage.push(g),
        }
    }
    (records, garbage)
}

impl Observer {
    pub(crate) fn new(output: Arc<dyn OutputReader>, history: History) -> Self {
        let location = output.location();
        let state = State {
            version: None,
            observations: 0,
            parts: BTreeMap::new(),
            counts: IdMap::default(),
            changes: 0,
            broken: false,
        };
        Self { output, location, history, state: Arc::new(Mutex::new(state)), reads: true }
    }

    /// An observer that reads nothing, for a run without verification
    /// ([`crate::run::Verification::Off`]): every observation returns at once, the final
    /// reconciliation returns nothing, and nothing counts as visible.
    pub(crate) fn off(output: Arc<dyn OutputReader>, history: History) -> Self {
        Self { reads: false, ..Self::new(output, history) }
    }

    /// Reads the output and records what changed since the last read.
    pub(crate) fn observe(&self, cause: Cause) {
        if !self.reads {
            return;
        }
        let mut s = self.state.lock().unwrap();
        if s.broken {
            return;
        }
        let output = self.output.clone();
        let version = match guarded(&self.location, || output.version()) {
            Ok(v) => v,
            Err(e) => return self.break_off(&mut s, e),
        };
        s.observations += 1;
        let unchanged = version.is_some() && version == s.version;
        let audit = s.observations.is_multiple_of(AUDIT_EVERY);
        if unchanged && !audit {
            return;
        }
        let parts = match guarded(&self.location, || output.parts()) {
            Ok(p) => p,
            Err(e) => return self.break_off(&mut s, e),
        };
        // The version said nothing changed: anything found now, it failed to say.
        let cause = if unchanged { Cause::Audit } else { cause };
        if let Err(e) = self.update(&mut s, parts, &cause, false) {
            return self.break_off(&mut s, e);
        }
        s.version = version;
    }

    /// The final reconciliation: reads every part in full and records what differs from
    /// what was observed (cause [`Cause::Final`]). Returns the output in reading order.
    pub(crate) fn reconcile(&self) -> Result<Vec<Entry>, String> {
        if !self.reads {
            return Ok(Vec::new());
        }
        let mut s = self.state.lock().unwrap();
        if s.broken {
            return Err(format!("the output reader of {} failed earlier in the run", self.location));
        }
        let output = self.output.clone();
        let parts = guarded(&self.location, || output.parts())?;
        let order: Vec<String> = parts.iter().map(|p| p.name.clone()).collect();
        self.update(&mut s, parts, &Cause::Final, true)?;
        Ok(order.iter().flat_map(|name| s.parts.get(name).map(|c| c.entries.clone()).unwrap_or_default()).collect())
    }

    fn break_off(&self, s: &mut State, error: String) {
        s.broken = true;
        self.history.record("harness", EventKind::OutputUnreadable { output: self.location.clone(), error });
    }

    /// Brings the cache up to date with `parts`; `full`: reread every part from the start.
    /// Everything that appeared is recorded before anything that vanished, so a record that
    /// moved from one part to another is never seen missing in between.
    fn update(&self, s: &mut State, parts: Vec<Part>, cause: &Cause, full: bool) -> Result<(), String> {
        let listed: std::collections::BTreeSet<&str> = parts.iter().map(|p| p.name.as_str()).collect();
        let gone: Vec<String> = s.parts.keys().filter(|k| !listed.contains(k.as_str())).cloned().collect();
        let mut diffs = Vec::new();
        for name in gone {
            let cached = s.parts.remove(&name).expect("listed above");
            diffs.push((name, Diff { appeared: Vec::new(), vanished: cached.entries }));
        }
        for part in parts {
            let tail_from = match s.parts.get(&part.name) {
                Some(c) if !full && c.version == part.version && c.end == part.end => continue,
                Some(c) if !full && c.version == part.version && c.end < part.end => Some(c.end),
                _ => None,
            };
            let output = self.output.clone();
            let read = guarded_read(&self.location, &part.name, || output.read(&part.name, tail_from.unwrap_or(0)))?;
            let d = match tail_from {
                Some(_) => {
                    let c = s.parts.get_mut(&part.name).expect("matched above");
                    c.entries.extend(read.iter().cloned());
                    c.end = part.end;
                    Diff { appeared: read, vanished: Vec::new() }
                }
                None => {
                    let old = s.parts.remove(&part.name).map(|c| c.entries).unwrap_or_default();
                    // Most rereads (every part at the final reconciliation) find the part as it was.
                    let d = if old == read { Diff::default() } else { diff(&old, &read) };
                    s.parts.insert(part.name.clone(), Cached { version: part.version, end: part.end, entries: read });
                    d
                }
            };
            diffs.push((part.name, d));
        }
        diffs.retain(|(_, d)| !d.appeared.is_empty() || !d.vanished.is_empty());
        if diffs.is_empty() {
            return Ok(());
        }
        s.changes += 1;
        for (part, d) in &mut diffs {
            for e in &d.appeared {
                if let Entry::Record(seen) = e {
                    *s.counts.entry(seen.id).or_default() += 1;
                }
            }
            if !d.appeared.is_empty() {
                let (records, garbage) = split(std::mem::take(&mut d.appeared));
                let (output, part, cause) = (self.location.clone(), part.clone(), Box::new(cause.clone()));
                self.history.record("harness", EventKind::Appeared { output, part, records, garbage, cause });
            }
        }
        for (part, d) in diffs {
            for e in &d.vanished {
                if let Entry::Record(seen) = e {
                    if let Some(n) = s.counts.get_mut(&seen.id) {
                        *n = n.saturating_sub(1);
                    }
                }
            }
            if !d.vanished.is_empty() {
                let (records, garbage) = split(d.vanished);
                let (output, cause) = (self.location.clone(), Box::new(cause.clone()));
                self.history.record("harness", EventKind::Vanished { output, part, records, garbage, cause });
            }
        }
        Ok(())
    }

    /// How many observed changes so far (to skip work while nothing changed).
    pub(crate) fn changes(&self) -> u64 {
        self.state.lock().unwrap().changes
    }

    /// Whether every one of `ids` is visible now, as last observed.
    pub(crate) fn all_visible<'a>(&self, mut ids: impl Iterator<Item = &'a RecordId>) -> bool {
        let s = self.state.lock().unwrap();
        ids.all(|id| s.counts.get(id).is_some_and(|n| *n > 0))
    }

    /// The output's location.
    pub(crate) fn location(&self) -> &str {
        &self.location
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(id: u64) -> Entry {
        Entry::record(RecordId(id), id * 10)
    }

    #[test]
    fn diff_is_a_multiset_difference_in_reading_order() {
        let d = diff(&[r(1), r(2), r(2), r(3)], &[r(2), r(4), r(3), r(3)]);
        assert_eq!(d.appeared, vec![r(4), r(3)]);
        assert_eq!(d.vanished, vec![r(1), r(2)]);
        let same = diff(&[r(1), r(2)], &[r(2), r(1)]);
        assert!(same.appeared.is_empty() && same.vanished.is_empty(), "order alone is no change");
        let content = diff(&[Entry::record(RecordId(1), 5)], &[Entry::record(RecordId(1), 6)]);
        assert_eq!((content.appeared.len(), content.vanished.len()), (1, 1), "changed content is a change");
        let first = diff(&[], &[r(2), r(1), r(2)]);
        assert_eq!((first.appeared, first.vanished), (vec![r(2), r(1), r(2)], vec![]), "a new part, in reading order");
        let gone = diff(&[r(3), r(3)], &[]);
        assert_eq!((gone.appeared, gone.vanished), (vec![], vec![r(3), r(3)]), "an emptied part");
    }
}
