//! Event time and watermark alignment.

use super::*;

#[test]
fn event_time_fails_on_a_record_behind_its_splits_watermark_and_on_a_watermark_that_went_back() {
    let wm = |attempt: u64, watermark: Option<i64>, splits: &[(&str, i64)]| EventKind::Watermark {
        subtask: 0,
        attempt,
        watermark,
        splits: splits.iter().map(|(s, w)| (s.to_string(), *w)).collect(),
        idle: 0,
        marked_idle: Vec::new(),
    };
    assert!(clean().verdict("event-time").summary.contains("not claimed"), "no watermarks, nothing claimed");
    // Records 1..=5 of split "s" (event times 1..=5); a watermark at 2 after records 1..=3.
    let mut h = H::new();
    h.produced(5).emitted(1, &[1, 2, 3]).at("taskexecutor-0", wm(1, Some(2), &[("s", 2)])).emitted(1, &[4, 5]);
    assert!(h.verdict("event-time").passed, "{:?}", h.verdict("event-time"));
    // A restore replays record 2 in a new attempt: not late there (its watermark starts over).
    h.emitted(2, &[2]);
    assert!(h.verdict("event-time").passed);
    // Within the attempt, record 2 again after the watermark 2: late.
    let mut late = h;
    late.emitted(1, &[2]);
    fails(late.verdict("event-time"), "r2 of split s (event time 2)");
    // A reader-wide watermark ("") judges records of splits without their own.
    let mut wide = H::new();
    wide.produced(3).emitted(1, &[1, 2]).at("taskexecutor-0", wm(1, Some(2), &[("", 2)])).emitted(1, &[1]);
    fails(wide.verdict("event-time"), "r1 of split s (event time 1)");
    // A watermark that goes back, combined or per split.
    let mut back = H::new();
    back.produced(3).at("taskexecutor-0", wm(1, Some(3), &[("s", 3)])).at("taskexecutor-0", wm(1, Some(1), &[]));
    fails(back.verdict("event-time"), "the watermark went back from 3 to 1");
    back.at("taskexecutor-0", wm(1, None, &[("s", 2)]));
    fails(back.verdict("event-time"), "split \"s\"'s watermark went back from 3 to 2");
}

#[test]
fn event_time_fails_on_a_record_behind_the_combined_watermark_its_splits_idle_mark_let_through() {
    let wm = |watermark: i64, splits: &[(&str, i64)], marked: &[&str]| EventKind::Watermark {
        subtask: 0,
        attempt: 1,
        watermark: Some(watermark),
        splits: splits.iter().map(|(s, w)| (s.to_string(), *w)).collect(),
        idle: marked.len().max(1),
        marked_idle: marked.iter().map(|s| s.to_string()).collect(),
    };
    // Records 1..=5 of split "s"; s announced watermark 1 after its records 1 and 2. Then split
    // "t" ran ahead and the combined watermark reached 9 without s; then s gave records 3 and 4.
    let history = |own: &[(&str, i64)], marked: &[&str]| {
        let mut h = H::new();
        h.produced(5).emitted(1, &[1, 2]);
        if !own.is_empty() {
            h.at("taskexecutor-0", wm(1, own, &[]));
        }
        h.at("taskexecutor-0", wm(9, &[("t", 10)], marked)).emitted(1, &[3, 4]);
        h
    };
    // Left out by the strategy's idle timeout: the job's trade-off, not judged.
    let timed_out = history(&[("s", 1)], &[]).verdict("event-time");
    assert!(timed_out.passed, "{timed_out:?}");
    // Left out because the connector marked it idle while it had records to give: late.
    let marked = history(&[("s", 1)], &["s"]).verdict("event-time");
    fails(marked.clone(), "r3 of split s (event time 3)");
    assert!(marked.evidence[0].contains("while the connector had marked the split idle"), "{marked:?}");
    assert!(marked.summary.contains("2 records late at their subtask's output"), "{}", marked.summary);
    // A sink that accepts late records: not judged, and the verdict says so.
    let mut accepting = history(&[("s", 1)], &["s"]);
    accepting.end.late_accepted = true;
    let v = accepting.verdict("event-time");
    assert!(v.passed && v.summary.contains("2 records behind the combined watermark"), "{v:?}");
    assert!(v.summary.contains("the sink accepts late records"), "{v:?}");
    // Another split's idle mark says nothing about s.
    assert!(history(&[("s", 1)], &["u"]).verdict("event-time").passed);
    // The reader's own output marked idle stands for a split without watermarks of its own,
    // where the reader announced watermarks for itself.
    fails(history(&[("", 1)], &[""]).verdict("event-time"), "r3 of split s (event time 3)");
    assert!(history(&[("s", 1)], &[""]).verdict("event-time").passed, "s has its own watermark");
    assert!(history(&[], &[""]).verdict("event-time").passed, "no reader-wide watermark: not the reader's output");
}

