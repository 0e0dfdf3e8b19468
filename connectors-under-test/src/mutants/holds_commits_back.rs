//! **Commits held back past the transaction timeout**: the transactional log sink's
//! committer batches commits. It commits a transaction only once the transaction has waited
//! a batching window (250 ms) since the committer first saw it, so that several commit in
//! one round trip.
//!
//! Story: a commit-batching optimisation that is correct against a broker without timeouts,
//! and a classic cause of exactly-once data loss with Kafka: every transaction now lives for
//! a checkpoint interval plus the window, and a broker whose `transaction.timeout.ms` is
//! shorter than that aborts the transaction before the commit arrives. The commit then finds
//! its producer epoch fenced, and the checkpoint's records are gone.
//!
//! Caught by: `no-loss`, only when the log has a transaction timeout (the
//! `transaction_timeout(..)` block); without one, the held-back commits all go through.

use crate::txn_log_sink::{TxnLogCommitter, TxnLogSink, TxnLogSinkSetup, TxnLogWriter, TxnWriterState};
use connsim::api::{CommitOutcome, CommitRequest, Committer, CommitterContext, NoGlobalCommitter, Sink, WriterContext};
use connsim::run::{SinkSetup, World};
use connsim::systems::TxnHandle;
use connsim::ConnectorError;
use std::collections::BTreeMap;
use std::time::Duration;

/// How long a transaction waits in the committer before it is committed.
const WINDOW: Duration = Duration::from_millis(250);

/// The transactional log sink, with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct HoldsCommitsBackSink(pub TxnLogSink);

/// Its committer: the reference one behind a batching window.
pub struct HoldsCommitsBackCommitter {
    inner: TxnLogCommitter,
    first_seen: BTreeMap<TxnHandle, Duration>,
}

impl Committer for HoldsCommitsBackCommitter {
    type Committable = TxnHandle;
    async fn commit(&mut self, requests: Vec<CommitRequest<TxnHandle>>) -> Vec<CommitOutcome> {
        let now = connsim::net::now();
        let mut due = Vec::new();
        let mut held = Vec::new();
        for (i, r) in requests.into_iter().enumerate() {
            let seen = *self.first_seen.entry(r.committable.clone()).or_insert(now);
            if now < seen + WINDOW {
                held.push(i); // the bug: a prepared transaction waits in the committer
            } else {
                due.push((i, r));
            }
        }
        let (indices, due): (Vec<usize>, Vec<_>) = due.into_iter().unzip();
        let mut outcomes: BTreeMap<usize, CommitOutcome> =
            indices.into_iter().zip(self.inner.commit(due).await).collect();
        outcomes.extend(held.into_iter().map(|i| (i, CommitOutcome::RetryLater)));
        outcomes.into_values().collect()
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
}

impl Sink for HoldsCommitsBackSink {
    type Committable = TxnHandle;
    type WriterState = TxnWriterState;
    type Writer = TxnLogWriter;
    type Committer = HoldsCommitsBackCommitter;
    type GlobalCommitter = NoGlobalCommitter<TxnHandle>;
    fn keeps_split_order(&self) -> bool {
        true
    }
    async fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<TxnWriterState>,
    ) -> Result<TxnLogWriter, ConnectorError> {
        self.0.create_writer(ctx, restored).await
    }
    fn create_committer(&self, ctx: CommitterContext) -> HoldsCommitsBackCommitter {
        HoldsCommitsBackCommitter { inner: self.0.create_committer(ctx), first_seen: BTreeMap::new() }
    }
}

/// Sets up the buggy sink like [`TxnLogSinkSetup`] with four partitions.
#[derive(Clone, Debug, Default)]
pub struct HoldsCommitsBackSetup;

impl SinkSetup for HoldsCommitsBackSetup {
    type Sink = HoldsCommitsBackSink;
    fn name(&self) -> String {
        "mutant:holds-commits-back(txn-log-sink)".into()
    }
    fn build(&self, world: &mut World) -> HoldsCommitsBackSink {
        HoldsCommitsBackSink(TxnLogSinkSetup { partitions: 4 }.build(world))
    }
}
