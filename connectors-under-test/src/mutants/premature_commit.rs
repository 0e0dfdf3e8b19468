//! **Premature commit**: the sink makes data visible inside `prepare_commit`, before the
//! checkpoint completes.
//!
//! Story: Iceberg's Flink sink once committed data files before the checkpoint that covered
//! them was complete (apache/iceberg issue #10765, fixed in PR #10526). After a failure the
//! job restarts from the previous checkpoint and writes the same records again: duplicates.
//!
//! Caught by: `no-premature-visibility` (a record visible while no completed checkpoint
//! covers it) on every seed, and `no-duplicates` when a failure hits between prepare and
//! completion. Pinned seed: 1.

use crate::file_sink::{FileCommittable, FileCommitter, FileSink, FileSinkSetup, FileWriter};
use connsim::api::{CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::FsClient;
use connsim::{ConnectorError, Record};

/// The file sink, with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PrematureCommitSink(pub FileSink);

/// A file writer that commits its own files on the barrier.
pub struct PrematureCommitWriter {
    inner: FileWriter,
    client: FsClient,
}

impl SinkWriter for PrematureCommitWriter {
    type Committable = FileCommittable;
    type State = ();
    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.inner.write(record).await
    }
    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        self.inner.flush(end_of_input).await
    }
    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<FileCommittable>, ConnectorError> {
        let committables = self.inner.prepare_commit(checkpoint).await?;
        for c in &committables {
            // The bug: visible now, although checkpoint `checkpoint` may never complete.
            FileCommitter::commit_one(&self.client, c).await;
        }
        Ok(committables)
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
}

impl Sink for PrematureCommitSink {
    type Committable = FileCommittable;
    type WriterState = ();
    type Writer = PrematureCommitWriter;
    type Committer = FileCommitter;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;
    async fn create_writer(&self, ctx: WriterContext, restored: Vec<()>) -> Result<Self::Writer, ConnectorError> {
        let client = FsClient::new(ctx.endpoint().clone(), &self.0.fs);
        Ok(PrematureCommitWriter { inner: self.0.create_writer(ctx, restored).await?, client })
    }
    fn create_committer(&self, ctx: CommitterContext) -> FileCommitter {
        self.0.create_committer(ctx)
    }
}

/// Sets up the buggy sink like [`FileSinkSetup`].
#[derive(Clone, Debug, Default)]
pub struct PrematureCommitSetup;

impl SinkSetup for PrematureCommitSetup {
    type Sink = PrematureCommitSink;
    fn name(&self) -> String {
        "mutant:premature-commit".into()
    }
    fn build(&self, world: &mut World) -> PrematureCommitSink {
        PrematureCommitSink(FileSinkSetup.build(world))
    }
}
