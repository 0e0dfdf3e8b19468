//! The tasks downstream of the writers (Flink's Sink V2 post-commit topology): the global
//! committer, one task of parallelism 1, or the committers, `k` tasks, when their
//! parallelism is not the writers' (`committer_parallelism`). Each runs on a task executor,
//! sharing a subtask's slot, with a channel from every writer.
//!
//! ```text
//!  writer w: prepare_commit(c) ─▶ Committables (to one task) ─▶ Barrier c (to all) ══▶ gate (aligns c)
//!  aligned c: the global committer combines what it received since the last aligned
//!      barrier; a committer keeps it as it came ─▶ pending, serialized as this task's part
//!      of checkpoint c ─▶ Ack(c)
//!  Notify c: commit the pending ones up to c, in checkpoint order
//!  restore: the restored pending ones (a global committer's filter_recovered first) ─▶
//!      committed at once
//! ```
//!
//! Committables cross the network through their serializer, as every exchange message
//! does. The tasks are deployed, heartbeated, fenced and failed over like any other subtask,
//! so a cut-off attempt runs on as a zombie next to its replacement: what it commits after
//! being replaced must be refused or harmless (the committer's idempotence). With a global
//! committer, or committers apart, the writers' own committers are not used.

mod committer;
mod global;
mod task;

pub(crate) use task::run;

use crate::api::Sink;
use crate::cluster::hooks::Hooks;
use crate::error::ConnectorError;
use crate::history::{CheckpointId, History};
use committer::CommitterOperator;
use global::GlobalOperator;

/// The operator a task downstream of the writers runs.
pub(crate) enum Downstream<Snk: Sink> {
    Global(GlobalOperator<Snk>),
    Committer(CommitterOperator<Snk>),
}

impl<Snk: Sink> Downstream<Snk> {
    /// Takes a writer's committables off the wire.
    fn receive(&mut self, bytes: &[u8]) -> Result<(), ConnectorError> {
        match self {
            Self::Global(g) => g.receive(bytes),
            Self::Committer(c) => c.receive(bytes),
        }
    }

    /// Barrier `c` came from every writer: returns this operator's part of checkpoint `c`.
    fn aligned(&mut self, c: CheckpointId) -> Result<Vec<u8>, ConnectorError> {
        match self {
            Self::Global(g) => g.combine(c),
            Self::Committer(x) => Ok(x.aligned(c)),
        }
    }

    /// Restores what checkpoint `c` stored.
    async fn restore(&mut self, c: CheckpointId, state: &[u8]) -> Result<(), ConnectorError> {
        match self {
            Self::Global(g) => g.restore(c, state).await,
            Self::Committer(x) => x.restore(c, state),
        }
    }

    fn completed(&mut self, c: CheckpointId) {
        match self {
            Self::Global(g) => g.completed(c),
            Self::Committer(x) => x.completed(c),
        }
    }

    fn due(&self) -> bool {
        match self {
            Self::Global(g) => g.due(),
            Self::Committer(x) => x.due(),
        }
    }

    /// Commits what completed checkpoints cover. `host`: the subtask whose slot this task
    /// shares.
    async fn commit(
        &mut self,
        history: &History,
        node: &str,
        hooks: &Hooks,
        (subtask, attempt, host): (usize, u64, usize),
    ) -> Result<(), ConnectorError> {
        match self {
            Self::Global(g) => g.commit(history, node, hooks, (subtask, attempt)).await,
            Self::Committer(x) => x.commit(history, node, hooks, (subtask, attempt, host)).await,
        }
    }

    /// The bounded input ended and everything is committed.
    async fn end_of_input(&mut self) -> Result<(), ConnectorError> {
        match self {
            Self::Global(g) => g.end_of_input().await,
            Self::Committer(_) => Ok(()),
        }
    }

    /// Closes what holds resources (a committer may hold connections).
    async fn close(&mut self) {
        if let Self::Committer(x) = self {
            x.close().await;
        }
    }
}
