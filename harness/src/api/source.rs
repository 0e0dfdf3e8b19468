//! Source side: splits, the split enumerator (job master) and source readers (task executors).
//!
//! ```text
//!  job master                                   task executor (subtask i)
//!  SplitEnumerator ── assign_splits ──▶ gateway ──▶ SourceReader::add_splits
//!        ▲                                              │ poll_next ──▶ ReaderOutput ──▶ sink writer
//!        └── handle_split_request / source events ◀─────┘ ReaderContext
//! ```

use super::watermark::{Watermark, WatermarkStrategy};
use crate::error::ConnectorError;
use crate::history::CheckpointId;
#[cfg(madsim)]
use crate::net::Endpoint;
use crate::record::Record;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt::Debug;
use std::future::Future;
use std::time::Duration;
use tokio::sync::mpsc;

/// Identity of a split, stable across restores.
pub type SplitId = String;

/// A unit of input work that carries all of its own progress (e.g. a log partition with a
/// start and an optional stop offset). Crosses the network and enters checkpoints serialized.
pub trait Split: Serialize + DeserializeOwned + Clone + Debug + Send + Sync + 'static {
    /// The split's stable identity.
    fn id(&self) -> SplitId;

    /// Where a reader of the split stands: the position of the next record it reads,
    /// numbered as the model records them produced (an offset, a line number), if the split
    /// knows one. Reports show it with the split at every checkpoint barrier.
    fn position(&self) -> Option<u64> {
        None
    }
}

/// The enumerator's checkpointed state. The harness asks which splits it still owns so
/// the split-accounting check can place every split in every completed checkpoint.
pub trait EnumeratorState: Serialize + DeserializeOwned + Clone + Debug + Send + Sync + 'static {
    /// Splits held by the enumerator and not assigned to any reader.
    fn pending_splits(&self) -> Vec<SplitId>;
}

/// Whether a source ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Boundedness {
    /// The input ends; the job finishes after a final checkpoint.
    Bounded,
    /// The input never ends.
    Unbounded,
}

/// A source connector: a factory for its enumerator and readers.
///
/// A source is a serializable value (as Flink's is): the job master and every task executor
/// get their own copy, decoded from the source's serialized form, so the enumerator and the
/// readers share no memory through it (an `Arc` inside a source is not shared).
///
/// `T` is the element type its readers emit ([`SourceReader`]); [`Record`] by default.
pub trait Source<T = Record>: Clone + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// The split type.
    type Split: Split;
    /// The enumerator's checkpointed state.
    type EnumState: EnumeratorState;
    /// The enumerator.
    type Enumerator: SplitEnumerator<Split = Self::Split, State = Self::EnumState>;
    /// The reader.
    type Reader: SourceReader<T, Split = Self::Split>;

    /// Whether the input ends.
    fn boundedness(&self) -> Boundedness;
    /// A fresh enumerator (no checkpoint to restore from).
    fn create_enumerator(&self, ctx: &EnumeratorContext<Self::Split>) -> Self::Enumerator;
    /// An enumerator restored from a completed checkpoint.
    fn restore_enumerator(&self, ctx: &EnumeratorContext<Self::Split>, state: Self::EnumState) -> Self::Enumerator;
    /// A reader for one subtask.
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader;
    /// The watermark strategy the job reads this source with (what Flink's
    /// `env.fromSource(source, strategy, name)` is given). Default: none, no event time.
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        None
    }
}

/// What the enumerator asked the coordinator to do; drained after every callback.
#[derive(Debug)]
pub(crate) enum EnumAction<S> {
    Assign { subtask: usize, splits: Vec<S> },
    NoMoreSplits { subtask: usize },
    Event { subtask: usize, event: Vec<u8> },
}

/// What an asynchronous call hands to [`SplitEnumerator::handle_async`]: the enumerator
/// downcasts it to what its callable returned.
pub type AsyncResult = Box<dyn std::any::Any + Send>;

/// A callable's future.
pub type AsyncCallable = std::pin::Pin<Box<dyn Future<Output = AsyncResult> + Send>>;

