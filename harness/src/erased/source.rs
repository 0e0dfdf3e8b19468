//! The source, its enumerator and its readers behind trait objects.

use super::value::{Codecs, ErasedEnumState, ErasedSplit};
use crate::api::{
    AsyncResult, Boundedness, EnumAction, EnumeratorContext, InputStatus, ReaderContext, ReaderOutput, Source,
    SourceReader, Split, SplitEnumerator, SplitId, WatermarkStrategy,
};
use crate::error::ConnectorError;
use crate::history::{local_checkpoint, CheckpointId};
use futures::future::BoxFuture;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

/// A source behind a trait object.
pub(crate) trait DynSource: erased_serde::Serialize + Send + Sync + 'static {
    /// A copy made by the connector's own `Clone` (a node's copy per subtask attempt).
    fn clone_typed(&self) -> Arc<dyn DynSource>;
    fn boundedness(&self) -> Boundedness;
    fn create_enumerator(&self, ctx: &EnumeratorContext<ErasedSplit>) -> ErasedEnumerator;
    fn restore_enumerator(&self, ctx: &EnumeratorContext<ErasedSplit>, state: ErasedEnumState) -> ErasedEnumerator;
    fn create_reader(&self, ctx: ReaderContext) -> ErasedReader;
    fn watermark_strategy(&self) -> Option<WatermarkStrategy>;
}

/// The connector's source.
struct Typed<S>(S);

impl<S: Serialize> Serialize for Typed<S> {
    fn serialize<Z: Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        self.0.serialize(s)
    }
}

impl<S: Source> DynSource for Typed<S> {
    fn clone_typed(&self) -> Arc<dyn DynSource> {
        Arc::new(Typed(self.0.clone()))
    }
    fn boundedness(&self) -> Boundedness {
        self.0.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<ErasedSplit>) -> ErasedEnumerator {
        ErasedEnumerator(Box::new(self.0.create_enumerator(&typed_context(ctx))))
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<ErasedSplit>, state: ErasedEnumState) -> ErasedEnumerator {
        ErasedEnumerator(Box::new(self.0.restore_enumerator(&typed_context(ctx), state.typed())))
    }
    fn create_reader(&self, ctx: ReaderContext) -> ErasedReader {
        ErasedReader(Box::new(self.0.create_reader(ctx)))
    }
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        self.0.watermark_strategy()
    }
}

pub(super) fn decode_source<S: Source>(
    d: &mut dyn erased_serde::Deserializer<'_>,
) -> Result<Arc<dyn DynSource>, erased_serde::Error> {
    Ok(Arc::new(Typed(erased_serde::deserialize::<S>(d)?)))
}

/// The run's source, as the cluster sees it.
pub(crate) struct ErasedSource(Arc<dyn DynSource>);

/// Clones through the connector's own `Clone`: every subtask attempt gets its own copy, as
/// with the typed connector (a cache or counter inside it is never shared between attempts).
impl Clone for ErasedSource {
    fn clone(&self) -> Self {
        Self(self.0.clone_typed())
    }
}

impl ErasedSource {
    /// Erases a source.
    pub fn new<S: Source>(source: S) -> Self {
        Self(Arc::new(Typed(source)))
    }
}

impl Serialize for ErasedSource {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        erased_serde::serialize(&*self.0, s)
    }
}

impl<'de> Deserialize<'de> for ErasedSource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let decode = Codecs::current("source").source;
        decode(&mut <dyn erased_serde::Deserializer>::erase(d)).map(Self).map_err(D::Error::custom)
    }
}

impl Source for ErasedSource {
    type Split = ErasedSplit;
    type EnumState = ErasedEnumState;
    type Enumerator = ErasedEnumerator;
    type Reader = ErasedReader;