#[test]
fn watermark_alignment_fails_on_a_paused_splits_records_fetched_after_the_pause() {
    assert!(clean().verdict("watermark-alignment").summary.contains("not claimed"), "no alignment, nothing claimed");
    let paused = |paused: &[(&str, i64)], resumed: &[&str]| EventKind::SplitsPaused {
        subtask: 1,
        attempt: 3,
        minimum: 40,
        max_allowed: 50,
        paused: paused.iter().map(|(s, w)| (s.to_string(), *w)).collect(),
        resumed: resumed.iter().map(|s| s.to_string()).collect(),
        observed: true,
    };
    let mut h = H::new();
    h.produced(5)
        .at("jobmaster", EventKind::WatermarkAlignment { minimum: 40, max_allowed: 50 })
        .at("taskexecutor-1", paused(&[("s", 70)], &[]))
        .emitted(3, &[1, 2]) // fetched before the pause: not judged
        .at("taskexecutor-1", paused(&[], &["s"]));
    let v = h.verdict("watermark-alignment");
    assert!(v.passed && v.summary.contains("1 splits paused, 1 resumed"), "{v:?}");
    h.at("taskexecutor-1", paused(&[("s", 90)], &[]));
    h.at(
        "taskexecutor-1",
        EventKind::PausedSplitRead { subtask: 1, attempt: 3, split: "s".into(), ids: vec![RecordId(3), RecordId(4)] },
    );
    let mut blind = H::new();
    blind.produced(1).at("jobmaster", EventKind::WatermarkAlignment { minimum: 40, max_allowed: 50 }).at(
        "taskexecutor-1",
        EventKind::SplitsPaused {
            subtask: 1,
            attempt: 3,
            minimum: 40,
            max_allowed: 50,
            paused: vec![("s".into(), 70)],
            resumed: vec![],
            observed: false,
        },
    );
    let v = blind.verdict("watermark-alignment");
    assert!(v.passed && v.summary.contains("1 of the pauses could not be judged"), "{v:?}");
    fails(
        h.verdict("watermark-alignment"),
        "split \"s\" was paused at event #9 at 0.009s on taskexecutor-1 with watermark 90, above the group minimum 40 plus the drift (50), yet its split reader returned r3, r4",
    );
}

