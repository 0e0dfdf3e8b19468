//! Event time on the reference log source: the suites read it with a watermark strategy
//! (monotonous, 100 ms idleness, an emission every 50 ms), and the `event-time` check judges
//! real records against real watermarks — it is not passing for want of either. And the
//! catalogue's event-time mutants of the log source, each caught late by a fixed case.

use super::mutants::{mutant, FIXED_SEEDS};
use connectors_under_test::{catalogue, contexts};
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

#[test]
fn a_reader_that_restores_the_watermark_of_its_fetch_makes_the_replayed_rest_of_the_batch_late() {
    let mutant = || mutant("mutant: restores the watermark of its fetch", "event-time");
    let check = "event-time";
    let fixed =
        |r: &suites::CaseResult| r.case != "swarm" && r.reports.iter().any(|x| x.failed_checks().contains(&check));
    let outcome = mutant().seeds(FIXED_SEEDS).run_until(|_, _, _| {}, fixed);
    print!("{outcome}");
    let Some(case) = outcome.cases.iter().find(|c| fixed(c)) else {
        panic!("the mutant survived: no fixed case failed {check} within {FIXED_SEEDS} seeds\n{outcome}");
    };
    let report = case.reports.iter().find(|r| r.failed_checks().contains(&check)).expect("found above");
    assert_eq!(
        report.failed_checks(),
        vec![check],
        "only event time is wrong: no record is lost or duplicated\n{report}"
    );
    let verdict = report.verdict(check).expect("the check ran");
    assert!(verdict.summary.contains("late records"), "{verdict:?}");
    assert!(report.marks.iter().any(|m| m == "restore-from-checkpoint"), "late only after a restore\n{report}");
    // The reference log source, which keeps its split watermarks the same way from what it
    // emitted, passes the same case and seed.
    let same = catalogue::suite("log-source").only(&case.case).first_seed(report.seed).seeds(1).run();
    assert!(same.failed_cases().is_empty(), "the reference log source fails the same case and seed too:\n{same}");
}

/// A source that takes a failed fetch for caught-up partitions and marks them idle: their
/// backlog comes late once the log answers again. Only a case whose faults make fetches fail
/// exposes it; every other check passes.
#[test]
fn a_source_taking_a_failed_fetch_for_idle_partitions_lets_their_backlog_come_late() {
    let check = "event-time";
    let fixed =
        |r: &suites::CaseResult| r.case != "swarm" && r.reports.iter().any(|x| x.failed_checks().contains(&check));
    let outcome =
        mutant("mutant: idles on a failed fetch", "event-time").seeds(FIXED_SEEDS).run_until(|_, _, _| {}, fixed);
    print!("{outcome}");
    let Some(case) = outcome.cases.iter().find(|c| fixed(c)) else {
        panic!("the mutant survived: no fixed case failed {check} within {FIXED_SEEDS} seeds\n{outcome}");
    };
    let report = case.reports.iter().find(|r| r.failed_checks().contains(&check)).expect("found above");
    assert_eq!(report.failed_checks(), vec![check], "only event time is wrong\n{report}");
    let verdict = report.verdict(check).expect("the check ran");
    assert!(verdict.evidence.iter().any(|e| e.contains("marked the split idle")), "{verdict:?}");
    let marked = |m: &str| report.marks.iter().any(|x| x == m);
    assert!(marked("split-marked-idle"), "{report}");
    assert!(marked("message-dropped") || marked("request-refused"), "a fetch failed first\n{report}");
    // The cases before it, whose faults make no fetch fail, passed every seed.
    let earlier = outcome.cases.iter().take_while(|c| c.case != case.case);
    assert!(
        earlier.clone().count() > 5 && earlier.clone().all(|c| c.passed()),
        "caught without a failed fetch\n{outcome}"
    );
    // The reference log source, which never marks a partition idle, passes the same case and seed.
    let same = catalogue::suite("log-source").only(&case.case).first_seed(report.seed).seeds(1).run();
    assert!(same.failed_cases().is_empty(), "the reference log source fails the same case and seed too:\n{same}");
}
