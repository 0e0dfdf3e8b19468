//! Log source → file sink and log source → transactional log sink, parallelism 4, 8
//! partitions, 5,000 records, a checkpoint every 100 ms, random task-executor crashes and
//! RPC drops, under both failover strategies.

use super::{marks, runner, Check, FAST_SEEDS};
use connectors_under_test::{FileSinkSetup, LogSourceSetup, TableSinkSetup, TxnLogSinkSetup};
use connsim::cluster::FailoverStrategy::{Global, Region};
use connsim::Pipeline;

#[test]
fn log_source_to_file_sink_region_failover() {
    runner(Pipeline(LogSourceSetup::bounded(8, 5000), FileSinkSetup), Region, FAST_SEEDS)
        .run()
        .check(&marks(Region, true));
}

#[test]
fn log_source_to_file_sink_global_failover() {
    runner(Pipeline(LogSourceSetup::bounded(8, 5000), FileSinkSetup), Global, FAST_SEEDS)
        .run()
        .check(&marks(Global, true));
}

#[test]
fn log_source_to_txn_log_sink_region_failover() {
    let sink = TxnLogSinkSetup { partitions: 4 };
    runner(Pipeline(LogSourceSetup::bounded(8, 5000), sink), Region, FAST_SEEDS).run().check(&marks(Region, true));
}

#[test]
fn log_source_to_txn_log_sink_global_failover() {
    let sink = TxnLogSinkSetup { partitions: 4 };
    runner(Pipeline(LogSourceSetup::bounded(8, 5000), sink), Global, FAST_SEEDS).run().check(&marks(Global, true));
}

#[test]
fn unbounded_log_source_discovers_partitions_region_failover() {
    let source = LogSourceSetup::unbounded(6, 5000, 2);
    runner(Pipeline(source, FileSinkSetup), Region, FAST_SEEDS).run().check(&marks(Region, false));
}

#[test]
fn unbounded_log_source_discovers_partitions_global_failover() {
    let source = LogSourceSetup::unbounded(6, 5000, 2);
    runner(Pipeline(source, FileSinkSetup), Global, FAST_SEEDS).run().check(&marks(Global, false));
}

#[test]
fn log_source_to_table_sink_with_global_committer_region_failover() {
    let m = global_committer_marks(Region);
    runner(Pipeline(LogSourceSetup::bounded(8, 5000), TableSinkSetup), Region, FAST_SEEDS).run().check(&m);
}

#[test]
fn log_source_to_table_sink_with_global_committer_global_failover() {
    let m = global_committer_marks(Global);
    runner(Pipeline(LogSourceSetup::bounded(8, 5000), TableSinkSetup), Global, FAST_SEEDS).run().check(&m);
}

/// With a global committer, subtasks never commit: recovery shows as the restored global
/// committer committing what it recovered, or finding a checkpoint already committed.
fn global_committer_marks(failover: connsim::cluster::FailoverStrategy) -> Vec<&'static str> {
    let mut m = marks(failover, true);
    m.extend(["global-commit", "commit-already-committed"]);
    m
}