#[test]
fn watermark_alignment_fails_on_a_split_paused_within_the_drift() {
    let paused = |w: i64| EventKind::SplitsPaused {
        subtask: 1,
        attempt: 3,
        minimum: 40,
        max_allowed: 50,
        paused: vec![("s".into(), w)],
        resumed: vec![],
        observed: true,
    };
    let unasked = |splits: Vec<(String, Option<i64>)>| EventKind::UnaskedPause {
        subtask: 1,
        attempt: 3,
        minimum: 40,
        max_allowed: 50,
        splits,
    };
    let base = || {
        let mut h = H::new();
        h.produced(2).at("jobmaster", EventKind::WatermarkAlignment { minimum: 40, max_allowed: 50 });
        h
    };
    // Alignment's own pause above the maximum has a cause; at the maximum it has none.
    let mut above = base();
    above.at("taskexecutor-1", paused(51));
    assert!(above.verdict("watermark-alignment").passed, "{:?}", above.verdict("watermark-alignment"));
    let mut at_max = base();
    at_max.at("taskexecutor-1", paused(50));
    let v = at_max.verdict("watermark-alignment");
    fails(
        v.clone(),
        "split \"s\" was paused without cause: alignment paused it with watermark 50, within the group minimum 40 plus the drift (10 ms, at most 50)",
    );
    assert!(v.summary.contains("1 splits paused without cause"), "{}", v.summary);
    // The reader holding a split paused that alignment never paused (or resumed).
    let mut held = base();
    held.at("taskexecutor-1", paused(70)).at("taskexecutor-1", unasked(vec![("u".into(), Some(45))]));
    fails(
        held.verdict("watermark-alignment"),
        "split \"u\" was paused without cause: its reader held it paused though alignment had not paused it (or had resumed it) with watermark 45, within the group minimum 40 plus the drift",
    );
    let mut fresh = base();
    fresh.at("taskexecutor-1", unasked(vec![("u".into(), None)]));
    fails(fresh.verdict("watermark-alignment"), "with no watermark yet");
}

#[test]
fn event_time_fails_on_a_record_behind_a_combined_watermark_its_split_without_a_watermark_should_have_held() {
    let wm = |watermark: i64, splits: &[(&str, i64)], idle: usize| EventKind::Watermark {
        subtask: 0,
        attempt: 1,
        watermark: Some(watermark),
        splits: splits.iter().map(|(s, w)| (s.to_string(), *w)).collect(),
        idle,
        marked_idle: Vec::new(),
    };
    let assigned = |splits: &[&str]| EventKind::SplitsAssigned {
        subtask: 0,
        attempt: 1,
        splits: splits.iter().map(|s| s.to_string()).collect(),
    };
    let deployed = |checkpoint: u64| EventKind::Deployed { subtask: 0, attempt: 1, checkpoint };
    // Split "t" ran ahead and the combined watermark reached 9 while split "s" (records 1..=5,
    // event times 1..=5) had none yet; then s gave records 3 and 4.
    let history = |setup: &[EventKind], idle: usize| {
        let mut h = H::new();
        h.produced(5);
        for e in setup {
            h.at("jobmaster", e.clone());
        }
        h.at("taskexecutor-0", wm(9, &[("t", 10)], idle)).emitted(1, &[3, 4]);
        h
    };
    // s came with t in the attempt's first assignment: it held the watermark back.
    let first = history(&[deployed(0), assigned(&["s", "t"])], 0).verdict("event-time");
    fails(first.clone(), "r3 of split s (event time 3)");
    assert!(first.evidence[0].contains("should have held back"), "{first:?}");
    assert!(first.summary.contains("2 records behind a combined watermark"), "{}", first.summary);
    // Restored with the attempt: the same.
    fails(history(&[deployed(7)], 0).verdict("event-time"), "should have held back");
    // Idle by the strategy's timeout (some split was): not judged.
    assert!(history(&[deployed(0), assigned(&["s", "t"])], 1).verdict("event-time").passed);
    // Assigned after the first assignment, or to a restored attempt: it may have arrived after
    // the watermark rose, and is not judged.
    assert!(history(&[deployed(0), assigned(&["t"]), assigned(&["s"])], 0).verdict("event-time").passed);
    assert!(history(&[deployed(7), assigned(&["s"])], 0).verdict("event-time").passed);
    // Neither assigned nor restored (no deployment seen): not judged.
    assert!(history(&[], 0).verdict("event-time").passed);
}
