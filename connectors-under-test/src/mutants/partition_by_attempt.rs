//! **Partition chosen by attempt**: the transactional log sink claims per-split order, but
//! each writer picks its partition from its subtask *and its attempt*, so after a restart a
//! subtask's records go to another partition.
//!
//! Story: a Kafka sink whose partition for the same records changes when the job restarts
//! breaks the order readers rely on (FLINK-35442, apache/flink-cdc PR #3522: "make sure the
//! same record is sent to the same partition after job restarted"; FLINK-8181, apache/flink
//! PR #5108: the fixed partitioner was not stable). A reader reading partition by partition
//! sees a split's later records before its earlier ones, but only when the moved subtask's
//! new partition comes before its old one: it takes a failover of the right subtask.
//!
//! Caught by: `per-split-order`.

use crate::txn_log_sink::{TxnLogCommitter, TxnLogSink, TxnLogSinkSetup, TxnLogWriter, TxnWriterState};
use connsim::api::{CommitterContext, NoGlobalCommitter, Sink, WriterContext};
use connsim::run::{SinkSetup, World};
use connsim::systems::TxnHandle;
use connsim::ConnectorError;

/// The transactional log sink, with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PartitionByAttemptSink {
    inner: TxnLogSink,
    partitions: u32,
}

impl Sink for PartitionByAttemptSink {
    type Committable = TxnHandle;
    type WriterState = TxnWriterState;
    type Writer = TxnLogWriter;
    type Committer = TxnLogCommitter;
    type GlobalCommitter = NoGlobalCommitter<TxnHandle>;
    fn keeps_split_order(&self) -> bool {
        true
    }
    async fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<TxnWriterState>,
    ) -> Result<TxnLogWriter, ConnectorError> {
        let shifted = (ctx.subtask() as u64 + ctx.attempt()) % u64::from(self.partitions); // the bug
        let mut writer = self.inner.create_writer(ctx, restored).await?;
        writer.partition = shifted as u32;
        Ok(writer)
    }
    fn create_committer(&self, ctx: CommitterContext) -> TxnLogCommitter {
        self.inner.create_committer(ctx)
    }
}

/// Sets up the buggy sink like [`TxnLogSinkSetup`] with four partitions.
#[derive(Clone, Debug, Default)]
pub struct PartitionByAttemptSetup;

impl SinkSetup for PartitionByAttemptSetup {
    type Sink = PartitionByAttemptSink;
    fn name(&self) -> String {
        "mutant:partition-by-attempt(txn-log-sink)".into()
    }
    fn build(&self, world: &mut World) -> PartitionByAttemptSink {
        PartitionByAttemptSink { inner: TxnLogSinkSetup { partitions: 4 }.build(world), partitions: 4 }
    }
}
