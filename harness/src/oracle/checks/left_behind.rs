//! Left behind: what a sink left in its systems when the run ended, held to what it
//! declared ([`crate::run::World::declare_leave_behind`]), and incomplete uploads that an
//! attempt which closed in order abandoned.
//!
//! - **A declared bound.** Transactional ids and consumer groups a system holds at the end,
//!   against the bound per writer subtask and job times the most writer subtasks a job
//!   deployed times the jobs. A sink that opens a new transactional id per checkpoint
//!   exceeds any pool once a job takes more checkpoints than the pool holds.
//! - **An upload its closed attempt abandoned.** A writer that closes (its attempt
//!   finished, was cancelled or failed; a crash calls nothing) knows which of its uploads
//!   no snapshot recorded: those started after its last snapshot, which no restore can
//!   complete. One of them still incomplete at the end was abandoned, unless something
//!   between the bucket and the attempt's task executor, from the attempt's last snapshot
//!   to its close, may have kept the writer from learning of it or from aborting it (a lost
//!   `CreateMultipartUpload` answer, a call given up on before the bucket served it, a lost
//!   abort, an error answer, a crash of the bucket), which a correct writer cannot help.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::history::{Event, EventKind, Leftovers};
use std::collections::{BTreeMap, BTreeSet};

const NAME: &str = "left-behind";

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    let left: Vec<(&str, &Leftovers)> = f
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::LeftBehind { left } => Some((e.node.as_str(), left)),
            _ => None,
        })
        .collect();
    let mut evidence = over_bound(f, &left);
    let mut first_bad = None;
    for (i, why) in abandoned(f, &left) {
        first_bad = first_bad.or(Some(i));
        evidence.push(why);
    }
    if evidence.is_empty() {
        return Verdict::pass(NAME, summary(&left));
    }
    let n = evidence.len();
    evidence.truncate(EVIDENCE_MAX);
    Verdict::fail(
        NAME,
        format!("{n} left behind beyond what the sink may leave (bounds, abandoned uploads)"),
        evidence,
        first_bad,
    )
    .counting(n, [])
}

/// What the systems held at the end, in one line.
fn summary(left: &[(&str, &Leftovers)]) -> String {
    if left.is_empty() {
        return "nothing left behind".into();
    }
    let parts: Vec<String> = left
        .iter()
        .map(|(system, l)| {
            format!(
                "{system}: {} transactional ids, {} groups, {} open transactions, {} incomplete uploads",
                l.transactional_ids,
                l.groups,
                l.open_transactions.len(),
                l.uploads.len()
            )
        })
        .collect();
    format!("within the declared bounds; {}", parts.join("; "))
}

/// The most writer subtasks a job deployed, and the jobs the run submitted.
fn writers_and_jobs(f: &RunFacts) -> (u64, u64) {
    let mut jobs = 1;
    let mut writers = 0;
    for e in &f.events {
        match &e.kind {
            EventKind::NewJob { .. } => jobs += 1,
            EventKind::Deployed { subtask, .. } => writers = writers.max(*subtask as u64 + 1),
            _ => {}
        }
    }
    (writers.max(1), jobs)
}

fn over_bound(f: &RunFacts, left: &[(&str, &Leftovers)]) -> Vec<String> {
    let (writers, jobs) = writers_and_jobs(f);
    let mut out = Vec::new();
    for bound in &f.leave_behind {
        let held = left.iter().find(|(s, _)| *s == bound.system).map(|(_, l)| *l);
        let Some(held) = held else { continue };
        let kinds = [
            ("transactional ids", bound.transactional_ids_per_writer, held.transactional_ids),
            ("consumer groups", bound.groups_per_writer, held.groups),
        ];
        for (what, per_writer, count) in kinds {
            let Some(per_writer) = per_writer else { continue };
            let allowed = per_writer * writers * jobs;
            if count > allowed {
                out.push(format!(
                    "{}: {count} {what} outlive the job, the sink declared at most {per_writer} per writer subtask \
                     and job ({allowed} for {writers} writers and {jobs} jobs)",
                    bound.system
                ));
            }
        }
    }
    out
}

/// An upload an attempt started after its last snapshot and then closed in order, with
/// nothing since that snapshot between the bucket and the attempt's task executor that may
/// have kept the writer from learning of it or from aborting it: one the writer had to
/// abort.
pub(crate) struct Owed<'a> {
    /// The event index of the attempt's close.
    pub close: usize,
    /// The bucket.
    pub system: &'a str,
    /// The upload id and its key.
    pub upload: &'a str,
    pub key: &'a str,
    /// The attempt (subtask, attempt) and how it closed.
    pub by: (usize, u64),
    pub how: crate::history::Closing,
}

/// Every upload some closed attempt owed an abort (see [`Owed`]).
pub(crate) fn owed_aborts(events: &[Event]) -> Vec<Owed<'_>> {
    let mut closes = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        if let EventKind::Closed { subtask, attempt, how, snapshot_us } = &e.kind {
            closes.insert((*subtask, *attempt), (i, e, *how, *snapshot_us));
        }
    }
    let mut out = Vec::new();
    for e in events {
        let EventKind::UploadStarted { key, upload, by: Some(by) } = &e.kind else { continue };
        let Some(&(close, closed, how, snapshot_us)) = closes.get(by) else { continue };
        if snapshot_us.is_some_and(|s| s >= e.t_us) || closed.t_us < e.t_us {
            continue; // a snapshot may hold it, or it started after the close
        }
        // From the last snapshot on: a request sent before the start may have been given
        // up on (a cancel drops the call) before the bucket served it.
        let window = snapshot_us.unwrap_or(0)..=closed.t_us;
        if disturbed(events, &e.node, &closed.node, window) {
            continue;
        }
        out.push(Owed { close, system: &e.node, upload, key, by: *by, how });
    }
    out
}

/// Uploads a closed attempt owed an abort and left incomplete, with the index of its close.
fn abandoned(f: &RunFacts, left: &[(&str, &Leftovers)]) -> Vec<(usize, String)> {
    let still: BTreeSet<(&str, &str)> =
        left.iter().flat_map(|(system, l)| l.uploads.iter().map(move |u| (*system, u.upload.as_str()))).collect();
    owed_aborts(&f.events)
        .into_iter()
        .filter(|o| still.contains(&(o.system, o.upload)))
        .map(|Owed { close, system, upload, key, by: (subtask, attempt), how }| {
            let why = format!(
                "{system}: upload {upload} of {key}, started by subtask {subtask} attempt {attempt} after its last \
                 snapshot, is still incomplete: the attempt closed ({how:?}) without completing or aborting it, and no \
                 checkpoint can"
            );
            (close, why)
        })
        .collect()
}

/// Whether something between `system` and task executor `node` may have cost a writer an
/// answer or a request within `window` (µs): a fault on a message between them, a call of
/// `node` to it that went unanswered, an error it answered `node` with, or a crash of it.
fn disturbed(events: &[Event], system: &str, node: &str, window: std::ops::RangeInclusive<u64>) -> bool {
    let from_node = format!(" from {node}:");
    events.iter().filter(|e| window.contains(&e.t_us)).any(|e| match &e.kind {
        EventKind::Fault { from, to, kind, .. } => {
            (from == node && to == system)
                || (from == system && to == node)
                || (e.node == system && kind.contains(&from_node))
        }
        EventKind::CallTimedOut { to, .. } => to == system && e.node == node,
        EventKind::Crashed { node: n } | EventKind::Restarted { node: n } => n == system,
        _ => false,
    })
}
