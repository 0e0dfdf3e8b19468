//! The exactly-once Kafka sink, a write-ahead sink on rdkafka's transactional API.
//!
//! A writer stages its records until the barrier; the checkpoint's committable carries them
//! ([`StagedBatch`]). When the checkpoint completes, the committer writes a batch in one
//! transaction of a pooled transactional id, `<prefix>-<job>-<writer subtask>-<slot>` with
//! slot `checkpoint mod` [`TRANSACTIONAL_ID_POOL`] (a new job numbers its checkpoints again),
//! so a writer leaves a bounded number of ids on the broker, which keeps each for seven days,
//! as Flink's newer Kafka sink pools them. `init_transactions` fences every older producer of
//! the id (a zombie committer, or an attempt that crashed mid-commit, whose open transaction
//! it aborts): every attempt at a batch uses its slot, and a writer's batches commit in
//! checkpoint order, so an id is reused only after the batch that had it last is done. The
//! group `<prefix>-<job>-<writer subtask>` holds the last
//! checkpoint committed as its offset of the output topic's partition 0 (a marker, not a
//! position), written with `send_offsets_to_transaction` in the
//! same transaction, so a batch whose marker is already there (read after the fencing, when
//! no older producer can commit any more) was committed before and is not written again. A
//! writer's batches go to partition `subtask mod partitions`, in checkpoint order.

use super::client_config;
use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext,
};
use connsim::history::CheckpointId;
#[cfg(madsim)]
use connsim::run::{SinkSetup, World};
use connsim::systems::{LogEntry, RecordLogFormat};
#[cfg(madsim)]
use connsim::systems::{PartitionedLog, Setting, TxnProtocol};
use connsim::{ConnectorError, Record};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::{Offset, TopicPartitionList};
use serde::{Deserialize, Serialize};
#[cfg(madsim)]
use std::sync::Arc;
use std::time::Duration;

/// How long one transactional call may take before the commit is retried later.
const CALL_TIMEOUT: Duration = Duration::from_millis(300);

/// Transactional ids per writer subtask and job: batch `c` commits in slot `c mod` this.
pub const TRANSACTIONAL_ID_POOL: u64 = 4;

/// A writer's records of one checkpoint, to be written in one transaction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StagedBatch {
    /// The job that staged it: a new job numbers its checkpoints again.
    pub job: String,
    /// The writer subtask that staged it: its transactional id, marker group and partition.
    pub origin: usize,
    /// The checkpoint it belongs to: its transactional id and its marker.
    pub checkpoint: CheckpointId,
    /// The records as the log holds them, in order.
    pub entries: Vec<LogEntry>,
}

/// The Kafka sink.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KafkaSink {
    /// `bootstrap.servers`.
    pub bootstrap: String,
    /// Output topic.
    pub topic: String,
    /// Transactional-id prefix (and marker groups' prefix).
    pub prefix: String,
    /// `transaction.timeout.ms` of the committer's producers: a transaction of a committer
    /// that crashed mid-commit and is never retried is aborted by the broker after it.
    pub transaction_timeout_ms: u64,
}

/// Stages records until the barrier.
pub struct KafkaWriter {
    job: String,
    subtask: usize,
    staged: Vec<LogEntry>,
}

impl KafkaWriter {
    /// Stages one serialized record for the next checkpoint's transaction.
    pub fn stage(&mut self, entry: LogEntry) {
        self.staged.push(entry);
    }
}

impl SinkWriter for KafkaWriter {
    type Committable = StagedBatch;
    type State = ();

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.stage(RecordLogFormat::encode(&record));
        Ok(())
    }

    /// Staged records are written by the committer: nothing to flush.
    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        Ok(())
    }

    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<StagedBatch>, ConnectorError> {
        if self.staged.is_empty() {
            return Ok(Vec::new());
        }
        let entries = std::mem::take(&mut self.staged);
        Ok(vec![StagedBatch { job: self.job.clone(), origin: self.subtask, checkpoint, entries }])
    }
}

