//! Event time: within a subtask attempt, watermarks never go back, and no record comes
//! after a watermark of its split that it is at or below (a late record: an event-time
//! window that closed at the watermark drops it, so its result is lost or wrong without any
//! record going missing from the sink).
//!
//! A record is also judged at its subtask's output, against the combined watermark the
//! subtask already passed on (to its writer, or over the exchange): one at or below it is late
//! there when its split was left out of that watermark because the connector marked it idle
//! (`ReaderOutput::mark_idle`) — a split marked idle while it still had records to give. One
//! of a split left out by the watermark strategy's idle timeout is not judged: `withIdleness`
//! trades such records for progress, a choice of the job, not of the connector. (A split that
//! held the combined watermark is judged by its own watermark, above.) One of a split the
//! subtask held without a watermark of its own yet (restored, or in a fresh attempt's first
//! assignment) is late there too, unless a split was idle by timeout: such a split holds the
//! combined watermark back, so the runtime let the watermark pass it.
//!
//! Only runs whose source is read with a watermark strategy announce watermarks; for the
//! rest the check passes as "not claimed". A record's own split's watermark judges it; a
//! reader that does not say which split a record belongs to announces one watermark for all
//! of them (the split named ""), which judges the records of splits without their own.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::history::attempt::Shown;
use crate::history::EventKind;
use crate::record::IdMap;
use std::collections::{BTreeMap, BTreeSet};

const NAME: &str = "event-time";

