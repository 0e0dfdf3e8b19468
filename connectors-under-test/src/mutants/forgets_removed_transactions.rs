//! **Lingering transactions of removed subtasks stay open**: on start, each writer of the
//! transactional log sink aborts only its own transactions newer than the restored
//! checkpoint, not those of subtasks a scale-down removed, nor older ones of a subtask that
//! did not take part in the restored checkpoint.
//!
//! Story: Flink's Kafka sink before FLINK-23854 (apache/flink PR #17019, "ensure lingering
//! Kafka transactions are aborted reliably": after downscaling, subtask i must clean up for
//! every removed subtask j with j % parallelism = i); the same hole in a later form is
//! FLINK-40626 (apache/flink-connector-kafka PR #314). An open transaction pins its
//! partition's last stable offset, so a read-committed consumer never sees anything written
//! behind it, although every checkpoint completed.
//!
//! Caught by: `no-loss`, once a job scales down and up again and a writer appends behind a
//! transaction its previous owner left open.

use crate::txn_log_sink::{TxnLogCommitter, TxnLogSink, TxnLogSinkSetup, TxnLogWriter, TxnWriterState};
use connsim::api::{CommitterContext, NoGlobalCommitter, Sink, WriterContext};
use connsim::run::{SinkSetup, World};
use connsim::systems::TxnHandle;
use connsim::ConnectorError;

/// The transactional log sink, with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ForgetsRemovedTransactionsSink(pub TxnLogSink);

impl Sink for ForgetsRemovedTransactionsSink {
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
        _restored: Vec<TxnWriterState>,
    ) -> Result<TxnLogWriter, ConnectorError> {
        let (s, r) = (ctx.subtask(), ctx.restored_checkpoint());
        self.0.open_writer(ctx, |owner, n| owner == s && n > r).await // the bug: its own, newer only
    }
    fn create_committer(&self, ctx: CommitterContext) -> TxnLogCommitter {
        self.0.create_committer(ctx)
    }
}

/// Sets up the buggy sink like [`TxnLogSinkSetup`] with four partitions.
#[derive(Clone, Debug, Default)]
pub struct ForgetsRemovedTransactionsSetup;

impl SinkSetup for ForgetsRemovedTransactionsSetup {
    type Sink = ForgetsRemovedTransactionsSink;
    fn name(&self) -> String {
        "mutant:forgets-removed-transactions(txn-log-sink)".into()
    }
    fn build(&self, world: &mut World) -> ForgetsRemovedTransactionsSink {
        ForgetsRemovedTransactionsSink(TxnLogSinkSetup { partitions: 4 }.build(world))
    }
}
