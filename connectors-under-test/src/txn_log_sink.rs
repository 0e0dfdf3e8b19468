//! An exactly-once log sink on transactions (as Flink's Kafka sink): one transactional id per
//! subtask and checkpoint, `<prefix>-<subtask>-<n>`. On the barrier the open transaction
//! becomes the committable and the next one starts; on restore, transactions newer than the
//! restored checkpoint are lingering and get aborted (by fencing their id).

use crate::retry::idempotent;
use connsim::api::{NoGlobalCommitter, CommitOutcome, CommitRequest, Committer, CommitterContext, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{LogClient, LogError, LogRequest, LogResponse, PartitionedLog, TxnHandle};
use connsim::{ConnectorError, Record};
use std::sync::Arc;

const BUFFER_RECORDS: usize = 32;
const TRIES: u32 = 20;

/// The transactional log sink.
#[derive(Clone, Debug)]
pub struct TxnLogSink {
    /// Node name of the log.
    pub log: String,
    /// Output topic.
    pub topic: String,
    /// Transactional-id prefix.
    pub prefix: String,
}

/// Its writer.
pub struct TxnLogWriter {
    client: LogClient,
    topic: String,
    id_prefix: String,
    pub(crate) partition: u32,
    txn: TxnHandle,
    sequence: u64,
    buffer: Vec<Record>,
}

async fn begin(client: &LogClient, id: String) -> Result<TxnHandle, ConnectorError> {
    idempotent(TRIES, || client.init_transactions(&id)).await
}

impl TxnLogWriter {
    async fn send_buffer(&mut self) -> Result<(), ConnectorError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let records = std::mem::take(&mut self.buffer);
        let (client, txn, seq) = (&self.client, &self.txn, self.sequence);
        idempotent(TRIES, || client.produce(&self.topic, self.partition, records.clone(), Some(txn.clone()), seq)).await?;
        self.sequence += 1;
        Ok(())
    }
}

impl SinkWriter for TxnLogWriter {
    type Committable = TxnHandle;
    type State = ();

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.buffer.push(record);
        if self.buffer.len() >= BUFFER_RECORDS {
            self.send_buffer().await?;
        }
        Ok(())
    }

    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        self.send_buffer().await
    }

    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<TxnHandle>, ConnectorError> {
        self.send_buffer().await?;
        let next = begin(&self.client, format!("{}{}", self.id_prefix, checkpoint + 1)).await?;
        self.sequence = 0;
        Ok(vec![std::mem::replace(&mut self.txn, next)])
    }
}

/// Its committer.
pub struct TxnLogCommitter {
    client: LogClient,
}

impl Committer for TxnLogCommitter {
    type Committable = TxnHandle;
    async fn commit(&mut self, requests: Vec<CommitRequest<TxnHandle>>) -> Vec<CommitOutcome> {
        let mut out = Vec::new();
        for r in requests {
            let req = LogRequest::CommitTransaction { txn: r.committable.clone() };
            out.push(match self.client.request(req).await {
                Ok(LogResponse::Ok) => CommitOutcome::Committed,
                Ok(LogResponse::AlreadyCommitted) => CommitOutcome::AlreadyCommitted,
                Ok(LogResponse::Error(LogError::NotCommittable)) => {
                    CommitOutcome::FailedKnown(format!("transaction {} was aborted", r.committable.id))
                }
                Ok(other) => CommitOutcome::FailedUnknown(format!("{other:?}")),
                Err(_) => CommitOutcome::RetryLater,
            });
        }
        out
    }
}

impl Sink for TxnLogSink {
    type Committable = TxnHandle;
    type WriterState = ();
    type Writer = TxnLogWriter;
    type Committer = TxnLogCommitter;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;

    /// Read-committed consumers read a partition by offset, and a split always goes to the
    /// same subtask and so to the same partition.
    fn keeps_split_order(&self) -> bool {
        true
    }

    async fn create_writer(&self, ctx: WriterContext, _restored: Vec<()>) -> Result<TxnLogWriter, ConnectorError> {
        let client = LogClient::new(ctx.endpoint().clone(), &self.log);
        let id_prefix = format!("{}-{}-", self.prefix, ctx.subtask());
        let restored = ctx.restored_checkpoint();
        // Abort lingering transactions: anything opened after the restored checkpoint.
        let open = idempotent(TRIES, || client.open_transactions(&id_prefix)).await?;
        for txn in open {
            let n: CheckpointId = txn.id[id_prefix.len()..].parse().unwrap_or(CheckpointId::MAX);
            if n > restored {
                begin(&client, txn.id.clone()).await?;
            }
        }
        let partitions = idempotent(TRIES, || client.partitions(&self.topic)).await?.max(1);
        let txn = begin(&client, format!("{id_prefix}{}", restored + 1)).await?;
        Ok(TxnLogWriter {
            client,
            topic: self.topic.clone(),
            id_prefix,
            partition: ctx.subtask() as u32 % partitions,
            txn,
            sequence: 0,
            buffer: Vec::new(),
        })
    }

    fn create_committer(&self, ctx: CommitterContext) -> TxnLogCommitter {
        TxnLogCommitter { client: LogClient::new(ctx.endpoint().clone(), &self.log) }
    }
}

/// Sets up a second log `sink-log` with topic `output`, read committed as the visible output.
#[derive(Clone, Debug)]
pub struct TxnLogSinkSetup {
    /// Partitions of `output`.
    pub partitions: u32,
}

impl SinkSetup for TxnLogSinkSetup {
    type Sink = TxnLogSink;
    fn name(&self) -> String {
        "txn-log-sink".into()
    }
    fn build(&self, world: &mut World) -> TxnLogSink {
        let log = PartitionedLog::new("sink-log", world.history().clone());
        log.create_topic("output", self.partitions);
        world.set_output(log.output("output"));
        world.add_system(Arc::new(log));
        TxnLogSink { log: "sink-log".into(), topic: "output".into(), prefix: "connsim-sink".into() }
    }
}
