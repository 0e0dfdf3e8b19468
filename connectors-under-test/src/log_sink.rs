//! An at-least-once log sink (as Flink's Kafka sink with `DeliveryGuarantee.AT_LEAST_ONCE`,
//! or an async sink): records are produced without transactions, visible at once. Nothing
//! is lost as long as every record the source has moved past at a checkpoint is either in
//! the log or in the writer's state; after a failure some are written twice.
//!
//! Two ways to keep that promise, chosen by [`BarrierMode`]:
//! - `Flush`: the writer sends its buffer on the barrier (Kafka's `flush()` on snapshot);
//! - `BufferInState`: the writer keeps the buffer and snapshots it as writer state, and a
//!   restored writer sends the restored records first (Flink's `AsyncSinkWriter`). Records
//!   still buffered a whole checkpoint later are sent then (the writer's time-based flush,
//!   `maxTimeInBufferMS`), so an idle stream's last records do not wait for ever.

use crate::retry::idempotent;
use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, DeliveryGuarantee, NoGlobalCommitter, Sink, SinkWriter,
    WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{LogClient, LogEntry, PartitionedLog, RecordLogFormat};
use connsim::{ConnectorError, Record};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

const BUFFER_RECORDS: usize = 32;
const TRIES: u32 = 20;

/// How the writer keeps buffered records safe across a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BarrierMode {
    /// Send the buffer on the barrier.
    Flush,
    /// Snapshot the buffer as writer state; resend it on restore.
    BufferInState,
}

/// The at-least-once log sink.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct LogSink {
    /// Node name of the log.
    pub log: String,
    /// Output topic.
    pub topic: String,
    /// How buffered records survive a checkpoint.
    pub mode: BarrierMode,
}

/// Its writer.
pub struct LogWriter {
    client: LogClient,
    topic: String,
    partition: u32,
    mode: BarrierMode,
    pub(crate) buffer: Vec<Record>,
    /// How many of the buffer's first records were in the last snapshot.
    snapshotted: usize,
}

impl LogWriter {
    /// Sends the buffer (retried: a retry after a lost response writes twice, which
    /// at-least-once allows).
    pub async fn send_buffer(&mut self) -> Result<(), ConnectorError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let records = std::mem::take(&mut self.buffer);
        self.snapshotted = 0;
        self.produce(records).await
    }

    /// Serializes and sends `records` (retried: a retry after a lost response writes twice).
    pub(crate) async fn produce(&self, records: Vec<Record>) -> Result<(), ConnectorError> {
        let (client, topic, partition) = (&self.client, &self.topic, self.partition);
        let entries: Vec<LogEntry> = records.iter().map(RecordLogFormat::encode).collect();
        idempotent(TRIES, || client.produce(topic, partition, entries.clone(), None, 0)).await
    }

    /// The records buffered and not sent yet.
    pub fn buffered(&self) -> &[Record] {
        &self.buffer
    }
}

impl SinkWriter for LogWriter {
    type Committable = ();
    type State = Vec<Record>;

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.buffer.push(record);
        if self.buffer.len() >= BUFFER_RECORDS {
            self.send_buffer().await?;
        }
        Ok(())
    }

    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        if end_of_input || self.mode == BarrierMode::Flush {
            self.send_buffer().await?;
        }
        Ok(())
    }

    async fn prepare_commit(&mut self, _checkpoint: CheckpointId) -> Result<Vec<()>, ConnectorError> {
        // Records that sat in the buffer through a whole checkpoint interval go out now.
        let old = std::mem::take(&mut self.snapshotted).min(self.buffer.len());
        if old > 0 {
            let records: Vec<Record> = self.buffer.drain(..old).collect();
            self.produce(records).await?;
        }
        Ok(Vec::new())
    }

    fn snapshot_state(&mut self, _checkpoint: CheckpointId) -> Vec<Vec<Record>> {
        match self.mode {
            BarrierMode::Flush => Vec::new(),
            BarrierMode::BufferInState => {
                self.snapshotted = self.buffer.len();
                vec![self.buffer.clone()]
            }
        }
    }
}

/// Its committer: nothing to commit.
pub struct NothingToCommit;

impl Committer for NothingToCommit {
    type Committable = ();
    async fn commit(&mut self, requests: Vec<CommitRequest<()>>) -> Vec<CommitOutcome> {
        requests.iter().map(|_| CommitOutcome::Committed).collect()
    }
}

impl LogSink {
    /// A writer for `ctx` with an empty buffer (restored state not applied).
    pub async fn new_writer(&self, ctx: &WriterContext) -> Result<LogWriter, ConnectorError> {
        let client = LogClient::new(ctx.endpoint().clone(), &self.log);
        let partitions = idempotent(TRIES, || client.partitions(&self.topic)).await?.max(1);
        let partition = ctx.subtask() as u32 % partitions;
        Ok(LogWriter {
            client,
            topic: self.topic.clone(),
            partition,
            mode: self.mode,
            buffer: Vec::new(),
            snapshotted: 0,
        })
    }
}

impl Sink for LogSink {
    type Committable = ();
    type WriterState = Vec<Record>;
    type Writer = LogWriter;
    type Committer = NothingToCommit;
    type GlobalCommitter = NoGlobalCommitter<()>;

    fn delivery_guarantee(&self) -> DeliveryGuarantee {
        DeliveryGuarantee::AtLeastOnce
    }

    async fn create_writer(&self, ctx: WriterContext, restored: Vec<Vec<Record>>) -> Result<LogWriter, ConnectorError> {
        let mut writer = self.new_writer(&ctx).await?;
        // Records the previous attempt held in its state are sent before anything new.
        writer.buffer = restored.into_iter().flatten().collect();
        writer.send_buffer().await?;
        Ok(writer)
    }

    fn create_committer(&self, _ctx: CommitterContext) -> NothingToCommit {
        NothingToCommit
    }
}

/// Sets up a log `sink-log` with topic `output`; everything produced is visible.
#[derive(Clone, Debug)]
pub struct LogSinkSetup {
    /// Partitions of `output`.
    pub partitions: u32,
    /// How buffered records survive a checkpoint.
    pub mode: BarrierMode,
}

impl SinkSetup for LogSinkSetup {
    type Sink = LogSink;
    fn name(&self) -> String {
        format!("log-sink(at-least-once, {:?})", self.mode)
    }
    fn build(&self, world: &mut World) -> LogSink {
        let log = PartitionedLog::new("sink-log", world.history().clone());
        log.create_topic("output", self.partitions);
        world.set_output(log.output("output"));
        world.add_system(Arc::new(log));
        LogSink { log: "sink-log".into(), topic: "output".into(), mode: self.mode }
    }
}
