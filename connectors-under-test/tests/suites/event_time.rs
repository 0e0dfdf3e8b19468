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

/// Why the reference log source never marks a partition idle on its own: even where event time
/// follows production, a record appended right after a fetch found its partition caught up is
/// read only after records appended later elsewhere raised the combined watermark past it.
/// With `LogSourceSetup::marking_idle_when_caught_up` the suite's first fixed cases catch it
/// (the `event-time` check at the subtask's output), without any fault.
#[test]
fn marking_a_caught_up_partition_idle_makes_a_record_appended_meanwhile_late() {
    let context = suites::source_from_setup("log-source(idle when caught up)", &["log"], |d| {
        contexts::log_source_for(d, connectors_under_test::LogStart::Earliest).marking_idle_when_caught_up()
    });
    let outcome = suites::source(context).only("multiple splits, per-split order").seeds(5).run();
    let report =
        outcome.cases[0].failures().first().copied().cloned().unwrap_or_else(|| panic!("not caught\n{outcome}"));
    assert_eq!(report.failed_checks(), vec!["event-time"], "{report}");
    assert!(report.marks.iter().any(|m| m == "split-marked-idle"), "{report}");
}