/// Work the enumerator asked to run off the coordinator's loop.
pub(crate) enum AsyncCall {
    Once(AsyncCallable),
    Periodic(Duration, Box<dyn Fn() -> AsyncCallable + Send>),
}

/// The enumerator's view of the job: registered readers, and a way to assign splits.
pub struct EnumeratorContext<S> {
    pub(crate) parallelism: usize,
    pub(crate) registered: BTreeSet<usize>,
    pub(crate) actions: Vec<EnumAction<S>>,
    #[cfg(madsim)]
    pub(crate) endpoint: Endpoint,
    pub(crate) calls: Vec<AsyncCall>,
}

impl<S: Split> EnumeratorContext<S> {
    #[cfg(madsim)]
    pub(crate) fn new(parallelism: usize, endpoint: Endpoint) -> Self {
        Self { parallelism, registered: BTreeSet::new(), actions: Vec::new(), endpoint, calls: Vec::new() }
    }
    /// Number of reader subtasks.
    pub fn parallelism(&self) -> usize {
        self.parallelism
    }
    /// Subtasks whose current reader has registered and not failed since.
    pub fn registered_readers(&self) -> &BTreeSet<usize> {
        &self.registered
    }
    /// Assigns splits to a subtask's reader.
    pub fn assign_splits(&mut self, subtask: usize, splits: Vec<S>) {
        if !splits.is_empty() {
            self.actions.push(EnumAction::Assign { subtask, splits });
        }
    }
    /// Tells a reader it will get no more splits (bounded sources).
    pub fn signal_no_more_splits(&mut self, subtask: usize) {
        self.actions.push(EnumAction::NoMoreSplits { subtask });
    }
    /// Sends a connector-defined event to a reader.
    pub fn send_event_to_reader(&mut self, subtask: usize, event: Vec<u8>) {
        self.actions.push(EnumAction::Event { subtask, event });
    }
    /// Runs `callable` as a task of its own (Flink's `callAsync`); its result comes back to
    /// [`SplitEnumerator::handle_async`] on the coordinator's loop. The coordinator keeps
    /// going meanwhile: readers register, splits are assigned, checkpoints are taken. The
    /// callable must own what it needs (a client clone), as it cannot borrow the enumerator.
    pub fn call_async<R: Send + 'static>(&mut self, callable: impl Future<Output = R> + Send + 'static) {
        self.calls.push(AsyncCall::Once(Box::pin(async move { Box::new(callable.await) as AsyncResult })));
    }
    /// Runs a callable made by `make` every `interval`, each result going to
    /// [`SplitEnumerator::handle_async`] (Flink's periodic `callAsync`, e.g. split
    /// discovery). The rate is fixed, as Flink's `scheduleAtFixedRate`: round `k` is due `k`
    /// intervals after the call was started, and two rounds never run at once. A round that
    /// takes longer than the interval delays the next, which then starts as soon as it
    /// ends, before the enumerator has handled the previous result: state the enumerator
    /// changes only when a result arrives is not yet changed when the next round begins.
    pub fn call_async_periodically<R, F>(&mut self, interval: Duration, make: impl Fn() -> F + Send + 'static)
    where
        R: Send + 'static,
        F: Future<Output = R> + Send + 'static,
    {
        let make = move || -> AsyncCallable {
            let f = make();
            Box::pin(async move { Box::new(f.await) as AsyncResult })
        };
        self.calls.push(AsyncCall::Periodic(interval, Box::new(make)));
    }
    /// The job master's gateway endpoint, for talking to external systems.
    #[cfg(madsim)]
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }
}

