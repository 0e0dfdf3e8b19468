//! Watermark alignment in a subtask (Flink's `SourceOperator` with split-level alignment):
//! it reports the reader's watermark every update interval, and on every announcement of the
//! group's maximum (and every watermark emission) pauses the splits whose current watermark
//! runs above it and resumes paused ones that are back within it.
//!
//! ```text
//!  every update interval ─▶ ReportedWatermark(min over active splits, MAX when none) ─▶ coordinator
//!  AlignWatermarks(min, max) ─▶ split watermark > max: pause │ paused and ≤ max: resume
//!                             ─▶ reader.pause_or_resume_splits(pause, resume) ─▶ SplitsPaused event
//! ```

use crate::api::{SplitId, Watermark, WatermarkAlignment, WatermarkTracker};
use std::collections::BTreeSet;

/// What one adjustment changes: splits to pause (with their watermarks) and to resume.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Adjustment {
    pub minimum: Watermark,
    pub max_allowed: Watermark,
    pub pause: Vec<(SplitId, Watermark)>,
    pub resume: Vec<SplitId>,
}

/// A subtask's side of watermark alignment, for one attempt.
#[derive(Debug)]
pub(crate) struct ReaderAlignment {
    alignment: WatermarkAlignment,
    /// The latest announcement: `(minimum, max_allowed)`.
    announced: Option<(Watermark, Watermark)>,
    paused: BTreeSet<SplitId>,
    /// Splits the reader was seen holding paused without being asked, since when (virtual
    /// ms), and whether that was said already.
    unasked: std::collections::BTreeMap<SplitId, (u64, bool)>,
    last_report_ms: u64,
}

impl ReaderAlignment {
    pub fn new(alignment: WatermarkAlignment, now_ms: u64) -> Self {
        Self {
            alignment,
            announced: None,
            paused: BTreeSet::new(),
            unasked: Default::default(),
            last_report_ms: now_ms,
        }
    }

    /// Virtual time of the next report.
    pub fn next_report_ms(&self) -> u64 {
        self.last_report_ms + self.alignment.update_interval_ms.max(1)
    }

    /// The report due now, if one is: what the tracker says (the maximum once the input ended).
    pub fn report(&mut self, tracker: &WatermarkTracker, ended: bool, now_ms: u64) -> Option<Watermark> {
        if now_ms < self.next_report_ms() {
            return None;
        }
        self.last_report_ms = now_ms;
        if ended {
            Some(Watermark::MAX)
        } else {
            tracker.alignment_report(now_ms)
        }
    }

    /// The splits alignment holds paused.
    pub fn paused(&self) -> &BTreeSet<SplitId> {
        &self.paused
    }

    /// The latest announcement: `(minimum, max_allowed)`.
    pub fn announced(&self) -> Option<(Watermark, Watermark)> {
        self.announced
    }

    /// The reader holds `unasked` paused without alignment asking, now: those it has held so
    /// for an update interval or more and that were not said yet (each once per attempt). A
    /// split no longer held starts over.
    pub fn held_unasked(&mut self, unasked: Vec<SplitId>, now_ms: u64) -> Vec<SplitId> {
        let interval = self.alignment.update_interval_ms.max(1);
        self.unasked.retain(|s, (_, said)| *said || unasked.contains(s));
        let mut due = Vec::new();
        for split in unasked {
            let (since, said) = self.unasked.entry(split.clone()).or_insert((now_ms, false));
            if !*said && now_ms.saturating_sub(*since) >= interval {
                *said = true;
                due.push(split);
            }
        }
        due
    }

    /// The coordinator announced the group's minimum and the maximum a split may reach.
    pub fn on_announcement(&mut self, minimum: Watermark, max_allowed: Watermark) {
        self.announced = Some((minimum, max_allowed));
    }

    /// Pauses the splits above the announced maximum and resumes the paused ones back within
    /// it (or no longer tracked: finished); `None` when nothing changes.
    pub fn adjust(&mut self, tracker: &WatermarkTracker, now_ms: u64) -> Option<Adjustment> {
        let (minimum, max_allowed) = self.announced?;
        let mut adj = Adjustment { minimum, max_allowed, ..Adjustment::default() };
        let mut live = BTreeSet::new();
        let at_maximum = tracker.idle_reader_at_maximum(now_ms);
        for (split, w) in tracker.split_watermarks() {
            live.insert(split);
            let decided_on = w.map(|w| if at_maximum { Watermark::MAX } else { w });
            let above = decided_on.is_some_and(|w| w > max_allowed);
            match (above, self.paused.contains(split)) {
                (true, false) => adj.pause.push((split.clone(), w.expect("above the maximum"))),
                (false, true) => adj.resume.push(split.clone()),
                _ => {}
            }
        }
        // A paused split that finished (or left the reader) is forgotten without a word.
        self.paused.retain(|s| live.contains(s));
        for (split, _) in &adj.pause {
            self.paused.insert(split.clone());
        }
        for split in &adj.resume {
            self.paused.remove(split);
        }
        (!adj.pause.is_empty() || !adj.resume.is_empty()).then_some(adj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::WatermarkStrategy;

    #[test]
    fn splits_above_the_maximum_pause_and_resume_once_the_group_catches_up() {
        let strategy = WatermarkStrategy::monotonous().with_alignment(10, 20);
        let mut t = WatermarkTracker::new(strategy, 0);
        let mut a = ReaderAlignment::new(strategy.alignment.unwrap(), 0);
        let (x, y) = ("x".to_string(), "y".to_string());
        t.add_split(&x, 0);
        t.add_split(&y, 0);
        t.on_record(Some(&x), 101, 1);
        t.on_record(Some(&y), 11, 1);
        assert_eq!(a.report(&t, false, 5), None, "not due yet");
        assert_eq!(a.report(&t, false, 20), Some(10));
        assert_eq!(a.adjust(&t, 0), None, "nothing announced yet");
        a.on_announcement(10, 20);
        let first = a.adjust(&t, 0).expect("x runs ahead");
        assert_eq!((first.pause, first.resume), (vec![(x.clone(), 100)], vec![]));
        assert_eq!(a.adjust(&t, 0), None, "already paused");
        a.on_announcement(95, 105);
        let second = a.adjust(&t, 0).expect("the group caught up");
        assert_eq!((second.pause, second.resume), (vec![], vec![x.clone()]));
        assert_eq!(a.report(&t, true, 40), Some(Watermark::MAX), "an ended reader never holds the group back");
    }
}
