//! Mutants of the Kafka connectors, each a misuse of rdkafka's API that shipped in real
//! connectors' shape.
//!
//! - **Reads uncommitted** (source): `isolation.level=read_uncommitted` (librdkafka's
//!   default is `read_committed`, Java's is `read_uncommitted`: a port of a Java consumer's
//!   properties brings it along). The reader returns the messages of aborted and open
//!   transactions. Caught by `no-phantoms`: the test data has an aborted upstream
//!   transaction at the head of every partition.
//! - **Fenced as committed** (sink): a commit that fails fenced (`Fenced`, librdkafka's one code for it) is taken for
//!   "someone else committed it" (Flink's committer, by contrast, gives such a commit up and
//!   says data may be lost). A commit is fenced when an older attempt's `init_transactions`
//!   for the same batch arrives late, after this attempt's own: the older attempt crashed
//!   with the request in flight, and the fencing aborted this attempt's transaction. The
//!   batch is then lost. Caught by `no-loss` in "slow requests outlive a crashed writer".
//! - **Reads before it fences** (sink): the committer reads its progress marker (the
//!   group's committed offset) and only then calls `init_transactions`, the order a sink
//!   that "checks what is done, then starts" falls into (Materialize #9249), and its marker
//!   consumer carries a Java consumer's properties (`isolation.level=read_uncommitted`,
//!   Java's default). An older attempt at the same batch, whose commit call timed out with
//!   its `EndTxn` still on its way, can commit between the read and the fence: the marker
//!   read said "not done", and the batch is written a second time. Either half alone is
//!   safe: after the fence no older attempt commits, and a `read_committed` consumer's
//!   offset fetch asks for stable offsets (KIP-447), which the broker refuses
//!   (`UNSTABLE_OFFSET_COMMIT`, retried) while the older transaction holds a pending marker.
//!   Caught by `no-duplicates` in "an old commit lands between a new attempt's read and its
//!   fence"; without the held commits it passes.
//! - **Drops headers** (sink): the serializer builds the producer record from the key, the
//!   value and the timestamp, and never copies the headers (a serializer written against
//!   the record API before headers existed, KIP-82, and never revisited). Every header a
//!   record had is gone from the output; a downstream consumer that routes or traces by
//!   header sees none. Caught by `no-corruption` naming the headers, on the suites' real
//!   data (a fifth of its records have headers); plain data has none, and it passes.
//! - **Null key as text** (sink): the serializer renders the key through a string
//!   formatter, so a null key becomes the bytes `<null>` (Java's `String.valueOf(null)`
//!   shape), and every null-keyed record lands with a key no producer wrote (compaction
//!   then keeps one of them under that key). Caught by `no-corruption` naming the key, on
//!   real data; plain data has no null keys, and it passes.
//! - **Skips tombstones** (source): the deserializer makes nothing of a record whose value
//!   is null, and the reader emits nothing for it (Flink's `DeserializationSchema` contract:
//!   null means "skip"), so every tombstone of the input is lost. Caught by `no-loss` on the
//!   suites' real data (a record in eleven is a tombstone); plain data has none, and it
//!   passes.
//! - **Commits on poll** (source): the split reader commits the offsets of what it polled
//!   to the group as it polls, the way a plain consumer loop does, and nothing commits when
//!   a checkpoint completes. A restore from a checkpoint shows nothing: it reads the
//!   checkpoint's offsets, never the group's. A job that starts with no checkpoint to
//!   restore (a new job without state, a rescale before the first checkpoint completed)
//!   starts at the group's offsets and skips what was polled but never committed
//!   downstream. Caught by `no-loss` in "restart without state".
//! - **Ignores committed offsets** (source): the enumerator starts every partition it
//!   discovers at the configured start, the earliest, and never looks the group's committed
//!   offsets up (an `OffsetsInitializer.earliest()` where `committedOffsets()` was meant, or
//!   a consumer `assign`ed explicit offsets that override the group's). Restores read the
//!   checkpoint's offsets, so only a new job without state shows it: it reads again what
//!   the last job's checkpoints covered and its sink committed, and the output holds all of
//!   it twice. Caught by `no-duplicates` in "restart without state": the source declared
//!   that a new job starts from the group's offsets, and the run recorded them.