/// The split enumerator, hosted by the job master's source coordinator.
///
/// Only the split bookkeeping methods are required; the lifecycle hooks default to no-ops.
pub trait SplitEnumerator: Send + 'static {
    /// The split type.
    type Split: Split;
    /// The checkpointed state.
    type State: EnumeratorState;

    /// Called after creation or restore, before any reader is added. A retriable error
    /// ([`ConnectorError::retry`]) has it called again 20 ms after each failed try, beside
    /// the job master's loop, until it starts or fails for good; readers' requests wait for
    /// it meanwhile. What a failed try left on the context (assignments, calls) stands: a
    /// start that may fail should register its calls once nothing can fail any more.
    fn start(
        &mut self,
        _ctx: &mut EnumeratorContext<Self::Split>,
    ) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        async { Ok(()) }
    }
    /// A reader asked for a split.
    fn handle_split_request(&mut self, _subtask: usize, _ctx: &mut EnumeratorContext<Self::Split>) {}
    /// Splits assigned to `subtask` since the last completed checkpoint, returned after it failed.
    fn add_splits_back(&mut self, splits: Vec<Self::Split>, subtask: usize, ctx: &mut EnumeratorContext<Self::Split>);
    /// A reader (re)registered.
    fn add_reader(&mut self, subtask: usize, ctx: &mut EnumeratorContext<Self::Split>);
    /// The enumerator's state for checkpoint `checkpoint`.
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Self::State;
    /// Checkpoint `checkpoint` completed. With more than one checkpoint pending at once
    /// ([`CheckpointConfig::max_concurrent`](crate::cluster::CheckpointConfig)), later
    /// checkpoints may have been triggered already: this one covers only what its own
    /// snapshot held.
    fn notify_checkpoint_complete(&mut self, _checkpoint: CheckpointId) {}
    /// Checkpoint `checkpoint` was aborted (declined, expired, subsumed by a later one, or
    /// given up in a failover), as Flink's `notifyCheckpointAborted`: its snapshot will never
    /// be restored. Best effort: it may never arrive.
    fn notify_checkpoint_aborted(&mut self, _checkpoint: CheckpointId) {}
    /// A reader sent a connector-defined event.
    fn handle_source_event(&mut self, _subtask: usize, _event: Vec<u8>, _ctx: &mut EnumeratorContext<Self::Split>) {}
    /// The reader of `subtask` failed (before its splits come back through
    /// [`SplitEnumerator::add_splits_back`]); whatever the enumerator handed it outside split
    /// assignments (a connector-defined event, a lease) is its to take back. Default: nothing.
    fn reader_failed(&mut self, _subtask: usize, _ctx: &mut EnumeratorContext<Self::Split>) {}
    /// The enumerator is done: the job finished or stopped, or a global failover replaces
    /// it. Called once; a crash of the job master calls nothing, nor does a global failover
    /// that replaces an enumerator whose start was still being retried (it never started: it
    /// is dropped).
    /// Default: nothing to release.
    fn close(&mut self) -> impl Future<Output = ()> + Send {
        async {}
    }
    /// The result of a callable started with [`EnumeratorContext::call_async`] or
    /// [`EnumeratorContext::call_async_periodically`], on the coordinator's loop.
    fn handle_async(&mut self, _result: AsyncResult, _ctx: &mut EnumeratorContext<Self::Split>) {}
}

/// What a reader's `poll_next` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputStatus {
    /// More records can be polled right away.
    MoreAvailable,
    /// Nothing now: wait for [`SourceReader::available`].
    NothingAvailable,
    /// The reader has finished all its input.
    EndOfInput,
}

/// What a reader said about event time at one place among its records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum OutputMark {
    /// A watermark for the current split (or the reader).
    Watermark(Watermark),
    /// The current split (or the reader) is idle.
    Idle,
    /// The current split (or the reader) is active again.
    Active,
    /// Every split of the reader is idle.
    ReaderIdle,
}

