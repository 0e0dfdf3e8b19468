//! An exactly-once file sink: records go to a hidden in-progress file; on the barrier the file
//! is synced and becomes a committable; the commit renames it into the visible directory.
//! Renaming is atomic and refuses an existing target, which makes recovery idempotent.

use crate::retry::idempotent;
use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{FileSystem, FsClient, FsError, FsRequest, FsResponse};
use connsim::{ConnectorError, Record};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Records buffered before an append.
pub(crate) const BUFFER_RECORDS: usize = 32;
/// Tries of an idempotent file-system call before the task fails.
const TRIES: u32 = 20;

/// A pending file: synced in `tmp`, to be renamed to `dst`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCommittable {
    /// The hidden in-progress path.
    pub tmp: String,
    /// The visible path.
    pub dst: String,
}

/// The file sink.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FileSink {
    /// Node name of the file system.
    pub fs: String,
    /// Visible directory, ending in `/`.
    pub dir: String,
    /// Where in-progress files are written: a hidden directory (a `.` name) inside the
    /// visible one, so a downstream reader never sees them.
    pub in_progress: String,
}

/// Its writer.
pub struct FileWriter {
    ctx: WriterContext,
    pub(crate) client: FsClient,
    dir: String,
    pub(crate) in_progress: String,
    pub(crate) buffer: Vec<u8>,
    pub(crate) buffered: usize,
    /// The open in-progress file and its length.
    pub(crate) file: Option<(String, u64)>,
    part: u64,
}

pub(crate) async fn call(client: &FsClient, req: FsRequest) -> Result<Result<FsResponse, FsError>, ConnectorError> {
    idempotent(TRIES, || client.request(req.clone())).await
}

pub(crate) fn refused(e: FsError) -> ConnectorError {
    ConnectorError::fail_task(format!("file system refused: {e:?}"))
}

impl FileWriter {
    pub(crate) fn name(&self) -> String {
        format!("part-{}-{}-{}", self.ctx.subtask(), self.ctx.attempt(), self.part)
    }

    async fn write_buffer(&mut self) -> Result<(), ConnectorError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        if self.file.is_none() {
            let tmp = format!("{}{}", self.in_progress, self.name());
            call(&self.client, FsRequest::Create { path: tmp.clone() }).await?.map_err(refused)?;
            self.file = Some((tmp, 0));
        }
        let (path, len) = self.file.clone().expect("opened above");
        // The next buffer starts as large as this one grew, rather than growing again.
        let room = self.buffer.capacity();
        let bytes = std::mem::replace(&mut self.buffer, Vec::with_capacity(room));
        let n = bytes.len() as u64;
        call(&self.client, FsRequest::Append { path, at: len, bytes }).await?.map_err(refused)?;
        self.file.as_mut().expect("opened above").1 += n;
        self.buffered = 0;
        Ok(())
    }
}

impl FileWriter {
    /// Closes the open file as a committable; `sync`: make its bytes durable first.
    pub(crate) async fn roll(&mut self, sync: bool) -> Result<Vec<FileCommittable>, ConnectorError> {
        self.write_buffer().await?;
        let Some((tmp, len)) = self.file.take() else { return Ok(vec![]) };
        if sync {
            // The length check catches appends the file system lost in a crash.
            call(&self.client, FsRequest::Sync { path: tmp.clone(), len }).await?.map_err(refused)?;
        }
        let dst = format!("{}{}", self.dir, self.name());
        self.part += 1;
        Ok(vec![FileCommittable { tmp, dst }])
    }
}

impl SinkWriter for FileWriter {
    type Committable = FileCommittable;
    type State = ();

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        record.encode_line_into(&mut self.buffer);
        self.buffered += 1;
        if self.buffered >= BUFFER_RECORDS {
            // Boxed: the append's future is large, and without the box every record's write
            // future would carry (and the erased writer copy) room for it.
            Box::pin(self.write_buffer()).await?;
        }
        Ok(())
    }

    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        self.write_buffer().await
    }

    async fn prepare_commit(&mut self, _checkpoint: CheckpointId) -> Result<Vec<FileCommittable>, ConnectorError> {
        self.roll(true).await
    }
}

/// Its committer.
pub struct FileCommitter {
    client: FsClient,
}

impl FileCommitter {
    /// Commits one file: rename, or recognise that an earlier rename took effect.
    pub async fn commit_one(client: &FsClient, c: &FileCommittable) -> CommitOutcome {
        let rename = FsRequest::Rename { from: c.tmp.clone(), to: c.dst.clone() };
        match client.request(rename).await {
            Err(_) => CommitOutcome::RetryLater,
            Ok(Ok(_)) => CommitOutcome::Committed,
            Ok(Err(FsError::AlreadyExists(_))) => CommitOutcome::AlreadyCommitted,
            Ok(Err(FsError::NotFound(_))) => match client.request(FsRequest::List { prefix: c.dst.clone() }).await {
                Ok(Ok(FsResponse::Listing(paths))) if paths.contains(&c.dst) => CommitOutcome::AlreadyCommitted,
                Ok(Ok(_)) => CommitOutcome::FailedKnown(format!("{} and {} are both missing", c.tmp, c.dst)),
                _ => CommitOutcome::RetryLater,
            },
            Ok(Err(e)) => CommitOutcome::FailedUnknown(format!("{e:?}")),
        }
    }
}

impl Committer for FileCommitter {
    type Committable = FileCommittable;
    async fn commit(&mut self, requests: Vec<CommitRequest<FileCommittable>>) -> Vec<CommitOutcome> {
        let mut out = Vec::new();
        for r in requests {
            out.push(Self::commit_one(&self.client, &r.committable).await);
        }
        out
    }
}

impl Sink for FileSink {
    type Committable = FileCommittable;
    type WriterState = ();
    type Writer = FileWriter;
    type Committer = FileCommitter;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;

    async fn create_writer(&self, ctx: WriterContext, _restored: Vec<()>) -> Result<FileWriter, ConnectorError> {
        let client = FsClient::new(ctx.endpoint().clone(), &self.fs);
        let (dir, in_progress) = (self.dir.clone(), self.in_progress.clone());
        Ok(FileWriter { ctx, client, dir, in_progress, buffer: Vec::new(), buffered: 0, file: None, part: 0 })
    }

    fn create_committer(&self, ctx: CommitterContext) -> FileCommitter {
        FileCommitter { client: FsClient::new(ctx.endpoint().clone(), &self.fs) }
    }
}

/// Sets up a file system `fs` whose `out/` directory is the visible output.
#[derive(Clone, Debug, Default)]
pub struct FileSinkSetup;

impl SinkSetup for FileSinkSetup {
    type Sink = FileSink;
    fn name(&self) -> String {
        "file-sink".into()
    }
    fn build(&self, world: &mut World) -> FileSink {
        let fs = FileSystem::new("fs", "out/");
        world.set_output(fs.output());
        world.add_system(Arc::new(fs));
        FileSink { fs: "fs".into(), dir: "out/".into(), in_progress: "out/.inprogress/".into() }
    }
}