/// Writes staged batches in transactions.
pub struct KafkaCommitter {
    sink: KafkaSink,
    partitions: Option<u32>,
}

/// Why a commit attempt stopped short of committing: retried later.
#[derive(Debug)]
pub struct Short {
    /// What happened.
    pub why: String,
    /// The client's error code, if it was a client error.
    pub code: Option<rdkafka::error::RDKafkaErrorCode>,
}

fn short(e: rdkafka::error::KafkaError) -> Short {
    Short { code: e.rdkafka_error_code(), why: e.to_string() }
}

/// One attempt at committing a batch: its producer (the batch's transactional id) and the
/// consumer that reads its writer's marker.
pub struct Attempt {
    producer: FutureProducer,
    consumer: BaseConsumer,
}

impl KafkaCommitter {
    /// The committer of `sink`.
    pub fn new(sink: KafkaSink) -> Self {
        Self { sink, partitions: None }
    }

    /// The marker group of `batch`'s writer in its job.
    pub fn group(&self, batch: &StagedBatch) -> String {
        format!("{}-{}-{}", self.sink.prefix, batch.job, batch.origin)
    }

    /// The partition count of the output topic.
    async fn partitions(&mut self, consumer: &BaseConsumer) -> Result<u32, Short> {
        if let Some(n) = self.partitions {
            return Ok(n);
        }
        let metadata = consumer.fetch_metadata(Some(&self.sink.topic), CALL_TIMEOUT).await.map_err(short)?;
        let n = metadata.topics().first().map_or(0, |t| t.partitions().len());
        if n == 0 {
            return Err(Short { why: format!("topic {} has no partitions", self.sink.topic), code: None });
        }
        self.partitions = Some(n as u32);
        Ok(n as u32)
    }

    /// Commits one batch: fence, check the marker, write and commit with the marker.
    pub async fn commit_batch(&mut self, batch: &StagedBatch) -> Result<CommitOutcome, Short> {
        let attempt = self.open(batch)?;
        self.commit_on(&attempt, batch).await
    }

    /// Commits one batch with `attempt`'s clients.
    pub async fn commit_on(&mut self, attempt: &Attempt, batch: &StagedBatch) -> Result<CommitOutcome, Short> {
        // Fence first: from here on no older producer of the id can commit, so the marker
        // read next is final for every earlier attempt.
        self.fence(attempt).await?;
        if self.marked(attempt, batch).await? {
            return Ok(CommitOutcome::AlreadyCommitted);
        }
        self.write(attempt, batch).await?;
        Ok(CommitOutcome::Committed)
    }

    /// The transactional id of `batch`: its writer's pooled slot.
    pub fn transactional_id(&self, batch: &StagedBatch) -> String {
        format!("{}-{}", self.group(batch), batch.checkpoint % TRANSACTIONAL_ID_POOL)
    }

    /// The clients of an attempt at `batch`, its producer on transactional id `id`.
    pub fn open_as(&self, batch: &StagedBatch, id: &str) -> Result<Attempt, Short> {
        self.open_configured(batch, id, &[])
    }

    /// The clients of an attempt at `batch`, its producer on transactional id `id`, its
    /// marker consumer with `consumer`'s settings besides its group's.
    pub fn open_configured(&self, batch: &StagedBatch, id: &str, consumer: &[(&str, &str)]) -> Result<Attempt, Short> {
        let group = self.group(batch);
        let timeout = self.sink.transaction_timeout_ms.to_string();
        let config =
            client_config(&self.sink.bootstrap, &[("transactional.id", id), ("transaction.timeout.ms", &timeout)]);
        let producer = config.create().map_err(short)?;
        let mut settings = vec![("group.id", group.as_str()), ("enable.auto.commit", "false")];
        settings.extend_from_slice(consumer);
        let consumer = client_config(&self.sink.bootstrap, &settings).create().map_err(short)?;
        Ok(Attempt { producer, consumer })
    }

