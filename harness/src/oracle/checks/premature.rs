//! No premature visibility, and no vanishing.
//!
//! Exactly-once: a record may only become visible once a completed checkpoint covers it (its
//! subtask emitted it before that checkpoint's barrier, in that attempt), and nothing
//! visible ever vanishes. At-least-once: records may show early, but nothing visible ever
//! vanishes. Idempotent (upserts): records may show early and be rewritten, but a record
//! once visible never disappears altogether.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::api::DeliveryGuarantee;
use crate::history::{CheckpointId, EventKind};
use crate::record::{IdMap, RecordId};
use std::collections::BTreeMap;

/// A subtask attempt.
type Attempt = (usize, u64);

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    const NAME: &str = "no-premature-visibility";
    let exactly_once = f.guarantee == DeliveryGuarantee::ExactlyOnce;
    // Only asked "contains?", never iterated, so hash containers cannot affect the output's order.
    // Each record covered by a completed checkpoint, with the event at which it became so.
    let mut safe: IdMap<usize> = IdMap::default();
    let mut visible: IdMap<usize> = IdMap::default();
    // Sized for every produced record once, rather than grown (and rehashed) on the way.
    if exactly_once {
        safe.reserve(f.produced.len()); // only exactly-once sinks mark records safe
    }
    visible.reserve(f.produced.len());
    let mut emitted: BTreeMap<Attempt, Vec<RecordId>> = BTreeMap::new();
    let mut barriers: BTreeMap<CheckpointId, Vec<(Attempt, usize)>> = BTreeMap::new();
    // How much of each attempt's emitted prefix is already marked safe.
    let mut safe_upto: BTreeMap<Attempt, usize> = BTreeMap::new();
    let mut evidence = Vec::new();
    let mut first_bad = None;
    let (mut premature, mut vanished) = (0usize, 0usize);
    let mut ids = Vec::new();
    let mut changes = f.changes().peekable();
    for (i, e) in f.events.iter().enumerate() {
        match &e.kind {
            EventKind::Emitted { subtask, attempt, ids } if exactly_once => {
                emitted.entry((*subtask, *attempt)).or_default().extend(ids);
            }
            EventKind::Barrier { subtask, attempt, checkpoint, .. } if exactly_once => {
                let n = emitted.get(&(*subtask, *attempt)).map_or(0, Vec::len);
                barriers.entry(*checkpoint).or_default().push(((*subtask, *attempt), n));
            }
            // A new job's copies need its own checkpoints: without state nothing is covered,
            // from a savepoint what that savepoint covered.
            EventKind::NewJob { restored_from, .. } if exactly_once => {
                let covered_until = f.completed.get(restored_from).copied();
                safe.retain(|_, at| covered_until.is_some_and(|until| *at <= until));
            }
            EventKind::CheckpointCompleted { checkpoint } if exactly_once => {
                for (key, n) in barriers.remove(checkpoint).unwrap_or_default() {
                    let from = safe_upto.entry(key).or_default();
                    if n > *from {
                        for id in &emitted[&key][*from..n] {
                            safe.entry(*id).or_insert(i);
                        }
                        *from = n;
                    }
                }
            }
            _ => {}
        }
        let Some(c) = changes.next_if(|c| c.index == i) else { continue };
        let mut bad = |msg: String| {
            first_bad.get_or_insert(i);
            if evidence.len() < EVIDENCE_MAX {
                evidence.push(msg);
            }
        };
        for s in c.records {
            let n = visible.entry(s.id).or_default();
            if c.appeared {
                *n += 1;
                if exactly_once && !safe.contains_key(&s.id) {
                    premature += 1;
                    ids.push(s.id);
                    bad(format!(
                        "{} became visible at {} but no completed checkpoint covers it (last completed: {})",
                        f.origin(s.id),
                        f.describe_change(&c),
                        f.last_completed_before(i)
                    ));
                }
                continue;
            }
            *n = n.saturating_sub(1);
            // An upsert may rewrite a record (one copy goes, another comes); it may not lose it.
            if f.guarantee != DeliveryGuarantee::Idempotent || *n == 0 {
                vanished += 1;
                ids.push(s.id);
                bad(format!("{} vanished from the output at {}", f.origin(s.id), f.describe_change(&c)));
            }
        }
    }
    if premature == 0 && vanished == 0 {
        let what = match f.guarantee {
            DeliveryGuarantee::ExactlyOnce => {
                "every visible record was covered by a completed checkpoint; nothing vanished"
            }
            DeliveryGuarantee::AtLeastOnce => "at-least-once: visibility before completion allowed; nothing vanished",
            DeliveryGuarantee::Idempotent => "idempotent: visibility before completion allowed; no record vanished",
        };
        return Verdict::pass(NAME, what);
    }
    Verdict::fail(
        NAME,
        format!("{premature} records became visible before a completed checkpoint covered them; {vanished} vanished"),
        evidence,
        first_bad,
    )
    .counting(premature + vanished, ids)
}