/// Collects what a reader emits during one `poll_next`: elements of the source's element
/// type `T` ([`Record`] by default).
#[derive(Debug)]
pub struct ReaderOutput<T = Record> {
    pub(crate) records: Vec<T>,
    pub(crate) finished_splits: Vec<SplitId>,
    /// Set by the runtime when the job reads the source with a watermark strategy: only then
    /// are splits and watermarks kept.
    pub(crate) event_time: bool,
    /// Which split the records from an index on belong to (`(first record, split)`).
    pub(crate) split_runs: Vec<(usize, SplitId)>,
    /// Watermarks and idleness the connector emitted: how many records came before each, and
    /// the split current at the time.
    pub(crate) watermarks: Vec<(usize, Option<SplitId>, OutputMark)>,
    /// Records (`start..end`) of a split read by a fetch that began after the split reader
    /// was told to pause it ([`SourceReaderBase`](crate::api::SourceReaderBase) knows).
    pub(crate) paused_reads: Vec<(usize, usize, SplitId)>,
    /// Set by a reader that tells which fetch its records came from (`paused_reads`):
    /// only then can reads of paused splits be judged.
    pub(crate) tells_fetches: bool,
}

impl<T> Default for ReaderOutput<T> {
    fn default() -> Self {
        Self {
            records: Vec::new(),
            finished_splits: Vec::new(),
            event_time: false,
            split_runs: Vec::new(),
            watermarks: Vec::new(),
            paused_reads: Vec::new(),
            tells_fetches: false,
        }
    }
}

impl<T> ReaderOutput<T> {
    /// Emits one element downstream.
    pub fn collect(&mut self, element: T) {
        self.records.push(element);
    }
    /// Says that the records collected from now on, in this poll and later ones, belong to
    /// `split` (Flink's `ReaderOutput::createOutputForSplit`), so the runtime tracks event
    /// time per split. [`SourceReaderBase`](crate::api::SourceReaderBase) calls it for every
    /// element.
    pub fn for_split(&mut self, split: &SplitId) {
        if self.event_time && self.split_runs.last().map(|(_, s)| s) != Some(split) {
            self.split_runs.push((self.records.len(), split.clone()));
        }
    }
    /// Emits a watermark for the current split (or the reader, before any
    /// [`ReaderOutput::for_split`]): a promise that no record of it at or below `watermark`
    /// follows. It takes effect at once, before the records collected after it, and only
    /// raises what the watermark strategy derives; a lower one is ignored.
    pub fn emit_watermark(&mut self, watermark: Watermark) {
        self.mark(OutputMark::Watermark(watermark));
    }
    /// Marks the current split idle (Flink's `SourceOutput::markIdle`; the current split is the
    /// last [`ReaderOutput::for_split`], which stays current into later polls; before the
    /// attempt's first, the reader's own output): it stops holding the combined watermark back, and
    /// watermark alignment stops waiting for it, until it emits a record or a watermark again
    /// or is marked active. A promise to keep: a record of it that then comes at or below the
    /// combined watermark its idleness let through is late, and the `event-time` check fails
    /// the run (unlike one behind the watermark strategy's idle timeout, a trade-off the job
    /// chose).
    pub fn mark_idle(&mut self) {
        self.mark(OutputMark::Idle);
    }
    /// Marks the current split (or the reader's own output) active again (Flink's
    /// `markActive`); emitting a record or a watermark does so too. A split the runtime does
    /// not track (not assigned, finished) is left alone.
    pub fn mark_active(&mut self) {
        self.mark(OutputMark::Active);
    }
    /// Marks the whole reader idle (Flink's `ReaderOutput::markIdle`): every split it holds,
    /// each until it emits again.
    pub fn mark_reader_idle(&mut self) {
        self.mark(OutputMark::ReaderIdle);
    }
    fn mark(&mut self, mark: OutputMark) {
        if self.event_time {
            let split = self.split_runs.last().map(|(_, s)| s.clone());
            self.watermarks.push((self.records.len(), split, mark));
        }
    }
    /// Reports that a split reached its end and left the reader's state.
    pub fn split_finished(&mut self, split: SplitId) {
        self.finished_splits.push(split);
    }
}

/// A message from a reader to the coordinator.
#[derive(Debug, Clone)]
pub enum ReaderRequest {
    /// Ask the enumerator for a split.
    SplitRequest,
    /// A connector-defined event for the enumerator.
    SourceEvent(Vec<u8>),
}

