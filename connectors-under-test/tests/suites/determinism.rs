//! A suite with the determinism self-check on fails a case whose seeds do not describe
//! their runs, and says so; the reference source passes the same check.

use connectors_under_test::contexts;
use connectors_under_test::mutants::{BuggySetup, LeaksAcrossRuns, LogBug};
use connsim_scenarios::suites;

const CASE: &str = "single split";

#[test]
fn state_outliving_a_run_fails_the_case_as_not_deterministic() {
    let leaky = suites::source(contexts::log_source_with(LeaksAcrossRuns::NAME, |s| BuggySetup(s, LeaksAcrossRuns)));
    let outcome = leaky.only(CASE).seeds(2).check_determinism().run();
    let case = &outcome.cases[0];
    assert!(case.failures().is_empty(), "every run is correct on its own:\n{outcome}");
    assert!(!case.nondeterministic.is_empty(), "the determinism check must notice:\n{outcome}");
    assert!(!case.passed() && outcome.failed_cases().len() == 1, "{outcome}");
    assert!(outcome.to_string().contains("NOT DETERMINISTIC"), "{outcome}");
    let panic = std::panic::catch_unwind(|| outcome.assert_ok()).expect_err("assert_ok must fail");
    let msg = panic.downcast_ref::<String>().expect("a formatted message");
    assert!(msg.contains("is not deterministic") && msg.contains("CONNSIM_CHECK_DETERMINISM=1 CONNSIM_SEED="), "{msg}");
}

#[test]
fn the_reference_source_passes_the_determinism_check() {
    let outcome = suites::source(contexts::log_source()).only(CASE).seeds(2).check_determinism().run();
    let case = &outcome.cases[0];
    assert!(outcome.cases.len() == 1 && case.skipped.is_none() && case.reports.len() == 2, "{outcome}");
    assert!(case.nondeterministic.is_empty(), "{outcome}");
    outcome.assert_ok();
}
