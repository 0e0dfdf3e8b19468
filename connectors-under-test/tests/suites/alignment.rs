//! Watermark alignment on the reference log source: read with alignment over skewed event
//! time, splits that run ahead pause and resume, and no paused split is read; the mutants
//! whose split reader ignores pauses, or resumes every paused split when one resumes, are
//! caught by `watermark-alignment` alone, as is the reader that holds a split paused that
//! alignment never paused (paused without cause: nothing is lost).

use crate::mutants::mutant;
use connectors_under_test::contexts;
use connsim_scenarios::suites;

const CASES: [&str; 3] =
    ["task failure mid-stream (region)", "stop-with-savepoint and resume", "unbounded, stable after convergence"];

#[test]
fn the_reference_log_source_with_alignment_pauses_and_resumes_splits_and_reads_no_paused_one() {
    let mut marks = std::collections::BTreeSet::new();
    for case in CASES {
        let outcome = suites::source(contexts::log_source_aligned()).only(case).seeds(3).run();
        assert!(outcome.failed_cases().is_empty(), "{outcome}");
        for r in outcome.cases.iter().flat_map(|c| &c.reports) {
            let v = r.verdict("watermark-alignment").expect("the check ran");
            assert!(!v.summary.contains("not claimed"), "{case:?} seed {}: {v:?}", r.seed);
            println!("{case:?} seed {}: {}", r.seed, v.summary);
            marks.extend(r.marks.iter().cloned());
        }
    }
    for mark in ["split-paused", "split-resumed", "restore-from-checkpoint"] {
        assert!(marks.contains(mark), "never reached {mark}: {marks:?}");
    }
}

/// Runs the suite on the catalogue's mutant `name` until a fixed case fails `check`
/// (`watermark-alignment`); checks it is the only verdict that fails, names the pause, and
/// that the reference passes the same case and seed. Returns the case and seed.
fn caught(name: &str, check: &str) -> (String, u64) {
    let needles =
        ["was paused at", "with watermark", "above the group minimum", "from a fetch that began after the pause"];
    caught_with(name, check, &needles, &[])
}

/// [`caught`], with the evidence `check`'s verdict must hold (`present`) and must not
/// (`absent`).
fn caught_with(name: &str, check: &str, present: &[&str], absent: &[&str]) -> (String, u64) {
    let mutant = mutant(name, check);
    let fixed =
        |r: &suites::CaseResult| r.case != "swarm" && r.reports.iter().any(|x| x.failed_checks().contains(&check));
    let outcome = mutant.seeds(20).run_until(|_, _, _| {}, fixed);
    let Some(case) = outcome.cases.iter().find(|c| fixed(c)) else {
        panic!("the mutant {name:?} survived: no fixed case failed {check} within 20 seeds\n{outcome}");
    };
    let report = case.reports.iter().find(|r| r.failed_checks().contains(&check)).expect("found above");
    assert_eq!(report.failed_checks(), vec![check], "nothing is lost, duplicated or late\n{report}");
    let verdict = report.verdict(check).expect("the check ran");
    let evidence = verdict.evidence.join("\n");
    for needle in present {
        assert!(evidence.contains(needle), "{needle:?} not in {verdict:?}");
    }
    for needle in absent {
        assert!(!evidence.contains(needle), "{needle:?} in {verdict:?}");
    }
    let same = suites::source(contexts::log_source_aligned()).only(&case.case).first_seed(report.seed).seeds(1).run();
    assert!(same.failed_cases().is_empty(), "the reference fails the same case and seed too:\n{same}");
    println!("{name:?}: caught in {:?} seed {} by {check}: {}", case.case, report.seed, verdict.summary);
    (case.case.clone(), report.seed)
}

#[test]
fn a_split_reader_that_ignores_pauses_is_caught_by_the_alignment_check() {
    caught("mutant: split reader ignores pauses", "watermark-alignment");
}

#[test]
fn a_split_reader_that_resumes_every_paused_split_when_one_resumes_is_caught_by_the_alignment_check() {
    caught("mutant: resuming one split resumes all", "watermark-alignment");
}

#[test]
fn a_split_reader_that_forgets_its_pauses_when_given_a_split_is_caught_where_splits_appear() {
    let (case, _) = caught("mutant: forgets pauses when given a split", "watermark-alignment");
    assert!(case.contains("new splits"), "only a split added while another is paused shows it, yet {case:?} failed");
}

/// Like [`caught`], for a mutant that pauses without cause (reads no paused split).
fn caught_pausing_without_cause(name: &str, check: &str) {
    let present = ["was paused without cause: its reader held it paused", "within the group minimum", "plus the drift"];
    caught_with(name, check, &present, &["from a fetch that began after the pause"]);
}

#[test]
fn a_reader_that_holds_new_splits_until_a_checkpoint_is_caught_pausing_without_cause() {
    caught_pausing_without_cause("mutant: holds new splits until a checkpoint", "watermark-alignment");
}

#[test]
fn a_split_reader_that_ignores_pauses_is_caught_by_the_plain_source_suites_alignment_case() {
    // The plain log-source context opts into nothing: the suite's own alignment case reads it
    // with alignment over skewed event time.
    let suite = suites::source(contexts::log_source_with("ignores-pause", |s| {
        connectors_under_test::mutants::MishandlesPauseSetup(s, connectors_under_test::mutants::PauseBug::Ignores)
    }));
    let outcome = suite.only("watermark alignment").seeds(5).run();
    let caught = outcome.caught_by("watermark-alignment");
    assert!(caught.is_some(), "the plain suite's alignment case missed a split reader ignoring pauses:\n{outcome}");
    let same = suites::source(contexts::log_source()).only("watermark alignment").seeds(5).run();
    assert!(same.failed_cases().is_empty(), "{same}");
}
