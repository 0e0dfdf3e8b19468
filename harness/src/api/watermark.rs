//! Event time: the watermark strategy a job reads a source with, and the per-split watermark
//! generation the runtime does for it (Flink's `WatermarkStrategy` given to
//! `env.fromSource(source, strategy, name)`, and `SourceOperator`'s per-split outputs).
//!
//! ```text
//!  record of split s (event time t) ─▶ split s: max t seen ─▶ watermark(s) = max t − delay − 1
//!  output.emit_watermark(w) for s   ─▶ watermark(s) = max(watermark(s), w)
//!  every interval: combined = min over active splits' watermarks ─▶ writer.write_watermark
//! ```
//!
//! A split's watermark and the combined watermark only ever advance within an attempt (a
//! lower value is ignored, as Flink's watermark outputs ignore it). A split that emitted no
//! record for the idle timeout is idle: it does not hold the combined watermark back until
//! it emits again. A split with no record yet holds it back, unless idle. A reader at the end
//! of its input emits [`Watermark::MAX`]. A watermark promises that no record of its split
//! with an event time at or below it comes later in the attempt: one that does is *late*,
//! and the `event-time` check fails the run.

use super::source::SplitId;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// An event-time watermark in milliseconds.
pub type Watermark = i64;

/// How the runtime derives watermarks from a source's records (Flink's `WatermarkStrategy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatermarkStrategy {
    /// How far out of event-time order a split's records may arrive: a split's watermark is
    /// the largest event time it emitted, minus this, minus 1. 0: monotonous.
    pub max_out_of_orderness_ms: u64,
    /// A split that emitted nothing for this long stops holding the combined watermark back.
    pub idle_timeout_ms: Option<u64>,
    /// Virtual time between watermark emissions (Flink's `pipeline.auto-watermark-interval`);
    /// 0 counts as 1.
    pub interval_ms: u64,
    /// Watermark alignment (`withWatermarkAlignment`): `None`, readers run as fast as they can.
    #[serde(default)]
    pub alignment: Option<WatermarkAlignment>,
}

/// Watermark alignment (Flink's FLIP-182, per split as FLIP-217): every `update_interval_ms`
/// each reader reports its watermark to the source coordinator, which announces the group's
/// minimum; a reader pauses the splits whose watermark is more than `max_drift_ms` above it
/// ([`SourceReader::pause_or_resume_splits`](super::SourceReader::pause_or_resume_splits),
/// down to the split reader) and resumes them once the minimum catches up. A job reads one
/// source, so its readers form one alignment group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatermarkAlignment {
    /// How far a split's watermark may run ahead of the group's minimum.
    pub max_drift_ms: u64,
    /// Virtual time between reports and announcements; 0 counts as 1.
    pub update_interval_ms: u64,
}

/// Flink's default `pipeline.auto-watermark-interval`.
pub const DEFAULT_WATERMARK_INTERVAL_MS: u64 = 200;

impl WatermarkStrategy {
    /// Event times never go back within a split (`forMonotonousTimestamps`).
    pub fn monotonous() -> Self {
        Self::bounded_out_of_orderness(0)
    }
    /// Event times within a split are out of order by at most `ms` (`forBoundedOutOfOrderness`).
    pub fn bounded_out_of_orderness(ms: u64) -> Self {
        Self {
            max_out_of_orderness_ms: ms,
            idle_timeout_ms: None,
            interval_ms: DEFAULT_WATERMARK_INTERVAL_MS,
            alignment: None,
        }
    }
    /// Splits silent for `ms` count as idle (`withIdleness`).
    pub fn with_idleness(mut self, ms: u64) -> Self {
        self.idle_timeout_ms = Some(ms);
        self
    }
    /// Emits watermarks every `ms` of virtual time (at least 1).
    pub fn with_interval(mut self, ms: u64) -> Self {
        self.interval_ms = ms.max(1);
        self
    }
    /// Aligns the readers' watermarks: no split runs more than `max_drift_ms` ahead of the
    /// slowest reader, as told every `update_interval_ms` (`withWatermarkAlignment`).
    pub fn with_alignment(mut self, max_drift_ms: u64, update_interval_ms: u64) -> Self {
        self.alignment = Some(WatermarkAlignment { max_drift_ms, update_interval_ms: update_interval_ms.max(1) });
        self
    }
}

