//! Readers that mishandle watermark alignment's pauses, caught by the default alignment case.

use connsim::api::{
    ElementSource, FetchedBatch, InputStatus, ReaderOutput, SourceReader, SourceReaderBase, SplitId, SplitReader,
    SplitsChange,
};
use connsim::history::CheckpointId;
use connsim::run::{SourceSetup, World};
use connsim::ConnectorError;
use connsim_scenarios::suites::{self, source_from_setup};
use example_connector::event::{Event, EventCodec, FeedMessage};
use example_connector::source::{FeedEmitter, FeedSource, FeedSourceSetup, FeedSplit, FeedSplitReader};

use super::{caught, feed};

/// How a feed source variant reads: a split reader or a reader around the reference's.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
enum ReadBug {
    /// The split reader resumes every paused split when told to resume one (Kafka's
    /// `consumer.resume(consumer.paused())`).
    ResumesAll,
    /// The reader passes resumes on to its reader base only when a checkpoint completes
    /// (batching the fetchers' commands per checkpoint): until then the split stays paused
    /// though alignment resumed it, and the group minimum waits on it.
    LazyResume,
    /// Not a bug: the reader passes resumes on at its next poll (a moment late).
    NextPoll,
}

/// The feed's split reader with [`ReadBug::ResumesAll`].
struct ResumesAll {
    inner: FeedSplitReader,
    paused: std::collections::BTreeSet<SplitId>,
}

impl SplitReader for ResumesAll {
    type Split = FeedSplit;
    type Element = (u64, FeedMessage);
    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, FeedMessage)>, ConnectorError> {
        self.inner.fetch().await
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<FeedSplit>) {
        match change {
            SplitsChange::PauseResume { pause, mut resume } => {
                if !resume.is_empty() {
                    resume.extend(std::mem::take(&mut self.paused)); // the bug
                }
                self.paused.extend(pause.iter().cloned());
                self.inner.handle_splits_changes(SplitsChange::PauseResume { pause, resume });
            }
            change => self.inner.handle_splits_changes(change),
        }
    }
}

/// The feed's reader with [`ReadBug::LazyResume`].
struct LazyResume {
    inner: SourceReaderBase<FeedSplitReader, FeedEmitter, Event>,
    resumes: Vec<SplitId>,
    /// Pass them on at the next poll rather than at the next completed checkpoint.
    next_poll: bool,
}

