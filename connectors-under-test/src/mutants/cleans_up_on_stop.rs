//! **Lingering transactions cleaned up when the job stops**: a writer of the transactional
//! log sink that is closed while idle since its last checkpoint takes the job to be stopping
//! and aborts every open transaction of the sink's prefix but its own, so that nothing pins
//! a partition's last stable offset after shutdown.
//!
//! Story: the abort-lingering-transactions logic Flink's Kafka sink runs on start
//! (FLINK-23854), moved to shutdown. A clean stop-with-savepoint commits every transaction
//! before any writer closes, so there is nothing to abort but empty ones. When a task
//! executor dies after acknowledging the stopping savepoint and before committing it, the
//! stop fails and every other attempt is cancelled: their writers, idle since the source
//! stopped, abort the dead subtask's prepared transaction, which the restored job must
//! commit.
//!
//! Caught by: `no-loss`, in the stop-with-savepoint case, where a subtask crashes after
//! acknowledging the stopping savepoint ([`Phase::DuringSavepoint`]).
//!
//! [`Phase::DuringSavepoint`]: connsim::cluster::Phase::DuringSavepoint

use crate::txn_log_sink::{TxnLogCommitter, TxnLogSink, TxnLogSinkSetup, TxnLogWriter, TxnWriterState};
use connsim::api::{CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{LogRequest, TxnHandle};
use connsim::{ConnectorError, Record};

/// The transactional log sink, with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CleansUpOnStopSink(pub TxnLogSink);

/// A writer that aborts the sink's other open transactions when closed while idle.
pub struct CleansUpOnStopWriter {
    inner: TxnLogWriter,
    /// The sink's transactional-id prefix, for every subtask.
    prefix: String,
    /// A checkpoint was prepared and nothing was written since.
    idle: bool,
}

impl SinkWriter for CleansUpOnStopWriter {
    type Committable = TxnHandle;
    type State = TxnWriterState;
    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.idle = false;
        self.inner.write(record).await
    }
    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        self.inner.flush(end_of_input).await
    }
    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<TxnHandle>, ConnectorError> {
        let prepared = self.inner.prepare_commit(checkpoint).await?;
        self.idle = true;
        Ok(prepared)
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<TxnWriterState> {
        self.inner.snapshot_state(checkpoint)
    }
    async fn close(&mut self) {
        if self.idle {
            // The bug: whatever is still open must be a leftover of the stopping job.
            let own = self.inner.open_transaction().id.clone();
            let client = self.inner.client().clone();
            if let Ok(open) = client.open_transactions(&self.prefix).await {
                for txn in open.into_iter().filter(|t| t.id != own) {
                    let _ = client.request(LogRequest::AbortTransaction { txn }).await;
                }
            }
        }
        self.inner.close().await
    }
}

impl Sink for CleansUpOnStopSink {
    type Committable = TxnHandle;
    type WriterState = TxnWriterState;
    type Writer = CleansUpOnStopWriter;
    type Committer = TxnLogCommitter;
    type GlobalCommitter = NoGlobalCommitter<TxnHandle>;
    fn keeps_split_order(&self) -> bool {
        true
    }
    async fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<TxnWriterState>,
    ) -> Result<Self::Writer, ConnectorError> {
        let inner = self.0.create_writer(ctx, restored).await?;
        Ok(CleansUpOnStopWriter { inner, prefix: format!("{}-", self.0.prefix), idle: false })
    }
    fn create_committer(&self, ctx: CommitterContext) -> TxnLogCommitter {
        self.0.create_committer(ctx)
    }
}

/// Sets up the buggy sink like [`TxnLogSinkSetup`] with four partitions.
#[derive(Clone, Debug, Default)]
pub struct CleansUpOnStopSetup;

impl SinkSetup for CleansUpOnStopSetup {
    type Sink = CleansUpOnStopSink;
    fn name(&self) -> String {
        "mutant:cleans-up-on-stop(txn-log-sink)".into()
    }
    fn build(&self, world: &mut World) -> CleansUpOnStopSink {
        CleansUpOnStopSink(TxnLogSinkSetup { partitions: 4 }.build(world))
    }
}