/// One split's event-time progress within an attempt.
#[derive(Debug, Default)]
struct SplitClock {
    /// Largest event time emitted.
    max_event: Option<i64>,
    /// Largest watermark the connector emitted for the split itself.
    emitted_by_connector: Option<Watermark>,
    /// The watermark last announced for the split (in the history).
    announced: Option<Watermark>,
    /// Virtual time of the split's last record (or of its assignment).
    last_active_ms: u64,
    /// The connector marked the split idle, and it has not emitted since.
    marked_idle: bool,
}

impl SplitClock {
    fn watermark(&self, delay: u64) -> Option<Watermark> {
        let generated = self.max_event.map(|t| t.saturating_sub(delay as i64).saturating_sub(1));
        generated.max(self.emitted_by_connector)
    }
}

/// What one emission announces: the combined watermark when it advanced, and the splits whose
/// watermarks advanced since the last announcement.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Announcement {
    pub combined: Option<Watermark>,
    pub splits: Vec<(SplitId, Watermark)>,
    /// Splits left out of the combined watermark as idle.
    pub idle: usize,
    /// Of those, the splits the connector marked idle ("" for the reader's own output); the
    /// rest went idle by the strategy's timeout.
    pub marked_idle: Vec<SplitId>,
}

/// A bug in the runtime's watermark tracking, switched on for connsim's own tests (the
/// cluster's `RuntimeBug` variants of the same names say what each does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TrackerBug {
    SplitWithoutWatermarkDoesNotHold,
    IdleReaderWaitsForAlignment,
}

/// The runtime's per-attempt watermark generation for one reader.
#[derive(Debug)]
pub(crate) struct WatermarkTracker {
    strategy: WatermarkStrategy,
    splits: BTreeMap<SplitId, SplitClock>,
    /// Splits that ended in this attempt: a late word about one is ignored, not a new start.
    finished: BTreeSet<SplitId>,
    /// Records and watermarks of a reader that does not say which split they belong to.
    unsplit: Option<SplitClock>,
    combined: Option<Watermark>,
    last_emission_ms: u64,
    /// A runtime bug switched on (connsim's own tests).
    bug: Option<TrackerBug>,
}

impl WatermarkTracker {
    pub fn new(strategy: WatermarkStrategy, now_ms: u64) -> Self {
        let strategy = WatermarkStrategy { interval_ms: strategy.interval_ms.max(1), ..strategy };
        Self {
            strategy,
            splits: BTreeMap::new(),
            finished: BTreeSet::new(),
            unsplit: None,
            combined: None,
            last_emission_ms: now_ms,
            bug: None,
        }
    }

    /// The tracker with runtime bug `bug` switched on (connsim's own tests).
    pub fn with_bug(mut self, bug: Option<TrackerBug>) -> Self {
        self.bug = bug;
        self
    }

    fn clock(&mut self, split: Option<&SplitId>, now_ms: u64) -> &mut SplitClock {
        let fresh = || SplitClock { last_active_ms: now_ms, ..SplitClock::default() };
        match split {
            Some(s) => {
                if !self.splits.contains_key(s) {
                    self.splits.insert(s.clone(), fresh());
                }
                self.splits.get_mut(s).expect("inserted above")
            }
            None => self.unsplit.get_or_insert_with(fresh),
        }
    }

    /// A split was assigned (or restored): it holds the combined watermark back until it
    /// emits, or goes idle.
    pub fn add_split(&mut self, split: &SplitId, now_ms: u64) {
        self.finished.remove(split);
        self.clock(Some(split), now_ms);
    }

    /// A split ended: it no longer holds the combined watermark back.
    pub fn finish_split(&mut self, split: &SplitId) {
        self.splits.remove(split);
        self.finished.insert(split.clone());
    }