    fn boundedness(&self) -> Boundedness {
        self.0.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<ErasedSplit>) -> ErasedEnumerator {
        self.0.create_enumerator(ctx)
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<ErasedSplit>, state: ErasedEnumState) -> ErasedEnumerator {
        self.0.restore_enumerator(ctx, state)
    }
    fn create_reader(&self, ctx: ReaderContext) -> ErasedReader {
        self.0.create_reader(ctx)
    }
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        self.0.watermark_strategy()
    }
}

/// A context for the connector's enumerator, with what the cluster's context knows.
fn typed_context<S: Split>(ctx: &EnumeratorContext<ErasedSplit>) -> EnumeratorContext<S> {
    let mut typed = EnumeratorContext::new(ctx.parallelism, ctx.endpoint.clone());
    typed.registered = ctx.registered.clone();
    typed
}

/// Hands what the connector's enumerator asked for (in `typed`) to the cluster's context.
fn give_back<S: Split>(ctx: &mut EnumeratorContext<ErasedSplit>, typed: EnumeratorContext<S>) {
    ctx.calls.extend(typed.calls);
    ctx.actions.extend(typed.actions.into_iter().map(|action| match action {
        EnumAction::Assign { subtask, splits } => {
            EnumAction::Assign { subtask, splits: splits.into_iter().map(ErasedSplit::new).collect() }
        }
        EnumAction::NoMoreSplits { subtask } => EnumAction::NoMoreSplits { subtask },
        EnumAction::Event { subtask, event } => EnumAction::Event { subtask, event },
    }));
}

/// Runs `f` on the connector's enumerator with a typed context.
fn with_typed<S: Split, R>(
    ctx: &mut EnumeratorContext<ErasedSplit>,
    f: impl FnOnce(&mut EnumeratorContext<S>) -> R,
) -> R {
    let mut typed = typed_context(ctx);
    let r = f(&mut typed);
    give_back(ctx, typed);
    r
}

fn typed_splits<S: Split>(splits: Vec<ErasedSplit>) -> Vec<S> {
    splits.iter().map(ErasedSplit::typed).collect()
}

type Ctx = EnumeratorContext<ErasedSplit>;

/// An enumerator behind a trait object.
trait DynEnumerator: Send + 'static {
    fn start<'a>(&'a mut self, ctx: &'a mut Ctx) -> BoxFuture<'a, Result<(), ConnectorError>>;
    fn handle_split_request(&mut self, subtask: usize, ctx: &mut Ctx);
    fn add_splits_back(&mut self, splits: Vec<ErasedSplit>, subtask: usize, ctx: &mut Ctx);
    fn add_reader(&mut self, subtask: usize, ctx: &mut Ctx);
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> ErasedEnumState;
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId);
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId);
    fn handle_source_event(&mut self, subtask: usize, event: Vec<u8>, ctx: &mut Ctx);
    fn reader_failed(&mut self, subtask: usize, ctx: &mut Ctx);
    fn close(&mut self) -> BoxFuture<'_, ()>;
    fn handle_async(&mut self, result: AsyncResult, ctx: &mut Ctx);
}

