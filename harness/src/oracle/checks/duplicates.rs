//! No duplicates. Exactly-once and idempotent sinks show no record twice at the end. An
//! at-least-once sink may show a record more than once, but only where the history explains
//! it. One copy is allowed for each emission of the record (a re-emission after a restore);
//! for each failover of its subtask that restored a checkpoint covering it (a restored writer
//! resending what its state held; a record the checkpoint did not cover is re-emitted
//! instead, so a failover counts one way or the other); and for each copy that became
//! visible through a call whose caller never got the response (a retried request). An
//! unexplained duplicate fails, so any duplicate of a fault-free run does.
//!
//! A new job (without state, or from an older savepoint) reads its input again against the
//! output the jobs before it left: it may add one copy of a record it reads again to the
//! copies visible when it started, never more. One from a savepoint does not read again what
//! the savepoint's positions had passed: a copy of such a record (a committable of the
//! savepoint committed twice) is a duplicate. Nor does one without state whose source
//! declared that it starts from its consumer group's committed offsets
//! ([`crate::run::World::declare_group_start`]) read again what lies behind the offsets the
//! group had committed when the job was submitted: a source that ignores them and starts
//! from the earliest duplicates what the last job's checkpoints covered.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::api::DeliveryGuarantee;
use crate::history::{Cause, EventKind, FailoverScope};
use crate::record::RecordId;
use std::collections::{BTreeMap, BTreeSet};

const NAME: &str = "no-duplicates";

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    let mut dups = f.visible_more_than_once();
    if dups.is_empty() {
        return Verdict::pass(NAME, "no record is visible twice");
    }
    let allowance = allowed_by_new_jobs(f);
    let before = dups.len();
    let allowed = |id: &RecordId| allowance.get(id).copied().unwrap_or(1);
    dups.retain(|(id, n)| *n > allowed(id));
    if dups.is_empty() {
        return Verdict::pass(
            NAME,
            format!("{before} records are visible twice or more, none more than once per job that read them again"),
        );
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
    let evidence = dups
        .iter()
        .take(EVIDENCE_MAX)
        .map(|(id, n)| match allowance.get(id) {
            Some(k) => format!(
                "{} visible {n} times, {k} allowed for the jobs that read it (one copy each): {}",
                f.origin(*id),
                when(id)
            ),
            None => format!("{} visible {n} times: {}", f.origin(*id), when(id)),
        })
        .collect();
    let first_bad = first_second_copy(&mut dups.iter().map(|(id, _)| id));
    Verdict::fail(NAME, format!("{} records are visible more than once", dups.len()), evidence, first_bad)
        .counting(dups.len(), dups.iter().map(|(id, _)| *id))
}