    /// A record of `split` with `event_time` was emitted.
    pub fn on_record(&mut self, split: Option<&SplitId>, event_time: i64, now_ms: u64) {
        if split.is_some_and(|s| self.finished.contains(s)) {
            return;
        }
        let clock = self.clock(split, now_ms);
        clock.max_event = clock.max_event.max(Some(event_time));
        clock.last_active_ms = now_ms;
        clock.marked_idle = false;
    }

    /// The connector marked `split` (None: the reader's own output) idle, or active again.
    /// Only a split (or output) the tracker knows: marking one it does not know must not make
    /// a clock without records that would hold the combined watermark back.
    pub fn mark_idle(&mut self, split: Option<&SplitId>, idle: bool) {
        let clock = match split {
            Some(s) => self.splits.get_mut(s),
            None => self.unsplit.as_mut(),
        };
        if let Some(clock) = clock {
            clock.marked_idle = idle;
        }
    }

    /// The connector marked the whole reader idle: every split it holds.
    pub fn mark_reader_idle(&mut self) {
        for clock in self.splits.values_mut().chain(self.unsplit.iter_mut()) {
            clock.marked_idle = true;
        }
    }

    /// The connector emitted watermark `w` for `split`.
    pub fn on_watermark(&mut self, split: Option<&SplitId>, w: Watermark, now_ms: u64) {
        if split.is_some_and(|s| self.finished.contains(s)) {
            return;
        }
        let clock = self.clock(split, now_ms);
        clock.emitted_by_connector = clock.emitted_by_connector.max(Some(w));
        clock.marked_idle = false;
    }

    /// Whether an emission is due.
    pub fn due(&self, now_ms: u64) -> bool {
        now_ms >= self.last_emission_ms + self.strategy.interval_ms
    }

    /// Virtual time of the next emission.
    pub fn next_emission_ms(&self) -> u64 {
        self.last_emission_ms + self.strategy.interval_ms
    }

    /// Emits: announces split watermarks that advanced and the combined watermark if it
    /// advanced; `None` when nothing changed.
    pub fn emit(&mut self, now_ms: u64) -> Option<Announcement> {
        self.last_emission_ms = now_ms;
        self.announce(now_ms)
    }

    /// Announces what advanced now, outside the periodic schedule: a watermark the connector
    /// emitted takes effect at once, before the records after it (as Flink's per-split
    /// outputs pass `SourceOutput::emitWatermark` on immediately).
    pub fn announce(&mut self, now_ms: u64) -> Option<Announcement> {
        let delay = self.strategy.max_out_of_orderness_ms;
        let idle_after = self.strategy.idle_timeout_ms;
        let mut out = Announcement::default();
        let mut min: Option<Option<Watermark>> = None; // None: no active split
        for (id, clock) in
            self.splits.iter_mut().map(|(id, c)| (Some(id), c)).chain(self.unsplit.iter_mut().map(|c| (None, c)))
        {
            let w = clock.watermark(delay);
            if let Some(w) = w.filter(|w| Some(*w) > clock.announced) {
                clock.announced = Some(w);
                out.splits.push((id.cloned().unwrap_or_default(), w));
            }
            if clock.marked_idle {
                out.idle += 1;
                out.marked_idle.push(id.cloned().unwrap_or_default());
                continue;
            }
            if idle_after.is_some_and(|t| now_ms.saturating_sub(clock.last_active_ms) >= t) {
                out.idle += 1;
                continue;
            }
            let held = clock.announced;
            if held.is_none() && self.bug == Some(TrackerBug::SplitWithoutWatermarkDoesNotHold) {
                continue;
            }
            min = Some(match min {
                None => held,
                Some(m) => m.min(held),
            });
        }
        if let Some(Some(w)) = min {
            if Some(w) > self.combined {
                self.combined = Some(w);
                out.combined = Some(w);
            }
        }
        (out.combined.is_some() || !out.splits.is_empty()).then_some(out)
    }

