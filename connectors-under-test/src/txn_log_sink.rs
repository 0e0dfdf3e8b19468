//! An exactly-once log sink on transactions (as Flink's Kafka sink): one transactional id per
//! subtask and checkpoint, `<prefix>-<subtask>-<n>`. On the barrier the open transaction
//! becomes the committable and the next one starts.
//!
//! On start, a writer aborts the lingering transactions it owns (by fencing their ids): a
//! transaction left open blocks every read-committed consumer of its partition at the last
//! stable offset. Writer `s` of `p` owns the ids of subtasks `s, s + p, s + 2p, …` (so ids of
//! subtasks a scale-down removed are still owned). Its writer state records the parallelism
//! that wrote it, so a restored writer knows which subtasks took part in the restored
//! checkpoint: their transactions up to it may be committables (committed on restore), newer
//! ones are lingering; every transaction of a subtask that did not take part is lingering.
//!
//! Zombies (an older attempt of the same subtask still running) are fenced by the epochs:
//! the restored writer's fencing refuses the zombie's next write. Two more holes are closed:
//! a writer makes sure its transaction is still its own before handing it over as a
//! committable (an attempt that initialised the same id later aborted it), and it fences
//! the ids of checkpoints it skipped (a zombie may have opened one, which would pin the
//! partition).
//!
//! For variants: [`TxnLogSink::open_writer`] opens a writer after aborting the lingering
//! transactions a rule picks ([`TxnLogSink::lingering`] is the reference's rule), and
//! [`TxnLogWriter::partitioned_by`] sends each record to a partition of its own choosing
//! instead of the subtask's; [`TxnLogSinkSetup::variant`] sets a variant up for its tests.

use crate::retry::idempotent;
use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{
    LogClient, LogEntry, LogError, LogRequest, LogResponse, PartitionedLog, RecordLogFormat, TxnHandle,
};
use connsim::{ConnectorError, Record};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A writer's checkpointed state: the parallelism of the job that wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxnWriterState {
    /// How many writers took part in the checkpoint.
    pub parallelism: usize,
}

const BUFFER_RECORDS: usize = 32;
const TRIES: u32 = 20;

/// The transactional log sink.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct TxnLogSink {
    /// Node name of the log.
    pub log: String,
    /// Output topic.
    pub topic: String,
    /// Transactional-id prefix.
    pub prefix: String,
}

/// Picks a record's partition, given how many the topic has: `(record, partitions) ->
/// partition` (a pick at or past `partitions` wraps around).
pub type Partitioner = fn(&Record, u32) -> u32;

/// Its writer.
pub struct TxnLogWriter {
    client: LogClient,
    pub(crate) topic: String,
    id_prefix: String,
    pub(crate) partition: u32,
    /// The topic's partitions when the writer opened.
    partitions: u32,
    /// Where each record goes, if not all to `partition`.
    partitioner: Option<Partitioner>,
    pub(crate) txn: TxnHandle,
    /// The checkpoint number in the open transaction's id.
    number: CheckpointId,
    /// The barrier's flush just had the log take a batch into the open transaction.
    proven: bool,
    pub(crate) sequence: u64,
    buffer: Vec<Record>,
    parallelism: usize,
}

async fn begin(client: &LogClient, id: String) -> Result<TxnHandle, ConnectorError> {
    idempotent(TRIES, || client.init_transactions(&id)).await
}

impl TxnLogWriter {
    /// Its log client, talking to the log from the task executor's endpoint.
    pub fn client(&self) -> &LogClient {
        &self.client
    }

    /// The transaction it writes into now; it becomes the committable at the next
    /// `prepare_commit`, which opens the next one.
    pub fn open_transaction(&self) -> &TxnHandle {
        &self.txn
    }

    /// The topic it writes.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// The partition it writes every record into, unless [`TxnLogWriter::partitioned_by`]
    /// says otherwise: its subtask modulo the topic's partitions (Flink's fixed
    /// partitioner), so a split's records stay in one partition, in order.
    pub fn partition(&self) -> u32 {
        self.partition
    }

    /// Sends each record to the partition `partitioner` picks for it (given the partitions
    /// the topic had when the writer opened) instead of [`TxnLogWriter::partition`]: one
    /// batch per partition, all in the open transaction, which commits or aborts them
    /// together. A split's records then spread over partitions, so a sink whose writer
    /// does this must not claim [`Sink::keeps_split_order`]. Call it on a freshly opened
    /// writer.
    pub fn partitioned_by(mut self, partitioner: Partitioner) -> Self {
        self.partitioner = Some(partitioner);
        self
    }

