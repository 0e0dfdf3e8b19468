//! Control messages between the job master and task executors. Every message carries the
//! subtask attempt it belongs to: a message for an older attempt is ignored (fencing), since
//! a crashed node's messages are still delivered after it is gone.

use crate::history::CheckpointId;
use crate::record::Record;
use serde::{Deserialize, Serialize};

/// What a subtask contributes to a checkpoint. Connector parts are serialized by the
/// subtask (bincode) and deserialized only on restore, so every state makes a round trip.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SubtaskState {
    /// The reader's splits (`Vec<Source::Split>`).
    #[serde(with = "crate::bytes")]
    pub splits: Vec<u8>,
    /// The writer's state (`Vec<Sink::WriterState>`).
    #[serde(with = "crate::bytes")]
    pub writer: Vec<u8>,
    /// Committables not yet committed (`Vec<(CheckpointId, Sink::Committable)>`).
    #[serde(with = "crate::bytes")]
    pub committables: Vec<u8>,
    /// The subtask had reached the end of its input before this barrier.
    pub finished: bool,
}

/// Job master → task executor: a message for one subtask hosted there (a task executor
/// offers several slots, and may still run a replaced attempt of the same subtask).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Addressed {
    /// The subtask the message is for.
    pub subtask: usize,
    /// The message.
    pub msg: ToTask,
}

/// Job master → task executor. `attempt` always names the receiving subtask attempt.
#[allow(missing_docs)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum ToTask {
    /// Start `attempt` of `subtask` (of `parallelism`), restored from a checkpoint when given. Idempotent.
    /// A task executor refuses it after `deadline_ms` (virtual time): by then the job master
    /// has given up on the deployment and moved on, and a late start would run unsupervised
    /// next to the attempt that replaced it (its caller's deadline travels with the call).
    Deploy {
        subtask: usize,
        attempt: u64,
        /// Readers (the source's parallelism).
        parallelism: usize,
        /// Writers (the sink's parallelism).
        writers: usize,
        restore: Option<(CheckpointId, SubtaskState)>,
        deadline_ms: u64,
        /// The job's index ([`crate::history::job_id`]).
        job: u64,
    },
    /// Heartbeat for `attempt`: which attempt of the subtask runs here? Answered with
    /// `Option<attempt>`; renews the attempt's lease when it is the one asked about.
    Ping { attempt: u64 },
    /// New splits (`Vec<Source::Split>`, serialized).
    AddSplits {
        attempt: u64,
        #[serde(with = "crate::bytes")]
        splits: Vec<u8>,
    },
    /// No more splits will come.
    NoMoreSplits { attempt: u64 },
    /// A connector-defined event for the reader.
    SourceEvent {
        attempt: u64,
        #[serde(with = "crate::bytes")]
        event: Vec<u8>,
    },
    /// Inject barrier `checkpoint` (one-way); with `stop`, the source stops after it (stop-with-savepoint).
    Trigger { attempt: u64, checkpoint: CheckpointId, stop: bool },
    /// Checkpoint completed (one-way, best effort).
    Notify { attempt: u64, checkpoint: CheckpointId },
    /// Checkpoint aborted (one-way, best effort): declined, expired, subsumed or failed over.
    Abort { attempt: u64, checkpoint: CheckpointId },
    /// Watermark alignment (one-way, best effort): the group's minimum reported watermark, and
    /// the highest watermark a split may have and keep reading (`minimum + max drift`).
    AlignWatermarks { attempt: u64, minimum: i64, max_allowed: i64 },
    /// The final checkpoint completed: answer once everything up to it is committed.
    NotifyFinal { attempt: u64, checkpoint: CheckpointId },
    /// The job finished or stopped: close the attempt's components and end it; answered once
    /// closed (`false`: the attempt does not run here).
    Close { attempt: u64 },
    /// The exchange's wiring: per subtask, the task executor and attempt it runs as. Sent to
    /// every attempt after a deployment, when the job has an exchange.
    Wire { attempt: u64, peers: Vec<(usize, u64)> },
    /// Exchange data from `channel` (the sending subtask, attempt `from_attempt`), the
    /// `seq`-th message on that channel (from 1). Task executor to task executor, one-way.
    Data { attempt: u64, channel: usize, from_attempt: u64, seq: u64, payload: Payload },
    /// Exchange credit from `channel` (the receiving subtask, attempt `from_attempt`): it
    /// holds every message up to `received` and has room for `window` more. One-way.
    Credit { attempt: u64, channel: usize, from_attempt: u64, received: u64, window: u64 },
}

