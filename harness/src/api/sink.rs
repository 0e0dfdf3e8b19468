//! Sink side: Flink's two-phase-commit Sink (V2): writers prepare committables on the
//! checkpoint barrier, committers commit them once the checkpoint is complete.
//!
//! ```text
//!  records ─▶ SinkWriter::write ─ barrier c ─▶ flush ─▶ prepare_commit(c) ─▶ committables ┐
//!                                              snapshot_state(c) ─▶ checkpoint c          │
//!  notify_checkpoint_complete(c) or restore ─▶ Committer::commit(requests ≤ c) ◀──────────┘
//! ```
//!
//! With more than one checkpoint pending at once, a writer may prepare the committables of
//! `c + 1` before `c` completes: the committer is handed only those of completed checkpoints.
//! Committables of an aborted checkpoint are committed with the next one that completes.
//!
//! Commits must be idempotent: after a restore the runtime commits recovered committables
//! again, and a commit whose response was lost is retried.

use crate::error::ConnectorError;
use crate::history::CheckpointId;
#[cfg(madsim)]
use crate::net::Endpoint;
use crate::record::Record;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::future::Future;

/// What a sink promises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeliveryGuarantee {
    /// Every record is visible exactly once, and only after a completed checkpoint covers
    /// it; nothing visible ever vanishes.
    ExactlyOnce,
    /// Effectively once, by idempotent writes (e.g. upserts keyed by record id): records may
    /// become visible before their checkpoint completes and may be rewritten, but a visible
    /// record never vanishes, and in the end every expected record is visible exactly once,
    /// with the content it was produced with.
    Idempotent,
    /// Every record is visible at least once; nothing visible vanishes. A record may be
    /// visible more than once only where the history explains it (a re-emission after a
    /// restore, a retried request whose response was lost): so never in a fault-free run.
    AtLeastOnce,
}

/// A writer's view of its subtask.
#[derive(Clone)]
pub struct WriterContext {
    pub(crate) subtask: usize,
    pub(crate) parallelism: usize,
    pub(crate) attempt: u64,
    pub(crate) restored_checkpoint: CheckpointId,
    pub(crate) job_id: String,
    #[cfg(madsim)]
    pub(crate) endpoint: Endpoint,
}

impl WriterContext {
    /// The job's id (Flink's `JobID`): the same across failovers and restores of one job,
    /// another for a new job started without state or from an older savepoint. Connectors
    /// that record what they committed in the external system keep it beside the checkpoint
    /// id, which a new job numbers again.
    pub fn job_id(&self) -> &str {
        &self.job_id
    }
    /// This writer's subtask index.
    pub fn subtask(&self) -> usize {
        self.subtask
    }
    /// Number of writer subtasks.
    pub fn parallelism(&self) -> usize {
        self.parallelism
    }
    /// Deployment attempt of this subtask (grows with every restart; unique per subtask).
    pub fn attempt(&self) -> u64 {
        self.attempt
    }
    /// The checkpoint this writer was restored from (0: started fresh).
    pub fn restored_checkpoint(&self) -> CheckpointId {
        self.restored_checkpoint
    }
    /// The task executor's gateway endpoint, for talking to external systems.
    #[cfg(madsim)]
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }
}

/// A committer's view of its subtask.
#[derive(Clone)]
pub struct CommitterContext {
    pub(crate) subtask: usize,
    pub(crate) attempt: u64,
    pub(crate) restored_checkpoint: CheckpointId,
    pub(crate) job_id: String,
    #[cfg(madsim)]
    pub(crate) endpoint: Endpoint,
}

impl CommitterContext {
    /// The job's id ([`WriterContext::job_id`]).
    pub fn job_id(&self) -> &str {
        &self.job_id
    }
    /// This committer's subtask index: its writer's, or, with committers apart from the
    /// writers ([`SinkParallelism::committers`](crate::cluster::SinkParallelism)), its index
    /// `j` among them (it commits what writers `w` with `w mod k == j` prepared).
    pub fn subtask(&self) -> usize {
        self.subtask
    }
    /// The subtask attempt this committer runs in (grows with every restart).
    pub fn attempt(&self) -> u64 {
        self.attempt
    }
    /// The checkpoint this committer's subtask was restored from (0: started fresh); the
    /// recovered committables it commits first belong to it or earlier ones.
    pub fn restored_checkpoint(&self) -> CheckpointId {
        self.restored_checkpoint
    }
    /// The task executor's gateway endpoint, for talking to external systems.
    #[cfg(madsim)]
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }
}

