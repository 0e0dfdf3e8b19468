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

pub mod catalogue;
pub mod contexts;
pub mod file_sink;
pub mod kafka;
pub mod log_sink;
pub mod log_source;
pub mod mutants;
pub mod retry;
pub mod row;
pub mod table_sink;
pub mod txn_log_sink;
pub mod upsert_sink;

pub use file_sink::{FileSink, FileSinkSetup};
pub use kafka::{KafkaSink, KafkaSinkSetup, KafkaSource, KafkaSourceSetup};
pub use log_sink::{BarrierMode, LogSink, LogSinkSetup};
pub use log_source::{LogSource, LogSourceSetup, LogStart, OffsetReset};
pub use table_sink::{TableSink, TableSinkSetup};
pub use txn_log_sink::{TxnLogSink, TxnLogSinkSetup, TxnWriterState};
pub use upsert_sink::{UpsertSink, UpsertSinkSetup};
