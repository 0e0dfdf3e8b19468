//! Event time on the reference log source: the suites read it with a watermark strategy
//! (monotonous, 100 ms idleness, an emission every 50 ms), and the `event-time` check judges
//! real records against real watermarks — it is not passing for want of either.

use connectors_under_test::contexts;
use connsim_scenarios::suites;

#[test]
fn the_reference_log_source_advances_watermarks_and_no_record_is_late() {
    let cases =
        ["task failure mid-stream (region)", "stop-with-savepoint and resume", "unbounded, stable after convergence"];
    let mut marks = std::collections::BTreeSet::new();
    for case in cases {
        let outcome = suites::source(contexts::log_source()).only(case).seeds(3).run();
        assert!(outcome.failed_cases().is_empty(), "{outcome}");
        for r in outcome.cases.iter().flat_map(|c| &c.reports) {
            let v = r.verdict("event-time").expect("the check ran");
            let checked: usize = v
                .summary
                .split_whitespace()
                .find_map(|w| w.parse().ok())
                .unwrap_or_else(|| panic!("{case:?} seed {}: no count in {:?}", r.seed, v.summary));
            assert!(checked > 0, "{case:?} seed {}: no record came after a watermark of its split: {v:?}", r.seed);
            marks.extend(r.marks.iter().cloned());
        }
    }
    for mark in ["watermark-advanced", "split-idle", "restore-from-checkpoint"] {
        assert!(marks.contains(mark), "never reached {mark}: {marks:?}");
    }
}