use super::stops_at_last_offset::LastOffsetStop;
use crate::kafka::{
    commit_in_order, CommitBatch, KafkaCommitter, KafkaEnumerator, KafkaReader, KafkaSink, KafkaSinkSetup, KafkaSource,
    KafkaSourceSetup, KafkaSplitReader, KafkaWriter, Short, StagedBatch,
};
use crate::log_source::{LogEmitter, LogEnumState, LogSplit};
use connsim::api::{
    Boundedness, CommitOutcome, CommitRequest, Committer, CommitterContext, EnumeratorContext, FetchedBatch,
    FetcherMode, NoGlobalCommitter, ReaderContext, Sink, SinkWriter, Source, SourceReaderBase, SplitReader,
    SplitsChange, WatermarkStrategy, WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, SourceSetup, World};
use connsim::systems::RecordLogFormat;
use connsim::{ConnectorError, Record};
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::{Offset, TopicPartitionList};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The Kafka source reading uncommitted data, over `data`.
pub fn reads_uncommitted(data: crate::LogSourceSetup) -> KafkaSourceSetup {
    KafkaSourceSetup { isolation_level: "read_uncommitted", ..KafkaSourceSetup::new(data) }
}

/// Which bug the sink has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum KafkaSinkBug {
    /// Takes `Fenced` for "committed".
    FencedAsCommitted,
    /// Its serializer drops every header.
    DropsHeaders,
    /// Its serializer writes a null key as the text `<null>`.
    NullKeyAsText,
    /// Its committer names a transaction `<prefix>-<job>-<writer>-<checkpoint>`: a new
    /// transactional id every checkpoint, each kept by the broker for seven days
    /// (`transactional.id.expiration.ms`) and its producer state with it, until the broker
    /// runs out of memory (FLINK-34554).
    IdPerCheckpoint,
    /// Its committer reads its marker before `init_transactions` fences the older attempts,
    /// with a consumer that does not wait for stable offsets (`read_uncommitted`).
    ReadsBeforeFence,
}

/// The reference writer behind a serializer with the sink's bug.
pub struct BuggyKafkaWriter {
    inner: KafkaWriter,
    bug: KafkaSinkBug,
}

impl SinkWriter for BuggyKafkaWriter {
    type Committable = StagedBatch;
    type State = ();

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        let mut entry = RecordLogFormat::encode(&record);
        match self.bug {
            KafkaSinkBug::FencedAsCommitted | KafkaSinkBug::IdPerCheckpoint | KafkaSinkBug::ReadsBeforeFence => {}
            // The bug: the producer record is built without the record's headers.
            KafkaSinkBug::DropsHeaders => entry.headers.clear(),
            // The bug: the key goes through a string formatter, null and all.
            KafkaSinkBug::NullKeyAsText => {
                entry.key.get_or_insert_with(|| b"<null>".to_vec());
            }
        }
        self.inner.stage(entry);
        Ok(())
    }
    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        self.inner.flush(end_of_input).await
    }
    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<StagedBatch>, ConnectorError> {
        self.inner.prepare_commit(checkpoint).await
    }
}

/// The Kafka sink with a buggy committer.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BuggyKafkaSink {
    sink: KafkaSink,
    bug: KafkaSinkBug,
}

/// Its committer.
pub struct BuggyKafkaCommitter {
    inner: KafkaCommitter,
    bug: KafkaSinkBug,
}

impl CommitBatch for BuggyKafkaCommitter {
    async fn commit_batch(&mut self, batch: &StagedBatch) -> Result<CommitOutcome, Short> {
        match self.bug {
            KafkaSinkBug::FencedAsCommitted => match self.inner.commit_batch(batch).await {
                // The bug: fenced is not committed.
                Err(Short { code: Some(RDKafkaErrorCode::Fenced), .. }) => Ok(CommitOutcome::AlreadyCommitted),
                other => other,
            },
            KafkaSinkBug::DropsHeaders | KafkaSinkBug::NullKeyAsText => self.inner.commit_batch(batch).await,
            KafkaSinkBug::IdPerCheckpoint => {
                // The bug: a fresh transactional id for every checkpoint, never reused.
                let id = format!("{}-{}", self.inner.group(batch), batch.checkpoint);
                let attempt = self.inner.open_as(batch, &id)?;
                self.inner.commit_on(&attempt, batch).await
            }
            KafkaSinkBug::ReadsBeforeFence => {
                // The bug: the marker is read while an older attempt may still commit, by a
                // consumer with a Java consumer's isolation (whose committed offsets do not
                // wait for a pending transactional offset commit, KIP-447).
                let id = self.inner.transactional_id(batch);
                let attempt = self.inner.open_configured(batch, &id, &[("isolation.level", "read_uncommitted")])?;
                if self.inner.marked(&attempt, batch).await? {
                    return Ok(CommitOutcome::AlreadyCommitted);
                }
                self.inner.fence(&attempt).await?;
                self.inner.write(&attempt, batch).await?;
                Ok(CommitOutcome::Committed)
            }
        }
    }
}

