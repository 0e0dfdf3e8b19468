//! No duplicates: in exactly-once mode no record is visible twice; at-least-once mode
//! counts duplicates and allows them.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::api::DeliveryGuarantee;
use crate::record::RecordId;
use std::collections::BTreeMap;

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    let mut count: BTreeMap<RecordId, usize> = BTreeMap::new();
    for id in &f.visible_final {
        *count.entry(*id).or_default() += 1;
    }
    let dups: Vec<(RecordId, usize)> = count.into_iter().filter(|(_, n)| *n > 1).collect();
    if dups.is_empty() {
        return Verdict::pass("no-duplicates", "no record is visible twice");
    }
    if f.guarantee == DeliveryGuarantee::AtLeastOnce {
        return Verdict::pass("no-duplicates", format!("{} records visible more than once (allowed: at-least-once)", dups.len()));
    }
    // When did each copy become visible, and which checkpoint had completed by then?
    let mut first_bad = None;
    let mut seen: BTreeMap<RecordId, Vec<usize>> = BTreeMap::new();
    for (i, ids) in f.visibility() {
        for id in ids {
            let v = seen.entry(*id).or_default();
            v.push(i);
            if v.len() == 2 && first_bad.is_none() {
                first_bad = Some(i);
            }
        }
    }
    let last_completed_before = |i: usize| f.completed.iter().filter(|(_, &at)| at < i).map(|(c, _)| *c).max();
    let evidence = dups
        .iter()
        .take(EVIDENCE_MAX)
        .map(|(id, n)| {
            let when: Vec<String> = seen
                .get(id)
                .map(|v| {
                    v.iter()
                        .map(|&i| format!("{} (last completed checkpoint: {})", f.describe(i), last_completed_before(i).map_or("none".into(), |c| c.to_string())))
                        .collect()
                })
                .unwrap_or_default();
            format!("{} visible {n} times: {}", f.origin(*id), when.join("; "))
        })
        .collect();
    Verdict::fail("no-duplicates", format!("{} records are visible more than once", dups.len()), evidence, first_bad)
}
