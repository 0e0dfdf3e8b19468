//! Split accounting: in every completed checkpoint each split is in exactly one place —
//! pending in the enumerator, in one reader's state, or finished — and no split known at
//! the previous completed checkpoint, or assigned before this one, has vanished.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::history::{CheckpointId, EventKind};
use std::collections::{BTreeMap, BTreeSet};

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    const NAME: &str = "split-accounting";
    let mut pending: BTreeMap<CheckpointId, Vec<String>> = BTreeMap::new();
    let mut readers: BTreeMap<CheckpointId, Vec<(usize, Vec<String>)>> = BTreeMap::new();
    let mut finished_by: BTreeMap<(usize, u64), Vec<String>> = BTreeMap::new();
    let mut finished_at_barrier: BTreeMap<CheckpointId, Vec<String>> = BTreeMap::new();
    let mut assigned_since: BTreeSet<String> = BTreeSet::new();
    let mut assigned_before: BTreeMap<CheckpointId, BTreeSet<String>> = BTreeMap::new();
    let mut finished_total: BTreeSet<String> = BTreeSet::new();
    let mut known: BTreeSet<String> = BTreeSet::new();
    let mut evidence = Vec::new();
    let mut first_bad = None;
    let mut checked = 0;
    for (i, e) in f.events.iter().enumerate() {
        match &e.kind {
            EventKind::SplitsAssigned { splits, .. } => assigned_since.extend(splits.iter().cloned()),
            EventKind::SplitFinished { subtask, attempt, split } => {
                finished_by.entry((*subtask, *attempt)).or_default().push(split.clone());
            }
            EventKind::CheckpointTriggered { checkpoint, pending: p } => {
                pending.insert(*checkpoint, p.clone());
                assigned_before.insert(*checkpoint, std::mem::take(&mut assigned_since));
            }
            EventKind::Barrier { subtask, attempt, checkpoint, splits } => {
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
                let expected = known.iter().chain(assigned_before.remove(c).unwrap_or_default().iter()).cloned().collect::<BTreeSet<_>>();
                for split in expected {
                    if !places.contains_key(&split) && !finished_total.contains(&split) {
                        bad(format!("split {split} vanished: not pending, not in any reader, not finished"));
                    }
                }
                known = places.into_keys().collect();
            }
            _ => {}
        }
    }
    if evidence.is_empty() {
        Verdict::pass(NAME, format!("every split accounted for in {checked} completed checkpoints"))
    } else {
        Verdict::fail(NAME, "a split was in two places at once, or vanished, in a completed checkpoint", evidence, first_bad)
    }
}
