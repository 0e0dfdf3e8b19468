//! Suite contexts for the reference connectors: how `connsim_scenarios::suites` builds each
//! of them for a case (see the crate docs for the author's view). A sink's guarantee is what
//! the sink itself declares.

use crate::log_sink::{BarrierMode, LogSinkSetup};
use crate::upsert_sink::UpsertSinkSetup;
use crate::version_log_sink::VersionLogSinkSetup;
use crate::{
    FileSinkSetup, KafkaSinkSetup, KafkaSourceSetup, LogSourceSetup, LogStart, ObjectSinkSetup, TableSinkSetup,
    TxnLogSinkSetup,
};
use connsim::api::{WatermarkAlignment, WatermarkStrategy};
use connsim::run::{SinkSetup, SourceSetup};
use connsim::systems::TxnProtocol;
use connsim_scenarios::suites::{sink_from_setup, source_from_setup, SinkFromSetup, SourceFromSetup, TestData};

/// Records in every partition ahead of the test data, for starts other than earliest.
pub const BEFORE_START: u64 = 20;

/// The log source for a case's data: bounded or unbounded, paced as the case says.
pub fn log_source_for(d: TestData, start: LogStart) -> LogSourceSetup {
    let setup = match d.unbounded {
        true => LogSourceSetup::unbounded(d.splits, d.records, 0),
        false => LogSourceSetup::bounded(d.splits, d.records),
    };
    let before = if start == LogStart::Earliest { 0 } else { BEFORE_START };
    let pace_ms = d.pace_ms.max(setup.pace_ms);
    setup
        .paced(pace_ms)
        .starting(start, before)
        .with_watermarks(LOG_WATERMARKS)
        .discovering_every(d.discovery_interval_ms)
        .skewed(d.skew_ms)
}

/// How the suites read the log: event time is a record's id, so monotonous within every
/// partition; a partition silent for 100 ms is idle; watermarks every 50 ms.
pub const LOG_WATERMARKS: WatermarkStrategy =
    WatermarkStrategy { max_out_of_orderness_ms: 0, idle_timeout_ms: Some(100), interval_ms: 50, alignment: None };

/// How the alignment contexts read the log: [`LOG_WATERMARKS`], with no split more than
/// 20 ms ahead of the slowest reader, told every 20 ms.
pub const LOG_ALIGNED: WatermarkStrategy = WatermarkStrategy {
    alignment: Some(WatermarkAlignment { max_drift_ms: 20, update_interval_ms: 20 }),
    ..LOG_WATERMARKS
};

/// The alignment contexts' event-time skew: partition `p` runs `p ×` this ahead, so splits
/// drift apart by more than the allowed 20 ms and alignment must pause them.
pub const ALIGNMENT_SKEW_MS: u64 = 40;

/// The log source for a case's data, read with alignment over skewed event time.
// Written plainly: a transaction left open upstream holds its split's watermark, and with
// it the aligned group, back; "a slow sink backpressures the source" then holds the readers
// by alignment instead of by credit on a seed in a hundred, and misses its required mark.
// The other log sources read the transactional upstream.
pub fn log_source_aligned_for(d: TestData) -> LogSourceSetup {
    log_source_for(d, LogStart::Earliest).with_watermarks(LOG_ALIGNED).skewed(ALIGNMENT_SKEW_MS).plain_upstream()
}

/// The suite case an aligned source cannot aim at, and why.
const ALIGNED_SKIPS: (&str, &str) = (
    "a worker cut off from the job master (zombie)",
    "a zombie hears no alignment announcements: its splits stay paused at the last maximum it heard, so it \
     stops reading long before its replacement starts (as a Flink task cut off from its source coordinator)",
);

/// The log source read with watermark alignment over skewed event time.
pub fn log_source_aligned() -> SourceFromSetup<impl Fn(TestData) -> LogSourceSetup + Send + Sync + 'static> {
    source_from_setup("log-source(aligned)", &["log"], log_source_aligned_for)
        .skipping(ALIGNED_SKIPS.0, ALIGNED_SKIPS.1)
}

