//! The global committer, for table formats such as Iceberg: every writer's committables of
//! one checkpoint are combined into one global committable, which is committed atomically
//! once the checkpoint is complete. It runs as Flink's Sink V2 post-commit topology runs it:
//! a task of parallelism 1 on a task executor, downstream of every writer.
//!
//! ```text
//!  writer i: prepare_commit(c) ─▶ committables, then barrier c ══ channel ══▶ global committer task
//!  barrier c from every writer: combine(c, all committables prepared up to c)
//!     ─▶ its part of checkpoint c ─▶ checkpoint c complete ─▶ commit
//!  restore: filter_recovered(stored) ─▶ commit what is still missing
//! ```
//!
//! Committables cross the network through their serializer. The task shares subtask 0's
//! slot, is failed over with the job (it reads from every writer, so the job is one region),
//! and can be cut off from the job master and replaced while it runs on: a zombie committer
//! next to its replacement, which `commit` must make harmless (ask the external system what
//! is committed already). With a global committer the subtasks' own committers are not used.

use super::sink::{CommitOutcome, CommitRequest};
use crate::error::ConnectorError;
use crate::history::CheckpointId;
#[cfg(madsim)]
use crate::net::Endpoint;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;
use std::future::Future;
use std::marker::PhantomData;

/// The global committer's view of its task.
#[derive(Clone)]
pub struct GlobalCommitterContext {
    #[cfg(madsim)]
    pub(crate) endpoint: Endpoint,
    pub(crate) job_id: String,
}

impl GlobalCommitterContext {
    /// The job's id ([`crate::api::WriterContext::job_id`]).
    pub fn job_id(&self) -> &str {
        &self.job_id
    }
    /// The task's gateway endpoint, for talking to external systems (what it sends is known
    /// to come from this attempt of the task).
    #[cfg(madsim)]
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }
}

/// Combines committables across subtasks and commits them once per checkpoint.
pub trait GlobalCommitter: Send + 'static {
    /// The sink's committable.
    type Committable;
    /// One checkpoint's combined committable; stored in the checkpoint.
    type GlobalCommittable: Serialize + DeserializeOwned + Clone + Debug + Send + Sync + 'static;

    /// Combines every committable prepared up to checkpoint `checkpoint` and not combined before.
    fn combine(&mut self, checkpoint: CheckpointId, committables: Vec<Self::Committable>) -> Self::GlobalCommittable;
    /// Commits, in checkpoint order; one outcome per request. Must be idempotent.
    fn commit(
        &mut self,
        requests: Vec<CommitRequest<Self::GlobalCommittable>>,
    ) -> impl Future<Output = Vec<CommitOutcome>> + Send;
    /// After a restore: of the recovered global committables (with their checkpoints), those
    /// that still need committing. Default: all of them (then `commit` must recognise what
    /// is already committed).
    #[allow(clippy::type_complexity)]
    fn filter_recovered(
        &mut self,
        recovered: Vec<(CheckpointId, Self::GlobalCommittable)>,
    ) -> impl Future<Output = Result<Vec<(CheckpointId, Self::GlobalCommittable)>, ConnectorError>> + Send {
        async { Ok(recovered) }
    }
    /// The bounded input ended and everything is committed. Default: nothing to do.
    fn end_of_input(&mut self) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        async { Ok(()) }
    }
}

/// The global committer of a sink that has none. Never constructed.
pub struct NoGlobalCommitter<C>(PhantomData<fn() -> C>);

impl<C: 'static> GlobalCommitter for NoGlobalCommitter<C> {
    type Committable = C;
    type GlobalCommittable = ();
    fn combine(&mut self, _: CheckpointId, _: Vec<C>) {}
    async fn commit(&mut self, requests: Vec<CommitRequest<()>>) -> Vec<CommitOutcome> {
        requests.iter().map(|_| CommitOutcome::Committed).collect()
    }
}
