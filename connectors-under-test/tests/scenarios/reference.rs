//! Every pinned scenario against the reference pipelines, both failover strategies.

use crate::pinned;
use connectors_under_test::{FileSinkSetup, LogSourceSetup, TableSinkSetup, TxnLogSinkSetup};
use connsim::cluster::Exchange;
use connsim::cluster::FailoverStrategy::{self, Global, Region};
use connsim::run::{Pipeline, RunReport, Runner, SinkSetup, SourceSetup};
use connsim_scenarios::Scenario;

/// Seeds per (scenario, pipeline, strategy) in the default `cargo test`.
const SEEDS: u64 = 20;

fn run<A: SourceSetup, B: SinkSetup>(scenario: &Scenario, source: A, sink: B, failover: FailoverStrategy) -> RunReport {
    run_over(scenario, source, sink, failover, Exchange::Forward)
}

fn run_over<A: SourceSetup, B: SinkSetup>(
    scenario: &Scenario,
    source: A,
    sink: B,
    failover: FailoverStrategy,
    exchange: Exchange,
) -> RunReport {
    let mut runner = Runner::new(Pipeline(source, sink));
    runner.seeds(SEEDS).configure(|c| {
        c.job.failover = failover;
        c.job.exchange = exchange;
    });
    let outcome = scenario.run(&mut runner);
    outcome.assert_ok();
    println!("{} ({failover:?}): {}", scenario.name, outcome.outcome.summary());
    outcome.outcome.reports[0].clone()
}

/// The scenario on every reference pipeline; returns the log → txn-log report of seed 1
/// under region failover, for the snapshot.
fn everywhere(scenario: Scenario, bounded: bool) -> RunReport {
    let source = || if bounded { LogSourceSetup::bounded(8, 5000) } else { LogSourceSetup::unbounded(8, 2000, 0) };
    let mut pinned = None;
    for failover in [Region, Global] {
        run(&scenario, source(), FileSinkSetup, failover);
        run(&scenario, source(), TableSinkSetup, failover);
        let r = run(&scenario, source(), TxnLogSinkSetup { partitions: 4 }, failover);
        pinned.get_or_insert(r);
    }
    pinned.expect("ran")
}

fn snapshot(name: &str, report: RunReport) {
    insta::with_settings!({ snapshot_path => "../../../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name, report.to_string());
    });
}

#[test]
fn the_pinned_scenarios_use_every_block_kind_fault_and_phase() {
    use connsim_scenarios::Block;
    let all = [
        pinned::checkpoints(),
        pinned::crash_at_every_phase(),
        pinned::master_and_systems(),
        pinned::network(),
        pinned::savepoints_and_rescaling(),
        pinned::new_jobs(),
        pinned::combinators(),
        pinned::workload(),
        pinned::data_plane(),
    ];
    let used: std::collections::BTreeSet<&str> = all.iter().flat_map(Scenario::kinds).collect();
    let missing: Vec<_> = Block::KINDS.iter().filter(|k| !used.contains(**k)).collect();
    assert!(missing.is_empty(), "block kinds in no pinned scenario: {missing:?}");
    let text: String = all.iter().map(Scenario::to_rust).collect();
    for needle in [
        "drop_messages",
        "delay_messages",
        "lose_responses",
        "partition(",
        "job_master()",
        "system(",
        "burst(",
        "skewed(",
        "refuse(",
        "slow_system(",
        "transaction_timeout(",
        "torn_appends(",
        "pause(",
    ] {
        assert!(text.contains(needle), "no pinned scenario uses {needle}");
    }
    for phase in connsim::cluster::Phase::ALL {
        assert!(text.contains(&format!("Phase::{phase:?}")), "no pinned scenario crashes at {phase:?}");
    }
}

#[test]
fn checkpoints() {
    snapshot("checkpoints", everywhere(pinned::checkpoints(), true));
}

#[test]
fn crash_at_every_phase() {
    snapshot("crash_at_every_phase", everywhere(pinned::crash_at_every_phase(), true));
}

#[test]
fn master_and_systems() {
    snapshot("master_and_systems", everywhere(pinned::master_and_systems(), true));
}

#[test]
fn network() {
    snapshot("network", everywhere(pinned::network(), true));
}

#[test]
fn savepoints_and_rescaling() {
    snapshot("savepoints_and_rescaling", everywhere(pinned::savepoints_and_rescaling(), true));
}

#[test]
fn new_jobs() {
    snapshot("new_jobs", everywhere(pinned::new_jobs(), true));
}

#[test]
fn combinators() {
    snapshot("combinators", everywhere(pinned::combinators(), true));
}

#[test]
fn workload() {
    snapshot("workload", everywhere(pinned::workload(), false));
}

/// Behind a rebalance exchange: the timeline shows writers holding back channels that
/// delivered a barrier until every channel had, then snapshotting.
#[test]
fn checkpoints_over_a_rebalance() {
    let scenario = pinned::checkpoints();
    let source = || LogSourceSetup::bounded(8, 5000);
    let mut pinned = None;
    for failover in [Region, Global] {
        run_over(&scenario, source(), FileSinkSetup, failover, Exchange::Rebalance);
        let r = run_over(&scenario, source(), TxnLogSinkSetup { partitions: 4 }, failover, Exchange::Rebalance);
        pinned.get_or_insert(r);
    }
    let report = pinned.expect("ran");
    let text = report.to_string();
    assert!(text.contains("channel_blocked") && text.contains("barrier_aligned"), "{text}");
    snapshot("checkpoints_over_a_rebalance", report);
}

/// A slow sink over a key-by with a sink parallelism of its own (the scenario fixes the job's
/// shape): the timeline shows the readers backpressured.
#[test]
fn data_plane() {
    let report = everywhere(pinned::data_plane(), true);
    assert!(report.to_string().contains("backpressure_held"), "{report}");
    snapshot("data_plane", report);
}
