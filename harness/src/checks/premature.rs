//! No premature visibility: in exactly-once mode the visible output only ever holds records
//! covered by completed checkpoints, and it never shrinks.
//!
//! A record is covered by checkpoint c when its subtask emitted it before barrier c in that
//! attempt; it becomes safe to show once c is complete.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::api::DeliveryGuarantee;
use crate::history::{CheckpointId, EventKind};
use crate::record::RecordId;
use std::collections::{BTreeMap, HashSet};

/// A subtask attempt.
type Attempt = (usize, u64);

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    const NAME: &str = "no-premature-visibility";
    // Only asked "contains?", never iterated, so a hash set cannot affect the output's order.
    let mut safe: HashSet<RecordId> = HashSet::new();
    let mut emitted: BTreeMap<(usize, u64), Vec<RecordId>> = BTreeMap::new();
    let mut barriers: BTreeMap<CheckpointId, Vec<(Attempt, usize)>> = BTreeMap::new();
    // How much of each attempt's emitted prefix is already marked safe.
    let mut safe_upto: BTreeMap<(usize, u64), usize> = BTreeMap::new();
    let mut ever_visible: BTreeMap<RecordId, usize> = BTreeMap::new();
    let mut evidence = Vec::new();
    let mut first_bad = None;
    let mut premature = 0usize;
    let mut last_completed = 0;
    for (i, e) in f.events.iter().enumerate() {
        match &e.kind {
            EventKind::Emitted { subtask, attempt, ids } => {
                emitted.entry((*subtask, *attempt)).or_default().extend(ids);
            }
            EventKind::Barrier { subtask, attempt, checkpoint, .. } => {
                let n = emitted.get(&(*subtask, *attempt)).map_or(0, Vec::len);
                barriers.entry(*checkpoint).or_default().push(((*subtask, *attempt), n));
            }
            EventKind::CheckpointCompleted { checkpoint } => {
                last_completed = *checkpoint;
                for (key, n) in barriers.remove(checkpoint).unwrap_or_default() {
                    let from = safe_upto.entry(key).or_default();
                    if n > *from {
                        safe.extend(&emitted[&key][*from..n]);
                        *from = n;
                    }
                }
            }
            EventKind::Visible { location, ids } if *location == f.output_location => {
                for id in ids {
                    *ever_visible.entry(*id).or_default() += 1;
                    if f.guarantee == DeliveryGuarantee::ExactlyOnce && !safe.contains(id) {
                        premature += 1;
                        first_bad.get_or_insert(i);
                        if evidence.len() < EVIDENCE_MAX {
                            evidence.push(format!(
                                "{} became visible at {} but no completed checkpoint covers it (last completed: {last_completed})",
                                f.origin(*id),
                                f.describe(i)
                            ));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let mut final_count: BTreeMap<RecordId, usize> = BTreeMap::new();
    for id in &f.visible_final {
        *final_count.entry(*id).or_default() += 1;
    }
    let shrunk: Vec<_> =
        ever_visible.iter().filter(|(id, n)| final_count.get(id).copied().unwrap_or(0) < **n).collect();
    for (id, n) in shrunk.iter().take(EVIDENCE_MAX) {
        evidence.push(format!("{} was visible {n} times but is not (as often) in the final output", f.origin(**id)));
    }
    if premature == 0 && shrunk.is_empty() {
        let what = match f.guarantee {
            DeliveryGuarantee::ExactlyOnce => "every visible record was covered by a completed checkpoint",
            DeliveryGuarantee::AtLeastOnce => "at-least-once: visibility before completion allowed; output never shrank",
        };
        return Verdict::pass(NAME, what);
    }
    Verdict::fail(
        NAME,
        format!("{premature} records became visible before a completed checkpoint covered them; {} vanished", shrunk.len()),
        evidence,
        first_bad,
    )
}
