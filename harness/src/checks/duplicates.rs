//! No duplicates. Exactly-once and idempotent sinks show no record twice at the end. An
//! at-least-once sink may show a record more than once, but only where the history explains
//! it: each emission of the record (a re-emission after a restore), each failover after it
//! was first emitted (a restored writer resending what its state held), and each copy that
//! became visible through a call whose caller never got the response (a retried request)
//! allows one copy. An unexplained duplicate fails, so any duplicate of a fault-free run does.

use super::{Change, RunFacts, Verdict, EVIDENCE_MAX};
use crate::api::DeliveryGuarantee;
use crate::history::{Cause, EventKind};
use crate::record::RecordId;
use std::collections::{BTreeMap, BTreeSet};

const NAME: &str = "no-duplicates";

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    let dups = f.visible_more_than_once();
    if dups.is_empty() {
        return Verdict::pass(NAME, "no record is visible twice");
    }
    let mut copies: BTreeMap<RecordId, Vec<usize>> = BTreeMap::new();
    for c in f.changes().filter(|c| c.appeared) {
        for s in c.records {
            copies.entry(s.id).or_default().push(c.index);
        }
    }
    let when = |id: &RecordId| {
        let at = copies.get(id).map(Vec::as_slice).unwrap_or_default();
        at.iter()
            .map(|&i| format!("{} (last completed checkpoint: {})", f.describe(i), f.last_completed_before(i)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let first_second_copy = |ids: &mut dyn Iterator<Item = &RecordId>| {
        ids.filter_map(|id| copies.get(id).and_then(|v| v.get(1)).copied()).min()
    };
    if f.guarantee == DeliveryGuarantee::AtLeastOnce {
        return at_least_once(f, &dups, &when, &first_second_copy);
    }
    let evidence = dups.iter().take(EVIDENCE_MAX).map(|(id, n)| format!("{} visible {n} times: {}", f.origin(*id), when(id))).collect();
    let first_bad = first_second_copy(&mut dups.iter().map(|(id, _)| id));
    Verdict::fail(NAME, format!("{} records are visible more than once", dups.len()), evidence, first_bad)
}

fn at_least_once(
    f: &RunFacts,
    dups: &[(RecordId, usize)],
    when: &dyn Fn(&RecordId) -> String,
    first_second_copy: &dyn Fn(&mut dyn Iterator<Item = &RecordId>) -> Option<usize>,
) -> Verdict {
    let wanted: BTreeSet<RecordId> = dups.iter().map(|(id, _)| *id).collect();
    let mut emitted: BTreeMap<RecordId, (usize, usize)> = BTreeMap::new(); // (count, first index)
    let mut failovers = Vec::new();
    let mut timed_out = BTreeSet::new();
    for (i, e) in f.events.iter().enumerate() {
        match &e.kind {
            EventKind::Emitted { ids, .. } => {
                for id in ids.iter().filter(|id| wanted.contains(id)) {
                    emitted.entry(*id).or_insert((0, i)).0 += 1;
                }
            }
            EventKind::Failover { .. } => failovers.push(i),
            EventKind::CallTimedOut { call, .. } => {
                timed_out.insert(*call);
            }
            _ => {}
        }
    }
    let mut lost_response: BTreeMap<RecordId, usize> = BTreeMap::new();
    let changes: Vec<Change<'_>> = f.changes().filter(|c| c.appeared).collect();
    for c in &changes {
        if let Cause::Request { call: Some(call), .. } = c.cause {
            if timed_out.contains(call) {
                for s in c.records.iter().filter(|s| wanted.contains(&s.id)) {
                    *lost_response.entry(s.id).or_default() += 1;
                }
            }
        }
    }
    let mut unexplained = Vec::new();
    for (id, n) in dups {
        let (emissions, first) = emitted.get(id).copied().unwrap_or((0, usize::MAX));
        let restores = failovers.iter().filter(|&&i| i > first).count();
        let retried = lost_response.get(id).copied().unwrap_or(0);
        let allowed = emissions.max(1) + restores + retried;
        if *n > allowed {
            unexplained.push((*id, *n, emissions, restores, retried));
        }
    }
    if unexplained.is_empty() {
        return Verdict::pass(
            NAME,
            format!("{} records visible more than once, each explained by a restore or a retried request (allowed: at-least-once)", dups.len()),
        );
    }
    let evidence = unexplained
        .iter()
        .take(EVIDENCE_MAX)
        .map(|(id, n, emissions, restores, retried)| {
            format!(
                "{} visible {n} times, but emitted {emissions} times, with {restores} failovers after its first emission and {retried} copies from requests whose response was lost: {}",
                f.origin(*id),
                when(id)
            )
        })
        .collect();
    let first_bad = first_second_copy(&mut unexplained.iter().map(|(id, ..)| id));
    Verdict::fail(
        NAME,
        format!("{} records are visible more often than restores and retried requests explain (at-least-once)", unexplained.len()),
        evidence,
        first_bad,
    )
}