    /// The clients of an attempt at `batch`, on its pooled transactional id.
    pub fn open(&self, batch: &StagedBatch) -> Result<Attempt, Short> {
        self.open_as(batch, &self.transactional_id(batch))
    }

    /// `init_transactions`: fences every older producer of the id, aborting its transaction.
    pub async fn fence(&self, attempt: &Attempt) -> Result<(), Short> {
        attempt.producer.init_transactions(CALL_TIMEOUT).await.map_err(short)
    }

    /// Whether the writer's marker says the batch was committed.
    pub async fn marked(&self, attempt: &Attempt, batch: &StagedBatch) -> Result<bool, Short> {
        let mut marker = TopicPartitionList::new();
        marker.add_partition(&self.sink.topic, 0);
        let committed = attempt.consumer.committed_offsets(marker, CALL_TIMEOUT).await.map_err(short)?;
        let done = committed.find_partition(&self.sink.topic, 0).map(|e| e.offset());
        Ok(matches!(done, Some(Offset::Offset(done)) if done as u64 >= batch.checkpoint))
    }

    /// Writes the batch in a transaction with its marker and commits it; aborts on failure.
    pub async fn write(&mut self, attempt: &Attempt, batch: &StagedBatch) -> Result<(), Short> {
        let partition = (batch.origin as u32 % self.partitions(&attempt.consumer).await?) as i32;
        let producer = &attempt.producer;
        producer.begin_transaction().map_err(short)?;
        let mut deliveries = Vec::with_capacity(batch.entries.len());
        for e in &batch.entries {
            let mut record =
                FutureRecord::<[u8], [u8]>::to(&self.sink.topic).partition(partition).timestamp(e.timestamp_ms);
            if let Some(k) = &e.key {
                record = record.key(k);
            }
            if let Some(v) = &e.value {
                record = record.payload(v);
            }
            if !e.headers.is_empty() {
                let headers = e
                    .headers
                    .iter()
                    .fold(OwnedHeaders::new(), |h, x| h.insert(Header { key: &x.key, value: x.value.as_deref() }));
                record = record.headers(headers);
            }
            deliveries.push(producer.send_result(record).map_err(|(e, _)| short(e))?);
        }
        let mut offsets = TopicPartitionList::new();
        let _ = offsets.add_partition_offset(&self.sink.topic, 0, Offset::Offset(batch.checkpoint as i64));
        let cgm = attempt.consumer.group_metadata().expect("the consumer has a group");
        let written = async {
            for d in deliveries {
                match d.await {
                    Ok(Ok(_)) => {}
                    Ok(Err((e, _))) => return Err(short(e)),
                    Err(_) => return Err(Short { why: "the producer went away".into(), code: None }),
                }
            }
            producer.send_offsets_to_transaction(&offsets, &cgm, CALL_TIMEOUT).await.map_err(short)?;
            producer.commit_transaction(CALL_TIMEOUT).await.map_err(short)
        };
        let result = written.await;
        if result.is_err() {
            // Best effort: a later attempt fences the id and aborts it anyway.
            let _ = producer.abort_transaction(CALL_TIMEOUT).await;
        }
        result
    }
}

/// What commits one batch: the reference committer, or a variant of it.
#[allow(async_fn_in_trait)]
pub trait CommitBatch {
    /// Commits `batch`, or says why not yet.
    async fn commit_batch(&mut self, batch: &StagedBatch) -> Result<CommitOutcome, Short>;
}

impl CommitBatch for KafkaCommitter {
    async fn commit_batch(&mut self, batch: &StagedBatch) -> Result<CommitOutcome, Short> {
        KafkaCommitter::commit_batch(self, batch).await
    }
}

