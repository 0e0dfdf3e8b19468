//! **Peers' open transactions of a completed checkpoint taken for leftovers**: on start, a
//! restored writer of the transactional log sink also aborts every open transaction of
//! another subtask numbered at or below the restored checkpoint, reasoning that a completed
//! checkpoint's transactions are committed when it completes, so any still open must have
//! been abandoned.
//!
//! Story: the lingering-transaction cleanup of Flink's Kafka sink (FLINK-23854) widened by
//! a wrong belief about when a completed checkpoint is committed. A completed checkpoint is
//! committed only once the job master's notification reaches each committer. When one
//! subtask fails, its peers have long been notified and have committed, so the abort finds
//! nothing; only when the job master dies between storing the checkpoint and notifying
//! anyone do all writers restore together, each with a prepared transaction of the restored
//! checkpoint still open, and abort each other's.
//!
//! Caught by: `no-loss`, in the job-master failover case, where the job master crashes
//! between storing a completed checkpoint and notifying ([`Phase::BeforeNotify`]).
//!
//! [`Phase::BeforeNotify`]: connsim::cluster::Phase::BeforeNotify

use crate::txn_log_sink::{TxnLogCommitter, TxnLogSink, TxnLogSinkSetup, TxnLogWriter, TxnWriterState};
use connsim::api::{CommitterContext, NoGlobalCommitter, Sink, WriterContext};
use connsim::run::{SinkSetup, World};
use connsim::systems::TxnHandle;
use connsim::ConnectorError;

/// The transactional log sink, with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct AbortsPeersTransactionsSink(pub TxnLogSink);

impl Sink for AbortsPeersTransactionsSink {
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
        // As the reference, plus the bug: peers' transactions up to the restored checkpoint.
        let r = ctx.restored_checkpoint();
        let took_part = if r == 0 { 0 } else { restored.first().map_or(0, |st| st.parallelism) };
        let (s, p) = (ctx.subtask(), ctx.parallelism());
        let owned = move |owner: usize, n| owner % p == s && (owner >= took_part || n > r);
        self.0.open_writer(ctx, move |owner, n| owned(owner, n) || (r > 0 && owner != s && n <= r)).await
    }
    fn create_committer(&self, ctx: CommitterContext) -> TxnLogCommitter {
        self.0.create_committer(ctx)
    }
}

/// Sets up the buggy sink like [`TxnLogSinkSetup`] with four partitions.
#[derive(Clone, Debug, Default)]
pub struct AbortsPeersTransactionsSetup;

impl SinkSetup for AbortsPeersTransactionsSetup {
    type Sink = AbortsPeersTransactionsSink;
    fn name(&self) -> String {
        "mutant:aborts-peers-transactions(txn-log-sink)".into()
    }
    fn build(&self, world: &mut World) -> AbortsPeersTransactionsSink {
        AbortsPeersTransactionsSink(TxnLogSinkSetup { partitions: 4 }.build(world))
    }
}
