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
//! - **Commits on poll** (source): the split reader commits the offsets of what it polled
//!   to the group as it polls, the way a plain consumer loop does, and nothing commits when
//!   a checkpoint completes. A restore from a checkpoint shows nothing: it reads the
//!   checkpoint's offsets, never the group's. A job that starts with no checkpoint to
//!   restore (a new job without state, a rescale before the first checkpoint completed)
//!   starts at the group's offsets and skips what was polled but never committed
//!   downstream. Caught by `no-loss` in "restart without state".

use crate::kafka::{
    commit_in_order, CommitBatch, KafkaCommitter, KafkaEnumerator, KafkaReader, KafkaSink, KafkaSinkSetup, KafkaSource,
    KafkaSourceSetup, KafkaSplitReader, KafkaWriter, Short, StagedBatch,
};
use crate::log_source::{LogEmitter, LogEnumState, LogSplit};
use connsim::api::{
    Boundedness, CommitOutcome, CommitRequest, Committer, CommitterContext, EnumeratorContext, FetchedBatch,
    FetcherMode, NoGlobalCommitter, ReaderContext, Sink, Source, SourceReaderBase, SplitReader, SplitsChange,
    WatermarkStrategy, WriterContext,
};
use connsim::run::{SinkSetup, SourceSetup, World};
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
    type Writer = KafkaWriter;
    type Committer = BuggyKafkaCommitter;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;

    fn keeps_split_order(&self) -> bool {
        true
    }
    async fn create_writer(&self, ctx: WriterContext, restored: Vec<()>) -> Result<KafkaWriter, ConnectorError> {
        self.sink.create_writer(ctx, restored).await
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

/// The Kafka source whose split reader commits what it polls.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PollCommittingKafkaSource(pub KafkaSource);

/// The reference split reader, and a consumer that commits the group's offsets after every
/// fetch.
pub struct PollCommitting {
    inner: KafkaSplitReader,
    committer: Option<Arc<BaseConsumer>>,
}

impl SplitReader for PollCommitting {
    type Split = LogSplit;
    type Element = (u64, Record);

    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        let batch = self.inner.fetch().await?;
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
        self.inner.handle_splits_changes(change)
    }

    async fn close(&mut self) {
        self.inner.close().await
    }
}

impl Source for PollCommittingKafkaSource {
    type Split = LogSplit;
    type EnumState = LogEnumState;
    type Enumerator = KafkaEnumerator;
    type Reader = KafkaReader<PollCommitting>;

    fn boundedness(&self) -> Boundedness {
        self.0.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<LogSplit>) -> KafkaEnumerator {
        self.0.create_enumerator(ctx)
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> KafkaEnumerator {
        self.0.restore_enumerator(ctx, state)
    }
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        self.0.watermark_strategy()
    }
    fn create_reader(&self, ctx: ReaderContext) -> KafkaReader<PollCommitting> {
        let source = self.0.clone();
        let make = move || PollCommitting {
            inner: KafkaSplitReader::new(&source),
            committer: source.consumer_config().create::<BaseConsumer>().ok().map(Arc::new),
        };
        let base = SourceReaderBase::new(ctx, make, LogEmitter::new(self.0.watermarks), FetcherMode::Single);
        // Nothing commits when a checkpoint completes.
        KafkaReader::new(base, &KafkaSource { group_id: None, ..self.0.clone() })
    }
}

/// Sets the poll-committing source up as the reference's setup does.
#[derive(Clone, Debug)]
pub struct PollCommittingSetup(pub KafkaSourceSetup);

impl SourceSetup for PollCommittingSetup {
    type Source = PollCommittingKafkaSource;
    fn name(&self) -> String {
        format!("{}(commits on poll)", self.0.name())
    }
    fn build(&self, world: &mut World) -> PollCommittingKafkaSource {
        PollCommittingKafkaSource(self.0.build(world))
    }
}

/// The Kafka source committing offsets on poll, over `data`.
pub fn commits_on_poll(data: crate::LogSourceSetup) -> PollCommittingSetup {
    PollCommittingSetup(KafkaSourceSetup::new(data))
}
