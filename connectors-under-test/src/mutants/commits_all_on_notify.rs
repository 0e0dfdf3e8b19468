//! **Everything pending committed on any notification**: the transactional log sink's
//! writer also commits the transactions it prepared as soon as it hears that a checkpoint
//! completed, to make data visible sooner, and commits every transaction it prepared, not
//! only those of checkpoints up to the one that completed.
//!
//! Story: the classic mistake of a two-phase-commit sink function that commits in
//! `notifyCheckpointComplete` (Flink's `TwoPhaseCommitSinkFunction` keeps its pending
//! transactions by checkpoint id for exactly this reason). With one checkpoint at a time,
//! `notify(c)` always arrives before barrier `c + 1`, so everything pending belongs to `c`
//! and the bug is invisible. With two checkpoints pending at once, a writer can prepare the
//! transaction of `c + 1` before it hears that `c` completed; committing it then makes
//! records visible that no completed checkpoint covers, and if `c + 1` is aborted and the
//! job restores `c`, they are read and written again.
//!
//! Caught by: `no-premature-visibility`, in the overlapping-checkpoints case (a slow
//! snapshot keeps `c` pending past the trigger of `c + 1`; mark
//! `notified-after-later-barrier`). The same writer committing only what the notification
//! covers ([`CommitsOnNotifySink::covered_only`]) passes.

use crate::txn_log_sink::{TxnLogCommitter, TxnLogSink, TxnLogSinkSetup, TxnLogWriter, TxnWriterState};
use connsim::api::{CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{LogRequest, TxnHandle};
use connsim::{ConnectorError, Record};

/// The transactional log sink whose writer also commits on notification.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CommitsOnNotifySink {
    /// The reference sink it wraps.
    pub inner: TxnLogSink,
    /// Commit only transactions of checkpoints up to the notified one (the fix); `false`:
    /// everything prepared so far (the bug).
    pub covered_only: bool,
}

/// Its writer: the reference writer plus the transactions it prepared, by checkpoint.
pub struct CommitsOnNotifyWriter {
    inner: TxnLogWriter,
    prepared: Vec<(CheckpointId, TxnHandle)>,
    covered_only: bool,
}

impl SinkWriter for CommitsOnNotifyWriter {
    type Committable = TxnHandle;
    type State = TxnWriterState;

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.inner.write(record).await
    }

    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        self.inner.flush(end_of_input).await
    }

    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<TxnHandle>, ConnectorError> {
        let txns = self.inner.prepare_commit(checkpoint).await?;
        self.prepared.extend(txns.iter().map(|t| (checkpoint, t.clone())));
        Ok(txns)
    }

    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<TxnWriterState> {
        self.inner.snapshot_state(checkpoint)
    }

    async fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) -> Result<(), ConnectorError> {
        let covered_only = self.covered_only;
        let (due, later): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.prepared).into_iter().partition(|(c, _)| !covered_only || *c <= checkpoint);
        self.prepared = later;
        for (_, txn) in due {
            // Best effort: the committer commits it anyway (a second commit finds it committed).
            let _ = self.inner.client().request(LogRequest::CommitTransaction { txn }).await;
        }
        Ok(())
    }

    async fn close(&mut self) {
        self.inner.close().await
    }
}

impl Sink for CommitsOnNotifySink {
    type Committable = TxnHandle;
    type WriterState = TxnWriterState;
    type Writer = CommitsOnNotifyWriter;
    type Committer = TxnLogCommitter;
    type GlobalCommitter = NoGlobalCommitter<TxnHandle>;
    fn keeps_split_order(&self) -> bool {
        true
    }
    async fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<TxnWriterState>,
    ) -> Result<CommitsOnNotifyWriter, ConnectorError> {
        let inner = self.inner.create_writer(ctx, restored).await?;
        Ok(CommitsOnNotifyWriter { inner, prepared: Vec::new(), covered_only: self.covered_only })
    }
    fn create_committer(&self, ctx: CommitterContext) -> TxnLogCommitter {
        self.inner.create_committer(ctx)
    }
}

/// Sets up the sink like [`TxnLogSinkSetup`] with four partitions.
#[derive(Clone, Debug, Default)]
pub struct CommitsOnNotifySetup {
    /// See [`CommitsOnNotifySink::covered_only`].
    pub covered_only: bool,
}

impl SinkSetup for CommitsOnNotifySetup {
    type Sink = CommitsOnNotifySink;
    fn name(&self) -> String {
        if self.covered_only {
            "commits-covered-on-notify(txn-log-sink)".into()
        } else {
            "mutant:commits-all-on-notify(txn-log-sink)".into()
        }
    }
    fn build(&self, world: &mut World) -> CommitsOnNotifySink {
        CommitsOnNotifySink { inner: TxnLogSinkSetup { partitions: 4 }.build(world), covered_only: self.covered_only }
    }
}