/// A source context around a source setup built from [`log_source_aligned_for`] (for mutants).
pub fn log_source_aligned_with<S: SourceSetup>(
    name: &str,
    wrap: impl Fn(LogSourceSetup) -> S + Send + Sync + 'static,
) -> SourceFromSetup<impl Fn(TestData) -> S + Send + Sync + 'static> {
    source_from_setup(name, &["log"], move |d| wrap(log_source_aligned_for(d)))
        .skipping(ALIGNED_SKIPS.0, ALIGNED_SKIPS.1)
}

/// The log source reading the case's splits as partitions, from the earliest offset.
pub fn log_source() -> SourceFromSetup<impl Fn(TestData) -> LogSourceSetup + Send + Sync + 'static> {
    source_from_setup("log-source", &["log"], |d| log_source_for(d, LogStart::Earliest))
}

/// The log source starting at the latest offsets: [`BEFORE_START`] records per partition
/// are there before the job starts and must be skipped.
pub fn log_source_latest() -> SourceFromSetup<impl Fn(TestData) -> LogSourceSetup + Send + Sync + 'static> {
    source_from_setup("log-source(latest)", &["log"], |d| log_source_for(d, LogStart::Latest))
}

/// The log source starting at offset [`BEFORE_START`] of every partition.
pub fn log_source_specific() -> SourceFromSetup<impl Fn(TestData) -> LogSourceSetup + Send + Sync + 'static> {
    source_from_setup("log-source(offset)", &["log"], |d| log_source_for(d, LogStart::Offset(BEFORE_START)))
}

/// A source context around any source setup built from the log source's (for mutants).
pub fn log_source_with<S: SourceSetup>(
    name: &str,
    wrap: impl Fn(LogSourceSetup) -> S + Send + Sync + 'static,
) -> SourceFromSetup<impl Fn(TestData) -> S + Send + Sync + 'static> {
    source_from_setup(name, &["log"], move |d| wrap(log_source_for(d, LogStart::Earliest)))
}

/// A source context around a source setup built from the log source starting at `start`.
pub fn log_source_starting_with<S: SourceSetup>(
    name: &str,
    start: LogStart,
    wrap: impl Fn(LogSourceSetup) -> S + Send + Sync + 'static,
) -> SourceFromSetup<impl Fn(TestData) -> S + Send + Sync + 'static> {
    source_from_setup(name, &["log"], move |d| wrap(log_source_for(d, start.clone())))
}

/// The Kafka source (rdkafka's API) over the log source's data, starting where `start` says.
/// Every partition starts with an aborted upstream transaction of [`KAFKA_ABORTED_HEAD`]
/// entries, which a read-committed source skips.
pub fn kafka_source_for(d: TestData, start: LogStart) -> KafkaSourceSetup {
    KafkaSourceSetup::new(kafka_data(d, start))
}

/// Entries of an aborted upstream transaction at the head of every partition the Kafka
/// source reads.
pub const KAFKA_ABORTED_HEAD: u64 = 3;

/// The log source's data for a case, with [`KAFKA_ABORTED_HEAD`] aborted entries ahead.
pub fn kafka_data(d: TestData, start: LogStart) -> LogSourceSetup {
    log_source_for(d, start).with_aborted_head(KAFKA_ABORTED_HEAD)
}

/// A source context around a source setup built from the Kafka source's data (for mutants).
pub fn kafka_source_with<S: SourceSetup>(
    name: &str,
    wrap: impl Fn(LogSourceSetup) -> S + Send + Sync + 'static,
) -> SourceFromSetup<impl Fn(TestData) -> S + Send + Sync + 'static> {
    source_from_setup(name, &["log"], move |d| wrap(kafka_data(d, LogStart::Earliest)))
}

