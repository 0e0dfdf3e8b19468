//! Reference connectors (correct) and mutants (deliberately buggy, one bug each), written
//! only against connsim's public API, as a connector author would write them.

#![deny(missing_docs)]

pub mod catalogue;
pub mod contexts;
pub mod file_sink;
pub mod log_sink;
pub mod log_source;
pub mod mutants;
pub mod retry;
pub mod table_sink;
pub mod txn_log_sink;
pub mod upsert_sink;

pub use file_sink::{FileSink, FileSinkSetup};
pub use log_sink::{BarrierMode, LogSink, LogSinkSetup};
pub use log_source::{LogSource, LogSourceSetup, LogStart, OffsetReset};
pub use table_sink::{TableSink, TableSinkSetup};
pub use txn_log_sink::{TxnLogSink, TxnLogSinkSetup, TxnWriterState};
pub use upsert_sink::{UpsertSink, UpsertSinkSetup};
