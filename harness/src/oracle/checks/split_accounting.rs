//! Split accounting: in every completed checkpoint each split is in exactly one place —
//! pending in the enumerator, in one reader's state, or finished — and no split has vanished:
//! every split placed in the previous completed checkpoint, or assigned between its trigger
//! and this one's, is still somewhere. A global failover resets the enumerator to the last
//! completed checkpoint, so assignments made before it are legitimately forgotten. A new job
//! without state starts the accounting afresh (every split is its to read again); one from
//! a savepoint goes on from what that savepoint placed and had finished.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::history::{CheckpointId, EventKind, FailoverScope};
use std::collections::{BTreeMap, BTreeSet};

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    const NAME: &str = "split-accounting";
    let mut pending: BTreeMap<CheckpointId, Vec<String>> = BTreeMap::new();
    let mut readers: BTreeMap<CheckpointId, Vec<(usize, Vec<String>)>> = BTreeMap::new();
    let mut finished_by: BTreeMap<(usize, u64), Vec<String>> = BTreeMap::new();
    let mut finished_at_barrier: BTreeMap<CheckpointId, Vec<String>> = BTreeMap::new();
    // Every assignment with its event index, and where the unverified window starts.
    let mut assignments: Vec<(usize, String)> = Vec::new();
    let mut window_start = 0usize;
    let mut triggered_at: BTreeMap<CheckpointId, usize> = BTreeMap::new();
    let mut finished_total: BTreeSet<String> = BTreeSet::new();
    let mut known: BTreeSet<String> = BTreeSet::new();
    // What each completed checkpoint placed and had finished, for a new job restoring it.
    let mut at_completion: BTreeMap<CheckpointId, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
    let mut evidence = Vec::new();
    let mut first_bad = None;
    let mut checked = 0;
    for (i, e) in f.events.iter().enumerate() {
        match &e.kind {
            EventKind::SplitsAssigned { splits, .. } => assignments.extend(splits.iter().map(|s| (i, s.clone()))),
            EventKind::Failover { strategy, .. } if *strategy != FailoverScope::Region => window_start = i,
            EventKind::NewJob { restored_from, .. } => {
                // Without state the new job reads every split again; from a savepoint it
                // goes on from what that savepoint placed and had finished.
                window_start = i;
                let (k, done) = at_completion.get(restored_from).cloned().unwrap_or_default();
                known = k;
                finished_total = done;
            }
            EventKind::SplitFinished { subtask, attempt, split } => {
                finished_by.entry((*subtask, *attempt)).or_default().push(split.clone());
            }
            EventKind::CheckpointTriggered { checkpoint, pending: p } => {
                pending.insert(*checkpoint, p.clone());
                triggered_at.insert(*checkpoint, i);
            }
            EventKind::Barrier { subtask, attempt, checkpoint, splits, .. } => {
                readers.entry(*checkpoint).or_default().push((*subtask, splits.clone()));
                let done = finished_by.get(&(*subtask, *attempt)).cloned().unwrap_or_default();
                finished_at_barrier.entry(*checkpoint).or_default().extend(done);
            }
            EventKind::CheckpointCompleted { checkpoint: c } => {
                checked += 1;
                finished_total.extend(finished_at_barrier.remove(c).unwrap_or_default());
                let mut places: BTreeMap<String, Vec<String>> = BTreeMap::new();
                for s in pending.remove(c).unwrap_or_default() {
                    places.entry(s).or_default().push("enumerator".into());
                }
                for (subtask, splits) in readers.remove(c).unwrap_or_default() {
                    for s in splits {
                        places.entry(s).or_default().push(format!("reader {subtask}"));
                    }
                }
                let mut bad = |msg: String| {
                    first_bad.get_or_insert(i);
                    if evidence.len() < EVIDENCE_MAX {
                        evidence.push(format!("checkpoint {c}: {msg}"));
                    }
                };
                for (split, where_) in &places {
                    if where_.len() > 1 {
                        bad(format!("split {split} is in {} places: {}", where_.len(), where_.join(", ")));
                    }
                    if finished_total.contains(split) {
                        bad(format!("split {split} was finished but is still in {}", where_.join(", ")));
                    }
                }
                let trigger = triggered_at.get(c).copied().unwrap_or(i);
                let assigned = assignments.iter().filter(|(at, _)| *at >= window_start && *at < trigger);
                let expected: BTreeSet<String> =
                    known.iter().cloned().chain(assigned.map(|(_, s)| s.clone())).collect();
                window_start = window_start.max(trigger);
                for split in expected {
                    if !places.contains_key(&split) && !finished_total.contains(&split) {
                        bad(format!("split {split} vanished: not pending, not in any reader, not finished"));
                    }
                }
                known = places.into_keys().collect();
                at_completion.insert(*c, (known.clone(), finished_total.clone()));
            }
            _ => {}
        }
    }
    if evidence.is_empty() {
        Verdict::pass(NAME, format!("every split accounted for in {checked} completed checkpoints"))
    } else {
        Verdict::fail(
            NAME,
            "a split was in two places at once, or vanished, in a completed checkpoint",
            evidence,
            first_bad,
        )
    }
}
