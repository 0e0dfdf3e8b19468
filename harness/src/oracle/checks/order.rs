//! Order: where the sink claims it, a downstream reader sees each split's records in the
//! order they were produced (read from the final output, in the reader's order).
//!
//! The claim holds while each split stays with one writer. A rescale deals splits out to
//! other subtasks, whose output (another partition, another file) a reader may see first, so
//! the check does not apply to a rescaled run and says so. Nor does it behind a rebalance or
//! key-by exchange, which sends one split's records to several writers (key-by keeps the
//! order of each key, not of the split).

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::history::{EventKind, FailoverScope};
use crate::record::RecordId;
use std::collections::{BTreeMap, BTreeSet};

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    if !f.ordered {
        return Verdict::pass("per-split-order", "not claimed by the sink");
    }
    if f.exchange.all_to_all() {
        return Verdict::pass(
            "per-split-order",
            format!(
                "not checked: records cross a {:?} exchange, so a split's records go to several writers",
                f.exchange
            ),
        );
    }
    let rescaled =
        f.events.iter().any(|e| matches!(&e.kind, EventKind::Failover { strategy: FailoverScope::Rescale, .. }));
    if rescaled {
        return Verdict::pass("per-split-order", "not checked: the job was rescaled, so splits changed writers");
    }
    let mut last: BTreeMap<&str, (u64, RecordId)> = BTreeMap::new();
    let mut seen: BTreeSet<RecordId> = BTreeSet::new();
    let mut evidence = Vec::new();
    let mut violations = 0;
    let mut ids = Vec::new();
    for (i, s) in f.visible_final.iter().enumerate() {
        let id = &s.id;
        if !seen.insert(*id) {
            continue; // duplicates are the duplicate check's business
        }
        let Some(crate::oracle::checks::Origin { split, pos, .. }) = f.origin_of(*id) else { continue };
        if let Some((prev_pos, prev)) = last.get(&**split) {
            if pos < prev_pos {
                violations += 1;
                ids.push(*id);
                if evidence.len() < EVIDENCE_MAX {
                    evidence.push(format!(
                        "split {split}: {id} (pos {pos}) is read at output position {i}, after {prev} (pos {prev_pos})"
                    ));
                }
                continue;
            }
        }
        last.insert(&**split, (*pos, *id));
    }
    if violations == 0 {
        Verdict::pass("per-split-order", format!("order preserved in {} splits", last.len()))
    } else {
        Verdict::fail(
            "per-split-order",
            format!("{violations} records overtook earlier records of their split"),
            evidence,
            None,
        )
        .counting(violations, ids)
    }
}