impl Committer for BuggyKafkaCommitter {
    type Committable = StagedBatch;
    async fn commit(&mut self, requests: Vec<CommitRequest<StagedBatch>>) -> Vec<CommitOutcome> {
        commit_in_order(self, requests).await
    }
}

impl Sink for BuggyKafkaSink {
    type Committable = StagedBatch;
    type WriterState = ();
    type Writer = BuggyKafkaWriter;
    type Committer = BuggyKafkaCommitter;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;

    fn keeps_split_order(&self) -> bool {
        true
    }
    async fn create_writer(&self, ctx: WriterContext, restored: Vec<()>) -> Result<BuggyKafkaWriter, ConnectorError> {
        Ok(BuggyKafkaWriter { inner: self.sink.create_writer(ctx, restored).await?, bug: self.bug })
    }
    fn create_committer(&self, _ctx: CommitterContext) -> BuggyKafkaCommitter {
        BuggyKafkaCommitter { inner: KafkaCommitter::new(self.sink.clone()), bug: self.bug }
    }
}

/// Sets the buggy sink up as the reference's setup does.
#[derive(Clone, Debug)]
pub struct BuggyKafkaSinkSetup(pub KafkaSinkSetup, pub KafkaSinkBug);

impl SinkSetup for BuggyKafkaSinkSetup {
    type Sink = BuggyKafkaSink;
    fn name(&self) -> String {
        format!("{}: {:?}", self.0.name(), self.1)
    }
    fn build(&self, world: &mut World) -> BuggyKafkaSink {
        BuggyKafkaSink { sink: self.0.build(world), bug: self.1 }
    }
}

/// Which bug the source's split reader has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum KafkaSourceBug {
    /// Commits the group's offsets of what it polled, as it polls.
    CommitsOnPoll,
    /// Its deserializer makes nothing of a null value, and nothing is emitted.
    SkipsTombstones,
    /// Its enumerator starts every partition a job without state discovers at the declared
    /// start (the earliest), never at the group's committed offsets.
    IgnoresCommittedOffsets,
    /// A bounded split finishes when the record at its stopping offset − 1 was delivered
    /// ([`super::stops_at_last_offset`]).
    StopsAtLastOffset,
}

/// The Kafka source with a buggy split reader.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BuggyKafkaSource(pub KafkaSource, pub KafkaSourceBug);

/// The reference split reader with the bug: for [`KafkaSourceBug::CommitsOnPoll`], a
/// consumer that commits the group's offsets after every fetch.
pub struct BuggyKafkaSplitReader {
    inner: KafkaSplitReader,
    bug: KafkaSourceBug,
    committer: Option<Arc<BaseConsumer>>,
    last_offsets: LastOffsetStop,
}

impl SplitReader for BuggyKafkaSplitReader {
    type Split = LogSplit;
    type Element = (u64, Record);

    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        let mut batch = self.inner.fetch().await?;
        if self.bug == KafkaSourceBug::StopsAtLastOffset {
            self.last_offsets.apply(&mut batch);
            return Ok(batch);
        }
        if self.bug == KafkaSourceBug::SkipsTombstones {
            // The bug: a deserializer that returns nothing for a null value (Flink's
            // DeserializationSchema: null means "skip this record").
            batch.elements.retain(|(_, (_, record))| !record.extras().null_value);
            return Ok(batch);
        }
        // The bug: what was polled is committed now, before a checkpoint covers it.
        let mut next: BTreeMap<(String, i32), i64> = BTreeMap::new();
        for (id, (offset, _)) in &batch.elements {
            let Some((topic, partition)) = id.rsplit_once('-') else { continue };
            let Ok(partition) = partition.parse::<i32>() else { continue };
            let at = next.entry((topic.to_string(), partition)).or_default();
            *at = (*at).max(*offset as i64 + 1);
        }
        if let (Some(consumer), false) = (self.committer.clone(), next.is_empty()) {
            let mut tpl = TopicPartitionList::new();
            for ((topic, partition), offset) in next {
                let _ = tpl.add_partition_offset(&topic, partition, Offset::Offset(offset));
            }
            madsim::task::spawn(async move {
                let _ = consumer.commit(&tpl, CommitMode::Async).await;
            });
        }
        Ok(batch)
    }

    fn handle_splits_changes(&mut self, change: SplitsChange<LogSplit>) {
        if let SplitsChange::Add(splits) = &change {
            splits.iter().for_each(|s| self.last_offsets.added(s));
        }
        self.inner.handle_splits_changes(change)
    }

    async fn close(&mut self) {
        self.inner.close().await
    }
}

