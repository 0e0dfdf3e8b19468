//! Reference connectors (correct) and mutants (deliberately buggy, one bug each), written
//! only against connsim's public API, as a connector author would write them.
//!
//! The reference connectors are templates: the pieces a variant reuses are public, so a
//! variant states what it changes and copies nothing else. The log enumerator
//! ([`log_source::LogEnumerator`]: `new`, `add_partitions`, `take_back`, `assign_pending`,
//! `owner`, and [`log_source::HandOver`] to hand splits over in source events instead of
//! assignments), with hooks for a log source read another way
//! ([`log_source::LogSourceReadBy`]) or handing splits over in events of its own
//! ([`log_source::LogSourceByEvent`]); the transactional log sink's writer
//! ([`txn_log_sink::TxnLogSink::open_writer`] with the reference's
//! [`txn_log_sink::TxnLogSink::lingering`] rule, [`txn_log_sink::TxnLogWriter`]'s accessors
//! and `partitioned_by`) and [`TxnLogSinkSetup::variant`] to set a variant up; the table
//! sink's [`table_sink::TableCommitter::commit_stamped`]. `tests/variants.rs` holds two
//! variants written outside the crate from these pieces alone, each under 40 lines and
//! passing its suite: a log source handing splits over by source event, and a
//! transactional log sink partitioning by record key.

#![deny(missing_docs)]

// Without madsim (the feature `production`), only the Kafka connectors and the log source's
// pieces they use: `scripts/check-rdkafka-compat` builds them against the real rdkafka.
#[cfg(madsim)]
pub mod catalogue;
#[cfg(madsim)]
pub mod contexts;
#[cfg(madsim)]
pub mod file_sink;
pub mod kafka;
#[cfg(madsim)]
pub mod log_sink;
pub mod log_source;
#[cfg(madsim)]
pub mod mutants;
#[cfg(madsim)]
pub mod object_sink;
#[cfg(madsim)]
pub mod retry;
#[cfg(madsim)]
pub mod row;
#[cfg(madsim)]
pub mod row_schema;
#[cfg(madsim)]
pub mod table_sink;
#[cfg(madsim)]
pub mod txn_log_sink;
#[cfg(madsim)]
pub mod upsert_sink;
#[cfg(madsim)]
pub mod version_log_sink;

#[cfg(madsim)]
pub use file_sink::{FileSink, FileSinkSetup};
pub use kafka::{KafkaSink, KafkaSource};
#[cfg(madsim)]
pub use kafka::{KafkaSinkSetup, KafkaSourceSetup};
#[cfg(madsim)]
pub use log_sink::{BarrierMode, LogSink, LogSinkSetup};
#[cfg(madsim)]
pub use log_source::LogSourceSetup;
pub use log_source::{LogSource, LogStart, OffsetReset};
#[cfg(madsim)]
pub use object_sink::{ObjectSink, ObjectSinkSetup};
#[cfg(madsim)]
pub use table_sink::{TableSink, TableSinkSetup};
#[cfg(madsim)]
pub use txn_log_sink::{TxnLogSink, TxnLogSinkSetup, TxnWriterState};
#[cfg(madsim)]
pub use upsert_sink::{UpsertSink, UpsertSinkSetup};
#[cfg(madsim)]
pub use version_log_sink::{VersionLogSink, VersionLogSinkSetup};
