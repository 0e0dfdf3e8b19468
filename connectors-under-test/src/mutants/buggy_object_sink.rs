//! Mutants of the object-store sink ([`crate::object_sink`]), one bug each, as object-store
//! sinks have shipped them.
//!
//! - [`ObjectBug::CompletesAtBarrier`]: the writer completes its uploads when the barrier
//!   comes (as a rolling writer that "closes" its file there would), not when the checkpoint
//!   completes: a file is visible before its checkpoint is, and stays visible if the
//!   checkpoint never completes. Caught by `no-premature-visibility`.
//! - [`ObjectBug::ForgetsParts`]: the writer's state names the open upload but not its parts
//!   (a state class that keeps the upload id and rebuilds the part list "from the store"):
//!   a restore completes the file without the parts that went up before the barrier.
//!   Caught by `no-loss`, only after a restore of a file a part of which went up.
//! - [`ObjectBug::AbortsOnClose`]: a writer that closes aborts its open upload, even one a
//!   snapshot recorded (tidy cleanup in `close`): a failover cancels the writer, and the
//!   restored attempt finds the upload it must complete gone. Caught by `no-loss`, only
//!   when a failover cancels (not crashes) a writer with a recorded upload.
//! - [`ObjectBug::FailsOnItsOwnPut`]: the committer writes a small file with `PutMode::Create`
//!   and takes "already exists" for a failure: when the first attempt's answer was lost (or
//!   S3 answered 500 after applying it and the client retried), every later attempt fails
//!   the job, forever. Caught by `liveness`.
//! - [`ObjectBug::RenamesTailUnconfirmed`]: the committer makes a recovered file's tail
//!   visible by "renaming" it, as on a file system: S3 has no rename, so it copies the
//!   hidden tail to its visible name and deletes the hidden one, and sends both requests
//!   at once to save a round trip, the delete not waiting for the copy's answer. The copy
//!   is applied first unless it fails: a throttled (`503`), failed (`500` not applied) or
//!   lost copy is retried by the client after the delete, finds no tail, and the tail's
//!   records are lost. Caught by `no-loss`, only when a copy of a restored file's tail
//!   fails.
//! - [`ObjectBug::TakesGoneUploadsForCompleted`]: the committer takes `NoSuchUpload` on a
//!   completion for "an earlier attempt completed it" and reports the commit done, without
//!   looking for the object. True after a lost answer; false when a lifecycle rule aborted
//!   the upload first: its records are gone and the sink claims they are committed. Caught
//!   by `no-loss` (a silent loss) in "uploads expire before their checkpoint's commit",
//!   where the reference declares the same loss and passes.
//! - [`ObjectBug::DefersCompletions`]: the committer holds each completion back 300 ms after
//!   it first sees it, to complete uploads in batches (fewer requests), answering "retry
//!   later" meanwhile. Correct, if slow, until a lifecycle rule aborts uploads sooner: then
//!   the uploads of completed checkpoints expire in its hands, and it declares their loss
//!   honestly, a loss it made itself. Caught by `declared-loss` in "incomplete uploads
//!   expire while a writer is down", where nothing makes a loss unavoidable.
//! - [`ObjectBug::LeavesUploadOnClose`]: a writer that closes drops its open upload when no
//!   snapshot recorded it, instead of aborting it: nothing can complete it any more, and
//!   every cancelled attempt leaves one behind, billed for its parts (on S3 until a
//!   lifecycle rule, if the bucket has one, removes it). Caught by `left-behind` where a
//!   failover cancels a writer between two barriers with an upload open.

use crate::object_sink::{ObjectCommitter, ObjectSink, ObjectSinkSetup, ObjectWriter, PartFile, WriterState};
use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::{ConnectorError, Record};
use object_store::multipart::{MultipartStore, PartId};
use object_store::path::Path;
use object_store::ObjectStoreExt;
use serde::{Deserialize, Serialize};

/// Which bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ObjectBug {
    /// Completes uploads at the barrier.
    CompletesAtBarrier,
    /// Records the open upload without its parts.
    ForgetsParts,
    /// Aborts a recorded upload on close.
    AbortsOnClose,
    /// Fails on "already exists" from its own conditional put.
    FailsOnItsOwnPut,
    /// Renames a recovered tail by copy and delete, the delete not waiting for the copy.
    RenamesTailUnconfirmed,
    /// Takes an upload gone at completion for one completed before.
    TakesGoneUploadsForCompleted,
    /// Holds each completion back 300 ms to batch them.
    DefersCompletions,
    /// Closes without aborting the upload no snapshot recorded: every cancelled attempt
    /// leaves an incomplete upload, its parts billed until a lifecycle rule (if the bucket
    /// has one) removes them.
    LeavesUploadOnClose,
}

/// The object sink with one bug.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BuggyObjectSink {
    sink: ObjectSink,
    bug: ObjectBug,
}

/// Its writer.
pub struct BuggyObjectWriter {
    inner: ObjectWriter,
    bug: ObjectBug,
}

