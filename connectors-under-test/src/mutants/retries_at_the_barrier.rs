//! **Unanswered sends retried at the barrier**: the transactional log sink tuned for latency.
//! Its writer sends every record at once, in a produce of its own, and does not stall the
//! stream on a send that goes unanswered (a timeout, or `OutOfOrderSequence` because an
//! earlier send has not landed): it keeps the send and retries it at the next barrier, in
//! sequence order, before the transaction is handed over. A retry refused out of order is
//! retried again: the writer takes it to mean an earlier send is still on its way.
//!
//! Story: the retry-later pattern of an async producer with many requests in flight. It
//! leans on the broker recognising any retried batch by its sequence number. Kafka's broker
//! remembers only a producer's last five batches (which is why Kafka caps
//! `max.in.flight.requests.per.connection` at five with idempotence): once more than five
//! later sends landed, the retry of a send whose answer was lost can never be recognised,
//! every retry is refused `OutOfOrderSequence`, and the writer is wedged. Against a log that
//! remembers every batch, the same writer is correct.
//!
//! Caught by: `liveness` (the job stops checkpointing and never finishes) in "lost responses
//! from the external system", only with Kafka's five-batch window: with
//! `Setting::DeduplicationWindow(None)` the same seeds pass.

use crate::txn_log_sink::{TxnLogCommitter, TxnLogSink, TxnLogSinkSetup, TxnLogWriter, TxnWriterState};
use connsim::api::{CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{LogError, LogRequest, LogResponse, RecordLogFormat, TxnHandle};
use connsim::{ConnectorError, Record};
use std::time::Duration;

/// How long the writer waits before retrying a send refused out of order.
const BACKOFF: Duration = Duration::from_millis(5);
/// How often a timed-out retry is tried again before the task fails.
const TRIES: u32 = 20;

/// The transactional log sink, with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RetriesAtTheBarrierSink(pub TxnLogSink);

/// Its writer: the reference writer, sending record by record and retrying at the barrier.
pub struct RetryingWriter {
    inner: TxnLogWriter,
    /// Sends not acknowledged yet, in sequence order.
    unanswered: Vec<LogRequest>,
}

impl RetryingWriter {
    async fn retry_unanswered(&mut self) -> Result<(), ConnectorError> {
        for req in std::mem::take(&mut self.unanswered) {
            let mut timeouts = 0;
            loop {
                match self.inner.client().request(req.clone()).await {
                    Ok(LogResponse::Ok) => break,
                    // The bug: an out-of-order answer is taken for an earlier send still on
                    // its way, so the same send is tried again, for ever.
                    Ok(LogResponse::Error(LogError::OutOfOrderSequence)) => madsim::time::sleep(BACKOFF).await,
                    Ok(other) => return Err(ConnectorError::fail_task(format!("produce refused: {other:?}"))),
                    Err(_) if timeouts + 1 < TRIES => timeouts += 1,
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }
}

impl SinkWriter for RetryingWriter {
    type Committable = TxnHandle;
    type State = TxnWriterState;

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        let w = &mut self.inner;
        let req = LogRequest::Produce {
            topic: w.topic.clone(),
            partition: w.partition,
            entries: vec![RecordLogFormat::encode(&record)],
            txn: Some(w.txn.clone()),
            sequence: w.sequence,
        };
        w.sequence += 1;
        match w.client().request(req.clone()).await {
            Ok(LogResponse::Ok) => Ok(()),
            Ok(LogResponse::Error(LogError::OutOfOrderSequence)) | Err(_) => {
                self.unanswered.push(req); // retried at the barrier
                Ok(())
            }
            Ok(other) => Err(ConnectorError::fail_task(format!("produce refused: {other:?}"))),
        }
    }

    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        self.retry_unanswered().await?;
        self.inner.flush(end_of_input).await
    }

    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<TxnHandle>, ConnectorError> {
        self.retry_unanswered().await?;
        self.inner.prepare_commit(checkpoint).await
    }

    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<TxnWriterState> {
        self.inner.snapshot_state(checkpoint)
    }

    async fn close(&mut self) {
        self.inner.close().await
    }
}

impl Sink for RetriesAtTheBarrierSink {
    type Committable = TxnHandle;
    type WriterState = TxnWriterState;
    type Writer = RetryingWriter;
    type Committer = TxnLogCommitter;
    type GlobalCommitter = NoGlobalCommitter<TxnHandle>;
    fn keeps_split_order(&self) -> bool {
        true
    }
    async fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<TxnWriterState>,
    ) -> Result<RetryingWriter, ConnectorError> {
        Ok(RetryingWriter { inner: self.0.create_writer(ctx, restored).await?, unanswered: Vec::new() })
    }
    fn create_committer(&self, ctx: CommitterContext) -> TxnLogCommitter {
        self.0.create_committer(ctx)
    }
}

/// Sets up the buggy sink like [`TxnLogSinkSetup`] with four partitions.
#[derive(Clone, Debug, Default)]
pub struct RetriesAtTheBarrierSetup;

impl SinkSetup for RetriesAtTheBarrierSetup {
    type Sink = RetriesAtTheBarrierSink;
    fn name(&self) -> String {
        "mutant:retries-at-the-barrier(txn-log-sink)".into()
    }
    fn build(&self, world: &mut World) -> RetriesAtTheBarrierSink {
        RetriesAtTheBarrierSink(TxnLogSinkSetup { partitions: 4 }.build(world))
    }
}
