//! No loss: every expected record (produced at or after its split's declared start) is in
//! the output at the end, unless the connector declared its loss (a system's own rule
//! destroyed it, and a commit said so: `declared-loss` judges those).
//! A destroyed record whose commit claimed success is lost silently.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::history::attempt::Shown;
use crate::history::EventKind;
use crate::record::{IdSet, RecordId};
use std::collections::{BTreeMap, BTreeSet};

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    let visible: IdSet = f.visible_final.iter().map(|s| s.id).collect();
    let missing = f.expected.required.iter().filter(|id| !visible.contains(id));
    let (declared, lost): (Vec<RecordId>, Vec<RecordId>) = missing.partition(|id| f.declared.contains_key(id));
    let expected = f.expected.required.len();
    if lost.is_empty() && declared.is_empty() {
        return Verdict::pass("no-loss", format!("all {expected} expected records are in the output"));
    }
    if lost.is_empty() {
        return Verdict::pass(
            "no-loss",
            format!(
                "all {expected} expected records are in the output but {}, whose loss the connector declared (declared-loss)",
                declared.len()
            ),
        );
    }
    // For each lost record: was it ever emitted, and by which checkpoints was it covered?
    let wanted: BTreeSet<RecordId> = lost.iter().take(EVIDENCE_MAX).copied().collect();
    let mut emitted: BTreeMap<RecordId, Vec<(usize, u64)>> = BTreeMap::new();
    let mut open: BTreeMap<(usize, u64), Vec<RecordId>> = BTreeMap::new();
    let mut covered: BTreeMap<RecordId, Vec<u64>> = BTreeMap::new();
    // Where each split was last seen, so the evidence can say where its records went missing.
    let splits: BTreeSet<&str> = wanted.iter().filter_map(|id| f.produced.get(id)).map(|o| &*o.split).collect();
    let mut last_seen: BTreeMap<&str, String> = BTreeMap::new();
    let mut failover_checkpoint = 0;
    for (i, e) in f.events.iter().enumerate() {
        let mut seen = |split: &String, what: String| {
            if let Some(s) = splits.get(split.as_str()) {
                last_seen.insert(s, format!("{what} ({})", f.describe(i)));
            }
        };
        match &e.kind {
            EventKind::SplitsAssigned { subtask, attempt, splits } => {
                splits.iter().for_each(|s| seen(s, format!("assigned to subtask {subtask} attempt {}", Shown(*attempt))));
            }
            EventKind::Failover { checkpoint, .. } => failover_checkpoint = *checkpoint,
            EventKind::SplitsReturned { subtask, splits } => splits.iter().for_each(|s| {
                seen(s, format!("returned by failed subtask {subtask} to the enumerator (restoring checkpoint {failover_checkpoint})"))
            }),
            EventKind::CheckpointTriggered { checkpoint, pending } => {
                pending.iter().for_each(|s| seen(s, format!("pending in the enumerator at checkpoint {checkpoint}")));
            }
            EventKind::SplitFinished { subtask, attempt, split } => {
                seen(split, format!("finished by subtask {subtask} attempt {}", Shown(*attempt)));
            }
            _ => {}
        }
        match &e.kind {
            EventKind::Emitted { subtask, attempt, ids } => {
                for id in ids.iter().filter(|id| wanted.contains(id)) {
                    emitted.entry(*id).or_default().push((*subtask, *attempt));
                    open.entry((*subtask, *attempt)).or_default().push(*id);
                }
            }
            EventKind::Barrier { subtask, attempt, checkpoint, splits: held, positions } => {
                for (k, s) in held.iter().enumerate().filter(|(_, s)| splits.contains(s.as_str())) {
                    let at = match positions.get(k).copied().flatten() {
                        Some(pos) => format!(" at position {pos}"),
                        None => String::new(),
                    };
                    last_seen.insert(
                        splits.get(s.as_str()).expect("filtered"),
                        format!(
                            "in reader {subtask} attempt {}{at} at checkpoint {checkpoint} ({})",
                            Shown(*attempt),
                            f.describe(i)
                        ),
                    );
                }
                for id in open.remove(&(*subtask, *attempt)).unwrap_or_default() {
                    covered.entry(id).or_default().push(*checkpoint);
                }
            }
            _ => {}
        }
    }
    let evidence = wanted
        .iter()
        .map(|id| {
            let by = emitted.get(id).map_or("never emitted".to_string(), |v| {
                let by: Vec<String> = v.iter().map(|(s, a)| format!("subtask {s} attempt {}", Shown(*a))).collect();
                format!("emitted by {}", by.join(", "))
            });
            let cps = covered.get(id).map_or("no barrier followed".to_string(), |cs| {
                let done: Vec<_> = cs.iter().filter(|c| f.completed.contains_key(c)).collect();
                format!("covered by checkpoints {cs:?}, completed among them {done:?}")
            });
            let split = f.produced.get(id).map(|o| &*o.split).unwrap_or_default();
            let last =
                last_seen.get(split).map_or("never seen in any assignment or checkpoint".to_string(), Clone::clone);
            format!("{} lost: {by}; {cps}; split last seen: {last}", f.origin(*id))
        })
        .collect();
    Verdict::fail(
        "no-loss",
        format!("{} of {expected} expected records are missing from the output", lost.len()),
        evidence,
        None,
    )
    .counting(lost.len(), lost.iter().copied())
}
