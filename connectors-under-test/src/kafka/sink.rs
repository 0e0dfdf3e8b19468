//! The exactly-once Kafka sink, a write-ahead sink on rdkafka's transactional API.
//!
//! A writer stages its records until the barrier; the checkpoint's committable carries them
//! ([`StagedBatch`]). When the checkpoint completes, the committer writes a batch in one
//! transaction, `<prefix>-<job>-<writer subtask>-<checkpoint>` (a new job numbers its
//! checkpoints again): `init_transactions` fences every
//! older producer of the id (a zombie committer, or an attempt that crashed mid-commit, whose
//! open transaction it aborts); the group `<prefix>-<job>-<writer subtask>` holds the last
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
use connsim::run::{SinkSetup, World};
use connsim::systems::{LogEntry, PartitionedLog, RecordLogFormat, Setting, TxnProtocol};
use connsim::{ConnectorError, Record};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::{Offset, TopicPartitionList};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;

/// How long one transactional call may take before the commit is retried later.
const CALL_TIMEOUT: Duration = Duration::from_millis(300);

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

impl SinkWriter for KafkaWriter {
    type Committable = StagedBatch;
    type State = ();

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.staged.push(RecordLogFormat::encode(&record));
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

/// How a commit attempt ended short of committing.
enum Short {
    /// Try again later (a timeout, a fenced or aborted transaction).
    Retry(String),
}

impl KafkaCommitter {
    /// The committer of `sink`.
    pub fn new(sink: KafkaSink) -> Self {
        Self { sink, partitions: None }
    }

    fn group(&self, batch: &StagedBatch) -> String {
        format!("{}-{}-{}", self.sink.prefix, batch.job, batch.origin)
    }

    /// The partition count of the output topic.
    async fn partitions(&mut self, consumer: &BaseConsumer) -> Result<u32, Short> {
        if let Some(n) = self.partitions {
            return Ok(n);
        }
        let metadata = consumer.fetch_metadata(Some(&self.sink.topic), CALL_TIMEOUT).await;
        let n = metadata.map_err(|e| Short::Retry(e.to_string()))?.topics().first().map_or(0, |t| t.partitions().len());
        if n == 0 {
            return Err(Short::Retry(format!("topic {} has no partitions", self.sink.topic)));
        }
        self.partitions = Some(n as u32);
        Ok(n as u32)
    }

    /// Commits one batch: fence, check the marker, write, commit with the marker.
    pub async fn commit_batch(&mut self, batch: &StagedBatch) -> Result<CommitOutcome, String> {
        match self.try_commit(batch).await {
            Ok(outcome) => Ok(outcome),
            Err(Short::Retry(why)) => Err(why),
        }
    }

    async fn try_commit(&mut self, batch: &StagedBatch) -> Result<CommitOutcome, Short> {
        let retry = |e: rdkafka::error::KafkaError| Short::Retry(e.to_string());
        let group = self.group(batch);
        let id = format!("{group}-{}", batch.checkpoint);
        let timeout = self.sink.transaction_timeout_ms.to_string();
        let producer: FutureProducer =
            client_config(&self.sink.bootstrap, &[("transactional.id", &id), ("transaction.timeout.ms", &timeout)])
                .create()
                .map_err(retry)?;
        let consumer: BaseConsumer =
            client_config(&self.sink.bootstrap, &[("group.id", &group), ("enable.auto.commit", "false")])
                .create()
                .map_err(retry)?;
        // Fence first: from here on no older producer of the id can commit.
        producer.init_transactions(CALL_TIMEOUT).await.map_err(retry)?;
        let mut marker = TopicPartitionList::new();
        marker.add_partition(&self.sink.topic, 0);
        let committed = consumer.committed_offsets(marker, CALL_TIMEOUT).await.map_err(retry)?;
        if let Some(Offset::Offset(done)) = committed.find_partition(&self.sink.topic, 0).map(|e| e.offset()) {
            if done as u64 >= batch.checkpoint {
                return Ok(CommitOutcome::AlreadyCommitted);
            }
        }
        let partition = (batch.origin as u32 % self.partitions(&consumer).await?) as i32;
        producer.begin_transaction().map_err(retry)?;
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
            deliveries.push(producer.send_result(record).map_err(|(e, _)| retry(e))?);
        }
        let mut offsets = TopicPartitionList::new();
        let _ = offsets.add_partition_offset(&self.sink.topic, 0, Offset::Offset(batch.checkpoint as i64));
        let cgm = consumer.group_metadata().expect("the consumer has a group");
        let written = async {
            for d in deliveries {
                match d.await {
                    Ok(Ok(_)) => {}
                    Ok(Err((e, _))) => return Err(retry(e)),
                    Err(_) => return Err(Short::Retry("the producer went away".into())),
                }
            }
            producer.send_offsets_to_transaction(&offsets, &cgm, CALL_TIMEOUT).await.map_err(retry)?;
            producer.commit_transaction(CALL_TIMEOUT).await.map_err(retry)
        };
        match written.await {
            Ok(()) => Ok(CommitOutcome::Committed),
            Err(why) => {
                // Best effort: a later attempt fences the id and aborts it anyway.
                let _ = producer.abort_transaction(CALL_TIMEOUT).await;
                Err(why)
            }
        }
    }
}

impl Committer for KafkaCommitter {
    type Committable = StagedBatch;
    async fn commit(&mut self, mut requests: Vec<CommitRequest<StagedBatch>>) -> Vec<CommitOutcome> {
        // A writer's batches commit in checkpoint order: a marker then speaks for every
        // earlier batch of the writer.
        let mut order: Vec<usize> = (0..requests.len()).collect();
        order.sort_by_key(|&i| {
            let c = &requests[i].committable;
            (c.job.clone(), c.origin, c.checkpoint)
        });
        let mut outcomes = vec![CommitOutcome::RetryLater; requests.len()];
        let mut stuck = std::collections::BTreeSet::new();
        for i in order {
            let batch = std::mem::replace(
                &mut requests[i].committable,
                StagedBatch { job: String::new(), origin: 0, checkpoint: 0, entries: Vec::new() },
            );
            let writer = (batch.job.clone(), batch.origin);
            if stuck.contains(&writer) {
                continue;
            }
            outcomes[i] = match self.commit_batch(&batch).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    stuck.insert(writer);
                    CommitOutcome::RetryLater
                }
            };
        }
        outcomes
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
#[derive(Clone, Debug)]
pub struct KafkaSinkSetup {
    /// Partitions of `output`.
    pub partitions: u32,
    /// The broker's transaction protocol.
    pub protocol: TxnProtocol,
}

impl SinkSetup for KafkaSinkSetup {
    type Sink = KafkaSink;
    fn name(&self) -> String {
        match self.protocol {
            TxnProtocol::Classic => "kafka-sink".into(),
            TxnProtocol::Kip890 => "kafka-sink(KIP-890)".into(),
        }
    }
    fn build(&self, world: &mut World) -> KafkaSink {
        let log = PartitionedLog::new("sink-kafka", world.history().clone());
        log.create_topic("output", self.partitions);
        let env = connsim::systems::SettingEnv { seed: 0, history: world.history().clone() };
        connsim::systems::ExternalSystem::configure(&log, &Setting::TransactionProtocol(self.protocol), &env)
            .expect("the log has a transaction protocol");
        world.set_output(log.output("output"));
        world.add_system(Arc::new(log));
        KafkaSink {
            bootstrap: "sink-kafka:9092".into(),
            topic: "output".into(),
            prefix: "connsim-kafka".into(),
            transaction_timeout_ms: 1_000,
        }
    }
}