impl SourceReader<Event> for LazyResume {
    type Split = FeedSplit;
    fn poll_next(&mut self, output: &mut ReaderOutput<Event>) -> Result<InputStatus, ConnectorError> {
        if self.next_poll && !self.resumes.is_empty() {
            self.inner.pause_or_resume_splits(Vec::new(), std::mem::take(&mut self.resumes))?;
        }
        self.inner.poll_next(output)
    }
    async fn available(&mut self) {
        if !self.next_poll || self.resumes.is_empty() {
            self.inner.available().await
        }
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        self.inner.notify_checkpoint_complete(checkpoint);
        if !self.resumes.is_empty() {
            let _ = self.inner.pause_or_resume_splits(Vec::new(), std::mem::take(&mut self.resumes));
        }
    }
    fn add_splits(&mut self, splits: Vec<FeedSplit>) {
        self.inner.add_splits(splits)
    }
    fn notify_no_more_splits(&mut self) {
        self.inner.notify_no_more_splits()
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<FeedSplit> {
        self.inner.snapshot_state(checkpoint)
    }
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        self.resumes.retain(|s| !pause.contains(s));
        self.resumes.extend(resume); // the bug: resumed when the next checkpoint completes
        if pause.is_empty() {
            return Ok(());
        }
        self.inner.pause_or_resume_splits(pause, Vec::new())
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
}

/// The feed source read with a [`ReadBug`].
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct MisreadSource(FeedSource, ReadBug);

/// Either variant's reader.
enum MisreadReader {
    ResumesAll(SourceReaderBase<ResumesAll, FeedEmitter, Event>),
    LazyResume(LazyResume),
}

impl SourceReader<Event> for MisreadReader {
    type Split = FeedSplit;
    fn poll_next(&mut self, output: &mut ReaderOutput<Event>) -> Result<InputStatus, ConnectorError> {
        match self {
            MisreadReader::ResumesAll(r) => r.poll_next(output),
            MisreadReader::LazyResume(r) => r.poll_next(output),
        }
    }
    async fn available(&mut self) {
        match self {
            MisreadReader::ResumesAll(r) => r.available().await,
            MisreadReader::LazyResume(r) => r.available().await,
        }
    }
    fn add_splits(&mut self, splits: Vec<FeedSplit>) {
        match self {
            MisreadReader::ResumesAll(r) => r.add_splits(splits),
            MisreadReader::LazyResume(r) => r.add_splits(splits),
        }
    }
    fn notify_no_more_splits(&mut self) {
        match self {
            MisreadReader::ResumesAll(r) => r.notify_no_more_splits(),
            MisreadReader::LazyResume(r) => r.notify_no_more_splits(),
        }
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<FeedSplit> {
        match self {
            MisreadReader::ResumesAll(r) => r.snapshot_state(checkpoint),
            MisreadReader::LazyResume(r) => r.snapshot_state(checkpoint),
        }
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        match self {
            MisreadReader::ResumesAll(r) => r.notify_checkpoint_complete(checkpoint),
            MisreadReader::LazyResume(r) => r.notify_checkpoint_complete(checkpoint),
        }
    }
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        match self {
            MisreadReader::ResumesAll(r) => r.pause_or_resume_splits(pause, resume),
            MisreadReader::LazyResume(r) => r.pause_or_resume_splits(pause, resume),
        }
    }
    async fn close(&mut self) {
        match self {
            MisreadReader::ResumesAll(r) => r.close().await,
            MisreadReader::LazyResume(r) => r.close().await,
        }
    }
}

feed_source_variant!(MisreadSource, MisreadReader, |this, ctx| {
    match this.1 {
        ReadBug::ResumesAll => {
            let wrap = |inner| ResumesAll { inner, paused: Default::default() };
            MisreadReader::ResumesAll(this.0.reader_around(ctx, wrap, FeedEmitter::default()))
        }
        ReadBug::LazyResume | ReadBug::NextPoll => MisreadReader::LazyResume(LazyResume {
            inner: this.0.create_reader(ctx),
            resumes: Vec::new(),
            next_poll: matches!(this.1, ReadBug::NextPoll),
        }),
    }
});

struct MisreadSetup(FeedSourceSetup, ReadBug);

impl SourceSetup for MisreadSetup {
    type Source = ElementSource<MisreadSource, EventCodec>;
    fn name(&self) -> String {
        format!("{:?}({})", self.1, self.0.name())
    }
    fn build(&self, world: &mut World) -> Self::Source {
        ElementSource::new(MisreadSource(self.0.build(world).inner().clone(), self.1))
    }
    /// Its element type holds no null key or value, no headers, and text payloads only.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries::PLAIN
    }
}

#[test]
fn a_split_reader_that_resumes_every_paused_split_is_caught_by_the_default_alignment_case() {
    let suite =
        suites::source(source_from_setup("feed-source", &["feed"], |d| MisreadSetup(feed(d), ReadBug::ResumesAll)));
    let reference = suites::source(source_from_setup("feed-source", &["feed"], feed));
    let verdict = caught(suite.only("watermark alignment"), reference, "watermark-alignment");
    assert!(verdict.evidence.iter().any(|e| e.contains("from a fetch that began after the pause")), "{verdict:?}");
}

#[test]
fn a_reader_that_resumes_only_when_a_checkpoint_completes_is_caught_holding_a_split_paused_without_cause() {
    let suite =
        suites::source(source_from_setup("feed-source", &["feed"], |d| MisreadSetup(feed(d), ReadBug::LazyResume)));
    let reference = suites::source(source_from_setup("feed-source", &["feed"], feed));
    let verdict = caught(suite.only("watermark alignment"), reference, "watermark-alignment");
    assert!(
        verdict.evidence.iter().any(|e| e.contains("paused without cause: its reader held it paused")),
        "{verdict:?}"
    );
}

#[test]
fn a_reader_that_passes_a_resume_on_at_its_next_poll_is_not_taken_for_pausing_without_cause() {
    let suite =
        suites::source(source_from_setup("feed-source", &["feed"], |d| MisreadSetup(feed(d), ReadBug::NextPoll)));
    let outcome = suite.only("watermark alignment").seeds(10).run();
    assert!(outcome.failed_cases().is_empty(), "{outcome}");
}