/// A sink context for a variant of the Kafka sink, skipping what the reference skips.
pub fn kafka_sink_with<S: SinkSetup>(setup: S) -> SinkFromSetup<S> {
    sink_from_setup(setup, &["sink-kafka"]).skipping(KAFKA_SKIPS.0, KAFKA_SKIPS.1).over_kafka()
}

/// The Kafka source reading the case's splits as partitions, from the earliest offset.
pub fn kafka_source() -> SourceFromSetup<impl Fn(TestData) -> KafkaSourceSetup + Send + Sync + 'static> {
    source_from_setup("kafka-source", &["log"], |d| kafka_source_for(d, LogStart::Earliest))
}

/// The exactly-once Kafka sink (rdkafka's API) on a broker following `protocol`.
pub fn kafka_sink(protocol: TxnProtocol) -> SinkFromSetup<KafkaSinkSetup> {
    sink_from_setup(KafkaSinkSetup { partitions: 4, protocol }, &["sink-kafka"])
        .skipping(KAFKA_SKIPS.0, KAFKA_SKIPS.1)
        .over_kafka()
}

/// The suite case the write-ahead Kafka sink cannot aim at, and why.
pub const KAFKA_SKIPS: (&str, &str) = (
    "transactions time out while a writer is down",
    "the write-ahead Kafka sink holds no transaction open between commits: a transaction lives only inside \
     one commit, so a writer that is down has none to time out (its commits' transactions are bounded by \
     transaction.timeout.ms all the same)",
);

/// The exactly-once file sink.
pub fn file_sink() -> SinkFromSetup<FileSinkSetup> {
    sink_from_setup(FileSinkSetup, &["fs"])
}

/// The exactly-once object-store sink on object_store's API.
pub fn object_sink() -> SinkFromSetup<ObjectSinkSetup> {
    sink_from_setup(ObjectSinkSetup::default(), &["s3"])
}

/// The object-store sink with S3's real 5 MiB parts: at the suites' volumes, single puts.
pub fn object_sink_real_parts() -> SinkFromSetup<ObjectSinkSetup> {
    sink_from_setup(ObjectSinkSetup::real_parts(), &["s3"])
}

/// The object-store sink without multipart uploads: every file one conditional put.
pub fn object_sink_single_puts() -> SinkFromSetup<ObjectSinkSetup> {
    sink_from_setup(ObjectSinkSetup::single_puts(), &["s3"])
}

/// The exactly-once table-format sink on an object store: versions published by
/// conditional puts.
pub fn version_log_sink() -> SinkFromSetup<VersionLogSinkSetup> {
    sink_from_setup(VersionLogSinkSetup, &["s3"])
}

/// The exactly-once transactional log sink.
pub fn txn_log_sink() -> SinkFromSetup<TxnLogSinkSetup> {
    sink_from_setup(TxnLogSinkSetup { partitions: 4 }, &["sink-log"])
}

/// The exactly-once table sink with a global committer.
pub fn table_sink() -> SinkFromSetup<TableSinkSetup> {
    sink_from_setup(TableSinkSetup, &["table"])
}

/// The at-least-once log sink in either barrier mode.
pub fn log_sink(mode: BarrierMode) -> SinkFromSetup<LogSinkSetup> {
    sink_from_setup(LogSinkSetup { partitions: 4, mode }, &["sink-log"])
}

/// The idempotent upsert sink (keyed by record id), declaring `Idempotent`.
pub fn upsert_sink() -> SinkFromSetup<UpsertSinkSetup> {
    sink_from_setup(UpsertSinkSetup { claims_exactly_once: false }, &["kv"])
}

/// A sink context for a mutant of one of the sinks above (the sink declares its guarantee).
pub fn sink<S: SinkSetup>(setup: S, systems: &[&str]) -> SinkFromSetup<S> {
    sink_from_setup(setup, systems)
}
