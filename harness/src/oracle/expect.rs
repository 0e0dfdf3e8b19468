//! Expected records: which produced records must be in the output, given where the source
//! starts reading each split (as a Flink offsets initializer says it).
//!
//! A source setup declares the start ([`crate::run::World::declare_start`]); the checks
//! resolve it against the history's `Produced` events, whose positions follow the rule of
//! [`crate::history::History::record_produced`]. A record at or after its split's start must
//! be in the output; one before it must not.
//!
//! Retention ([`crate::systems::Setting::RetentionMs`]) may delete records before a source
//! read them. A record is excused (optional) when a reader's fetch from a position at or
//! before it was answered out of range (it was deleted then: no source can replay it),
//! unless a completed checkpoint covered a read of it (then the sink has it). A record the
//! log still had when a reader was told its position was gone must be read: a reader that
//! seeks past it loses it, even if retention deletes it later.

use crate::history::{Event, EventKind};
use crate::record::RecordId;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Where a source starts reading a split.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum StartPosition {
    /// From the first record.
    #[default]
    Earliest,
    /// From the end of the split when the job starts: records produced before the job first
    /// started must not be read. The source looks the end up some time after the start (and
    /// again after a restart before its first completed checkpoint, as Flink does), so the
    /// records from the first start to the first split assignment after the last such
    /// restart may or may not be read; everything after it must be.
    Latest,
    /// From this position.
    Offset(u64),
    /// From the offset a consumer group committed in the source system (the setup commits
    /// it, and declares it here).
    Committed(u64),
    /// From the first record whose event time is at or after this (milliseconds).
    Timestamp(i64),
}

/// Declared start positions: one for every split, with overrides per split.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Starts {
    /// For splits without an override (including splits that appear during the run).
    pub default: StartPosition,
    /// Per split id.
    pub splits: BTreeMap<String, StartPosition>,
    /// The consumer group a new job without state starts from: each split at the offset the
    /// group committed there, where it has one (Flink's
    /// `OffsetsInitializer.committedOffsets`), as declared above elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// What the output must hold, resolved from the history.
#[derive(Clone, Debug, Default)]
pub struct Expected {
    /// Records that must be in the output.
    pub required: BTreeSet<RecordId>,
    /// Records that may or may not be there (see [`StartPosition::Latest`]).
    pub optional: BTreeSet<RecordId>,
    /// Records before their split's start, with that start position; they must not be there.
    pub before_start: BTreeMap<RecordId, u64>,
}

struct Produced {
    id: RecordId,
    pos: u64,
    event_time_ms: i64,
    index: usize,
}

impl Starts {
    /// Resolves the starts against a history, and excuses records retention deleted before
    /// a completed checkpoint covered a read of them.
    pub fn expected(&self, events: &[Event]) -> Expected {
        let mut out = self.resolve(events);
        excuse_deleted(events, &mut out);
        out
    }

    fn resolve(&self, events: &[Event]) -> Expected {
        let earliest = |s: &StartPosition| *s == StartPosition::Earliest;
        if earliest(&self.default) && self.splits.values().all(earliest) {
            // Every produced record is expected: no need to look at splits and positions.
            let required = events.iter().filter_map(|e| match &e.kind {
                EventKind::Produced { id, .. } => Some(*id),
                _ => None,
            });
            return Expected { required: required.collect(), ..Expected::default() };
        }
        let mut splits: BTreeMap<&str, Vec<Produced>> = BTreeMap::new();
        let mut first_start = None;
        let mut last_fresh_start = None;
        let mut first_completed = None;
        // The first split assignment after the last start without a completed checkpoint: by
        // then the source has looked its start positions up.
        let mut resolved = None;
        for (index, e) in events.iter().enumerate() {
            match &e.kind {
                EventKind::Produced { id, split, pos, event_time_ms, .. } => {
                    splits.entry(split).or_default().push(Produced {
                        id: *id,
                        pos: *pos,
                        event_time_ms: *event_time_ms,
                        index,
                    });
                }
                EventKind::JobStarted { .. } => {
                    first_start.get_or_insert(index);
                    if first_completed.is_none() {
                        last_fresh_start = Some(index);
                        resolved = None;
                    }
                }
                EventKind::SplitsAssigned { .. } if last_fresh_start.is_some() => {
                    resolved.get_or_insert(index);
                }
                EventKind::CheckpointCompleted { .. } => {
                    first_completed.get_or_insert(index);
                }
                // A new job without state looks its start up again (one from a savepoint
                // does not, as a restore).
                EventKind::NewJob { restored_from: 0, .. } => first_completed = None,
                _ => {}
            }
        }
        let mut out = Expected::default();
        for (split, records) in splits {
            let end_at = |at: Option<usize>| match at {
                Some(i) => records.iter().filter(|r| r.index < i).map(|r| r.pos + 1).max().unwrap_or(0),
                None => 0,
            };
            let (forbid_below, require_from) = match self.splits.get(split).copied().unwrap_or(self.default) {
                StartPosition::Earliest => (0, 0),
                StartPosition::Offset(k) | StartPosition::Committed(k) => (k, k),
                StartPosition::Latest => (end_at(first_start), end_at(resolved.or(last_fresh_start))),
                StartPosition::Timestamp(t) => {
                    let at = records.iter().filter(|r| r.event_time_ms >= t).map(|r| r.pos).min().unwrap_or(u64::MAX);
                    (at, at)
                }
            };
            for r in &records {
                if r.pos < forbid_below {
                    out.before_start.insert(r.id, forbid_below);
                } else if r.pos < require_from {
                    out.optional.insert(r.id);
                } else {
                    out.required.insert(r.id);
                }
            }
        }
        out
    }
}

