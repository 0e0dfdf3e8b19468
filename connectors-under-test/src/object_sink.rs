//! The exactly-once object-store sink, on object_store's API, in the shape of Flink's S3
//! recoverable writer with a roll-on-checkpoint policy (the policy of Flink's bulk formats).
//!
//! - Each writer writes part files named by job, subtask, attempt and number
//!   (`out/part-<job>-<subtask>-<attempt>-<n>`): no two writers, attempts or jobs share a
//!   name, so a zombie never writes where its replacement does.
//! - A part file is a multipart upload: a part goes up as soon as a part's worth of data is
//!   buffered ([`ObjectSink::part_size`], at least the bucket's minimum), the rest at the
//!   barrier as the last part. The upload id and the parts' ETags are the committable; the
//!   object stays invisible.
//! - A file too small for one whole part never starts an upload: its bytes are the
//!   committable, and the commit writes it in one conditional put (`PutMode::Create`).
//! - The committer completes the upload when the checkpoint completes. Completing is
//!   idempotent on recovery: an upload that is gone (`404`) whose object is there was
//!   completed before; an object that already exists was put before.
//! - A writer that closes (cancelled in a failover, or finished) aborts the upload it has
//!   open; what a crashed writer leaves, only a lifecycle rule removes.

use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{Bucket, ExternalSystem, Setting, SettingEnv};
use connsim::{ConnectorError, Record};
use connsim_object_store::SimulatedS3;
use object_store::multipart::{MultipartStore, PartId};
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutMode};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What a commit makes visible: one part file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartFile {
    /// A file smaller than one part: its bytes, put whole on commit.
    Small {
        /// Its key.
        key: String,
        /// Its bytes.
        #[serde(with = "connsim::bytes")]
        bytes: Vec<u8>,
    },
    /// A multipart upload, completed on commit.
    Upload {
        /// Its key.
        key: String,
        /// The upload id.
        upload: String,
        /// The parts' ETags, in order.
        parts: Vec<String>,
    },
}

impl PartFile {
    /// The file's key.
    pub fn key(&self) -> &str {
        match self {
            PartFile::Small { key, .. } | PartFile::Upload { key, .. } => key,
        }
    }
}

/// The object-store sink.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ObjectSink {
    /// The bucket's node.
    pub bucket: String,
    /// The visible directory, ending in `/`.
    pub dir: String,
    /// Bytes buffered before a part goes up: at least the bucket's minimum part size.
    pub part_size: usize,
}

impl ObjectSink {
    /// The store, as object_store's traits (an `AmazonS3` in production).
    pub fn store(&self) -> Arc<SimulatedS3> {
        Arc::new(SimulatedS3::new(&self.bucket))
    }
}

/// The part file a writer is filling.
#[derive(Debug, Default)]
pub struct OpenFile {
    /// Its key.
    pub key: String,
    /// Its upload, once a part went up.
    pub upload: Option<String>,
    /// The parts that went up.
    pub parts: Vec<PartId>,
}

/// The writer.
pub struct ObjectWriter {
    /// The store.
    pub store: Arc<SimulatedS3>,
    /// The sink.
    pub sink: ObjectSink,
    name: String,
    /// Data not uploaded yet.
    pub buffer: Vec<u8>,
    /// The file being filled.
    pub file: Option<OpenFile>,
    next: u64,
}

/// An object_store error as the task's failure (the task restarts from the last checkpoint).
pub fn failed(what: &str, e: object_store::Error) -> ConnectorError {
    ConnectorError::fail_task(format!("{what}: {e}"))
}

impl ObjectWriter {
    /// The file being filled, opened if none is.
    fn open(&mut self) -> &mut OpenFile {
        if self.file.is_none() {
            let key = format!("{}part-{}-{}", self.sink.dir, self.name, self.next);
            self.next += 1;
            self.file = Some(OpenFile { key, ..OpenFile::default() });
        }
        self.file.as_mut().expect("opened above")
    }

    /// Uploads the buffer as the next part of the open file, starting its upload if need be.
    pub async fn upload_part(&mut self) -> Result<(), ConnectorError> {
        let store = self.store.clone();
        let data = std::mem::take(&mut self.buffer);
        let file = self.open();
        let path = Path::from(file.key.as_str());
        if file.upload.is_none() {
            file.upload = Some(store.create_multipart(&path).await.map_err(|e| failed("starting an upload", e))?);
        }
        let upload = file.upload.clone().expect("started above");
        let part = store.put_part(&path, &upload, file.parts.len(), data.into()).await;
        file.parts.push(part.map_err(|e| failed("uploading a part", e))?);
        Ok(())
    }

    /// Closes the open file (and the buffer) as a committable.
    pub async fn roll(&mut self) -> Result<Option<PartFile>, ConnectorError> {
        if self.buffer.is_empty() && self.file.is_none() {
            return Ok(None);
        }
        let started = self.file.as_ref().is_some_and(|f| f.upload.is_some());
        if started && !self.buffer.is_empty() {
            self.upload_part().await?;
        }
        let file = self.open();
        let committable = match file.upload.clone() {
            Some(upload) => PartFile::Upload {
                key: file.key.clone(),
                upload,
                parts: file.parts.iter().map(|p| p.content_id.clone()).collect(),
            },
            None => PartFile::Small { key: file.key.clone(), bytes: std::mem::take(&mut self.buffer) },
        };
        self.file = None;
        Ok(Some(committable))
    }
}

