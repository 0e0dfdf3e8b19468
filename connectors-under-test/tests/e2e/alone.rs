//! Each connector alone against a trusted probe: the log source into the collecting sink,
//! each sink fed by the generator source.

use super::{marks, runner, Check, FAST_SEEDS};
use connectors_under_test::{FileSinkSetup, LogSourceSetup, TxnLogSinkSetup};
use connsim::cluster::FailoverStrategy::{Global, Region};
use connsim::probes::{CollectorSetup, GeneratorSetup};
use connsim::Pipeline;

fn generator() -> GeneratorSetup {
    GeneratorSetup { splits: 8, records_per_split: 625, ..Default::default() }
}

#[test]
fn log_source_alone_region_failover() {
    runner(Pipeline(LogSourceSetup::bounded(8, 5000), CollectorSetup), Region, FAST_SEEDS)
        .run()
        .check(&marks(Region, true));
}

#[test]
fn log_source_alone_global_failover() {
    runner(Pipeline(LogSourceSetup::bounded(8, 5000), CollectorSetup), Global, FAST_SEEDS)
        .run()
        .check(&marks(Global, true));
}

#[test]
fn file_sink_alone_region_failover() {
    runner(Pipeline(generator(), FileSinkSetup), Region, FAST_SEEDS).run().check(&marks(Region, true));
}

#[test]
fn file_sink_alone_global_failover() {
    runner(Pipeline(generator(), FileSinkSetup), Global, FAST_SEEDS).run().check(&marks(Global, true));
}

#[test]
fn txn_log_sink_alone_region_failover() {
    runner(Pipeline(generator(), TxnLogSinkSetup { partitions: 4 }), Region, FAST_SEEDS)
        .run()
        .check(&marks(Region, true));
}

#[test]
fn txn_log_sink_alone_global_failover() {
    runner(Pipeline(generator(), TxnLogSinkSetup { partitions: 4 }), Global, FAST_SEEDS)
        .run()
        .check(&marks(Global, true));
}
