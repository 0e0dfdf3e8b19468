//! The log source with one bug plugged in: each source mutant is a [`LogBug`] that overrides
//! one step of the enumerator or the reader; everything else is the reference log source.

use crate::log_source::{LogEnumState, LogEnumerator, LogReader, LogSource, LogSourceSetup, LogSplit};
use connsim::api::{
    Boundedness, EnumeratorContext, InputStatus, ReaderContext, ReaderOutput, Source, SourceReader, SplitEnumerator,
    SplitId,
};
use connsim::history::CheckpointId;
use connsim::run::{SourceSetup, World};
use connsim::ConnectorError;
use std::fmt::Debug;

/// One bug in the log source. Every method defaults to the reference behaviour.
pub trait LogBug: Clone + Debug + Send + Sync + serde::Serialize + serde::de::DeserializeOwned + 'static {
    /// Name for reports.
    const NAME: &'static str;
    /// The enumerator gets splits back from a failed reader.
    fn add_splits_back(
        &self,
        e: &mut BuggyEnumerator<Self>,
        splits: Vec<LogSplit>,
        subtask: usize,
        ctx: &mut EnumeratorContext<LogSplit>,
    ) {
        e.inner.add_splits_back(splits, subtask, ctx)
    }
    /// A reader registered.
    fn add_reader(&self, e: &mut BuggyEnumerator<Self>, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        e.inner.add_reader(subtask, ctx)
    }
    /// The enumerator's checkpointed state.
    fn enumerator_snapshot(&self, state: LogEnumState) -> LogEnumState {
        state
    }
    /// The reader's checkpointed splits.
    fn reader_snapshot(&self, splits: Vec<LogSplit>) -> Vec<LogSplit> {
        splits
    }
    /// Alignment asks the reader to pause and resume splits.
    fn pause_or_resume_splits(
        &self,
        r: &mut BuggyReader<Self>,
        pause: Vec<SplitId>,
        resume: Vec<SplitId>,
    ) -> Result<(), ConnectorError> {
        r.inner.pause_or_resume_splits(pause, resume)
    }
    /// The enumerator assigned splits to the reader.
    fn add_splits(&self, r: &mut BuggyReader<Self>, splits: Vec<LogSplit>) {
        r.inner.add_splits(splits)
    }
    /// A checkpoint completed.
    fn notify_checkpoint_complete(&self, r: &mut BuggyReader<Self>, checkpoint: CheckpointId) {
        r.inner.notify_checkpoint_complete(checkpoint)
    }
    /// The source as its setup built it.
    fn source(&self, source: LogSource) -> LogSource {
        source
    }
}

/// The enumerator with the bug.
pub struct BuggyEnumerator<B> {
    /// The reference enumerator.
    pub inner: LogEnumerator,
    /// Whether it was restored from a checkpoint.
    pub restored: bool,
    bug: B,
}

impl<B: LogBug> SplitEnumerator for BuggyEnumerator<B> {
    type Split = LogSplit;
    type State = LogEnumState;
    async fn start(&mut self, ctx: &mut EnumeratorContext<LogSplit>) -> Result<(), ConnectorError> {
        self.inner.start(ctx).await
    }
    fn add_splits_back(&mut self, splits: Vec<LogSplit>, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.bug.clone().add_splits_back(self, splits, subtask, ctx)
    }
    fn add_reader(&mut self, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.bug.clone().add_reader(self, subtask, ctx)
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> LogEnumState {
        self.bug.enumerator_snapshot(self.inner.snapshot_state(checkpoint))
    }
    fn handle_async(&mut self, result: connsim::api::AsyncResult, ctx: &mut EnumeratorContext<LogSplit>) {
        self.inner.handle_async(result, ctx)
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
}

/// The reader with the bug.
pub struct BuggyReader<B> {
    /// The reference reader.
    pub inner: LogReader,
    /// What the bug remembers between calls (splits it set aside).
    pub scratch: std::collections::BTreeSet<SplitId>,
    /// What alignment holds paused, as the reader was told.
    pub aligned: std::collections::BTreeSet<SplitId>,
    /// How many times splits were added.
    pub additions: usize,
    bug: B,
}

impl<B: LogBug> SourceReader for BuggyReader<B> {
    type Split = LogSplit;
    async fn start(&mut self) -> Result<(), ConnectorError> {
        self.inner.start().await
    }
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
        self.inner.poll_next(output)
    }
    async fn available(&mut self) {
        self.inner.available().await
    }
    fn add_splits(&mut self, splits: Vec<LogSplit>) {
        self.bug.clone().add_splits(self, splits);
        self.additions += 1;
    }
    fn notify_no_more_splits(&mut self) {
        self.inner.notify_no_more_splits()
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<LogSplit> {
        self.bug.reader_snapshot(self.inner.snapshot_state(checkpoint))
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        self.bug.clone().notify_checkpoint_complete(self, checkpoint)
    }
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        self.aligned.extend(pause.iter().cloned());
        for split in &resume {
            self.aligned.remove(split);
        }
        self.bug.clone().pause_or_resume_splits(self, pause, resume)
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
}

/// The log source with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BuggySource<B> {
    inner: LogSource,
    bug: B,
}

impl<B: LogBug> Source for BuggySource<B> {
    type Split = LogSplit;
    type EnumState = LogEnumState;
    type Enumerator = BuggyEnumerator<B>;
    type Reader = BuggyReader<B>;
    fn boundedness(&self) -> Boundedness {
        self.inner.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<LogSplit>) -> BuggyEnumerator<B> {
        BuggyEnumerator { inner: self.inner.create_enumerator(ctx), restored: false, bug: self.bug.clone() }
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> BuggyEnumerator<B> {
        BuggyEnumerator { inner: self.inner.restore_enumerator(ctx, state), restored: true, bug: self.bug.clone() }
    }
    fn watermark_strategy(&self) -> Option<connsim::api::WatermarkStrategy> {
        self.inner.watermark_strategy()
    }
    fn create_reader(&self, ctx: ReaderContext) -> BuggyReader<B> {
        BuggyReader {
            inner: self.inner.create_reader(ctx),
            scratch: Default::default(),
            aligned: Default::default(),
            additions: 0,
            bug: self.bug.clone(),
        }
    }
}

/// Sets up the buggy source like [`LogSourceSetup`].
#[derive(Clone, Debug)]
pub struct BuggySetup<B>(pub LogSourceSetup, pub B);

impl<B: LogBug> SourceSetup for BuggySetup<B> {
    type Source = BuggySource<B>;
    fn name(&self) -> String {
        format!("mutant:{}({})", B::NAME, self.0.name())
    }
    fn build(&self, world: &mut World) -> BuggySource<B> {
        BuggySource { inner: self.1.source(self.0.build(world)), bug: self.1.clone() }
    }
}
