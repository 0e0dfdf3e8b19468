//! **Restored writer state read back without the payload**: the at-least-once log sink keeps
//! its buffer in its checkpointed state; the state round-trips whole, but the code that turns
//! a restored state back into records leaves the payload out (it reads the state's layout
//! from before the payload was added), so a restored writer resends the buffered records
//! empty.
//!
//! Story: restoring a sink writer's state wrongly corrupts exactly the records that were
//! buffered at a checkpoint, and only after a restore (FLINK-37964, apache/flink PR #26686:
//! the async sink's state serializer read back entries wrongly; ClickHouse/
//! flink-connector-clickhouse PR #155: null payloads restored from state). Ids survive, so a
//! check that compares ids passes; and since the state itself survives its serde round trip,
//! connsim's serde wall does not stop it either.
//!
//! Caught by: `no-corruption`: the resent records' content differs from what was produced.

use crate::log_sink::{BarrierMode, LogSink, LogSinkSetup, LogWriter, NothingToCommit};
use connsim::api::{CommitterContext, DeliveryGuarantee, NoGlobalCommitter, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::record::RecordId;
use connsim::run::{SinkSetup, World};
use connsim::{ConnectorError, Record};
use serde::{Deserialize, Serialize};

/// A buffered record as the buggy state serializer writes it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StateRecord {
    id: RecordId,
    key: u64,
    event_time_ms: i64,
    payload: Vec<u8>,
}

/// The log sink (buffer-in-state mode), with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct LossyStateSink(pub LogSink);

/// The writer, whose state goes through the lossy form.
pub struct LossyStateWriter(LogWriter);

impl SinkWriter for LossyStateWriter {
    type Committable = ();
    type State = Vec<StateRecord>;
    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.0.write(record).await
    }
    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        self.0.flush(end_of_input).await
    }
    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<()>, ConnectorError> {
        self.0.prepare_commit(checkpoint).await
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<Vec<StateRecord>> {
        let state = self.0.snapshot_state(checkpoint);
        state
            .into_iter()
            .map(|batch| {
                let lossy = |r: Record| StateRecord {
                    id: r.id,
                    key: r.key,
                    event_time_ms: r.event_time_ms,
                    payload: r.payload,
                };
                batch.into_iter().map(lossy).collect()
            })
            .collect()
    }
    async fn close(&mut self) {
        self.0.close().await
    }
}

impl Sink for LossyStateSink {
    type Committable = ();
    type WriterState = Vec<StateRecord>;
    type Writer = LossyStateWriter;
    type Committer = NothingToCommit;
    type GlobalCommitter = NoGlobalCommitter<()>;
    fn delivery_guarantee(&self) -> DeliveryGuarantee {
        DeliveryGuarantee::AtLeastOnce
    }
    async fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<Vec<StateRecord>>,
    ) -> Result<LossyStateWriter, ConnectorError> {
        // The bug: the payload is not carried back into the record.
        let back = |s: StateRecord| Record {
            id: s.id,
            key: s.key,
            event_time_ms: s.event_time_ms,
            payload: Vec::new(),
            extras: None,
        };
        let records = restored.into_iter().map(|batch| batch.into_iter().map(back).collect()).collect();
        Ok(LossyStateWriter(self.0.create_writer(ctx, records).await?))
    }
    fn create_committer(&self, _ctx: CommitterContext) -> NothingToCommit {
        NothingToCommit
    }
}

/// Sets up the buggy sink like [`LogSinkSetup`] in buffer-in-state mode.
#[derive(Clone, Debug, Default)]
pub struct LossyStateSetup;

impl SinkSetup for LossyStateSetup {
    type Sink = LossyStateSink;
    fn name(&self) -> String {
        "mutant:lossy-writer-state(log-sink)".into()
    }
    fn build(&self, world: &mut World) -> LossyStateSink {
        LossyStateSink(LogSinkSetup { partitions: 4, mode: BarrierMode::BufferInState }.build(world))
    }
}
