//! The version-log sink's global committer cleaning up after an ambiguous error (the
//! Iceberg #3717 class: a commit whose outcome is unknown handled as a failed one).
//!
//! When the conditional put of a version fails, the committer looks once (a `HEAD` of the
//! version's key), finds nothing, takes the commit for failed, deletes the manifest it wrote
//! so that no orphan metadata lingers, and retries later (writing the manifest again). That
//! is right for a put the store refused, and for one whose answer was lost after it landed
//! (the look finds it). But a put whose answer timed out may still land after the look: it
//! publishes a version whose manifest is gone. The retry then finds its checkpoint published
//! and skips it, and no reader sees a record of those files again. Caught by `no-loss` (and
//! the reader's missing manifest, `no-corruption`) in "writes land after their client's next
//! request"; without the held writes, the same case passes.

use crate::version_log_sink::{Version, VersionCommitter, VersionLogSink, VersionLogSinkSetup};
use connsim::api::{
    CommitOutcome, CommitRequest, CommitterContext, GlobalCommitter, GlobalCommitterContext, Sink, WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::ConnectorError;
use object_store::path::Path;
use object_store::ObjectStoreExt;

/// The sink with the cleaning committer.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CleansUpAfterAmbiguousError(VersionLogSink);

/// Its global committer.
pub struct CleaningCommitter(VersionCommitter);

impl CleaningCommitter {
    /// The bug: an error is a failure if one look does not find the version.
    async fn publish_or_clean_up(c: &mut VersionCommitter, v: &Version) -> CommitOutcome {
        let key = Version::key(c.next());
        match c.publish(v).await {
            Ok(()) => CommitOutcome::Committed,
            Err(_) => {
                if let Err(object_store::Error::NotFound { .. }) = c.store.head(&Path::from(key.as_str())).await {
                    let _ = c.store.delete(&Path::from(v.manifest())).await;
                }
                CommitOutcome::RetryLater
            }
        }
    }
}

impl GlobalCommitter for CleaningCommitter {
    type Committable = String;
    type GlobalCommittable = Version;
    fn combine(&mut self, checkpoint: CheckpointId, files: Vec<String>) -> Version {
        self.0.combine(checkpoint, files)
    }
    async fn commit(&mut self, requests: Vec<CommitRequest<Version>>) -> Vec<CommitOutcome> {
        self.0.commit_with(requests, Self::publish_or_clean_up).await
    }
}

impl Sink for CleansUpAfterAmbiguousError {
    type Committable = String;
    type WriterState = ();
    type Writer = <VersionLogSink as Sink>::Writer;
    type Committer = <VersionLogSink as Sink>::Committer;
    type GlobalCommitter = CleaningCommitter;

    async fn create_writer(&self, ctx: WriterContext, restored: Vec<()>) -> Result<Self::Writer, ConnectorError> {
        self.0.create_writer(ctx, restored).await
    }
    fn create_committer(&self, ctx: CommitterContext) -> Self::Committer {
        self.0.create_committer(ctx)
    }
    fn has_global_committer(&self) -> bool {
        true
    }
    fn create_global_committer(&self, ctx: GlobalCommitterContext) -> Option<CleaningCommitter> {
        self.0.create_global_committer(ctx).map(CleaningCommitter)
    }
}

/// Sets the mutant up as the reference's setup does.
#[derive(Clone, Debug, Default)]
pub struct CleansUpAfterAmbiguousErrorSetup;

impl SinkSetup for CleansUpAfterAmbiguousErrorSetup {
    type Sink = CleansUpAfterAmbiguousError;
    fn name(&self) -> String {
        "version-log-sink: cleans up after an ambiguous error".into()
    }
    fn build(&self, world: &mut World) -> CleansUpAfterAmbiguousError {
        CleansUpAfterAmbiguousError(VersionLogSinkSetup.version_log_sink(world))
    }
}
