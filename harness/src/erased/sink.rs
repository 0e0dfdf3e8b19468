//! The sink, its writers and its committers behind trait objects.

use super::global::ErasedGlobalCommitter;
use super::value::{Codecs, ErasedCommittable, ErasedWriterState};
use crate::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, DeliveryGuarantee, GlobalCommitterContext, Sink,
    SinkWriter, Watermark, WriterContext,
};
use crate::error::ConnectorError;
use crate::history::{local_checkpoint, CheckpointId};
use crate::record::Record;
use futures::future::BoxFuture;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::future::Future;
use std::sync::Arc;

/// A sink behind a trait object.
pub(crate) trait DynSink: erased_serde::Serialize + Send + Sync + 'static {
    /// A copy made by the connector's own `Clone` (a node's copy per subtask attempt).
    fn clone_typed(&self) -> Arc<dyn DynSink>;
    fn delivery_guarantee(&self) -> DeliveryGuarantee;
    fn keeps_split_order(&self) -> bool;
    fn accepts_late_records(&self) -> bool;
    fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<ErasedWriterState>,
    ) -> BoxFuture<'_, Result<ErasedWriter, ConnectorError>>;
    fn create_committer(&self, ctx: CommitterContext) -> ErasedCommitter;
    fn has_global_committer(&self) -> bool;
    fn create_global_committer(&self, ctx: GlobalCommitterContext) -> Option<ErasedGlobalCommitter>;
}

/// The connector's sink.
struct Typed<K>(K);

impl<K: Serialize> Serialize for Typed<K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<K: Sink> DynSink for Typed<K> {
    fn clone_typed(&self) -> Arc<dyn DynSink> {
        Arc::new(Typed(self.0.clone()))
    }
    fn delivery_guarantee(&self) -> DeliveryGuarantee {
        self.0.delivery_guarantee()
    }
    fn keeps_split_order(&self) -> bool {
        self.0.keeps_split_order()
    }
    fn accepts_late_records(&self) -> bool {
        self.0.accepts_late_records()
    }
    fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<ErasedWriterState>,
    ) -> BoxFuture<'_, Result<ErasedWriter, ConnectorError>> {
        let restored = restored.iter().map(ErasedWriterState::typed).collect();
        Box::pin(async move {
            let writer = self.0.create_writer(ctx, restored).await?;
            Ok(ErasedWriter(Box::new(writer)))
        })
    }
    fn create_committer(&self, ctx: CommitterContext) -> ErasedCommitter {
        ErasedCommitter(Box::new(self.0.create_committer(ctx)))
    }
    fn has_global_committer(&self) -> bool {
        self.0.has_global_committer()
    }
    fn create_global_committer(&self, ctx: GlobalCommitterContext) -> Option<ErasedGlobalCommitter> {
        self.0.create_global_committer(ctx).map(ErasedGlobalCommitter::new)
    }
}

pub(super) fn decode_sink<K: Sink>(
    d: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<Arc<dyn DynSink>, erased_serde::Error> {
    Ok(Arc::new(Typed(erased_serde::deserialize::<K>(d)?)))
}

/// The run's sink, as the cluster sees it.
pub(crate) struct ErasedSink(Arc<dyn DynSink>);

/// Clones through the connector's own `Clone`: every subtask attempt gets its own copy, as
/// with the typed connector (a cache or counter inside it is never shared between attempts).
impl Clone for ErasedSink {
    fn clone(&self) -> Self {
        Self(self.0.clone_typed())
    }
}

impl ErasedSink {
    /// Erases a sink.
    pub fn new<K: Sink>(sink: K) -> Self {
        Self(Arc::new(Typed(sink)))
    }
}

impl Serialize for ErasedSink {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        erased_serde::serialize(&*self.0, s)
    }
}

impl<'de> Deserialize<'de> for ErasedSink {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let decode = Codecs::current("sink").sink;
        decode(&mut <dyn erased_serde::Deserializer>::erase(d)).map(Self).map_err(D::Error::custom)
    }
}

impl Sink for ErasedSink {
    type Committable = ErasedCommittable;
    type WriterState = ErasedWriterState;
    type Writer = ErasedWriter;
    type Committer = ErasedCommitter;
    type GlobalCommitter = ErasedGlobalCommitter;

    fn delivery_guarantee(&self) -> DeliveryGuarantee {
        self.0.delivery_guarantee()
    }
    fn keeps_split_order(&self) -> bool {
        self.0.keeps_split_order()
    }
    fn accepts_late_records(&self) -> bool {
        self.0.accepts_late_records()
    }
    fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<ErasedWriterState>,
    ) -> impl Future<Output = Result<ErasedWriter, ConnectorError>> + Send {
        self.0.create_writer(ctx, restored)
    }
    fn create_committer(&self, ctx: CommitterContext) -> ErasedCommitter {
        self.0.create_committer(ctx)
    }
    fn has_global_committer(&self) -> bool {
        self.0.has_global_committer()
    }
    fn create_global_committer(&self, ctx: GlobalCommitterContext) -> Option<ErasedGlobalCommitter> {
        self.0.create_global_committer(ctx)
    }
}