    async fn send_buffer(&mut self) -> Result<(), ConnectorError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let records = std::mem::take(&mut self.buffer);
        let batches = match self.partitioner {
            None => vec![(self.partition, records)],
            Some(pick) => {
                let mut by_partition: BTreeMap<u32, Vec<Record>> = BTreeMap::new();
                for record in records {
                    by_partition.entry(pick(&record, self.partitions) % self.partitions).or_default().push(record);
                }
                by_partition.into_iter().collect()
            }
        };
        for (partition, records) in batches {
            let (client, txn, seq) = (&self.client, &self.txn, self.sequence);
            let entries: Vec<LogEntry> = records.iter().map(RecordLogFormat::encode).collect();
            idempotent(TRIES, || client.produce(&self.topic, partition, entries.clone(), Some(txn.clone()), seq))
                .await?;
            self.sequence += 1;
        }
        Ok(())
    }
}

impl TxnLogWriter {
    /// Makes sure the transaction about to become a committable is still open under this
    /// writer's epoch. Another writer that initialised the same id (an attempt of this
    /// subtask that started late, or woke up from a long pause) aborted it; a writer that
    /// has nothing left to send would not notice, and its commit would find the
    /// checkpoint's records gone. Failing the task instead restores them.
    async fn verify(&self) -> Result<(), ConnectorError> {
        if self.sequence == 0 {
            return Ok(()); // nothing written: nothing to lose
        }
        let (client, txn) = (&self.client, &self.txn);
        let open = idempotent(TRIES, || client.open_transactions(&txn.id)).await?;
        if open.iter().any(|t| t == txn) {
            return Ok(());
        }
        Err(ConnectorError::fail_task(format!(
            "transaction {} (epoch {}) was aborted by a newer writer of the same id before it was prepared",
            txn.id, txn.epoch
        )))
    }
}

impl SinkWriter for TxnLogWriter {
    type Committable = TxnHandle;
    type State = TxnWriterState;

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.buffer.push(record);
        if self.buffer.len() >= BUFFER_RECORDS {
            self.send_buffer().await?;
        }
        Ok(())
    }

    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        let sends = !self.buffer.is_empty();
        self.send_buffer().await?;
        self.proven = sends;
        Ok(())
    }

    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<TxnHandle>, ConnectorError> {
        self.send_buffer().await?;
        // A batch the log took at the barrier's flush, just now, proves the transaction is
        // still ours (a fenced one is refused); otherwise, ask.
        if !std::mem::take(&mut self.proven) {
            self.verify().await?;
        }
        // Ids of checkpoints this writer never saw (aborted before their barrier reached it)
        // may hold a transaction a zombie of this subtask opened: fence them, or it would
        // pin the partition's last stable offset.
        for skipped in self.number + 1..=checkpoint {
            begin(&self.client, format!("{}{skipped}", self.id_prefix)).await?;
        }
        let next = begin(&self.client, format!("{}{}", self.id_prefix, checkpoint + 1)).await?;
        self.number = checkpoint + 1;
        self.sequence = 0;
        Ok(vec![std::mem::replace(&mut self.txn, next)])
    }

    fn snapshot_state(&mut self, _checkpoint: CheckpointId) -> Vec<TxnWriterState> {
        vec![TxnWriterState { parallelism: self.parallelism }]
    }

    /// Aborts the open transaction (as Flink's Kafka writer does on close): what it holds
    /// was never prepared, and an open transaction would pin its partition until fenced.
    async fn close(&mut self) {
        let abort = LogRequest::AbortTransaction { txn: self.txn.clone() };
        let _ = self.client.request(abort).await; // best effort: a later writer fences it anyway
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
                // As Flink's Kafka committer: a later producer initialised the id, so this
                // epoch's transaction is over, committed or aborted; the broker cannot say.
                Ok(LogResponse::Error(LogError::Fenced)) => {
                    CommitOutcome::FailedKnown(format!("transaction {} was fenced", r.committable.id))
                }
                Ok(other) => CommitOutcome::FailedUnknown(format!("{other:?}")),
                Err(_) => CommitOutcome::RetryLater,
            });
        }
        out
    }
}