/// Writes elements and prepares committables on every checkpoint barrier.
///
/// `In` is the element type the sink takes (Flink's `SinkWriter<InputT>`): the connector's
/// own, serialized by its own code; [`Record`] by default. A suite hands a sink of its own
/// element type the test data through an [`ElementCodec`](super::ElementCodec)
/// ([`ElementSink`](super::ElementSink)).
pub trait SinkWriter<In = Record>: Send + 'static {
    /// What `prepare_commit` hands to the committer.
    type Committable;
    /// Checkpointed writer state.
    type State;

    /// Writes one element.
    fn write(&mut self, element: In) -> impl Future<Output = Result<(), ConnectorError>> + Send;
    /// The combined watermark of the records written so far advanced to `watermark` (only
    /// when the job reads its source with a watermark strategy; [`i64::MAX`] at the end of
    /// the input). Records written later may still be late ones. Default: nothing.
    fn write_watermark(
        &mut self,
        _watermark: crate::api::Watermark,
    ) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        async { Ok(()) }
    }
    /// Flushes buffered data; `end_of_input` is set once, after the last record.
    fn flush(&mut self, end_of_input: bool) -> impl Future<Output = Result<(), ConnectorError>> + Send;
    /// Called on the barrier of `checkpoint`, after `flush`: the committables to commit once it completes.
    fn prepare_commit(
        &mut self,
        checkpoint: CheckpointId,
    ) -> impl Future<Output = Result<Vec<Self::Committable>, ConnectorError>> + Send;
    /// The writer's state for `checkpoint`, after `prepare_commit`.
    fn snapshot_state(&mut self, _checkpoint: CheckpointId) -> Vec<Self::State> {
        Vec::new()
    }
    /// Checkpoint `checkpoint` completed (as a Flink operator that is a `CheckpointListener`
    /// hears it). Best effort: a notification may be lost, and with more than one checkpoint
    /// pending at once it may arrive after the writer prepared later checkpoints' committables,
    /// which it does not cover. Committing belongs to the [`Committer`]; a writer that acts
    /// here must act only on what `checkpoint` covers. Default: nothing.
    fn notify_checkpoint_complete(
        &mut self,
        _checkpoint: CheckpointId,
    ) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        async { Ok(()) }
    }
    /// Checkpoint `checkpoint` was aborted: it will never complete, and its committables are
    /// committed with the next checkpoint that does (best effort, as
    /// [`SplitEnumerator::notify_checkpoint_aborted`](crate::api::SplitEnumerator)). Default: nothing.
    fn notify_checkpoint_aborted(
        &mut self,
        _checkpoint: CheckpointId,
    ) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        async { Ok(()) }
    }
    /// The writer is done: its attempt finished, was cancelled, or failed. Called once; a
    /// crash of its task executor calls nothing. Default: nothing to release.
    fn close(&mut self) -> impl Future<Output = ()> + Send {
        async {}
    }
}

/// One committable to commit, with the checkpoint that prepared it.
#[derive(Clone, Debug)]
pub struct CommitRequest<C> {
    /// The committable.
    pub committable: C,
    /// The checkpoint whose barrier prepared it.
    pub checkpoint: CheckpointId,
    /// How often it was retried already.
    pub retries: u32,
}

pub use crate::history::CommitOutcome;

/// Commits committables; must be idempotent.
pub trait Committer: Send + 'static {
    /// What the writer prepared.
    type Committable;
    /// Commits the requests; returns one outcome per request, in order.
    fn commit(
        &mut self,
        requests: Vec<CommitRequest<Self::Committable>>,
    ) -> impl Future<Output = Vec<CommitOutcome>> + Send;
    /// The committer is done (as [`SinkWriter::close`]). Default: nothing to release.
    fn close(&mut self) -> impl Future<Output = ()> + Send {
        async {}
    }
}

/// A two-phase-commit sink: a factory for its writers and committers.
///
/// A sink is a serializable value (as Flink's is): every node gets its own copy, decoded
/// from the sink's serialized form, so nodes share no memory through it. An `Arc` inside a
/// sink is not shared between the job master and the task executors, nor between task
/// executors.
///
/// `In` is the element type its writers take ([`SinkWriter`]); [`Record`] by default.
pub trait Sink<In = Record>: Clone + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// What writers prepare and committers commit.
    type Committable: Serialize + DeserializeOwned + Clone + Debug + Send + Sync + 'static;
    /// Checkpointed writer state.
    type WriterState: Serialize + DeserializeOwned + Clone + Debug + Send + Sync + 'static;
    /// The writer.
    type Writer: SinkWriter<In, Committable = Self::Committable, State = Self::WriterState>;
    /// The committer.
    type Committer: Committer<Committable = Self::Committable>;
    /// The global committer; `NoGlobalCommitter<Self::Committable>` for sinks without one.
    type GlobalCommitter: super::GlobalCommitter<Committable = Self::Committable>;

    /// What this sink promises; the checks hold it to that.
    fn delivery_guarantee(&self) -> DeliveryGuarantee {
        DeliveryGuarantee::ExactlyOnce
    }
    /// Whether a downstream reader sees each source split's records in the order they were
    /// produced. The per-split-order check holds the sink to it; default: no such claim
    /// (e.g. a directory of files has no order across files).
    fn keeps_split_order(&self) -> bool {
        false
    }
    /// Whether the sink takes records behind the combined watermark its input already passed
    /// on (a sink that ignores event time, or handles lateness itself). The `event-time`
    /// check then does not judge records at the subtask's output; a split's own watermark
    /// still binds its records. Default: no, late records are a violation.
    fn accepts_late_records(&self) -> bool {
        false
    }
    /// A writer for one subtask, restored from `restored` (empty when starting fresh).
    fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<Self::WriterState>,
    ) -> impl Future<Output = Result<Self::Writer, ConnectorError>> + Send;
    /// A committer for one subtask (not used when the sink has a global committer).
    fn create_committer(&self, ctx: CommitterContext) -> Self::Committer;
    /// Whether this sink commits through a global committer.
    fn has_global_committer(&self) -> bool {
        false
    }
    /// The global committer, run as a task of its own (one attempt at a time, each created
    /// afresh on its task executor); called only when
    /// [`Sink::has_global_committer`] is true.
    fn create_global_committer(&self, _ctx: super::GlobalCommitterContext) -> Option<Self::GlobalCommitter> {
        None
    }
}
