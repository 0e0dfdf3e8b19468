//! The file sink with one bug plugged in: each file-sink mutant is a [`FileBug`] that
//! overrides one step of the writer or the committer.

use crate::file_sink::{FileCommittable, FileCommitter, FileSink, FileSinkSetup, FileWriter};
use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::FsClient;
use connsim::{ConnectorError, Record};
use std::fmt::Debug;
use std::future::Future;

/// One bug in the file sink. Every method defaults to the reference behaviour.
pub trait FileBug: Clone + Debug + Send + Sync + serde::Serialize + serde::de::DeserializeOwned + 'static {
    /// Name for reports.
    const NAME: &'static str;
    /// Commits one committable for the committer of `attempt`.
    fn commit(
        &self,
        client: &FsClient,
        attempt: u64,
        subtask: usize,
        c: &FileCommittable,
    ) -> impl Future<Output = CommitOutcome> + Send {
        let _ = (attempt, subtask);
        FileCommitter::commit_one(client, c)
    }
    /// Commits one committable that was not recovered, tried `retries` times before by this
    /// committer; defaults to [`FileBug::commit`].
    fn commit_try(
        &self,
        client: &FsClient,
        attempt: u64,
        subtask: usize,
        c: &FileCommittable,
        retries: u32,
    ) -> impl Future<Output = CommitOutcome> + Send {
        let _ = retries;
        self.commit(client, attempt, subtask, c)
    }
    /// Commits one committable the committer of `attempt` recovered (its checkpoint is the
    /// restored one or older); defaults to [`FileBug::commit`].
    fn commit_recovered(
        &self,
        client: &FsClient,
        attempt: u64,
        subtask: usize,
        c: &FileCommittable,
    ) -> impl Future<Output = CommitOutcome> + Send {
        self.commit(client, attempt, subtask, c)
    }
    /// The writer takes a record.
    fn write(&self, w: &mut FileWriter, record: Record) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        w.write(record)
    }
    /// The writer flushes; `end_of_input` after the last record.
    fn flush(&self, w: &mut FileWriter, end_of_input: bool) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        w.flush(end_of_input)
    }
    /// The writer closes its file as a committable on the barrier; `ended`: the input has
    /// ended (this is the final checkpoint).
    fn prepare_commit(
        &self,
        w: &mut FileWriter,
        ended: bool,
    ) -> impl Future<Output = Result<Vec<FileCommittable>, ConnectorError>> + Send {
        let _ = ended;
        w.roll(true)
    }
    /// Runs when a writer of `attempt` starts from a restored checkpoint, before it writes
    /// (the reference does nothing); `in_progress`: where in-progress files go.
    fn on_restore(
        &self,
        client: &FsClient,
        subtask: usize,
        attempt: u64,
        in_progress: &str,
    ) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        let _ = (client, subtask, attempt, in_progress);
        async { Ok(()) }
    }
    /// Where in-progress files go (default: the reference sink's hidden directory).
    fn in_progress(&self, sink: &FileSink) -> String {
        sink.in_progress.clone()
    }
}

/// The writer with the bug.
pub struct BuggyFileWriter<B> {
    inner: FileWriter,
    bug: B,
    ended: bool,
}

impl<B: FileBug> SinkWriter for BuggyFileWriter<B> {
    type Committable = FileCommittable;
    type State = ();
    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.bug.clone().write(&mut self.inner, record).await
    }
    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        self.ended |= end_of_input;
        self.bug.clone().flush(&mut self.inner, end_of_input).await
    }
    async fn prepare_commit(&mut self, _checkpoint: CheckpointId) -> Result<Vec<FileCommittable>, ConnectorError> {
        self.bug.clone().prepare_commit(&mut self.inner, self.ended).await
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
}

/// The committer with the bug.
pub struct BuggyFileCommitter<B> {
    client: FsClient,
    attempt: u64,
    subtask: usize,
    restored: CheckpointId,
    bug: B,
}

impl<B: FileBug> Committer for BuggyFileCommitter<B> {
    type Committable = FileCommittable;
    async fn commit(&mut self, requests: Vec<CommitRequest<FileCommittable>>) -> Vec<CommitOutcome> {
        let mut out = Vec::new();
        for r in requests {
            let (client, attempt, subtask, c) = (&self.client, self.attempt, self.subtask, &r.committable);
            out.push(if r.checkpoint <= self.restored {
                self.bug.commit_recovered(client, attempt, subtask, c).await
            } else {
                self.bug.commit_try(client, attempt, subtask, c, r.retries).await
            });
        }
        out
    }
}

/// The file sink with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BuggyFileSink<B> {
    inner: FileSink,
    bug: B,
}

impl<B: FileBug> Sink for BuggyFileSink<B> {
    type Committable = FileCommittable;
    type WriterState = ();
    type Writer = BuggyFileWriter<B>;
    type Committer = BuggyFileCommitter<B>;
    type GlobalCommitter = NoGlobalCommitter<FileCommittable>;
    async fn create_writer(&self, ctx: WriterContext, restored: Vec<()>) -> Result<Self::Writer, ConnectorError> {
        if ctx.restored_checkpoint() > 0 {
            let client = FsClient::new(ctx.endpoint().clone(), &self.inner.fs);
            self.bug.on_restore(&client, ctx.subtask(), ctx.attempt(), &self.inner.in_progress).await?;
        }
        let inner = self.inner.create_writer(ctx, restored).await?;
        Ok(BuggyFileWriter { inner, bug: self.bug.clone(), ended: false })
    }
    fn create_committer(&self, ctx: CommitterContext) -> Self::Committer {
        let client = FsClient::new(ctx.endpoint().clone(), &self.inner.fs);
        BuggyFileCommitter {
            client,
            attempt: ctx.attempt(),
            subtask: ctx.subtask(),
            restored: ctx.restored_checkpoint(),
            bug: self.bug.clone(),
        }
    }
}

/// Sets up the buggy sink like [`FileSinkSetup`].
#[derive(Clone, Debug, Default)]
pub struct BuggyFileSinkSetup<B>(pub B);

impl<B: FileBug> SinkSetup for BuggyFileSinkSetup<B> {
    type Sink = BuggyFileSink<B>;
    fn name(&self) -> String {
        format!("mutant:{}(file-sink)", B::NAME)
    }
    fn build(&self, world: &mut World) -> BuggyFileSink<B> {
        let mut inner = FileSinkSetup.build(world);
        inner.in_progress = self.0.in_progress(&inner);
        BuggyFileSink { inner, bug: self.0.clone() }
    }
}
