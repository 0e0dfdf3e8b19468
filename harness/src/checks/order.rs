//! Order: records of one split become visible in the order they were produced.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::record::RecordId;
use std::collections::{BTreeMap, BTreeSet};

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    let mut last: BTreeMap<&str, (u64, RecordId)> = BTreeMap::new();
    let mut seen: BTreeSet<RecordId> = BTreeSet::new();
    let mut evidence = Vec::new();
    let mut first_bad = None;
    let mut violations = 0;
    for (i, ids) in f.visibility() {
        for id in ids {
            if !seen.insert(*id) {
                continue; // duplicates are the duplicate check's business
            }
            let Some((split, pos)) = f.produced.get(id) else { continue };
            if let Some((prev_pos, prev)) = last.get(split.as_str()) {
                if pos < prev_pos {
                    violations += 1;
                    first_bad.get_or_insert(i);
                    if evidence.len() < EVIDENCE_MAX {
                        evidence.push(format!(
                            "split {split}: {id} (pos {pos}) became visible at {} after {prev} (pos {prev_pos})",
                            f.describe(i)
                        ));
                    }
                    continue;
                }
            }
            last.insert(split, (*pos, *id));
        }
    }
    if violations == 0 {
        Verdict::pass("per-split-order", format!("order preserved in {} splits", last.len()))
    } else {
        Verdict::fail("per-split-order", format!("{violations} records overtook earlier records of their split"), evidence, first_bad)
    }
}