fn at_least_once(
    f: &RunFacts,
    dups: &[(RecordId, usize)],
    when: &dyn Fn(&RecordId) -> String,
    first_second_copy: &dyn Fn(&mut dyn Iterator<Item = &RecordId>) -> Option<usize>,
) -> Verdict {
    let wanted: BTreeSet<RecordId> = dups.iter().map(|(id, _)| *id).collect();
    // Per record: how often it was emitted, and the checkpoints whose barrier (in the emitting
    // attempt) came after an emission, each with the emitting subtask.
    let mut emissions: BTreeMap<RecordId, usize> = BTreeMap::new();
    let mut open: BTreeMap<(usize, u64), Vec<RecordId>> = BTreeMap::new();
    let mut covered: BTreeMap<RecordId, Vec<(usize, u64)>> = BTreeMap::new();
    // (subtasks, every subtask restarted, states dealt out anew, restored checkpoint)
    let mut failovers: Vec<(Vec<usize>, bool, bool, u64)> = Vec::new();
    let mut timed_out = BTreeSet::new();
    for e in &f.events {
        match &e.kind {
            EventKind::Emitted { subtask, attempt, ids } => {
                for id in ids.iter().filter(|id| wanted.contains(id)) {
                    *emissions.entry(*id).or_default() += 1;
                    open.entry((*subtask, *attempt)).or_default().push(*id);
                }
            }
            EventKind::Barrier { subtask, attempt, checkpoint, .. } => {
                for id in open.remove(&(*subtask, *attempt)).unwrap_or_default() {
                    covered.entry(id).or_default().push((*subtask, *checkpoint));
                }
            }
            EventKind::Failover { strategy, subtasks, checkpoint, .. } => {
                failovers.push((
                    subtasks.clone(),
                    *strategy != FailoverScope::Region,
                    *strategy == FailoverScope::Rescale,
                    *checkpoint,
                ));
            }
            EventKind::CallTimedOut { call, .. } => {
                timed_out.insert(*call);
            }
            _ => {}
        }
    }
    let mut lost_response: BTreeMap<RecordId, usize> = BTreeMap::new();
    for c in f.changes().filter(|c| c.appeared) {
        if let Cause::Request { call: Some(call), .. } = c.cause {
            if timed_out.contains(call) {
                for s in c.records.iter().filter(|s| wanted.contains(&s.id)) {
                    *lost_response.entry(s.id).or_default() += 1;
                }
            }
        }
    }
    // A failover restores a checkpoint that covers the record when the record was emitted
    // before that checkpoint's barrier, by a subtask the failover restarted (every subtask,
    // for anything but a region failover). Once a rescale has dealt the writer states out
    // anew, the record's state may sit with any subtask: every later restore counts.
    let restores_covering = |id: &RecordId| {
        let cov = covered.get(id).map(Vec::as_slice).unwrap_or_default();
        let mut dealt = false;
        let mut n = 0;
        for (subtasks, all, rescale, restored) in &failovers {
            if cov.iter().any(|(s, c)| c <= restored && (*all || dealt || subtasks.contains(s))) {
                n += 1;
                dealt |= *rescale;
            }
        }
        n
    };
    let mut unexplained = Vec::new();
    for (id, n) in dups {
        let emitted = emissions.get(id).copied().unwrap_or(0);
        let restores = restores_covering(id);
        let retried = lost_response.get(id).copied().unwrap_or(0);
        if *n > emitted.max(1) + restores + retried {
            unexplained.push((*id, *n, emitted, restores, retried));
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
        .map(|(id, n, emitted, restores, retried)| {
            format!(
                "{} visible {n} times, but emitted {emitted} times, with {restores} restores of a checkpoint covering it and {retried} copies from requests whose response was lost: {}",
                f.origin(*id),
                when(id)
            )
        })
        .collect();
    let first_bad = first_second_copy(&mut unexplained.iter().map(|(id, ..)| id));
    Verdict::fail(
        NAME,
        format!(
            "{} records are visible more often than restores and retried requests explain (at-least-once)",
            unexplained.len()
        ),
        evidence,
        first_bad,
    )
    .counting(unexplained.len(), unexplained.iter().map(|(id, ..)| *id))
}

/// Per record, the copies the output may hold at the end when new jobs started (only
/// records some new job changed), or an empty map when none did. The allowance starts at one
/// copy; at each new job, in order, it becomes the copies visible then (never more than the
/// allowance so far: an earlier job's own duplicate is not forgiven) plus one for a record
/// the new job reads again. A job without state reads everything again; one from a
/// savepoint only what its splits' positions at that savepoint's barriers had not passed (a
/// split finished before the savepoint completed, and not at a barrier of it, is passed
/// whole; a split neither placed nor finished, pending in the enumerator or without a
/// position, is read again whole).
fn allowed_by_new_jobs(f: &RunFacts) -> BTreeMap<RecordId, usize> {
    let starts: Vec<usize> = f
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.kind, EventKind::NewJob { .. }))
        .map(|(i, _)| i)
        .collect();
    let mut allowed: BTreeMap<RecordId, usize> = BTreeMap::new();
    if starts.is_empty() {
        return allowed;
    }
    let mut visible: BTreeMap<RecordId, usize> = BTreeMap::new();
    let mut changes = f.changes().peekable();
    for start in starts {
        while let Some(c) = changes.next_if(|c| c.index < start) {
            for s in c.records {
                let n = visible.entry(s.id).or_default();
                if c.appeared {
                    *n += 1;
                } else {
                    *n = n.saturating_sub(1);
                }
            }
        }
        let read_again = read_again_by(f, start);
        for (id, n) in &visible {
            let carried = allowed.get(id).copied().unwrap_or(1);
            let next = ((*n).min(carried) + usize::from(read_again(id))).max(1);
            allowed.insert(*id, next);
        }
    }
    allowed
}

/// Whether the new job started at event `start` reads a record again.
fn read_again_by(f: &RunFacts, start: usize) -> impl Fn(&RecordId) -> bool + '_ {
    let EventKind::NewJob { restored_from, .. } = f.events[start].kind else { unreachable!("a NewJob event") };
    let mut passed: BTreeMap<&str, u64> = BTreeMap::new();
    if restored_from == 0 {
        // A job without state that starts from its group's committed offsets does not read
        // again what lies behind them.
        if let Some(EventKind::GroupOffsets { splits, offsets, .. }) = f.events.get(start + 1).map(|e| &e.kind) {
            passed.extend(splits.iter().map(String::as_str).zip(offsets.iter().copied()));
        }
    } else {
        let completed = f.events[..start]
            .iter()
            .position(
                |e| matches!(e.kind, EventKind::CheckpointCompleted { checkpoint } if checkpoint == restored_from),
            )
            .unwrap_or(start);
        for e in &f.events[..completed] {
            if let EventKind::SplitFinished { split, .. } = &e.kind {
                passed.insert(split, u64::MAX);
            }
        }
        for e in &f.events[..start] {
            if let EventKind::Barrier { checkpoint, splits, positions, .. } = &e.kind {
                if *checkpoint == restored_from {
                    for (split, pos) in splits.iter().zip(positions) {
                        match pos {
                            Some(pos) => passed.insert(split, *pos),
                            None => passed.remove(split.as_str()),
                        };
                    }
                }
            }
        }
    }
    move |id: &RecordId| match f.origin_of(*id) {
        Some(o) => passed.get(&*o.split).is_none_or(|p| o.pos >= *p),
        None => true,
    }
}