impl<E: SplitEnumerator> DynEnumerator for E {
    fn start<'a>(&'a mut self, ctx: &'a mut Ctx) -> BoxFuture<'a, Result<(), ConnectorError>> {
        Box::pin(async move {
            let mut typed = typed_context::<E::Split>(ctx);
            let r = SplitEnumerator::start(self, &mut typed).await;
            give_back(ctx, typed);
            r
        })
    }
    fn handle_split_request(&mut self, subtask: usize, ctx: &mut Ctx) {
        with_typed(ctx, |c| SplitEnumerator::handle_split_request(self, subtask, c))
    }
    fn add_splits_back(&mut self, splits: Vec<ErasedSplit>, subtask: usize, ctx: &mut Ctx) {
        with_typed(ctx, |c| SplitEnumerator::add_splits_back(self, typed_splits(splits), subtask, c))
    }
    fn add_reader(&mut self, subtask: usize, ctx: &mut Ctx) {
        with_typed(ctx, |c| SplitEnumerator::add_reader(self, subtask, c))
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> ErasedEnumState {
        ErasedEnumState::new(SplitEnumerator::snapshot_state(self, local_checkpoint(checkpoint)))
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        SplitEnumerator::notify_checkpoint_complete(self, local_checkpoint(checkpoint))
    }
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId) {
        SplitEnumerator::notify_checkpoint_aborted(self, local_checkpoint(checkpoint))
    }
    fn handle_source_event(&mut self, subtask: usize, event: Vec<u8>, ctx: &mut Ctx) {
        with_typed(ctx, |c| SplitEnumerator::handle_source_event(self, subtask, event, c))
    }
    fn reader_failed(&mut self, subtask: usize, ctx: &mut Ctx) {
        with_typed(ctx, |c| SplitEnumerator::reader_failed(self, subtask, c))
    }
    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(SplitEnumerator::close(self))
    }
    fn handle_async(&mut self, result: AsyncResult, ctx: &mut Ctx) {
        with_typed(ctx, |c| SplitEnumerator::handle_async(self, result, c))
    }
}

/// The run's enumerator, as the job master sees it.
pub(crate) struct ErasedEnumerator(Box<dyn DynEnumerator>);

impl SplitEnumerator for ErasedEnumerator {
    type Split = ErasedSplit;
    type State = ErasedEnumState;

    async fn start(&mut self, ctx: &mut Ctx) -> Result<(), ConnectorError> {
        self.0.start(ctx).await
    }
    fn handle_split_request(&mut self, subtask: usize, ctx: &mut Ctx) {
        self.0.handle_split_request(subtask, ctx)
    }
    fn add_splits_back(&mut self, splits: Vec<ErasedSplit>, subtask: usize, ctx: &mut Ctx) {
        self.0.add_splits_back(splits, subtask, ctx)
    }
    fn add_reader(&mut self, subtask: usize, ctx: &mut Ctx) {
        self.0.add_reader(subtask, ctx)
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> ErasedEnumState {
        self.0.snapshot_state(checkpoint)
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        self.0.notify_checkpoint_complete(checkpoint)
    }
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId) {
        self.0.notify_checkpoint_aborted(checkpoint)
    }
    fn handle_source_event(&mut self, subtask: usize, event: Vec<u8>, ctx: &mut Ctx) {
        self.0.handle_source_event(subtask, event, ctx)
    }
    fn reader_failed(&mut self, subtask: usize, ctx: &mut Ctx) {
        self.0.reader_failed(subtask, ctx)
    }
    fn close(&mut self) -> impl std::future::Future<Output = ()> + Send {
        self.0.close()
    }
    fn handle_async(&mut self, result: AsyncResult, ctx: &mut Ctx) {
        self.0.handle_async(result, ctx)
    }
}

/// A reader behind a trait object.
trait DynReader: Send + 'static {
    fn start(&mut self) -> BoxFuture<'_, Result<(), ConnectorError>>;
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, ConnectorError>;
    fn available(&mut self) -> BoxFuture<'_, ()>;
    fn add_splits(&mut self, splits: Vec<ErasedSplit>);
    fn notify_no_more_splits(&mut self);
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<ErasedSplit>;
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId);
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId);
    fn handle_source_event(&mut self, event: Vec<u8>);
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError>;
    fn close(&mut self) -> BoxFuture<'_, ()>;
}

