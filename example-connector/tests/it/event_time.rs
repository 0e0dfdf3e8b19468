//! The example's source runs in event time under its suite without opting in: it declares no
//! watermark strategy, so the suite reads it with `SUITE_WATERMARKS` as the job's, and its
//! records meet real watermarks that the `event-time` check judges.

use connsim_scenarios::suites::{self, source_from_setup};
use example_connector::source::FeedSourceSetup;

#[test]
fn the_example_source_suite_reads_in_event_time_without_opting_in() {
    let feed = |data: suites::TestData| FeedSourceSetup {
        partitions: data.splits,
        records: data.records,
        pace_ms: data.pace_ms,
        unbounded: data.unbounded,
        skew_ms: data.skew_ms,
    };
    let outcome = suites::source(source_from_setup("feed-source", &["feed"], feed))
        .only("task failure mid-stream (region)")
        .seeds(3)
        .run();
    assert!(outcome.failed_cases().is_empty(), "{outcome}");
    assert!(outcome.event_time.starts_with("read with the job's strategy"), "{outcome}");
    let case = &outcome.cases[0];
    let advanced = case.mark_shares.iter().find(|m| m.mark == "watermark-advanced").expect("required");
    assert_eq!((advanced.reached, advanced.seeds), (3, 3), "{outcome}");
    for r in &case.reports {
        let v = r.verdict("event-time").expect("the check ran");
        assert!(v.passed && !v.summary.contains("not claimed"), "seed {}: {v:?}", r.seed);
    }
    // A context that says its source carries no event time runs without it, and says why.
    let plain = source_from_setup("feed-source", &["feed"], feed).without_event_time("the feed has no event times");
    let outcome = suites::source(plain).only("task failure mid-stream (region)").seeds(1).run();
    assert_eq!(outcome.event_time, "off: the feed has no event times");
    assert!(outcome.to_string().contains("event time: off: the feed has no event times"), "{outcome}");
    let v = outcome.cases[0].reports[0].verdict("event-time").expect("the check ran");
    assert!(v.summary.contains("not claimed"), "{v:?}");
}

#[test]
fn the_example_source_suite_reads_with_watermark_alignment_in_its_alignment_case() {
    let feed = |data: suites::TestData| FeedSourceSetup {
        partitions: data.splits,
        records: data.records,
        pace_ms: data.pace_ms,
        unbounded: data.unbounded,
        skew_ms: data.skew_ms,
    };
    let outcome =
        suites::source(source_from_setup("feed-source", &["feed"], feed)).only("watermark alignment").seeds(3).run();
    assert!(outcome.failed_cases().is_empty(), "{outcome}");
    let case = &outcome.cases[0];
    for mark in ["split-paused", "split-resumed", "watermark-advanced"] {
        let share = case.mark_shares.iter().find(|m| m.mark == mark).expect("required");
        assert_eq!((share.reached, share.seeds), (3, 3), "{mark}: {outcome}");
    }
    for r in &case.reports {
        let v = r.verdict("watermark-alignment").expect("the check ran");
        assert!(v.passed && !v.summary.contains("not claimed"), "seed {}: {v:?}", r.seed);
    }
    // A context whose reader cannot pause skips the case and says why.
    let plain = source_from_setup("feed-source", &["feed"], feed).without_alignment("the feed reader never pauses");
    let outcome = suites::source(plain).only("watermark alignment").seeds(1).run();
    assert!(outcome.to_string().contains("no watermark alignment: the feed reader never pauses"), "{outcome}");
}
