//! Mutants of the Kafka connectors, each a misuse of rdkafka's API that shipped in real
//! connectors' shape.
//!
//! - **Reads uncommitted** (source): `isolation.level=read_uncommitted` (librdkafka's
//!   default is `read_committed`, Java's is `read_uncommitted`: a port of a Java consumer's
//!   properties brings it along). The reader returns the messages of aborted and open
//!   transactions. Caught by `no-phantoms`: the test data has an aborted upstream
//!   transaction at the head of every partition.
//! - **Fenced as committed** (sink): a commit that fails with `ProducerFenced` is taken for
//!   "someone else committed it" (Flink's committer, by contrast, gives such a commit up and
//!   says data may be lost). A commit is fenced when an older attempt's `init_transactions`
//!   for the same batch arrives late, after this attempt's own: the older attempt crashed
//!   with the request in flight, and the fencing aborted this attempt's transaction. The
//!   batch is then lost. Caught by `no-loss` in "slow requests outlive a crashed writer".

use crate::kafka::{
    commit_in_order, CommitBatch, KafkaCommitter, KafkaSink, KafkaSinkSetup, KafkaSourceSetup, KafkaWriter, Short,
    StagedBatch,
};
use connsim::api::{CommitOutcome, CommitRequest, Committer, CommitterContext, NoGlobalCommitter, Sink, WriterContext};
use connsim::run::{SinkSetup, World};
use connsim::ConnectorError;
use rdkafka::error::RDKafkaErrorCode;

/// The Kafka source reading uncommitted data, over `data`.
pub fn reads_uncommitted(data: crate::LogSourceSetup) -> KafkaSourceSetup {
    KafkaSourceSetup { isolation_level: "read_uncommitted", ..KafkaSourceSetup::new(data) }
}

/// Which bug the sink has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum KafkaSinkBug {
    /// Takes `ProducerFenced` for "committed".
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
                Err(Short { code: Some(RDKafkaErrorCode::ProducerFenced), .. }) => Ok(CommitOutcome::AlreadyCommitted),
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
