//! Suite contexts for the reference connectors: how `connsim_scenarios::suites` builds each
//! of them for a case (see the crate docs for the author's view).

use crate::log_sink::{BarrierMode, LogSinkSetup};
use crate::{FileSinkSetup, LogSourceSetup, TableSinkSetup, TxnLogSinkSetup};
use connsim::api::DeliveryGuarantee::{AtLeastOnce, ExactlyOnce};
use connsim::run::{SinkSetup, SourceSetup};
use connsim_scenarios::suites::{sink_from_setup, source_from_setup, SinkFromSetup, SourceFromSetup, TestData};

/// The bounded log source, reading the case's splits as partitions.
pub fn log_source() -> SourceFromSetup<impl Fn(TestData) -> LogSourceSetup + Send + Sync + 'static> {
    source_from_setup("log-source", &["log"], |d| LogSourceSetup::bounded(d.splits, d.records))
}

/// A source context around any source setup built from the log source's (for mutants).
pub fn log_source_with<S: SourceSetup>(
    name: &str,
    wrap: impl Fn(LogSourceSetup) -> S + Send + Sync + 'static,
) -> SourceFromSetup<impl Fn(TestData) -> S + Send + Sync + 'static> {
    source_from_setup(name, &["log"], move |d| wrap(LogSourceSetup::bounded(d.splits, d.records)))
}

/// The exactly-once file sink.
pub fn file_sink() -> SinkFromSetup<FileSinkSetup> {
    sink_from_setup(FileSinkSetup, ExactlyOnce, &["fs"])
}

/// The exactly-once transactional log sink.
pub fn txn_log_sink() -> SinkFromSetup<TxnLogSinkSetup> {
    sink_from_setup(TxnLogSinkSetup { partitions: 4 }, ExactlyOnce, &["sink-log"])
}

/// The exactly-once table sink with a global committer.
pub fn table_sink() -> SinkFromSetup<TableSinkSetup> {
    sink_from_setup(TableSinkSetup, ExactlyOnce, &["table"])
}

/// The at-least-once log sink in either barrier mode.
pub fn log_sink(mode: BarrierMode) -> SinkFromSetup<LogSinkSetup> {
    sink_from_setup(LogSinkSetup { partitions: 4, mode }, AtLeastOnce, &["sink-log"])
}

/// A sink context for a mutant of one of the sinks above.
pub fn sink<S: SinkSetup>(setup: S, at_least_once: bool, systems: &[&str]) -> SinkFromSetup<S> {
    sink_from_setup(setup, if at_least_once { AtLeastOnce } else { ExactlyOnce }, systems)
}
