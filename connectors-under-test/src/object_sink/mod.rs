//! The exactly-once object-store sink, on object_store's API, in the shape of Flink's S3
//! recoverable writer.
//!
//! - Each writer writes part files named by job, subtask, attempt and number
//!   (`out/part-<job>-<subtask>-<attempt>-<n>`): no two writers, attempts or jobs start a
//!   file under the same name.
//! - A part file is a multipart upload: once [`ObjectSink::part_size`] bytes (at least the
//!   bucket's minimum) are buffered, they go up as a part when the next record comes. Parts
//!   hold whole records. The object stays
//!   invisible until the upload completes.
//! - A file spans checkpoints: at a barrier the writer's state records the open file (its
//!   upload id and its parts' ETags), and what is buffered and not uploaded goes to a hidden
//!   tail object (Flink's "incomplete part object") the state names. A file is rolled at
//!   the first barrier that finds [`ObjectSink::parts_per_file`] parts in it or comes
//!   [`ObjectSink::rollover_ms`] after it was opened, and at the end of the input: what is
//!   buffered goes up as its last part, and the upload id with every part's ETag is the
//!   committable.
//! - A file too small for one whole part never starts an upload: its bytes are the
//!   committable, and the commit writes it in one conditional put (`PutMode::Create`).
//! - A writer restored from a checkpoint commits the files that checkpoint recorded: each
//!   upload completed with the parts recorded (parts a crashed or zombie attempt uploaded
//!   later are left out; part numbers are positions, so no attempt may add to an upload it
//!   did not start), its tail object copied beside it (`<key>-tail`). If the upload is gone
//!   and the file is bigger than its recorded parts, a later attempt rolled it with the tail
//!   inside (a new job from an older savepoint).
//! - The committer completes an upload when its checkpoint completes. Completing is
//!   idempotent on recovery: an upload that is gone (`404`) whose object is there was
//!   completed before; an object that already exists was put before.
//! - A writer that closes (cancelled in a failover, or finished) aborts the upload it has
//!   open unless a snapshot recorded it (a restore completes that one); what a crashed
//!   writer leaves, only a lifecycle rule removes.

mod committer;
mod writer;

pub use committer::ObjectCommitter;
pub use writer::{ObjectWriter, OpenFile};

use connsim::api::{CommitterContext, NoGlobalCommitter, Sink, WriterContext};
use connsim::run::{SinkSetup, World};
use connsim::systems::{Bucket, ExternalSystem, Setting, SettingEnv};
use connsim::ConnectorError;
use connsim_object_store::SimulatedS3;
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
    /// A file a restored checkpoint recorded in progress: completed with the parts it
    /// recorded, its tail made visible beside it.
    Recovered(InProgress),
}

impl PartFile {
    /// The file's key.
    pub fn key(&self) -> &str {
        match self {
            PartFile::Small { key, .. } | PartFile::Upload { key, .. } => key,
            PartFile::Recovered(f) => &f.key,
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
    /// A file is rolled at the first barrier that finds this many parts uploaded to it, or
    /// that comes `rollover_ms` after it was opened, and at the end of the input.
    pub parts_per_file: usize,
    /// See `parts_per_file`.
    pub rollover_ms: u64,
}

/// A part file in progress, as a writer's state records it at a barrier.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InProgress {
    /// Its key.
    pub key: String,
    /// Its upload, once a part went up.
    pub upload: Option<String>,
    /// The ETags of the parts that went up, in order.
    pub parts: Vec<String>,
    /// The bytes of those parts.
    pub bytes: u64,
    /// The hidden object holding what was written to the file and not uploaded at the
    /// barrier (Flink's "incomplete part object"), if anything was.
    pub tail: Option<String>,
}

impl InProgress {
    /// The key a recovered file's tail becomes visible at, beside it.
    pub fn visible_tail(&self) -> String {
        format!("{}-tail", self.key)
    }
}

/// A writer's state: the file it was filling, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriterState {
    /// The open file.
    pub file: Option<InProgress>,
}

impl ObjectSink {
    /// The store, as object_store's traits (an `AmazonS3` in production).
    pub fn store(&self) -> Arc<SimulatedS3> {
        Arc::new(SimulatedS3::new(&self.bucket))
    }
}

/// An object_store error as the task's failure (the task restarts from the last checkpoint).
pub fn failed(what: &str, e: object_store::Error) -> ConnectorError {
    ConnectorError::fail_task(format!("{what}: {e}"))
}

impl Sink for ObjectSink {
    type Committable = PartFile;
    type WriterState = WriterState;
    type Writer = ObjectWriter;
    type Committer = ObjectCommitter;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;

    async fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<WriterState>,
    ) -> Result<ObjectWriter, ConnectorError> {
        let name = format!("{}-{}-{}", ctx.job_id(), ctx.subtask(), ctx.attempt());
        Ok(ObjectWriter::new(self.store(), self.clone(), name, restored))
    }

    fn create_committer(&self, _ctx: CommitterContext) -> ObjectCommitter {
        ObjectCommitter { store: self.store() }
    }
}

/// Sets up a bucket `s3` whose `out/` prefix is the visible output, its minimum part size
/// the sink's part size (a test's data fills many parts). A file rolls at the first barrier
/// after eight parts or 300 ms, so at the suites' pace most files span a checkpoint or two,
/// as files under Flink's default rolling policy do: a restore mostly finds a file in
/// progress to recover.
#[derive(Clone, Debug)]
pub struct ObjectSinkSetup {
    /// The sink's part size and the bucket's minimum (the bucket's minimum stays S3's 5 MiB
    /// when the part size is larger).
    pub part_size: usize,
}

impl Default for ObjectSinkSetup {
    fn default() -> Self {
        Self { part_size: 256 }
    }
}

/// S3's smallest part but the last: 5 MiB.
pub const S3_MIN_PART_SIZE: usize = 5 * 1024 * 1024;

impl ObjectSinkSetup {
    /// Parts of S3's real minimum, 5 MiB: at the suites' volumes no file fills one, so every
    /// file is a single conditional put and no multipart upload is ever started.
    pub fn real_parts() -> Self {
        Self { part_size: S3_MIN_PART_SIZE }
    }
    /// No multipart uploads at all: every file is put whole (on a bucket with S3's minimum).
    pub fn single_puts() -> Self {
        Self { part_size: usize::MAX }
    }
}

impl SinkSetup for ObjectSinkSetup {
    type Sink = ObjectSink;
    fn name(&self) -> String {
        match self.part_size {
            256 => "object-sink".into(),
            usize::MAX => "object-sink(single puts)".into(),
            S3_MIN_PART_SIZE => "object-sink(5 MiB parts)".into(),
            n => format!("object-sink({n} B parts)"),
        }
    }
    fn build(&self, world: &mut World) -> ObjectSink {
        let bucket = Bucket::new("s3", "out/", world.history().clone());
        let env = SettingEnv { seed: 0, history: world.history().clone() };
        let minimum = self.part_size.min(S3_MIN_PART_SIZE) as u64;
        bucket.configure(&Setting::MinPartSize(minimum), &env).expect("a bucket has a minimum part size");
        world.set_output(bucket.output());
        world.add_system(Arc::new(bucket));
        ObjectSink {
            bucket: "s3".into(),
            dir: "out/".into(),
            part_size: self.part_size,
            parts_per_file: 8,
            rollover_ms: 300,
        }
    }
}
