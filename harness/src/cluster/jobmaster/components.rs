//! The job master's components, each owning its state (as Flink's job master holds a source
//! coordinator, a checkpoint coordinator and a scheduler): the enumerator's side, the
//! pending and finishing checkpoints, and the deployed attempts.

use super::alignment::AlignmentCoordinator;
use super::enumerator::Starting;
use super::{Called, Pending, Slot};
use crate::api::{EnumeratorContext, Source};
use crate::cluster::heartbeat::Expected;
use crate::cluster::store::CheckpointStore;
use crate::cluster::tracker::AssignmentTracker;
use crate::history::CheckpointId;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use tokio::sync::mpsc;

/// The source coordinator: the enumerator, its context and callables, the split assignments
/// since the last checkpoint, and watermark alignment.
pub(super) struct SourceCoordinator<Src: Source> {
    pub source: Src,
    /// `None` while its start is retried beside the loop (then `starting` holds it).
    pub enumerator: Option<Src::Enumerator>,
    /// Its context (a placeholder while the start is retried).
    pub ctx: EnumeratorContext<Src::Split>,
    /// A start being retried, and the readers' requests waiting for it.
    pub starting: Option<Starting<Src>>,
    pub tracker: AssignmentTracker<Src::Split>,
    /// Subtasks `0..readers` host a reader (the source's parallelism); the rest only a writer.
    pub readers: usize,
    /// Callables the enumerator started, and where their results go (tagged with the
    /// enumerator generation that asked, so a replaced enumerator's results are dropped).
    pub calls: Vec<madsim::task::JoinHandle<()>>,
    pub call_results: mpsc::UnboundedSender<Called>,
    pub generation: u64,
    /// Watermark alignment, when the source is read with it.
    pub alignment: Option<AlignmentCoordinator>,
}

impl<Src: Source> SourceCoordinator<Src> {
    /// The enumerator and its context, unless its start is being retried.
    pub fn enumerator_mut(&mut self) -> Option<(&mut Src::Enumerator, &mut EnumeratorContext<Src::Split>)> {
        self.enumerator.as_mut().map(|e| (e, &mut self.ctx))
    }
}

/// The checkpoint coordinator: the store of completed checkpoints, and the pending ones.
pub(super) struct CheckpointCoordinator {
    pub store: CheckpointStore,
    /// Checkpoints triggered and neither completed nor aborted, by id (at most
    /// [`CheckpointConfig::max_concurrent`](crate::cluster::CheckpointConfig::max_concurrent)).
    pub pending: BTreeMap<CheckpointId, Pending>,
    /// The checkpoint whose completion ends the job, the subtasks that have not committed it
    /// yet, and whether it is a savepoint that stops the job (rather than the end of input).
    pub finishing: Option<(CheckpointId, BTreeSet<usize>, bool)>,
    /// A stop-with-savepoint was asked for and not yet taken.
    pub stop_requested: bool,
}

/// The scheduler: each subtask's slot (its attempt and task executor), and which task
/// executors the heartbeats expect and suspect.
pub(super) struct Scheduler {
    pub slots: Vec<Slot>,
    /// Per task executor: since when it is suspected lost (it missed heartbeats or a
    /// deployment did not reach it); cleared when a deployment reaches it.
    pub suspects: Vec<Option<Duration>>,
    pub expected: Expected,
    /// The tasks downstream of the writers, after every reader's and writer's slot.
    pub downstream: DownstreamTasks,
}

/// The tasks downstream of the writers: the global committer's, or the committers' when
/// they run apart from the writers. Each shares a subtask's slot.
#[derive(Clone, Debug)]
pub(super) struct DownstreamTasks {
    /// Their subtasks (empty: none).
    pub tasks: std::ops::Range<usize>,
    /// The one task is the global committer's.
    pub global: bool,
}

impl DownstreamTasks {
    /// `subtask` is one of them.
    pub fn contains(&self, subtask: usize) -> bool {
        self.tasks.contains(&subtask)
    }

    /// The subtask whose slot `subtask`, one of them, shares: subtask 0 for the global
    /// committer, subtask `j mod n` for committer `j` (`n`: the readers' and writers'
    /// subtasks, the first downstream task's index).
    pub fn host(&self, subtask: usize) -> usize {
        if self.global {
            0
        } else {
            (subtask - self.tasks.start) % self.tasks.start.max(1)
        }
    }

    /// Committers run apart from the writers.
    pub fn committers(&self) -> bool {
        !self.global && !self.tasks.is_empty()
    }
}
