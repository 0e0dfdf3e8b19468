//! Every reference connector passes every suite.

use connectors_under_test::contexts;
use connectors_under_test::BarrierMode;
use connsim_scenarios::suites::{self, Suite};

/// Seeds per case in the default `cargo test` (`CONNSIM_SEEDS` raises it).
const SEEDS: u64 = 10;

fn check(suite: Suite) {
    let outcome = suite.seeds(SEEDS).run();
    println!("{outcome}");
    outcome.assert_ok();
    assert!(outcome.skipped().is_empty(), "reference connectors skip nothing: {:?}", outcome.skipped());
}

#[test]
fn log_source_passes_the_source_suite() {
    check(suites::source(contexts::log_source()));
}

#[test]
fn file_sink_passes_the_sink_suite() {
    check(suites::sink(contexts::file_sink()));
}

#[test]
fn txn_log_sink_passes_the_sink_suite() {
    check(suites::sink(contexts::txn_log_sink()));
}

#[test]
fn table_sink_passes_the_sink_suite() {
    check(suites::sink(contexts::table_sink()));
}

#[test]
fn at_least_once_log_sink_passes_the_sink_suite_in_both_modes() {
    check(suites::sink(contexts::log_sink(BarrierMode::Flush)));
    check(suites::sink(contexts::log_sink(BarrierMode::BufferInState)));
}

#[test]
fn log_source_to_txn_log_sink_passes_the_pipeline_suite() {
    check(suites::pipeline(contexts::log_source(), contexts::txn_log_sink()));
}