impl TxnLogSink {
    /// The reference's rule for which open transactions a writer for `ctx`, restored with
    /// `restored`, aborts on start ([`TxnLogSink::open_writer`]'s `lingering`): those of the
    /// subtasks it owns (`s, s + p, s + 2p, …`, so ids of subtasks a scale-down removed are
    /// still owned) that are not committables of the restored checkpoint, i.e. newer than
    /// it, or of a subtask that did not take part in it.
    pub fn lingering(ctx: &WriterContext, restored: &[TxnWriterState]) -> impl Fn(usize, CheckpointId) -> bool {
        // Subtasks below `took_part` wrote the restored checkpoint. A writer that got no
        // state back while restoring was not among them (each writer checkpoints one state).
        let r = ctx.restored_checkpoint();
        let took_part = if r == 0 { 0 } else { restored.first().map_or(0, |st| st.parallelism) };
        let (s, p) = (ctx.subtask(), ctx.parallelism());
        // Owned ids: its own and those of subtasks a scale-down removed (FLINK-23854).
        move |owner, n| owner % p == s && (owner >= took_part || n > r)
    }

    /// Opens a writer for `ctx`: first aborts (by fencing its id) every open transaction of
    /// the sink's prefix for which `lingering(owner subtask, checkpoint number)` says so,
    /// then begins the transaction `<prefix>-<subtask>-<restored checkpoint + 1>` and writes
    /// into partition subtask modulo the topic's partitions. `lingering` must spare the
    /// committables of the restored checkpoint (the runtime commits them on restore) and
    /// every other writer's transactions; [`TxnLogSink::lingering`] is the reference's rule.
    pub async fn open_writer(
        &self,
        ctx: WriterContext,
        lingering: impl Fn(usize, CheckpointId) -> bool,
    ) -> Result<TxnLogWriter, ConnectorError> {
        let client = LogClient::new(ctx.endpoint().clone(), &self.log);
        let id_prefix = format!("{}-{}-", self.prefix, ctx.subtask());
        let all = format!("{}-", self.prefix);
        for txn in idempotent(TRIES, || client.open_transactions(&all)).await? {
            let mut parts = txn.id[all.len()..].splitn(2, '-');
            let owner: usize = parts.next().and_then(|x| x.parse().ok()).unwrap_or(usize::MAX);
            let n: CheckpointId = parts.next().and_then(|x| x.parse().ok()).unwrap_or(CheckpointId::MAX);
            if lingering(owner, n) {
                begin(&client, txn.id.clone()).await?; // fencing the id aborts its transaction
            }
        }
        let partitions = idempotent(TRIES, || client.partitions(&self.topic)).await?.max(1);
        let txn = begin(&client, format!("{id_prefix}{}", ctx.restored_checkpoint() + 1)).await?;
        Ok(TxnLogWriter {
            client,
            topic: self.topic.clone(),
            id_prefix,
            partition: ctx.subtask() as u32 % partitions,
            partitions,
            partitioner: None,
            txn,
            number: ctx.restored_checkpoint() + 1,
            proven: false,
            sequence: 0,
            buffer: Vec::new(),
            parallelism: ctx.parallelism(),
        })
    }
}

impl Sink for TxnLogSink {
    type Committable = TxnHandle;
    type WriterState = TxnWriterState;
    type Writer = TxnLogWriter;
    type Committer = TxnLogCommitter;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;

    /// Read-committed consumers read a partition by offset, and a split always goes to the
    /// same subtask and so to the same partition.
    fn keeps_split_order(&self) -> bool {
        true
    }

    async fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<TxnWriterState>,
    ) -> Result<TxnLogWriter, ConnectorError> {
        let lingering = Self::lingering(&ctx, &restored);
        self.open_writer(ctx, lingering).await
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

impl TxnLogSinkSetup {
    /// Sets up the same output log for a variant of the sink: the sink `wrap` makes of the
    /// reference's, named `name` in reports. What a variant's tests hand to a sink context
    /// instead of a setup of their own.
    pub fn variant<S, F>(self, name: &str, wrap: F) -> TxnLogSinkVariantSetup<F>
    where
        S: Sink,
        F: Fn(TxnLogSink) -> S + Send + Sync + 'static,
    {
        TxnLogSinkVariantSetup { setup: self, name: name.to_string(), wrap }
    }
}

/// Sets up a variant of the transactional log sink ([`TxnLogSinkSetup::variant`]).
#[derive(Clone, Debug)]
pub struct TxnLogSinkVariantSetup<F> {
    setup: TxnLogSinkSetup,
    name: String,
    wrap: F,
}

impl<S: Sink, F: Fn(TxnLogSink) -> S + Send + Sync + 'static> SinkSetup for TxnLogSinkVariantSetup<F> {
    type Sink = S;
    fn name(&self) -> String {
        self.name.clone()
    }
    fn build(&self, world: &mut World) -> S {
        (self.wrap)(self.setup.build(world))
    }
}