impl SinkWriter for ObjectWriter {
    type Committable = PartFile;
    type State = ();

    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        record.encode_line_into(&mut self.buffer);
        if self.buffer.len() >= self.sink.part_size {
            Box::pin(self.upload_part()).await?;
        }
        Ok(())
    }

    /// Data stays buffered until a part is full or the barrier comes.
    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        Ok(())
    }

    async fn prepare_commit(&mut self, _checkpoint: CheckpointId) -> Result<Vec<PartFile>, ConnectorError> {
        Ok(self.roll().await?.into_iter().collect())
    }

    /// Aborts the open upload, best effort: nothing will complete it.
    async fn close(&mut self) {
        if let Some(OpenFile { key, upload: Some(upload), .. }) = self.file.take() {
            let _ = self.store.abort_multipart(&Path::from(key.as_str()), &upload).await;
        }
    }
}

/// The committer.
pub struct ObjectCommitter {
    /// The store.
    pub store: Arc<SimulatedS3>,
}

impl ObjectCommitter {
    /// Makes one part file visible, or recognises that it was.
    pub async fn commit_one(&self, file: &PartFile) -> CommitOutcome {
        let path = Path::from(file.key());
        match file {
            PartFile::Small { bytes, .. } => {
                match self.store.put_opts(&path, bytes.clone().into(), PutMode::Create.into()).await {
                    Ok(_) => CommitOutcome::Committed,
                    // Only this file is ever put at its key.
                    Err(object_store::Error::AlreadyExists { .. }) => CommitOutcome::AlreadyCommitted,
                    Err(_) => CommitOutcome::RetryLater,
                }
            }
            PartFile::Upload { upload, parts, .. } => {
                let ids = parts.iter().map(|p| PartId { content_id: p.clone() }).collect();
                match self.store.complete_multipart(&path, upload, ids).await {
                    Ok(_) => CommitOutcome::Committed,
                    Err(object_store::Error::NotFound { .. }) => self.completed_before(&path, upload).await,
                    Err(_) => CommitOutcome::RetryLater,
                }
            }
        }
    }

    /// The upload is gone: completed before if its object is there (only it writes the key).
    pub async fn completed_before(&self, path: &Path, upload: &str) -> CommitOutcome {
        match self.store.head(path).await {
            Ok(_) => CommitOutcome::AlreadyCommitted,
            Err(object_store::Error::NotFound { .. }) => {
                CommitOutcome::FailedKnown(format!("upload {upload} of {path} is gone and its object is not there"))
            }
            Err(_) => CommitOutcome::RetryLater,
        }
    }
}

impl Committer for ObjectCommitter {
    type Committable = PartFile;
    async fn commit(&mut self, requests: Vec<CommitRequest<PartFile>>) -> Vec<CommitOutcome> {
        let mut out = Vec::with_capacity(requests.len());
        for r in requests {
            out.push(self.commit_one(&r.committable).await);
        }
        out
    }
}

impl Sink for ObjectSink {
    type Committable = PartFile;
    type WriterState = ();
    type Writer = ObjectWriter;
    type Committer = ObjectCommitter;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;

    async fn create_writer(&self, ctx: WriterContext, _restored: Vec<()>) -> Result<ObjectWriter, ConnectorError> {
        let name = format!("{}-{}-{}", ctx.job_id(), ctx.subtask(), ctx.attempt());
        Ok(ObjectWriter { store: self.store(), sink: self.clone(), name, buffer: Vec::new(), file: None, next: 0 })
    }

    fn create_committer(&self, _ctx: CommitterContext) -> ObjectCommitter {
        ObjectCommitter { store: self.store() }
    }
}

/// Sets up a bucket `s3` whose `out/` prefix is the visible output, its minimum part size
/// the sink's part size (a test's data fills many parts).
#[derive(Clone, Debug)]
pub struct ObjectSinkSetup {
    /// The sink's part size and the bucket's minimum.
    pub part_size: usize,
}

impl Default for ObjectSinkSetup {
    fn default() -> Self {
        Self { part_size: 256 }
    }
}

impl SinkSetup for ObjectSinkSetup {
    type Sink = ObjectSink;
    fn name(&self) -> String {
        "object-sink".into()
    }
    fn build(&self, world: &mut World) -> ObjectSink {
        let bucket = Bucket::new("s3", "out/", world.history().clone());
        let env = SettingEnv { seed: 0, history: world.history().clone() };
        bucket.configure(&Setting::MinPartSize(self.part_size as u64), &env).expect("a bucket has a minimum part size");
        world.set_output(bucket.output());
        world.add_system(Arc::new(bucket));
        ObjectSink { bucket: "s3".into(), dir: "out/".into(), part_size: self.part_size }
    }
}
