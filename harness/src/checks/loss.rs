//! No loss: every produced record is in the committed output at the end.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::history::EventKind;
use crate::record::RecordId;
use std::collections::{BTreeMap, BTreeSet};

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    let visible: BTreeSet<RecordId> = f.visible_final.iter().copied().collect();
    let lost: Vec<RecordId> = f.produced.keys().filter(|id| !visible.contains(id)).copied().collect();
    if lost.is_empty() {
        return Verdict::pass("no-loss", format!("all {} produced records are in the output", f.produced.len()));
    }
    // For each lost record: was it ever emitted, and by which checkpoints was it covered?
    let wanted: BTreeSet<RecordId> = lost.iter().take(EVIDENCE_MAX).copied().collect();
    let mut emitted: BTreeMap<RecordId, Vec<(usize, u64)>> = BTreeMap::new();
    let mut open: BTreeMap<(usize, u64), Vec<RecordId>> = BTreeMap::new();
    let mut covered: BTreeMap<RecordId, Vec<u64>> = BTreeMap::new();
    for e in &f.events {
        match &e.kind {
            EventKind::Emitted { subtask, attempt, ids } => {
                for id in ids.iter().filter(|id| wanted.contains(id)) {
                    emitted.entry(*id).or_default().push((*subtask, *attempt));
                    open.entry((*subtask, *attempt)).or_default().push(*id);
                }
            }
            EventKind::Barrier { subtask, attempt, checkpoint, .. } => {
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
                format!("emitted by (subtask, attempt) {v:?}")
            });
            let cps = covered.get(id).map_or("no barrier followed".to_string(), |cs| {
                let done: Vec<_> = cs.iter().filter(|c| f.completed.contains_key(c)).collect();
                format!("covered by checkpoints {cs:?}, completed among them {done:?}")
            });
            format!("{} lost: {by}; {cps}", f.origin(*id))
        })
        .collect();
    Verdict::fail(
        "no-loss",
        format!("{} of {} produced records are missing from the output", lost.len(), f.produced.len()),
        evidence,
        None,
    )
}