/// What an exchange channel carries, in order.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Payload {
    /// Records, in the order the reader emitted them.
    Records(Vec<Record>),
    /// The sending reader's watermark.
    Watermark(i64),
    /// Checkpoint barrier: everything before it belongs to the checkpoint.
    Barrier(CheckpointId),
    /// The sender declined the checkpoint: stop aligning it.
    CancelBarrier(CheckpointId),
    /// The sending reader reached the end of its input.
    EndOfInput,
    /// A writer's committables for the global committer (`Vec<(CheckpointId,
    /// Sink::Committable)>`, serialized), sent before the barrier of the checkpoint that
    /// prepared them.
    Committables(#[serde(with = "crate::bytes")] Vec<u8>),
}

impl ToTask {
    /// The message kind the gateway's fault rules match on.
    pub fn kind(&self) -> &'static str {
        match self {
            ToTask::Deploy { .. } => "Deploy",
            ToTask::Ping { .. } => "Ping",
            ToTask::AddSplits { .. } => "AddSplits",
            ToTask::NoMoreSplits { .. } => "NoMoreSplits",
            ToTask::SourceEvent { .. } => "SourceEvent",
            ToTask::Trigger { .. } => "Trigger",
            ToTask::Notify { .. } => "Notify",
            ToTask::Abort { .. } => "AbortCheckpoint",
            ToTask::AlignWatermarks { .. } => "WatermarkAlignment",
            ToTask::NotifyFinal { .. } => "NotifyFinal",
            ToTask::Close { .. } => "Close",
            ToTask::Wire { .. } => "Wire",
            ToTask::Data { .. } => "ExchangeData",
            ToTask::Credit { .. } => "ExchangeCredit",
        }
    }
}

/// Task executor → job master, numbered per attempt so retried deliveries are deduplicated.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ToMaster {
    /// Sending subtask.
    pub subtask: usize,
    /// Sending attempt.
    pub attempt: u64,
    /// Position in this attempt's stream, from 1.
    pub seq: u64,
    /// The message.
    pub body: MasterMsg,
}

/// The body of a task executor → job master message.
#[allow(missing_docs)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum MasterMsg {
    /// The reader is ready for splits.
    Register,
    /// The reader asks for a split.
    SplitRequest,
    /// A connector-defined event for the enumerator.
    SourceEvent(Vec<u8>),
    /// Watermark alignment: the reader's current watermark (sent once per update interval,
    /// best effort; a lost report leaves the coordinator with the previous one).
    ReportedWatermark { watermark: i64 },
    /// The subtask's part of a checkpoint.
    Ack { checkpoint: CheckpointId, state: SubtaskState },
    /// The subtask declines the checkpoint (it stays running; the checkpoint is aborted).
    Decline { checkpoint: CheckpointId, reason: String },
    /// The subtask failed; `job` means the whole job must fail.
    Failed { reason: String, job: bool },
}

impl MasterMsg {
    /// The message kind the gateway's fault rules match on.
    pub fn kind(&self) -> &'static str {
        match self {
            MasterMsg::Register => "Register",
            MasterMsg::SplitRequest => "SplitRequest",
            MasterMsg::SourceEvent(_) => "SourceEvent",
            MasterMsg::ReportedWatermark { .. } => "ReportedWatermark",
            MasterMsg::Ack { .. } => "Ack",
            MasterMsg::Decline { .. } => "Decline",
            MasterMsg::Failed { .. } => "Failed",
        }
    }
}

/// Node name of the job master.
pub const JOB_MASTER: &str = "jobmaster";

/// Node name of task executor `index` (which hosts subtask `index` when a task executor
/// has one slot, until a failover moves the subtask elsewhere).
pub fn task_executor(index: usize) -> String {
    format!("taskexecutor-{index}")
}
