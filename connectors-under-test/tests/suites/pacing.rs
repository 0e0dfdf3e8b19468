//! Suites reach their faults mid-stream, and say so when a context keeps them from it.
//!
//! Every fixed case counts, per seed, whether its faults met records flowing
//! (`RunStats::vacuous`: no fault block skipped because the job had ended, the first one begun
//! before the input ended, and the input not ended before half of `pace_ms`); a case with more
//! than `VACUOUS_MAX_PERCENT` % vacuous seeds fails, naming the context. The reference suites pass that rule in `reference.rs`; here a context that writes
//! its whole input up front, before the job starts, fails it with its message.

use connectors_under_test::contexts;
use connectors_under_test::{LogSourceSetup, LogStart};
use connsim_scenarios::suites::{self, TestData};

/// The log source with every record there before the job starts: it ignores `pace_ms`.
fn all_up_front(d: TestData) -> LogSourceSetup {
    let mut setup = contexts::log_source_for(d, LogStart::Earliest);
    setup.pace_ms = 0;
    setup
}

#[test]
fn a_context_that_writes_its_input_up_front_fails_as_vacuous_naming_the_context() {
    let context = suites::source_from_setup("up-front log source", &["log"], all_up_front);
    let outcome = suites::source(context).only("task failure mid-stream (region)").seeds(10).run();
    let case = &outcome.cases[0];
    assert!(case.failures().is_empty(), "no check fails: the faults met nothing\n{outcome}");
    assert!(case.missed_marks.is_empty(), "the failover still happens\n{outcome}");
    assert!(!case.passed(), "too many vacuous seeds fail the case\n{outcome}");
    let vacuity = case.vacuity().expect("a vacuous case says why");
    assert!(vacuity.contains("\"up-front log source(8 splits"), "names the context: {vacuity}");
    assert!(vacuity.contains("wrote its input up front: honour `pace_ms`"), "{vacuity}");
    assert!(outcome.to_string().contains("VACUOUS"), "{outcome}");
    let err = outcome.expect_caught("no-loss").expect_err("nothing was caught");
    assert!(err.contains("honour `pace_ms`"), "{err}");
}

#[test]
fn the_paced_context_meets_records_flowing_on_every_seed_of_the_same_case() {
    let outcome = suites::source(contexts::log_source()).only("task failure mid-stream (region)").seeds(10).run();
    let case = &outcome.cases[0];
    assert!(case.passed() && case.vacuous.is_empty(), "{:?}\n{outcome}", case.vacuous);
    let n = case.reports.len(); // 10, unless CONNSIM_SEEDS says otherwise
    assert!(outcome.to_string().contains(&format!("faults met records flowing on {n}/{n} seeds")), "{outcome}");
}