/// A writer behind a trait object.
trait DynWriter: Send + 'static {
    fn write(&mut self, record: Record) -> BoxFuture<'_, Result<(), ConnectorError>>;
    fn write_watermark(&mut self, watermark: Watermark) -> BoxFuture<'_, Result<(), ConnectorError>>;
    fn flush(&mut self, end_of_input: bool) -> BoxFuture<'_, Result<(), ConnectorError>>;
    fn prepare_commit(
        &mut self,
        checkpoint: CheckpointId,
    ) -> BoxFuture<'_, Result<Vec<ErasedCommittable>, ConnectorError>>;
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<ErasedWriterState>;
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) -> BoxFuture<'_, Result<(), ConnectorError>>;
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId) -> BoxFuture<'_, Result<(), ConnectorError>>;
    fn close(&mut self) -> BoxFuture<'_, ()>;
}

impl<W> DynWriter for W
where
    W: SinkWriter,
    W::Committable: Serialize + std::fmt::Debug + Send + Sync + 'static,
    W::State: Serialize + std::fmt::Debug + Send + Sync + 'static,
{
    fn write(&mut self, record: Record) -> BoxFuture<'_, Result<(), ConnectorError>> {
        Box::pin(SinkWriter::write(self, record))
    }
    fn write_watermark(&mut self, watermark: Watermark) -> BoxFuture<'_, Result<(), ConnectorError>> {
        Box::pin(SinkWriter::write_watermark(self, watermark))
    }
    fn flush(&mut self, end_of_input: bool) -> BoxFuture<'_, Result<(), ConnectorError>> {
        Box::pin(SinkWriter::flush(self, end_of_input))
    }
    fn prepare_commit(
        &mut self,
        checkpoint: CheckpointId,
    ) -> BoxFuture<'_, Result<Vec<ErasedCommittable>, ConnectorError>> {
        Box::pin(async move {
            let committables = SinkWriter::prepare_commit(self, local_checkpoint(checkpoint)).await?;
            Ok(committables.into_iter().map(ErasedCommittable::data).collect())
        })
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<ErasedWriterState> {
        SinkWriter::snapshot_state(self, local_checkpoint(checkpoint))
            .into_iter()
            .map(ErasedWriterState::data)
            .collect()
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) -> BoxFuture<'_, Result<(), ConnectorError>> {
        Box::pin(SinkWriter::notify_checkpoint_complete(self, local_checkpoint(checkpoint)))
    }
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId) -> BoxFuture<'_, Result<(), ConnectorError>> {
        Box::pin(SinkWriter::notify_checkpoint_aborted(self, local_checkpoint(checkpoint)))
    }
    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(SinkWriter::close(self))
    }
}

/// A writer of the run's sink, as a subtask sees it.
pub(crate) struct ErasedWriter(Box<dyn DynWriter>);

impl SinkWriter for ErasedWriter {
    type Committable = ErasedCommittable;
    type State = ErasedWriterState;

    fn write(&mut self, record: Record) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.0.write(record)
    }
    fn write_watermark(&mut self, watermark: Watermark) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.0.write_watermark(watermark)
    }
    fn flush(&mut self, end_of_input: bool) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.0.flush(end_of_input)
    }
    fn prepare_commit(
        &mut self,
        checkpoint: CheckpointId,
    ) -> impl Future<Output = Result<Vec<ErasedCommittable>, ConnectorError>> + Send {
        self.0.prepare_commit(checkpoint)
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<ErasedWriterState> {
        self.0.snapshot_state(checkpoint)
    }
    fn notify_checkpoint_complete(
        &mut self,
        checkpoint: CheckpointId,
    ) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.0.notify_checkpoint_complete(checkpoint)
    }
    fn notify_checkpoint_aborted(
        &mut self,
        checkpoint: CheckpointId,
    ) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.0.notify_checkpoint_aborted(checkpoint)
    }
    fn close(&mut self) -> impl Future<Output = ()> + Send {
        self.0.close()
    }
}

/// Committables of a request list, in the connector's type, with the checkpoint numbered
/// as the connector's job numbers it.
pub(super) fn typed_requests<C: Clone + 'static, K: super::value::Kind>(
    requests: Vec<CommitRequest<super::value::Erased<K>>>,
) -> Vec<CommitRequest<C>> {
    requests
        .into_iter()
        .map(|r| CommitRequest {
            committable: r.committable.typed(),
            checkpoint: local_checkpoint(r.checkpoint),
            retries: r.retries,
        })
        .collect()
}

/// A committer behind a trait object.
trait DynCommitter: Send + 'static {
    fn commit(&mut self, requests: Vec<CommitRequest<ErasedCommittable>>) -> BoxFuture<'_, Vec<CommitOutcome>>;
    fn close(&mut self) -> BoxFuture<'_, ()>;
}

impl<C> DynCommitter for C
where
    C: Committer,
    C::Committable: Clone + 'static,
{
    fn commit(&mut self, requests: Vec<CommitRequest<ErasedCommittable>>) -> BoxFuture<'_, Vec<CommitOutcome>> {
        Box::pin(Committer::commit(self, typed_requests(requests)))
    }
    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(Committer::close(self))
    }
}

/// A committer of the run's sink, as a subtask sees it.
pub(crate) struct ErasedCommitter(Box<dyn DynCommitter>);

impl Committer for ErasedCommitter {
    type Committable = ErasedCommittable;

    fn commit(
        &mut self,
        requests: Vec<CommitRequest<ErasedCommittable>>,
    ) -> impl Future<Output = Vec<CommitOutcome>> + Send {
        self.0.commit(requests)
    }
    fn close(&mut self) -> impl Future<Output = ()> + Send {
        self.0.close()
    }
}