/// Moves the records a reader lost to retention from required to optional: those at
/// positions `offset..start` of a fetch answered out of range, unless an attempt emitted
/// them before its barrier of a checkpoint that completed.
///
/// Only answers the current attempt on the reader's task executor got count: not one to a
/// zombie (an attempt replaced elsewhere, whose stale position says nothing about what the
/// live reader skipped), not one whose call was faulted (its answer may never have arrived),
/// and of the answers to one attempt's fetches from one position only the first (a reader
/// that keeps fetching a position it was told is gone skips what came after it).
fn excuse_deleted(events: &[Event], out: &mut Expected) {
    if !events.iter().any(|e| matches!(e.kind, EventKind::OutOfRange { .. })) {
        return;
    }
    let faulted: BTreeSet<u64> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Fault { call, .. } => *call,
            _ => None,
        })
        .collect();
    // Per subtask, the task executor its newest attempt was deployed on; per task executor,
    // the index of its newest deployment.
    let mut current: BTreeMap<usize, &str> = BTreeMap::new();
    let mut deployment: BTreeMap<&str, usize> = BTreeMap::new();
    let mut told: BTreeSet<(usize, &str, u64)> = BTreeSet::new();
    let mut lost: BTreeMap<&str, Vec<(u64, u64)>> = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        match &e.kind {
            EventKind::Deployed { subtask, .. } => {
                current.insert(*subtask, &e.node);
                deployment.insert(&e.node, i);
            }
            EventKind::OutOfRange { split, offset, start, reader, call } => {
                let live = current.values().any(|n| *n == reader.as_str());
                let delivered = call.is_none_or(|c| !faulted.contains(&c));
                let attempt = deployment.get(reader.as_str()).copied().unwrap_or(usize::MAX);
                if live && delivered && told.insert((attempt, split, *offset)) {
                    lost.entry(split).or_default().push((*offset, *start));
                }
            }
            _ => {}
        }
    }
    let deleted: BTreeSet<RecordId> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Produced { id, split, pos, .. } => {
                lost.get(split.as_str())?.iter().any(|(from, to)| (*from..*to).contains(pos)).then_some(*id)
            }
            _ => None,
        })
        .collect();
    // Per attempt: the deleted records it emitted, and how many of them each barrier covered.
    type Attempt = (usize, u64);
    let mut emitted: BTreeMap<Attempt, Vec<RecordId>> = BTreeMap::new();
    let mut barriers: BTreeMap<u64, Vec<(Attempt, usize)>> = BTreeMap::new();
    let mut durable = BTreeSet::new();
    for e in events {
        match &e.kind {
            EventKind::Emitted { subtask, attempt, ids } => {
                let mine = emitted.entry((*subtask, *attempt)).or_default();
                mine.extend(ids.iter().filter(|id| deleted.contains(id)));
            }
            EventKind::Barrier { subtask, attempt, checkpoint, .. } => {
                let n = emitted.get(&(*subtask, *attempt)).map_or(0, Vec::len);
                barriers.entry(*checkpoint).or_default().push(((*subtask, *attempt), n));
            }
            EventKind::CheckpointCompleted { checkpoint } => {
                for (attempt, n) in barriers.remove(checkpoint).unwrap_or_default() {
                    durable.extend(emitted.get(&attempt).map_or(&[][..], |v| &v[..n]).iter().copied());
                }
            }
            _ => {}
        }
    }
    for id in deleted.difference(&durable) {
        if out.required.remove(id) {
            out.optional.insert(*id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Event;

    fn produced(id: u64, split: &str, pos: u64, time: i64) -> Event {
        let kind = EventKind::Produced { id: RecordId(id), split: split.into(), pos, digest: 0, event_time_ms: time };
        Event { t_us: 0, node: "log".into(), kind }
    }
    fn at(kind: EventKind) -> Event {
        Event { t_us: 0, node: "jobmaster".into(), kind }
    }
    fn fault_on_call(call: u64) -> EventKind {
        let (from, to, kind) = ("log".into(), "te-1".into(), "log.fetch".into());
        EventKind::Fault { fault: crate::history::FaultKind::LoseResponse, from, to, kind, call: Some(call) }
    }
    fn ids(set: &BTreeSet<RecordId>) -> Vec<u64> {
        set.iter().map(|r| r.0).collect()
    }

    #[test]
    fn every_kind_of_start_resolves_against_the_history() {
        let events = vec![
            produced(1, "a", 0, 10),
            produced(2, "a", 1, 20),
            at(EventKind::JobStarted { parallelism: 1 }),
            produced(3, "a", 2, 30),
            at(EventKind::JobStarted { parallelism: 1 }), // a fresh restart: no checkpoint yet
            produced(4, "a", 3, 40),
            at(EventKind::SplitsAssigned { subtask: 0, attempt: 1, splits: vec!["a".into()] }),
            produced(7, "a", 4, 45),
            at(EventKind::CheckpointCompleted { checkpoint: 1 }),
            at(EventKind::JobStarted { parallelism: 1 }), // restored: latest is not looked up again
            produced(5, "a", 5, 5),
            produced(6, "b", 0, 50),
        ];
        let with = |default, splits: &[(&str, StartPosition)]| {
            let s = Starts { default, splits: splits.iter().map(|(k, v)| (k.to_string(), *v)).collect(), group: None };
            s.expected(&events)
        };
        let e = with(StartPosition::Earliest, &[]);
        assert_eq!(ids(&e.required), vec![1, 2, 3, 4, 5, 6, 7]);
        let e = with(StartPosition::Latest, &[]);
        // 3 and 4 came between the first start and the first assignment after the last fresh
        // start: the source may have looked the end up before or after them.
        assert_eq!((ids(&e.required), ids(&e.optional)), (vec![5, 6, 7], vec![3, 4]));
        assert_eq!(e.before_start.keys().map(|r| r.0).collect::<Vec<_>>(), vec![1, 2]);
        let e = with(StartPosition::Earliest, &[("a", StartPosition::Offset(3))]);
        assert_eq!(ids(&e.required), vec![4, 5, 6, 7]);
        assert_eq!(e.before_start.get(&RecordId(3)), Some(&3));
        let e = with(StartPosition::Timestamp(25), &[]);
        assert_eq!(ids(&e.required), vec![3, 4, 5, 6, 7], "the first record at or after the time, and all after it");
        let e = with(StartPosition::Committed(1), &[]);
        assert_eq!(ids(&e.required), vec![2, 3, 4, 5, 7], "split b has only position 0");
    }

    #[test]
    fn a_record_lost_to_retention_is_excused_unless_a_completed_checkpoint_covered_its_read() {
        let emitted = |attempt, ids: &[u64]| {
            at(EventKind::Emitted { subtask: 0, attempt, ids: ids.iter().map(|i| RecordId(*i)).collect() })
        };
        let barrier = |attempt, checkpoint| {
            at(EventKind::Barrier { subtask: 0, attempt, checkpoint, splits: vec![], positions: vec![] })
        };
        let on = |node: &str, kind| Event { t_us: 0, node: node.into(), kind };
        let out_of_range = |offset, start, call| {
            on("log", EventKind::OutOfRange { split: "a".into(), offset, start, reader: "te-1".into(), call })
        };
        let events = vec![
            on("te-1", EventKind::Deployed { subtask: 0, attempt: 2, checkpoint: 1 }),
            produced(1, "a", 0, 0),
            produced(2, "a", 1, 0),
            produced(3, "a", 2, 0),
            produced(4, "a", 3, 0),
            produced(5, "b", 0, 0),
            emitted(1, &[1]),
            barrier(1, 1),
            emitted(1, &[2]),
            barrier(1, 2), // never completes: 2's read is not durable
            at(EventKind::CheckpointCompleted { checkpoint: 1 }),
            emitted(2, &[3]), // after the barrier: not covered
            out_of_range(0, 2, Some(7)),
            out_of_range(1, 3, None),
        ];
        let e = Starts::default().expected(&events);
        assert_eq!((ids(&e.required), ids(&e.optional)), (vec![1, 4, 5], vec![2, 3]));
        let first_only = &events[..events.len() - 1];
        let e = Starts::default().expected(first_only);
        assert_eq!(ids(&e.optional), vec![2], "3 was still there when the reader was told its position was gone");
        // An answer whose call was faulted may never have arrived: it excuses nothing.
        let mut lost_answer = events.clone();
        lost_answer.push(on("gateway", fault_on_call(7)));
        lost_answer.remove(lost_answer.len() - 2);
        assert!(ids(&Starts::default().expected(&lost_answer).optional).is_empty());
        // A zombie's answer (its subtask was redeployed elsewhere) excuses nothing, nor does
        // a repeated answer to the same attempt's fetch from the same position.
        let mut zombie = events.clone();
        zombie.insert(zombie.len() - 1, on("te-2", EventKind::Deployed { subtask: 0, attempt: 3, checkpoint: 1 }));
        assert_eq!(ids(&Starts::default().expected(&zombie).optional), vec![2]);
        let mut again = first_only.to_vec();
        again.push(out_of_range(0, 4, None));
        assert_eq!(ids(&Starts::default().expected(&again).optional), vec![2]);
    }
}