    /// Each split's current watermark (what its records and the connector say so far, not
    /// only what was announced).
    pub fn split_watermarks(&self) -> impl Iterator<Item = (&SplitId, Option<Watermark>)> + '_ {
        let delay = self.strategy.max_out_of_orderness_ms;
        self.splits.iter().map(move |(id, clock)| (id, clock.watermark(delay)))
    }

    /// Whether alignment takes every split of the reader at the maximum watermark when it
    /// decides what to pause: only under [`TrackerBug::IdleReaderWaitsForAlignment`], when
    /// every split of the reader is idle.
    pub fn idle_reader_at_maximum(&self, now_ms: u64) -> bool {
        let idle_after = self.strategy.idle_timeout_ms;
        let idle =
            |c: &SplitClock| c.marked_idle || idle_after.is_some_and(|t| now_ms.saturating_sub(c.last_active_ms) >= t);
        self.bug == Some(TrackerBug::IdleReaderWaitsForAlignment)
            && !self.splits.is_empty()
            && self.splits.values().chain(self.unsplit.iter()).all(idle)
    }

    /// What the reader reports for watermark alignment: the minimum over its active splits'
    /// current watermarks; [`Watermark::MAX`] when no split is active (none assigned, all
    /// finished or idle: an idle reader must not hold the group back, as Flink's reports
    /// the maximum); `None` while an active split has no watermark yet.
    pub fn alignment_report(&self, now_ms: u64) -> Option<Watermark> {
        let delay = self.strategy.max_out_of_orderness_ms;
        let idle_after = self.strategy.idle_timeout_ms;
        let mut min = Watermark::MAX;
        for clock in self.splits.values().chain(self.unsplit.iter()) {
            if clock.marked_idle || idle_after.is_some_and(|t| now_ms.saturating_sub(clock.last_active_ms) >= t) {
                continue;
            }
            min = min.min(clock.watermark(delay)?);
        }
        Some(min)
    }

    /// The input ended: the combined watermark goes to [`Watermark::MAX`] (once).
    pub fn end_of_input(&mut self) -> Option<Announcement> {
        if self.combined == Some(Watermark::MAX) {
            return None;
        }
        self.combined = Some(Watermark::MAX);
        Some(Announcement { combined: Some(Watermark::MAX), ..Announcement::default() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> SplitId {
        x.to_string()
    }

    #[test]
    fn the_combined_watermark_is_the_minimum_over_splits_and_never_goes_back() {
        let mut t = WatermarkTracker::new(WatermarkStrategy::bounded_out_of_orderness(5), 0);
        t.add_split(&s("a"), 0);
        t.add_split(&s("b"), 0);
        t.on_record(Some(&s("a")), 100, 1);
        let first = t.emit(200).expect("split a advanced");
        assert_eq!(first.combined, None, "split b holds the combined watermark back until it emits");
        assert_eq!(first.splits, vec![(s("a"), 94)]);
        t.on_record(Some(&s("b")), 50, 201);
        assert_eq!(t.emit(400).unwrap().combined, Some(44));
        // A new split with nothing yet holds the combined watermark, which does not go back.
        t.add_split(&s("c"), 401);
        t.on_record(Some(&s("c")), 10, 402);
        t.on_record(Some(&s("b")), 500, 402);
        let later = t.emit(600).unwrap();
        assert_eq!(later.combined, None, "c's watermark 4 is below the combined 44: nothing is emitted");
        t.finish_split(&s("c"));
        assert_eq!(t.emit(800).unwrap_or_default().combined, Some(94), "without c, a holds it at 94");
        t.on_watermark(Some(&s("c")), 0, 801);
        assert_eq!(t.emit(1_000), None, "a word about a finished split does not bring it back");
    }

    #[test]
    fn a_split_the_connector_marks_idle_stops_holding_the_watermark_back_until_it_emits() {
        let mut t = WatermarkTracker::new(WatermarkStrategy::monotonous(), 0);
        t.add_split(&s("a"), 0);
        t.add_split(&s("b"), 0);
        t.on_record(Some(&s("a")), 100, 1);
        assert_eq!(t.emit(10).unwrap().combined, None, "b holds the combined watermark back");
        assert_eq!(t.alignment_report(10), None, "b has no watermark yet");
        t.mark_idle(Some(&s("b")), true);
        t.mark_idle(None, false);
        t.mark_idle(Some(&s("unknown")), false);
        let a = t.emit(20).expect("the combined watermark advanced");
        assert_eq!((a.combined, a.idle, a.marked_idle.clone()), (Some(99), 1, vec![s("b")]));
        assert_eq!(t.alignment_report(20), Some(99), "alignment waits no more for b");
        // A record of b makes it active again: it holds the watermark back once more.
        t.on_record(Some(&s("b")), 50, 21);
        t.on_record(Some(&s("a")), 200, 21);
        let a = t.emit(30).expect("b announced");
        assert_eq!((a.combined, a.marked_idle.len()), (None, 0), "49 is below 99: nothing to raise");
        // Marked active by hand, or the whole reader idle.
        t.mark_reader_idle();
        assert_eq!(t.emit(40).map(|a| a.marked_idle), None, "nothing advanced, nothing announced");
        t.mark_idle(Some(&s("a")), false);
        t.on_record(Some(&s("a")), 300, 42);
        assert_eq!(t.emit(50).unwrap().combined, Some(299), "b still idle, a alone counts");
    }

    #[test]
    fn an_idle_split_stops_holding_the_watermark_back_until_it_emits_again() {
        let mut t = WatermarkTracker::new(WatermarkStrategy::monotonous().with_idleness(300), 0);
        t.add_split(&s("a"), 0);
        t.add_split(&s("b"), 0);
        t.on_record(Some(&s("a")), 1_000, 10);
        assert_eq!(t.emit(200).unwrap().combined, None);
        t.on_record(Some(&s("a")), 2_000, 350);
        let idle = t.emit(400).unwrap();
        assert_eq!((idle.combined, idle.idle), (Some(1_999), 1), "b was silent for 400 ms: idle");
        t.on_record(Some(&s("b")), 10, 450);
        t.on_record(Some(&s("a")), 3_000, 450);
        let back = t.emit(600).unwrap();
        assert_eq!(back.combined, None, "b is active again and holds the watermark at 9 < 1,999");
        assert_eq!(back.splits, vec![(s("a"), 2_999), (s("b"), 9)]);
    }

    #[test]
    fn the_alignment_report_is_the_minimum_over_active_splits_and_the_maximum_without_one() {
        let mut t = WatermarkTracker::new(WatermarkStrategy::monotonous().with_idleness(100).with_alignment(10, 20), 0);
        assert_eq!(t.alignment_report(0), Some(Watermark::MAX), "no split: nothing to hold the group back");
        t.add_split(&s("a"), 0);
        t.add_split(&s("b"), 0);
        t.on_record(Some(&s("a")), 50, 1);
        assert_eq!(t.alignment_report(2), None, "b has no watermark yet");
        t.on_record(Some(&s("b")), 30, 3);
        assert_eq!(t.alignment_report(4), Some(29));
        t.on_record(Some(&s("a")), 200, 90);
        assert_eq!(t.alignment_report(150), Some(199), "b went idle: a alone counts");
        assert_eq!(t.alignment_report(300), Some(Watermark::MAX), "both idle");
        let marks: Vec<_> = t.split_watermarks().collect();
        assert_eq!(marks, vec![(&s("a"), Some(199)), (&s("b"), Some(29))]);
    }

    #[test]
    fn a_connector_watermark_only_raises_its_split_and_the_end_of_input_is_the_maximum() {
        let mut t = WatermarkTracker::new(WatermarkStrategy::monotonous().with_interval(50), 0);
        t.add_split(&s("a"), 0);
        assert!(!t.due(49) && t.due(50));
        t.on_record(Some(&s("a")), 100, 1);
        t.on_watermark(Some(&s("a")), 500, 1);
        assert_eq!(t.emit(50).unwrap().splits, vec![(s("a"), 500)]);
        t.on_watermark(Some(&s("a")), 300, 51);
        assert_eq!(t.emit(100), None, "a lower watermark is ignored");
        assert_eq!(t.end_of_input().unwrap().combined, Some(Watermark::MAX));
        assert_eq!(t.end_of_input(), None);
    }
}
