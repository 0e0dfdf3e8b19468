//! Watermark alignment on the source coordinator (Flink's FLIP-182): readers report their
//! watermarks; every update interval the coordinator announces the group's minimum over the
//! current attempts' reports, and the maximum a split may reach (minimum + drift).
//!
//! ```text
//!  subtask i ── ReportedWatermark(w_i) ──▶ reports[i] (fenced by attempt)
//!  every update interval: min over current reports ──▶ AlignWatermarks(min, min + drift) ──▶ every subtask
//! ```
//!
//! A subtask that has not reported in its current attempt (just deployed, or its reports
//! were lost) does not count; a reader with no active split reports the maximum, so it never
//! holds the group back.

use crate::api::{Watermark, WatermarkAlignment};
use std::collections::BTreeMap;

/// The coordinator's view of the group.
#[derive(Debug)]
pub(super) struct AlignmentCoordinator {
    pub alignment: WatermarkAlignment,
    /// Per subtask: the attempt that reported, and its watermark.
    reports: BTreeMap<usize, (u64, Watermark)>,
    /// The last announcement, recorded in the history only when it changes.
    last: Option<(Watermark, Watermark)>,
}

impl AlignmentCoordinator {
    pub fn new(alignment: WatermarkAlignment) -> Self {
        Self { alignment, reports: BTreeMap::new(), last: None }
    }

    /// A report from `attempt` of `subtask` (already fenced against older attempts).
    pub fn on_report(&mut self, subtask: usize, attempt: u64, watermark: Watermark) {
        self.reports.insert(subtask, (attempt, watermark));
    }

    /// What to announce now, given each subtask's current attempt: `(minimum, max_allowed)`
    /// and whether it changed since the last announcement; `None` while no current attempt
    /// has reported.
    pub fn announcement(&mut self, attempts: &[u64]) -> Option<((Watermark, Watermark), bool)> {
        let minimum = self
            .reports
            .iter()
            .filter(|(subtask, (attempt, _))| attempts.get(**subtask) == Some(attempt))
            .map(|(_, (_, w))| *w)
            .min()?;
        let max_allowed = minimum.saturating_add(self.alignment.max_drift_ms.min(i64::MAX as u64) as i64);
        let changed = self.last != Some((minimum, max_allowed));
        self.last = Some((minimum, max_allowed));
        Some(((minimum, max_allowed), changed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minimum_counts_only_current_attempts_and_saturates_at_the_maximum() {
        let mut c = AlignmentCoordinator::new(WatermarkAlignment { max_drift_ms: 10, update_interval_ms: 20 });
        assert_eq!(c.announcement(&[1, 1]), None, "nobody reported");
        c.on_report(0, 1, 100);
        c.on_report(1, 1, 40);
        assert_eq!(c.announcement(&[1, 1]), Some(((40, 50), true)));
        assert_eq!(c.announcement(&[1, 1]), Some(((40, 50), false)), "unchanged");
        // Subtask 1 failed over: its old report no longer counts until the new attempt reports.
        assert_eq!(c.announcement(&[1, 2]), Some(((100, 110), true)));
        c.on_report(1, 2, Watermark::MAX);
        c.on_report(0, 1, Watermark::MAX);
        assert_eq!(
            c.announcement(&[1, 2]),
            Some(((Watermark::MAX, Watermark::MAX), true)),
            "idle readers release everyone"
        );
    }
}
