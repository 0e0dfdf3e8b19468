//! Suites reach their faults mid-stream: on seed 1 of every fixed case of every reference
//! suite, at least five checkpoints complete before the input ends (the last record is first
//! emitted), so a case's faults meet a job that still moves records. The swarm case is left
//! out: its scenario is generated per seed, and one that cuts workers off from the sink's
//! system or the job master holds checkpoints back on purpose.

use connectors_under_test::contexts;
use connectors_under_test::BarrierMode;
use connsim_scenarios::suites::{self, Suite};

const CHECKPOINTS: usize = 5;

fn mid_stream(suite: Suite) {
    let name = suite.name().to_string();
    let outcome = suite.seeds(1).run();
    let mut short = Vec::new();
    for case in outcome.cases.iter().filter(|c| c.case != "swarm") {
        for r in &case.reports {
            let before = r.stats.checkpoints_before_input_ended;
            if before < CHECKPOINTS {
                short.push(format!("{:?}: {before} of {}", case.case, r.stats.checkpoints_completed));
            }
        }
    }
    assert!(
        short.is_empty(),
        "{name}: cases that completed fewer than {CHECKPOINTS} checkpoints before their input ended on seed 1 (the \
         input must arrive slowly enough for a case's faults to land mid-stream):\n{}",
        short.join("\n")
    );
}

#[test]
fn every_source_suite_case_checkpoints_at_least_five_times_before_the_input_ends() {
    mid_stream(suites::source(contexts::log_source()));
    mid_stream(suites::source(contexts::log_source_latest()));
}

#[test]
fn every_sink_suite_case_checkpoints_at_least_five_times_before_the_input_ends() {
    mid_stream(suites::sink(contexts::file_sink()));
    mid_stream(suites::sink(contexts::txn_log_sink()));
    mid_stream(suites::sink(contexts::table_sink()));
    mid_stream(suites::sink(contexts::log_sink(BarrierMode::Flush)));
    mid_stream(suites::sink(contexts::upsert_sink()));
}

#[test]
fn every_pipeline_suite_case_checkpoints_at_least_five_times_before_the_input_ends() {
    mid_stream(suites::pipeline(contexts::log_source(), contexts::txn_log_sink()));
}
