//! An exactly-once sink in a table format's shape on an object store (Delta Lake's
//! `_delta_log`, Iceberg's metadata files): data files, and a log of version files each
//! published by a conditional put (`PutMode::Create`, S3's `If-None-Match: *`).
//!
//! - A writer buffers a checkpoint's records and puts them as one data file at the barrier,
//!   under a name no other writer, attempt or job uses (`tbl/data/<job>-<subtask>-<attempt>-
//!   <checkpoint>`). A data file is invisible until a version lists it.
//! - The global committer publishes each checkpoint's data files as the next version: a
//!   manifest listing them (`tbl/_manifests/<job>-<checkpoint>`, written again whenever the
//!   commit is tried), then the version file `tbl/_log/<n>` (zero-padded) naming the job, the
//!   checkpoint and the manifest. The first put of a number wins; a reader reads the versions
//!   in order from 0, their manifests, and the files those list.
//! - A commit is idempotent: before it publishes, the committer reads the versions it has
//!   not read yet and skips a checkpoint one of them holds (recovered, retried, or
//!   published by a cut-off committer's replacement).
//! - An error from the conditional put says nothing about whether it landed: a put whose
//!   answer was lost may be applied later, after the committer's next requests. The
//!   committer then retries later, never removes the manifest or the data files, and finds
//!   out from the versions whether it landed (the clean-up-after-an-ambiguous-error class,
//!   Iceberg #3717, is a variant that does).

mod committer;
mod output;

pub use committer::{manifest_files, Published, Version, VersionCommitter};
pub use output::VersionLog;

use crate::object_sink::failed;
use crate::table_sink::NoSubtaskCommits;
use connsim::api::{CommitterContext, GlobalCommitterContext, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::Bucket;
use connsim::{ConnectorError, Record};
use connsim_object_store::SimulatedS3;
use object_store::path::Path;
use object_store::ObjectStoreExt;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Where the data files go.
pub const DATA: &str = "tbl/data/";
/// Where the versions go.
pub const LOG: &str = "tbl/_log/";
/// Where the versions' manifests go.
pub const MANIFESTS: &str = "tbl/_manifests/";

/// The sink.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VersionLogSink {
    /// The bucket's node.
    pub bucket: String,
}

impl VersionLogSink {
    /// The store, as object_store's traits (an `AmazonS3` in production).
    pub fn store(&self) -> Arc<SimulatedS3> {
        Arc::new(SimulatedS3::new(&self.bucket))
    }
}

/// Its writer: one data file per checkpoint.
pub struct VersionLogWriter {
    store: Arc<SimulatedS3>,
    /// `<job>-<subtask>-<attempt>`: this attempt's data file names.
    name: String,
    buffer: Vec<u8>,
}

impl SinkWriter for VersionLogWriter {
    type Committable = String;
    type State = ();
    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        record.encode_line_into(&mut self.buffer);
        Ok(())
    }
    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        Ok(())
    }
    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<String>, ConnectorError> {
        if self.buffer.is_empty() {
            return Ok(vec![]);
        }
        let key = format!("{DATA}{}-{checkpoint}", self.name);
        let bytes = std::mem::take(&mut self.buffer);
        self.store.put(&Path::from(key.as_str()), bytes.into()).await.map_err(|e| failed("writing a data file", e))?;
        Ok(vec![key])
    }
}

impl Sink for VersionLogSink {
    type Committable = String;
    type WriterState = ();
    type Writer = VersionLogWriter;
    type Committer = NoSubtaskCommits;
    type GlobalCommitter = VersionCommitter;

    async fn create_writer(&self, ctx: WriterContext, _restored: Vec<()>) -> Result<VersionLogWriter, ConnectorError> {
        let name = format!("{}-{}-{}", ctx.job_id(), ctx.subtask(), ctx.attempt());
        Ok(VersionLogWriter { store: self.store(), name, buffer: Vec::new() })
    }
    fn create_committer(&self, _ctx: CommitterContext) -> NoSubtaskCommits {
        NoSubtaskCommits
    }
    fn has_global_committer(&self) -> bool {
        true
    }
    fn create_global_committer(&self, ctx: GlobalCommitterContext) -> Option<VersionCommitter> {
        Some(VersionCommitter::new(self.store(), ctx.job_id()))
    }
}

/// Sets up a bucket `s3` whose table under `tbl/` is the visible output, read through its
/// versions ([`VersionLog`]).
#[derive(Clone, Debug, Default)]
pub struct VersionLogSinkSetup;

impl VersionLogSinkSetup {
    /// Sets up the bucket and returns the sink itself (what a variant wraps).
    pub fn version_log_sink(&self, world: &mut World) -> VersionLogSink {
        let bucket = Bucket::new("s3", LOG, world.history().clone());
        world.set_output(Arc::new(VersionLog { bucket: bucket.clone() }));
        world.add_system(Arc::new(bucket));
        VersionLogSink { bucket: "s3".into() }
    }
}

impl SinkSetup for VersionLogSinkSetup {
    type Sink = VersionLogSink;
    fn name(&self) -> String {
        "version-log-sink".into()
    }
    fn build(&self, world: &mut World) -> VersionLogSink {
        self.version_log_sink(world)
    }
}
