//! The global committer (Flink's Sink V1 `GlobalCommitter`, parallelism 1), for table
//! formats such as Iceberg: every subtask's committables of one checkpoint are combined into
//! one global committable, which is committed atomically once the checkpoint is complete.
//!
//! ```text
//!  subtask i: prepare_commit(c) ─▶ committables ─▶ Ack(c) ─┐
//!  job master, checkpoint c complete ◀─────────────────────┘
//!     combine(c, all committables prepared up to c) ─▶ stored in checkpoint c ─▶ commit
//!  restore: filter_recovered(stored) ─▶ commit what is still missing
//! ```
//!
//! With a global committer the subtasks' own committers are not used.

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

/// The global committer's view of the job master.
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
    /// The job master's gateway endpoint, for talking to external systems.
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