impl<R: SourceReader> DynReader for R {
    fn start(&mut self) -> BoxFuture<'_, Result<(), ConnectorError>> {
        Box::pin(SourceReader::start(self))
    }
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
        SourceReader::poll_next(self, output)
    }
    fn available(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(SourceReader::available(self))
    }
    fn add_splits(&mut self, splits: Vec<ErasedSplit>) {
        SourceReader::add_splits(self, typed_splits(splits))
    }
    fn notify_no_more_splits(&mut self) {
        SourceReader::notify_no_more_splits(self)
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<ErasedSplit> {
        SourceReader::snapshot_state(self, local_checkpoint(checkpoint)).into_iter().map(ErasedSplit::new).collect()
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        SourceReader::notify_checkpoint_complete(self, local_checkpoint(checkpoint))
    }
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId) {
        SourceReader::notify_checkpoint_aborted(self, local_checkpoint(checkpoint))
    }
    fn handle_source_event(&mut self, event: Vec<u8>) {
        SourceReader::handle_source_event(self, event)
    }
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        SourceReader::pause_or_resume_splits(self, pause, resume)
    }
    fn close(&mut self) -> BoxFuture<'_, ()> {
        Box::pin(SourceReader::close(self))
    }
}

/// A reader of the run's source, as a subtask sees it.
pub(crate) struct ErasedReader(Box<dyn DynReader>);

impl SourceReader for ErasedReader {
    type Split = ErasedSplit;

    fn start(&mut self) -> impl std::future::Future<Output = Result<(), ConnectorError>> + Send {
        self.0.start()
    }
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
        self.0.poll_next(output)
    }
    fn available(&mut self) -> impl std::future::Future<Output = ()> + Send {
        self.0.available()
    }
    fn add_splits(&mut self, splits: Vec<ErasedSplit>) {
        self.0.add_splits(splits)
    }
    fn notify_no_more_splits(&mut self) {
        self.0.notify_no_more_splits()
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<ErasedSplit> {
        self.0.snapshot_state(checkpoint)
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        self.0.notify_checkpoint_complete(checkpoint)
    }
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId) {
        self.0.notify_checkpoint_aborted(checkpoint)
    }
    fn handle_source_event(&mut self, event: Vec<u8>) {
        self.0.handle_source_event(event)
    }
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        self.0.pause_or_resume_splits(pause, resume)
    }
    fn close(&mut self) -> impl std::future::Future<Output = ()> + Send {
        self.0.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probes::GeneratorSource;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static CLONES: AtomicUsize = AtomicUsize::new(0);

    /// A source whose own `Clone` counts the copies made.
    #[derive(Serialize, Deserialize)]
    struct Counting(u32);

    impl Clone for Counting {
        fn clone(&self) -> Self {
            CLONES.fetch_add(1, Ordering::SeqCst);
            Counting(self.0 + 1)
        }
    }

    impl Source for Counting {
        type Split = <GeneratorSource as Source>::Split;
        type EnumState = <GeneratorSource as Source>::EnumState;
        type Enumerator = <GeneratorSource as Source>::Enumerator;
        type Reader = <GeneratorSource as Source>::Reader;
        fn boundedness(&self) -> Boundedness {
            Boundedness::Bounded
        }
        fn create_enumerator(&self, _: &EnumeratorContext<Self::Split>) -> Self::Enumerator {
            unreachable!("only cloned in this test")
        }
        fn restore_enumerator(&self, _: &EnumeratorContext<Self::Split>, _: Self::EnumState) -> Self::Enumerator {
            unreachable!("only cloned in this test")
        }
        fn create_reader(&self, _: ReaderContext) -> Self::Reader {
            unreachable!("only cloned in this test")
        }
    }

    #[test]
    fn every_copy_of_an_erased_source_is_made_by_the_connectors_own_clone() {
        let erased = ErasedSource::new(Counting(7));
        let copy = erased.clone();
        let copy_of_copy = copy.clone();
        assert_eq!(CLONES.load(Ordering::SeqCst), 2, "each copy is the connector's own, not a shared one");
        let bytes = |s: &ErasedSource| bincode::serialize(s).unwrap();
        assert_eq!(
            (bytes(&erased), bytes(&copy_of_copy)),
            (bincode::serialize(&7u32).unwrap(), bincode::serialize(&9u32).unwrap())
        );
    }
}