impl SinkWriter for BuggyObjectWriter {
    type Committable = PartFile;
    type State = WriterState;

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.inner.write(record).await
    }

    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        self.inner.flush(end_of_input).await
    }

    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<PartFile>, ConnectorError> {
        let files = self.inner.prepare_commit(checkpoint).await?;
        if self.bug == ObjectBug::CompletesAtBarrier {
            let committer = ObjectCommitter { store: self.inner.store.clone() };
            for f in &files {
                committer.commit_one(f).await;
            }
        }
        Ok(files)
    }

    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<WriterState> {
        let mut states = self.inner.snapshot_state(checkpoint);
        if self.bug == ObjectBug::ForgetsParts {
            for f in states.iter_mut().filter_map(|s| s.file.as_mut()) {
                f.parts.clear();
                f.bytes = 0;
            }
        }
        states
    }

    async fn close(&mut self) {
        if self.bug == ObjectBug::AbortsOnClose {
            if let Some(open) = self.inner.open.take() {
                if let Some(upload) = &open.file.upload {
                    let _ = self.inner.store.abort_multipart(&Path::from(open.file.key.as_str()), upload).await;
                }
            }
        }
        if self.bug == ObjectBug::LeavesUploadOnClose {
            self.inner.open = None; // the bug: dropped, not aborted
        }
        self.inner.close().await
    }
}

/// Its committer.
pub struct BuggyObjectCommitter {
    inner: ObjectCommitter,
    bug: ObjectBug,
    /// When each upload's completion was first asked for ([`ObjectBug::DefersCompletions`]).
    first_asked: std::collections::BTreeMap<String, connsim::time::Instant>,
}

/// How long [`ObjectBug::DefersCompletions`] holds a completion back.
const DEFERRED: std::time::Duration = std::time::Duration::from_millis(300);

impl BuggyObjectCommitter {
    async fn commit_one(&self, file: &PartFile) -> CommitOutcome {
        match (self.bug, file) {
            (ObjectBug::FailsOnItsOwnPut, PartFile::Small { key, .. }) => match self.inner.commit_one(file).await {
                CommitOutcome::AlreadyCommitted => CommitOutcome::FailedUnknown(format!("{key} already exists")),
                other => other,
            },
            (ObjectBug::RenamesTailUnconfirmed, PartFile::Recovered(f)) => {
                if let Err(outcome) = self.inner.complete_recorded(f).await {
                    return outcome;
                }
                let Some(tail) = &f.tail else { return CommitOutcome::Committed };
                let delete = async {
                    let _ = self.inner.store.delete(&Path::from(tail.as_str())).await;
                };
                // The copy's request goes out first, then the delete's, at once.
                futures::join!(self.inner.publish_tail(f), delete).0
            }
            (ObjectBug::TakesGoneUploadsForCompleted, PartFile::Upload { upload, parts, .. }) => {
                let ids = parts.iter().map(|p| PartId { content_id: p.clone() }).collect();
                let path = Path::from(file.key());
                match self.inner.store.complete_multipart(&path, upload, ids).await {
                    Ok(_) => CommitOutcome::Committed,
                    // The bug: gone means completed, without a look for the object.
                    Err(object_store::Error::NotFound { .. }) => CommitOutcome::AlreadyCommitted,
                    Err(_) => CommitOutcome::RetryLater,
                }
            }
            _ => self.inner.commit_one(file).await,
        }
    }
}

impl Committer for BuggyObjectCommitter {
    type Committable = PartFile;
    async fn commit(&mut self, requests: Vec<CommitRequest<PartFile>>) -> Vec<CommitOutcome> {
        let mut out = Vec::with_capacity(requests.len());
        for r in requests {
            if let (ObjectBug::DefersCompletions, PartFile::Upload { upload, .. }) = (self.bug, &r.committable) {
                let now = connsim::time::Instant::now();
                // The bug: a completion waits for its batch, whatever the bucket's rules.
                if now.duration_since(*self.first_asked.entry(upload.clone()).or_insert(now)) < DEFERRED {
                    out.push(CommitOutcome::RetryLater);
                    continue;
                }
            }
            out.push(self.commit_one(&r.committable).await);
        }
        out
    }
}

impl Sink for BuggyObjectSink {
    type Committable = PartFile;
    type WriterState = WriterState;
    type Writer = BuggyObjectWriter;
    type Committer = BuggyObjectCommitter;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;

    async fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<WriterState>,
    ) -> Result<BuggyObjectWriter, ConnectorError> {
        Ok(BuggyObjectWriter { inner: self.sink.create_writer(ctx, restored).await?, bug: self.bug })
    }

    fn create_committer(&self, ctx: CommitterContext) -> BuggyObjectCommitter {
        BuggyObjectCommitter { inner: self.sink.create_committer(ctx), bug: self.bug, first_asked: Default::default() }
    }
}

/// Sets the object sink up with `bug`.
#[derive(Clone, Debug)]
pub struct BuggyObjectSinkSetup(pub ObjectBug);

impl SinkSetup for BuggyObjectSinkSetup {
    type Sink = BuggyObjectSink;
    fn name(&self) -> String {
        format!("object-sink({:?})", self.0)
    }
    fn build(&self, world: &mut World) -> BuggyObjectSink {
        BuggyObjectSink { sink: ObjectSinkSetup::default().build(world), bug: self.0 }
    }
}