/// A reader's view of its subtask.
#[derive(Clone)]
pub struct ReaderContext {
    pub(crate) subtask: usize,
    pub(crate) parallelism: usize,
    #[cfg(madsim)]
    pub(crate) endpoint: Endpoint,
    pub(crate) requests: mpsc::UnboundedSender<ReaderRequest>,
    /// What a reader built on the base holds paused (watermark alignment).
    pub(crate) pauses: super::reader_base::PauseLedger,
}

impl ReaderContext {
    /// This reader's subtask index.
    pub fn subtask(&self) -> usize {
        self.subtask
    }
    /// Number of reader subtasks.
    pub fn parallelism(&self) -> usize {
        self.parallelism
    }
    /// The task executor's gateway endpoint, for talking to external systems.
    #[cfg(madsim)]
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }
    /// Asks the enumerator for a split.
    pub fn send_split_request(&self) {
        let _ = self.requests.send(ReaderRequest::SplitRequest);
    }
    /// Sends a connector-defined event to the enumerator.
    pub fn send_source_event(&self, event: Vec<u8>) {
        let _ = self.requests.send(ReaderRequest::SourceEvent(event));
    }
}

/// A source reader, hosted by a task executor. Most authors build one with
/// [`SourceReaderBase`](super::SourceReaderBase) instead of implementing this directly.
///
/// `T` is the element type it emits (Flink's `SourceReader<T, SplitT>`): the connector's own,
/// made by its own deserializer; [`Record`] by default. A suite traces a source of its own
/// element type back to the test data through an [`ElementCodec`](super::ElementCodec)
/// ([`ElementSource`](super::ElementSource)).
pub trait SourceReader<T = Record>: Send + 'static {
    /// The split type.
    type Split: Split;

    /// Called once before the first poll.
    fn start(&mut self) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        async { Ok(()) }
    }
    /// Emits whatever is ready now, without waiting.
    fn poll_next(&mut self, output: &mut ReaderOutput<T>) -> Result<InputStatus, ConnectorError>;
    /// Completes when `poll_next` may find something. Must be cancel-safe.
    fn available(&mut self) -> impl Future<Output = ()> + Send;
    /// New splits from the enumerator.
    fn add_splits(&mut self, splits: Vec<Self::Split>);
    /// The enumerator will send no more splits.
    fn notify_no_more_splits(&mut self);
    /// The reader's splits with their current progress, for checkpoint `checkpoint`.
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<Self::Split>;
    /// Checkpoint `checkpoint` completed (best effort: a notification may be lost, and may
    /// arrive after the barrier of a later checkpoint). Everything up to it is safe.
    fn notify_checkpoint_complete(&mut self, _checkpoint: CheckpointId) {}
    /// Checkpoint `checkpoint` was aborted: its snapshot will never be restored (best effort,
    /// as [`SplitEnumerator::notify_checkpoint_aborted`]).
    fn notify_checkpoint_aborted(&mut self, _checkpoint: CheckpointId) {}
    /// A connector-defined event from the enumerator.
    fn handle_source_event(&mut self, _event: Vec<u8>) {}
    /// Pauses and resumes splits (watermark alignment): a paused split is not read until it
    /// is resumed (records already fetched may still be emitted). Only called when the job
    /// reads the source with [`WatermarkStrategy::with_alignment`]. The default refuses, and
    /// the job fails saying so, as Flink's does: a reader that cannot pause would let its
    /// splits drift apart unseen. [`SourceReaderBase`](crate::api::SourceReaderBase) passes
    /// it to its split readers.
    fn pause_or_resume_splits(&mut self, _pause: Vec<SplitId>, _resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        Err(ConnectorError::fail_job(
            "the source is read with watermark alignment, but its reader does not support pausing splits: implement \
             SourceReader::pause_or_resume_splits (SourceReaderBase does, through SplitsChange::PauseResume), or read \
             the source without WatermarkStrategy::with_alignment",
        ))
    }
    /// The reader is done: its attempt finished, was cancelled, or failed. Called once; a
    /// crash of its task executor calls nothing. Default: nothing to release.
    fn close(&mut self) -> impl Future<Output = ()> + Send {
        async {}
    }
}
