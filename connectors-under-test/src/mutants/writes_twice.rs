//! **At-least-once writer that writes its barrier batch twice**: on the barrier the writer
//! sends its buffer but does not clear it, so the same records go out again with the next
//! batch.
//!
//! Story: buffered sinks that clear their buffer only after a successful flush, or not at
//! all on one path, send the same batch again (ClickHouse/clickhouse-kafka-connect PR #835,
//! apache/seatunnel PR #11890). At-least-once allows duplicates only where a failure
//! explains them; these appear on a run without any fault.
//!
//! Caught by: `no-duplicates`, which for an at-least-once sink fails every copy that no
//! re-emission, failover or lost response explains. Before, the at-least-once duplicate
//! check could not fail.

use crate::log_sink::{BarrierMode, LogSink, LogSinkSetup, LogWriter, NothingToCommit};
use connsim::api::{CommitterContext, DeliveryGuarantee, NoGlobalCommitter, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::{ConnectorError, Record};

/// The log sink (flush mode), with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct WritesTwiceSink(pub LogSink);

/// A writer whose barrier flush keeps the buffer.
pub struct WritesTwiceWriter(LogWriter);

impl SinkWriter for WritesTwiceWriter {
    type Committable = ();
    type State = Vec<Record>;
    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.0.write(record).await
    }
    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        if end_of_input {
            return self.0.send_buffer().await;
        }
        self.0.produce(self.0.buffered().to_vec()).await // the bug: the buffer is not cleared
    }
    async fn prepare_commit(&mut self, _checkpoint: CheckpointId) -> Result<Vec<()>, ConnectorError> {
        Ok(Vec::new())
    }
    async fn close(&mut self) {
        self.0.close().await
    }
}

impl Sink for WritesTwiceSink {
    type Committable = ();
    type WriterState = Vec<Record>;
    type Writer = WritesTwiceWriter;
    type Committer = NothingToCommit;
    type GlobalCommitter = NoGlobalCommitter<()>;
    fn delivery_guarantee(&self) -> DeliveryGuarantee {
        DeliveryGuarantee::AtLeastOnce
    }
    async fn create_writer(
        &self,
        ctx: WriterContext,
        _restored: Vec<Vec<Record>>,
    ) -> Result<WritesTwiceWriter, ConnectorError> {
        Ok(WritesTwiceWriter(self.0.new_writer(&ctx).await?))
    }
    fn create_committer(&self, _ctx: CommitterContext) -> NothingToCommit {
        NothingToCommit
    }
}

/// Sets up the buggy sink like [`LogSinkSetup`] in flush mode.
#[derive(Clone, Debug, Default)]
pub struct WritesTwiceSetup;

impl SinkSetup for WritesTwiceSetup {
    type Sink = WritesTwiceSink;
    fn name(&self) -> String {
        "mutant:writes-barrier-batch-twice(log-sink)".into()
    }
    fn build(&self, world: &mut World) -> WritesTwiceSink {
        WritesTwiceSink(LogSinkSetup { partitions: 4, mode: BarrierMode::Flush }.build(world))
    }
}