/// The combined watermark a subtask attempt last passed on: its value, the event that raised
/// it, the splits it left out as marked idle, and how many it left out by the idle timeout.
type PassedOn<'a> = (i64, usize, &'a [String], usize);

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    if !f.events.iter().any(|e| matches!(e.kind, EventKind::Watermark { .. })) {
        return Verdict::pass(
            NAME,
            "not claimed: no watermark was announced (the source is read without a watermark strategy, or the run ended before the first emission)",
        );
    }
    let mut event_time: IdMap<i64> = IdMap::default();
    let mut produced_splits: BTreeSet<&str> = BTreeSet::new();
    for e in &f.events {
        if let EventKind::Produced { id, event_time_ms, split, .. } = &e.kind {
            event_time.insert(*id, *event_time_ms);
            produced_splits.insert(split);
        }
    }
    let mut announced: BTreeSet<&str> = BTreeSet::new();
    // Per (subtask, attempt): the combined watermark, and each split's (with the event that announced it).
    // Records late at the subtask's output that the sink said it accepts.
    let mut excused = 0usize;
    let mut combined: BTreeMap<(usize, u64), i64> = BTreeMap::new();
    let mut split_marks: BTreeMap<(usize, u64, &str), (i64, usize)> = BTreeMap::new();
    // Per (subtask, attempt): the event that last raised the combined watermark, and the
    // splits it left out because the connector had marked them idle.
    let mut passed_on: BTreeMap<(usize, u64), PassedOn> = BTreeMap::new();
    // Per (subtask, attempt): splits the enumerator assigned to it, those of its first
    // assignment, and whether it was restored from a checkpoint. A split a restored attempt
    // emits and was not assigned it restored, and held from its start; a fresh attempt held
    // its first assignment's splits before it could raise a combined watermark (a reader
    // without splits has none to raise, and later assignments arrive after the first).
    let mut assigned: BTreeSet<(usize, u64, &str)> = BTreeSet::new();
    let mut first_batch: BTreeMap<(usize, u64), BTreeSet<&str>> = BTreeMap::new();
    let mut restored: BTreeSet<(usize, u64)> = BTreeSet::new();
    let (mut regressions, mut late, mut checked, mut late_after_idle) = (0usize, 0usize, 0usize, 0usize);
    let mut not_held = 0usize;
    let mut evidence = Vec::new();
    let mut first_bad: Option<usize> = None;
    let mut bad = |at: usize, line: String, evidence: &mut Vec<String>| {
        first_bad = Some(first_bad.map_or(at, |b| b.min(at)));
        if evidence.len() < EVIDENCE_MAX {
            evidence.push(line);
        }
    };
    for (i, e) in f.events.iter().enumerate() {
        match &e.kind {
            EventKind::Deployed { subtask, attempt, checkpoint } if *checkpoint > 0 => {
                restored.insert((*subtask, *attempt));
            }
            EventKind::SplitsAssigned { subtask, attempt, splits } => {
                assigned.extend(splits.iter().map(|s| (*subtask, *attempt, s.as_str())));
                first_batch.entry((*subtask, *attempt)).or_insert_with(|| splits.iter().map(String::as_str).collect());
            }
            EventKind::Watermark { subtask, attempt, watermark, splits, marked_idle, idle } => {
                if let Some(w) = watermark.filter(|w| *w < i64::MAX) {
                    let timed_out = idle.saturating_sub(marked_idle.len());
                    passed_on.insert((*subtask, *attempt), (w, i, marked_idle.as_slice(), timed_out));
                }
                if let Some(w) = watermark {
                    if let Some(prev) = combined.insert((*subtask, *attempt), *w).filter(|prev| w < prev) {
                        regressions += 1;
                        let line = format!(
                            "subtask {subtask} attempt {}: the watermark went back from {prev} to {w} ({})",
                            Shown(*attempt),
                            f.describe(i)
                        );
                        bad(i, line, &mut evidence);
                    }
                }
                for (split, w) in splits {
                    announced.insert(split);
                    let key = (*subtask, *attempt, split.as_str());
                    if let Some((prev, _)) = split_marks.insert(key, (*w, i)).filter(|(prev, _)| w < prev) {
                        regressions += 1;
                        let line = format!(
                            "subtask {subtask} attempt {}: split {split:?}'s watermark went back from {prev} to {w} ({})",
                            Shown(*attempt),
                            f.describe(i)
                        );
                        bad(i, line, &mut evidence);
                    }
                }
            }
            EventKind::Emitted { subtask, attempt, ids } => {
                for id in ids {
                    let (Some(origin), Some(t)) = (f.origin_of(*id), event_time.get(id)) else { continue };
                    let own = split_marks.get(&(*subtask, *attempt, &*origin.split));
                    let readers = split_marks.get(&(*subtask, *attempt, ""));
                    if let Some(&(w, at, idle, timed_out)) = passed_on.get(&(*subtask, *attempt)) {
                        // Its split marked idle, or the reader's own output where that stands
                        // for the split (the reader announced watermarks for itself, none for it).
                        let under_reader = own.is_none() && readers.is_some();
                        let marked = idle.iter().any(|s| **s == *origin.split || (s.is_empty() && under_reader));
                        if *t <= w && marked && f.late_accepted {
                            excused += 1;
                        } else if *t <= w && marked {
                            late_after_idle += 1;
                            let line = format!(
                                "subtask {subtask} attempt {}: {id} of split {} (event time {t}) emitted at {} after the combined watermark {w} the subtask had passed on ({}) while the connector had marked the split idle",
                                Shown(*attempt),
                                origin.split,
                                f.describe(i),
                                f.describe(at)
                            );
                            bad(i, line, &mut evidence);
                            continue;
                        }
                        // A split the attempt restored, or got in its first assignment, holds
                        // its combined watermark back until it has a watermark of its own,
                        // unless idle: a record of one without a watermark yet, behind the
                        // combined watermark raised while no split was idle by timeout, was
                        // let through by the runtime.
                        let split = &*origin.split;
                        let held = match assigned.contains(&(*subtask, *attempt, split)) {
                            // A restored attempt may raise one before its first assignment arrives.
                            true => {
                                !restored.contains(&(*subtask, *attempt))
                                    && first_batch.get(&(*subtask, *attempt)).is_some_and(|b| b.contains(split))
                            }
                            false => restored.contains(&(*subtask, *attempt)),
                        };
                        if *t <= w && !marked && held && own.is_none() && readers.is_none() && timed_out == 0 {
                            not_held += 1;
                            let line = format!(
                                "subtask {subtask} attempt {}: {id} of split {} (event time {t}) emitted at {} after the combined watermark {w} the subtask had passed on ({}), which its split, held by the subtask and without a watermark yet, should have held back",
                                Shown(*attempt),
                                origin.split,
                                f.describe(i),
                                f.describe(at)
                            );
                            bad(i, line, &mut evidence);
                            continue;
                        }
                    }
                    let Some(&(w, at)) = own.or(readers) else { continue };
                    checked += 1;
                    if *t <= w {
                        late += 1;
                        let line = format!(
                            "subtask {subtask} attempt {}: {id} of split {} (event time {t}) emitted at {} after the split's watermark {w} ({})",
                            Shown(*attempt),
                            origin.split,
                            f.describe(i),
                            f.describe(at)
                        );
                        bad(i, line, &mut evidence);
                    }
                }
            }
            _ => {}
        }
    }
    if regressions + late + late_after_idle + not_held == 0 {
        let mut summary = format!("watermarks only advanced; none of {checked} records behind a watermark was late");
        let unknown: Vec<&str> =
            announced.iter().filter(|s| !s.is_empty() && !produced_splits.contains(*s)).copied().collect();
        if checked == 0 && !unknown.is_empty() {
            summary += &format!(
                "; no record was judged: watermarks were announced for splits {unknown:?}, which no produced record names (a split's id must be the name its model records produced records under)"
            );
        }
        if excused > 0 {
            summary += &format!(
                "; {excused} records behind the combined watermark their subtask had passed on were not judged: the sink accepts late records"
            );
        }
        return Verdict::pass(NAME, summary);
    }
    let mut summary = format!("{late} late records, {regressions} watermarks that went back");
    if late_after_idle > 0 {
        summary += &format!(
            ", {late_after_idle} records late at their subtask's output behind a combined watermark their split's idle mark let through"
        );
    }
    if not_held > 0 {
        summary += &format!(
            ", {not_held} records behind a combined watermark their split, without a watermark yet, should have held back"
        );
    }
    Verdict::fail(NAME, summary, evidence, first_bad)
}
