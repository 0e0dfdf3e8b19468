//! **At-least-once writer without flush**: the writer does not send its buffer on the
//! barrier, and keeps nothing of it in its state.
//!
//! Story: FLINK-25943 (apache/flink PR #18669) and FLINK-26417 (PR #18945) — sink writers
//! that did not flush buffered records on a checkpoint lost them on failure, although the
//! checkpoint had already moved the source past them.
//!
//! Caught by: `no-loss` after a crash: the records buffered at the last completed
//! checkpoint are neither in the log nor replayed.

use crate::log_sink::{BarrierMode, LogSink, LogSinkSetup, LogWriter, NothingToCommit};
use connsim::api::{CommitterContext, DeliveryGuarantee, NoGlobalCommitter, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::{ConnectorError, Record};

/// The log sink (flush mode), with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct NoFlushSink(pub LogSink);

/// A writer that only sends when its buffer is full or the input ends.
pub struct NoFlushWriter(LogWriter);

impl SinkWriter for NoFlushWriter {
    type Committable = ();
    type State = Vec<Record>;
    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.0.write(record).await
    }
    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        if end_of_input {
            self.0.send_buffer().await?;
        }
        Ok(()) // the bug: nothing is sent on the barrier
    }
    async fn prepare_commit(&mut self, _checkpoint: CheckpointId) -> Result<Vec<()>, ConnectorError> {
        Ok(Vec::new())
    }
    async fn close(&mut self) {
        self.0.close().await
    }
}

impl Sink for NoFlushSink {
    type Committable = ();
    type WriterState = Vec<Record>;
    type Writer = NoFlushWriter;
    type Committer = NothingToCommit;
    type GlobalCommitter = NoGlobalCommitter<()>;
    fn delivery_guarantee(&self) -> DeliveryGuarantee {
        DeliveryGuarantee::AtLeastOnce
    }
    async fn create_writer(
        &self,
        ctx: WriterContext,
        _restored: Vec<Vec<Record>>,
    ) -> Result<NoFlushWriter, ConnectorError> {
        Ok(NoFlushWriter(self.0.new_writer(&ctx).await?))
    }
    fn create_committer(&self, _ctx: CommitterContext) -> NothingToCommit {
        NothingToCommit
    }
}

/// Sets up the buggy sink like [`LogSinkSetup`] in flush mode.
#[derive(Clone, Debug, Default)]
pub struct NoFlushSetup;

impl SinkSetup for NoFlushSetup {
    type Sink = NoFlushSink;
    fn name(&self) -> String {
        "mutant:no-flush-on-barrier(log-sink)".into()
    }
    fn build(&self, world: &mut World) -> NoFlushSink {
        NoFlushSink(LogSinkSetup { partitions: 4, mode: BarrierMode::Flush }.build(world))
    }
}
