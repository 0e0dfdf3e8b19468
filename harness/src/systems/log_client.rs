//! A connector's client for the partitioned log, over the gateway.

use super::log::{LogError, LogRequest, LogResponse, TxnHandle};
use super::log_entry::LogEntry;
use crate::error::ConnectorError;
use crate::net::Endpoint;
use std::time::Duration;

/// A fetch below a partition's log start: retention deleted that position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfRange {
    /// The partition's first offset left.
    pub log_start: u64,
}

/// Calls the log hosted on node `log`. Timeouts surface as retriable [`ConnectorError`]s.
#[derive(Clone)]
pub struct LogClient {
    endpoint: Endpoint,
    log: String,
    timeout: Duration,
}

fn unexpected(resp: LogResponse) -> ConnectorError {
    match resp {
        LogResponse::Error(LogError::Fenced) => ConnectorError::fail_task("producer fenced by a newer epoch"),
        LogResponse::Error(LogError::OffsetOutOfRange { log_start }) => ConnectorError::fail_task(format!(
            "offset out of range: retention deleted it; fetch with fetch_retained and seek to the log start {log_start}"
        )),
        other => ConnectorError::fail_task(format!("unexpected log response {other:?}")),
    }
}

impl LogClient {
    /// A client of the log named `log`, with a 50 ms call timeout.
    pub fn new(endpoint: Endpoint, log: &str) -> Self {
        Self { endpoint, log: log.to_string(), timeout: Duration::from_millis(50) }
    }

    /// Sends one request.
    pub async fn request(&self, req: LogRequest) -> Result<LogResponse, ConnectorError> {
        let kind = match &req {
            LogRequest::ListPartitions { .. } => "log.list_partitions",
            LogRequest::ListOffsets { .. } => "log.list_offsets",
            LogRequest::Fetch { .. } => "log.fetch",
            LogRequest::Produce { .. } => "log.produce",
            LogRequest::InitTransactions { .. } => "log.init_transactions",
            LogRequest::CommitTransaction { .. } => "log.commit",
            LogRequest::AbortTransaction { .. } => "log.abort",
            LogRequest::ListOpenTransactions { .. } => "log.list_open",
        };
        Ok(self.endpoint.call(&self.log, kind, &req, self.timeout).await?)
    }

    /// Number of partitions of `topic`.
    pub async fn partitions(&self, topic: &str) -> Result<u32, ConnectorError> {
        match self.request(LogRequest::ListPartitions { topic: topic.into() }).await? {
            LogResponse::Partitions(n) => Ok(n),
            other => Err(unexpected(other)),
        }
    }

    /// Read-committed fetch: entries with offsets, and the next offset to fetch.
    pub async fn fetch(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        max: usize,
    ) -> Result<(Vec<(u64, LogEntry)>, u64), ConnectorError> {
        self.fetch_retained(topic, partition, offset, max).await?.map_err(|OutOfRange { log_start }| {
            unexpected(LogResponse::Error(LogError::OffsetOutOfRange { log_start }))
        })
    }

    /// Read-committed fetch that tells an offset retention deleted apart: `Ok(Err(..))` when
    /// `offset` is below the partition's log start (Kafka's `OffsetOutOfRange`), with the
    /// log start to seek to.
    pub async fn fetch_retained(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        max: usize,
    ) -> Result<Result<(Vec<(u64, LogEntry)>, u64), OutOfRange>, ConnectorError> {
        match self.request(LogRequest::Fetch { topic: topic.into(), partition, offset, max }).await? {
            LogResponse::Fetched { entries, next_offset } => Ok(Ok((entries, next_offset))),
            LogResponse::Error(LogError::OffsetOutOfRange { log_start }) => Ok(Err(OutOfRange { log_start })),
            other => Err(unexpected(other)),
        }
    }

    /// End offset of every partition of `topic`, read committed: where a read-committed
    /// consumer's position stops (past the last transaction marker, before an open
    /// transaction).
    pub async fn end_offsets(&self, topic: &str) -> Result<Vec<u64>, ConnectorError> {
        match self.request(LogRequest::ListOffsets { topic: topic.into() }).await? {
            LogResponse::Offsets(o) => Ok(o),
            other => Err(unexpected(other)),
        }
    }

    /// Appends entries, transactionally when `txn` is set; `sequence` numbers a transactional
    /// producer's batches from 0 per epoch (retrying the same number is safe).
    pub async fn produce(
        &self,
        topic: &str,
        partition: u32,
        entries: Vec<LogEntry>,
        txn: Option<TxnHandle>,
        sequence: u64,
    ) -> Result<(), ConnectorError> {
        match self.request(LogRequest::Produce { topic: topic.into(), partition, entries, txn, sequence }).await? {
            LogResponse::Ok => Ok(()),
            other => Err(unexpected(other)),
        }
    }

    /// Starts a new epoch for `id`, fencing older producers and aborting their open transaction.
    pub async fn init_transactions(&self, id: &str) -> Result<TxnHandle, ConnectorError> {
        match self.request(LogRequest::InitTransactions { id: id.into() }).await? {
            LogResponse::Epoch(epoch) => Ok(TxnHandle { id: id.into(), epoch }),
            other => Err(unexpected(other)),
        }
    }

    /// Open transactions whose id starts with `prefix`.
    pub async fn open_transactions(&self, prefix: &str) -> Result<Vec<TxnHandle>, ConnectorError> {
        match self.request(LogRequest::ListOpenTransactions { prefix: prefix.into() }).await? {
            LogResponse::Open(txns) => Ok(txns),
            other => Err(unexpected(other)),
        }
    }
}