/// Commits `requests` with `committer`, each writer's batches in checkpoint order: a marker
/// then speaks for every earlier batch of the writer, so a writer's later batches wait while
/// an earlier one must be retried.
pub async fn commit_in_order<C: CommitBatch>(
    committer: &mut C,
    mut requests: Vec<CommitRequest<StagedBatch>>,
) -> Vec<CommitOutcome> {
    let mut order: Vec<usize> = (0..requests.len()).collect();
    order.sort_by_key(|&i| {
        let c = &requests[i].committable;
        (c.job.clone(), c.origin, c.checkpoint)
    });
    let mut outcomes = vec![CommitOutcome::RetryLater; requests.len()];
    let mut stuck = std::collections::BTreeSet::new();
    for i in order {
        let empty = StagedBatch { job: String::new(), origin: 0, checkpoint: 0, entries: Vec::new() };
        let batch = std::mem::replace(&mut requests[i].committable, empty);
        let writer = (batch.job.clone(), batch.origin);
        if stuck.contains(&writer) {
            continue;
        }
        outcomes[i] = match committer.commit_batch(&batch).await {
            Ok(outcome) => outcome,
            Err(_) => {
                stuck.insert(writer);
                CommitOutcome::RetryLater
            }
        };
    }
    outcomes
}

impl Committer for KafkaCommitter {
    type Committable = StagedBatch;
    async fn commit(&mut self, requests: Vec<CommitRequest<StagedBatch>>) -> Vec<CommitOutcome> {
        commit_in_order(self, requests).await
    }
}

impl Sink for KafkaSink {
    type Committable = StagedBatch;
    type WriterState = ();
    type Writer = KafkaWriter;
    type Committer = KafkaCommitter;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;

    /// A writer's batches go to one partition, in checkpoint order.
    fn keeps_split_order(&self) -> bool {
        true
    }

    async fn create_writer(&self, ctx: WriterContext, _restored: Vec<()>) -> Result<KafkaWriter, ConnectorError> {
        Ok(KafkaWriter { job: ctx.job_id().to_string(), subtask: ctx.subtask(), staged: Vec::new() })
    }

    fn create_committer(&self, _ctx: CommitterContext) -> KafkaCommitter {
        KafkaCommitter::new(self.clone())
    }
}

/// Sets up a log `sink-kafka` with topic `output`, read committed as the visible output, its
/// Kafka face following `protocol`.
#[cfg(madsim)]
#[derive(Clone, Debug)]
pub struct KafkaSinkSetup {
    /// Partitions of `output`.
    pub partitions: u32,
    /// The broker's transaction protocol.
    pub protocol: TxnProtocol,
}

#[cfg(madsim)]
impl SinkSetup for KafkaSinkSetup {
    type Sink = KafkaSink;
    fn name(&self) -> String {
        match self.protocol {
            TxnProtocol::Classic => "kafka-sink".into(),
            TxnProtocol::Kip890 => "kafka-sink(KIP-890)".into(),
            TxnProtocol::ClassicUnverified => "kafka-sink(classic, unverified)".into(),
        }
    }
    fn build(&self, world: &mut World) -> KafkaSink {
        let log = PartitionedLog::new("sink-kafka", world.history().clone());
        log.create_topic("output", self.partitions);
        let env = connsim::systems::SettingEnv { seed: 0, history: world.history().clone() };
        connsim::systems::ExternalSystem::configure(&log, &Setting::TransactionProtocol(self.protocol), &env)
            .expect("the log has a transaction protocol");
        world.set_output(log.output("output"));
        // A pool of ids and the marker group per writer subtask and job.
        let bound = connsim::run::LeaveBehind::new("sink-kafka")
            .transactional_ids_per_writer(TRANSACTIONAL_ID_POOL)
            .groups_per_writer(1);
        world.declare_leave_behind(bound);
        world.add_system(Arc::new(log));
        KafkaSink {
            bootstrap: "sink-kafka:9092".into(),
            topic: "output".into(),
            prefix: "connsim-kafka".into(),
            transaction_timeout_ms: 1_000,
        }
    }
}