impl Source for BuggyKafkaSource {
    type Split = LogSplit;
    type EnumState = LogEnumState;
    type Enumerator = KafkaEnumerator;
    type Reader = KafkaReader<BuggyKafkaSplitReader>;

    fn boundedness(&self) -> Boundedness {
        self.0.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<LogSplit>) -> KafkaEnumerator {
        self.enumerated().create_enumerator(ctx)
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> KafkaEnumerator {
        self.enumerated().restore_enumerator(ctx, state)
    }
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        self.0.watermark_strategy()
    }
    fn create_reader(&self, ctx: ReaderContext) -> KafkaReader<BuggyKafkaSplitReader> {
        let (source, bug) = (self.0.clone(), self.1);
        let make = move || BuggyKafkaSplitReader {
            inner: KafkaSplitReader::new(&source),
            bug,
            committer: (bug == KafkaSourceBug::CommitsOnPoll)
                .then(|| source.consumer_config().create::<BaseConsumer>().ok().map(Arc::new))
                .flatten(),
            last_offsets: LastOffsetStop::default(),
        };
        let base = SourceReaderBase::new(ctx, make, LogEmitter::new(self.0.watermarks), FetcherMode::Single);
        match bug {
            // Nothing commits when a checkpoint completes.
            KafkaSourceBug::CommitsOnPoll => KafkaReader::new(base, &KafkaSource { group_id: None, ..self.0.clone() }),
            KafkaSourceBug::SkipsTombstones
            | KafkaSourceBug::IgnoresCommittedOffsets
            | KafkaSourceBug::StopsAtLastOffset => KafkaReader::new(base, &self.0),
        }
    }
}

impl BuggyKafkaSource {
    /// The source the enumerator discovers partitions for.
    fn enumerated(&self) -> KafkaSource {
        match self.1 {
            // The bug: the offsets initializer is the declared start alone (the committed
            // offsets the group holds are never looked up).
            KafkaSourceBug::IgnoresCommittedOffsets => KafkaSource { committed_start: false, ..self.0.clone() },
            _ => self.0.clone(),
        }
    }
}

/// Sets the buggy source up as the reference's setup does.
#[derive(Clone, Debug)]
pub struct BuggyKafkaSourceSetup(pub KafkaSourceSetup, pub KafkaSourceBug);

impl SourceSetup for BuggyKafkaSourceSetup {
    type Source = BuggyKafkaSource;
    fn name(&self) -> String {
        format!("{}({:?})", self.0.name(), self.1)
    }
    fn build(&self, world: &mut World) -> BuggyKafkaSource {
        BuggyKafkaSource(self.0.build(world), self.1)
    }
}

/// The Kafka source committing offsets on poll, over `data`.
pub fn commits_on_poll(data: crate::LogSourceSetup) -> BuggyKafkaSourceSetup {
    BuggyKafkaSourceSetup(KafkaSourceSetup::new(data), KafkaSourceBug::CommitsOnPoll)
}

/// The Kafka source skipping tombstones, over `data`.
pub fn skips_tombstones(data: crate::LogSourceSetup) -> BuggyKafkaSourceSetup {
    BuggyKafkaSourceSetup(KafkaSourceSetup::new(data), KafkaSourceBug::SkipsTombstones)
}

/// The Kafka source ignoring the group's committed offsets at start, over `data`.
pub fn ignores_committed_offsets(data: crate::LogSourceSetup) -> BuggyKafkaSourceSetup {
    BuggyKafkaSourceSetup(KafkaSourceSetup::new(data), KafkaSourceBug::IgnoresCommittedOffsets)
}

/// The Kafka source finishing a bounded split at its last delivered offset, over `data`.
pub fn stops_at_last_offset(data: crate::LogSourceSetup) -> BuggyKafkaSourceSetup {
    BuggyKafkaSourceSetup(KafkaSourceSetup::new(data), KafkaSourceBug::StopsAtLastOffset)
}
