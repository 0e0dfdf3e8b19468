//! The history: one totally ordered, append-only list of everything that happened in a run.
//!
//! Nodes, the gateway and the external-system models append [`Event`]s; the checks read
//! them after the run. The history serializes as JSON lines and hashes (FNV-1a over its
//! bincode form), which is what the determinism self-check compares. Without madsim
//! (connsim's feature `production`) only the checkpoint ids are built.

#[cfg(madsim)]
use crate::record::{Digest, Record, RecordId, Seen};
#[cfg(madsim)]
use serde::{Deserialize, Serialize};
#[cfg(madsim)]
use std::sync::{Arc, Mutex};

#[cfg(madsim)]
pub mod attempt;
#[cfg(madsim)]
mod encoded;
#[cfg(madsim)]
mod left;
mod typed;

#[cfg(madsim)]
pub use encoded::{hash, to_json_lines};
#[cfg(madsim)]
pub use left::{Closing, LeftUpload, Leftovers};
pub use typed::{AbortReason, CommitOutcome, FailoverScope, FaultKind, Phase};
#[cfg(test)]
mod tests;

/// Checkpoint identifier; 0 means "no checkpoint".
///
/// In a history, a checkpoint of the first job is numbered as its connectors see it (1, 2,
/// …). A job started without state, or from a savepoint older than the latest checkpoint,
/// numbers its checkpoints again as Flink does (from 1, or on from the savepoint's id): its
/// connectors see those numbers, and the history adds the job's index above bit 32
/// ([`job_checkpoint`]), so every checkpoint of a run has its own id. [`local_checkpoint`]
/// gives the number the connectors saw.
pub type CheckpointId = u64;

/// The number a connector sees for the history's checkpoint `c` (its job's own numbering).
pub fn local_checkpoint(c: CheckpointId) -> CheckpointId {
    c & 0xFFFF_FFFF
}

/// The index of the job (0: the first) that took the history's checkpoint `c`.
pub fn checkpoint_job(c: CheckpointId) -> u64 {
    c >> 32
}

/// The id of job `job` (0: the first) as connectors see it ([`crate::api::WriterContext::job_id`]):
/// 32 hexadecimal digits, as Flink prints a `JobID`.
pub fn job_id(job: u64) -> String {
    format!("{:032x}", job + 1)
}

/// The history's id of checkpoint `local` of job `job`.
pub fn job_checkpoint(job: u64, local: CheckpointId) -> CheckpointId {
    (job << 32) | local_checkpoint(local)
}

/// One step of a run.
#[cfg(madsim)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Virtual time since the start of the run, in microseconds.
    pub t_us: u64,
    /// Name of the node (or system) that recorded it.
    pub node: String,
    /// What happened.
    pub kind: EventKind,
}

/// What happened. Subtask attempts are numbered from 1 and grow with every deployment.
///
/// Field names are uniform across variants: `subtask` (index), `attempt` (deployment),
/// `checkpoint` (id), `split`/`splits` (split ids), `ids` (record ids).
#[cfg(madsim)]
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// A record was produced into a source system at position `pos` of split `split`, with
    /// its content's digest and event time (see [`History::record_produced`]).
    Produced { id: RecordId, split: String, pos: u64, digest: Digest, event_time_ms: i64 },
    /// The job was started.
    JobStarted { parallelism: usize },
    /// A subtask attempt was deployed, restored from `checkpoint` (0: fresh).
    Deployed {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        checkpoint: CheckpointId,
    },
    /// A reader registered with the source coordinator.
    ReaderRegistered {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
    },
    /// The enumerator assigned splits to a subtask.
    SplitsAssigned {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        splits: Vec<String>,
    },
    /// Splits went back to the enumerator after a failure of `subtask`.
    SplitsReturned { subtask: usize, splits: Vec<String> },
    /// A reader finished a split.
    SplitFinished {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        split: String,
    },
    /// A subtask's watermarks advanced: splits' own (`splits`) and, when it advanced, the
    /// combined one it passed to its writer (`watermark`); `idle` splits were left out of it,
    /// of which `marked_idle` because the connector marked them idle (the rest by the
    /// strategy's idle timeout).
    Watermark {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        watermark: Option<i64>,
        splits: Vec<(String, i64)>,
        idle: usize,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        marked_idle: Vec<String>,
    },
    /// Watermark alignment: the source coordinator announced a new group `minimum` of the
    /// readers' reported watermarks, and `max_allowed` (`minimum` + the maximum drift).
    WatermarkAlignment { minimum: i64, max_allowed: i64 },
    /// Watermark alignment: a subtask paused the splits whose watermark (given) ran above
    /// `max_allowed` (`minimum` + drift), and resumed others, through its reader;
    /// `observed`: the reader tells which fetch its records came from, so reads of paused
    /// splits can be judged.
    SplitsPaused {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        minimum: i64,
        max_allowed: i64,
        paused: Vec<(String, i64)>,
        resumed: Vec<String>,
        observed: bool,
    },
    /// Watermark alignment: right after the pauses and resumes of a `SplitsPaused`, the
    /// reader (built on the reader base) held `splits` paused though alignment had not
    /// paused them or had resumed them: each with its watermark then, and the announcement
    /// alignment acted on (`minimum`, `max_allowed`).
    UnaskedPause {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        minimum: i64,
        max_allowed: i64,
        splits: Vec<(String, Option<i64>)>,
    },
    /// Records of a paused split came from a fetch that began after the pause reached the
    /// split reader (its split reader does not honour pauses).
    PausedSplitRead {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        split: String,
        ids: Vec<RecordId>,
    },
    /// A subtask emitted records (in this order).
    Emitted {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        ids: Vec<RecordId>,
    },
    /// The coordinator started checkpoint `checkpoint`; the enumerator held `pending` splits.
    CheckpointTriggered { checkpoint: CheckpointId, pending: Vec<String> },
    /// The coordinator's valve held `events` for a subtask between the enumerator's snapshot
    /// for `checkpoint` and the barrier, and sent them now (after the barrier).
    ValveReleased { subtask: usize, checkpoint: CheckpointId, events: usize },
    /// The enumerator's `tries`-th start failed with a retriable error; it is tried again.
    EnumeratorStartFailed { tries: u32, error: String },
    /// The enumerator started at its `tries`-th try (recorded only when a start was retried).
    EnumeratorStarted { tries: u32 },
    /// A periodic call of the enumerator (split discovery, every `interval_ms`) started a new
    /// round while `unhandled` results of earlier rounds had not yet reached the enumerator:
    /// its rounds overlap (the round before took longer than the interval).
    PeriodicCallOverlapped { interval_ms: u64, unhandled: u64 },
    /// A subtask's barrier passed; its reader held `splits`, standing at `positions` (one
    /// per split, where the split says: [`crate::api::Split::position`]).
    Barrier {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        checkpoint: CheckpointId,
        splits: Vec<String>,
        #[serde(default)]
        positions: Vec<Option<u64>>,
    },
    /// A subtask acknowledged a checkpoint.
    Acked {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        checkpoint: CheckpointId,
    },
    /// The checkpoint is complete and durable.
    CheckpointCompleted { checkpoint: CheckpointId },
    /// The checkpoint was aborted.
    CheckpointAborted { checkpoint: CheckpointId, reason: AbortReason },
    /// A subtask heard that `checkpoint` completed after it had already taken the barrier of
    /// the later checkpoint `barrier` (checkpoints overlapped): what it prepared since
    /// `checkpoint`'s barrier is not covered by the notification.
    LateNotification {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        checkpoint: CheckpointId,
        barrier: CheckpointId,
    },
    /// Behind an exchange: the writer's input `channel` (the reader subtask sending on it)
    /// delivered barrier `checkpoint` and is held back until every channel has.
    ChannelBlocked {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        channel: usize,
        checkpoint: CheckpointId,
    },
    /// Behind an exchange: barrier `checkpoint` came on every input channel; the writer
    /// snapshots now (`aligned: false`: at the first barrier, without waiting for the others).
    BarrierAligned {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        checkpoint: CheckpointId,
        aligned: bool,
    },
    /// Behind an exchange: the alignment of `checkpoint` was given up (a reader declined it, a
    /// newer barrier came first, or the job master aborted it); held-back channels go on.
    AlignmentAborted {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        checkpoint: CheckpointId,
    },
    /// Behind an exchange: the reader stopped because its channel to writer `channel` holds as
    /// many messages as the writer has room for (recorded the first time, per attempt).
    Backpressured {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        channel: usize,
    },
    /// Behind an exchange: messages `first..=last` on the channel to writer `channel` were
    /// not acknowledged in time and were sent again.
    ExchangeResent {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        channel: usize,
        first: u64,
        last: u64,
    },
    /// A committer asked the external system to commit.
    CommitAttempt {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        checkpoint: CheckpointId,
        requests: usize,
    },
    /// The outcome of one commit request.
    CommitOutcome {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        checkpoint: CheckpointId,
        #[serde(with = "typed::outcome_as_text")]
        outcome: CommitOutcome,
    },
    /// Attempt `attempt` of the global committer's task (subtask `subtask`, after every
    /// reader and writer) asked the external system to commit.
    GlobalCommitAttempt {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        checkpoint: CheckpointId,
        requests: usize,
    },
    /// The outcome of committing one checkpoint's global committable.
    GlobalCommitOutcome {
        checkpoint: CheckpointId,
        #[serde(with = "typed::outcome_as_text")]
        outcome: CommitOutcome,
    },
    /// A node was crashed.
    Crashed { node: String },
    /// A node was restarted.
    Restarted { node: String },
    /// The job master started a failover.
    Failover { strategy: FailoverScope, subtasks: Vec<usize>, checkpoint: CheckpointId, cause: String },
    /// A subtask finished its input.
    SubtaskFinished {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
    },
    /// The harness read output `output` and found records (and content that is not a
    /// record) in `part` that were not there when it last read it.
    Appeared { output: String, part: String, records: Vec<Seen>, garbage: Vec<String>, cause: Box<Cause> },
    /// The harness read output `output` and found records (or other content) gone from `part`.
    Vanished { output: String, part: String, records: Vec<Seen>, garbage: Vec<String>, cause: Box<Cause> },
    /// Reading output `output` failed (its reader panicked); it is not observed any more.
    OutputUnreadable { output: String, error: String },
    /// The output converged: a bounded job finished, or an unbounded one shows every
    /// expected record. From here on the output must not change.
    Converged,
    /// A call got no response within its timeout (the request may have taken effect).
    CallTimedOut { to: String, kind: String, call: u64 },
    /// The gateway applied a fault to a message (`call`: the call it belongs to, if any).
    Fault { fault: FaultKind, from: String, to: String, kind: String, call: Option<u64> },
    /// A fault rule was installed or removed.
    FaultRule { description: String },
    /// The job finished (all input read and committed).
    JobFinished,
    /// A subtask declined a checkpoint.
    Declined {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        checkpoint: CheckpointId,
    },
    /// A subtask reached a phase a scenario aimed a crash at; its task executor crashes now.
    CrashPoint {
        node: String,
        subtask: Option<usize>,
        #[serde(with = "typed::phase_as_text")]
        phase: Phase,
        checkpoint: CheckpointId,
    },
    /// The job stopped at a savepoint (stop-with-savepoint); it may be resumed from it.
    JobStopped { savepoint: CheckpointId },
    /// A node was shut down in order (the job was stopped or cancelled), not crashed.
    NodeStopped { node: String },
    /// A new job was submitted after the previous one stopped: without state
    /// (`restored_from` 0), or from the savepoint `restored_from`, older than the latest
    /// completed checkpoint. Its checkpoints are numbered on from there
    /// ([`job_checkpoint`]); its sources start where they declare (or the savepoint says),
    /// against the output the previous job left.
    NewJob { job: u64, restored_from: CheckpointId },
    /// A scenario step began (for the timeline).
    Step { step: String },
    /// A scenario block that disturbs the running job (a crash, a fault, a slow phase, a
    /// stop or rescale: not a plain checkpoint or produce) began, or was `skipped` because the
    /// job had already ended: what tells whether a case's faults met a job still moving records.
    FaultBlock { skipped: bool },
    /// The job failed and will not recover.
    JobFailed { reason: String },
    /// Connector code returned an error.
    ConnectorError { subtask: Option<usize>, message: String },
    /// A task executor cancelled an attempt the job master had not spoken about for longer
    /// than the lease (its heartbeat to the job master timed out).
    LeaseExpired {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
    },
    /// A request (or message) the connector code of `subtask`'s attempt `attempt` sent after
    /// a newer attempt (`newest` by the time it arrived) had started reached external system
    /// `to`: a replaced attempt (a zombie, cut off from the job master) acting on the system,
    /// or refused by it (`refused`). Recorded once per attempt and system.
    ZombieRequest {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        #[serde(with = "attempt::serde_text")]
        newest: u64,
        to: String,
        kind: String,
        refused: bool,
    },
    /// A node was frozen for `ms` (a long garbage-collection pause); it went on afterwards.
    Paused { node: String, ms: u64 },
    /// A fetch of `split` from position `offset` by task executor `reader` (call `call`) was
    /// answered out of range: retention had deleted everything below `start`, so positions
    /// `offset..start` are lost to that reader.
    OutOfRange { split: String, offset: u64, start: u64, reader: String, call: Option<u64> },
    /// A request from `from` was still on its way to `to` when `from` went down: it lands
    /// without its sender (a request stuck in a slow server outlives its client).
    Orphaned { from: String, to: String, kind: String, call: u64 },
    /// Behind an exchange: full channels held the reader of subtask `subtask` back for `ms`
    /// (recorded when a hold of [`HELD_MS`](crate::cluster::HELD_MS) or more ends): a writer
    /// slower than its input.
    BackpressureHeld {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        ms: u64,
    },
    /// A bucket started a multipart upload of `key` (`CreateMultipartUpload`), at the
    /// request of subtask attempt `by` (subtask, attempt), if a connector's code sent it.
    UploadStarted {
        key: String,
        upload: String,
        #[serde(default)]
        by: Option<(usize, u64)>,
    },
    /// A system's own rule destroyed data no commit had made visible: a lifecycle rule
    /// aborted upload `upload` of `key`, and with its parts the records they held (as the
    /// output's format decodes them). A loss of those records is unavoidable once it
    /// happened; a connector that says so (a commit failed with a known reason naming the key
    /// or the upload) has declared it. Last, so the encoding of every older variant stays as
    /// it was.
    DataDestroyed { key: String, upload: String, records: Vec<RecordId> },
    /// A new job without state started from consumer group `group`'s committed offsets (the
    /// source declared so, [`crate::run::World::declare_group_start`]): when it was
    /// submitted, the group had committed `offsets[i]` on `splits[i]`, and nothing on any
    /// other split. Recorded right after its [`EventKind::NewJob`].
    GroupOffsets { group: String, splits: Vec<String>, offsets: Vec<u64> },
    /// A subtask attempt closed its reader, writer and committer (not recorded when its
    /// task executor crashed: a crash calls nothing).
    /// `snapshot_us`: when its writer last snapshotted its state (`None`: never, or no
    /// writer), so what it started later is in no checkpoint.
    Closed {
        subtask: usize,
        #[serde(with = "attempt::serde_text")]
        attempt: u64,
        how: Closing,
        snapshot_us: Option<u64>,
    },
    /// When the run ended, the system that records it still held this for the job.
    LeftBehind { left: Leftovers },
    /// A table's schema changed (an `ALTER TABLE`): rows written from now on are decoded
    /// with version `version`.
    SchemaAltered { table: String, version: u32, change: String },
}

/// Why the harness read an output: after a request an external system served, when a system
/// node crashed or restarted, at the start of the run, or in the final reconciliation (what
/// appears there was never seen appearing during the run).
#[cfg(madsim)]
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "after", rename_all = "snake_case")]
pub enum Cause {
    /// Before the job started (data a setup put there).
    Setup,
    /// After `node` served a request or message from `from` (`call`: its call id).
    Request { node: String, from: String, kind: String, call: Option<u64> },
    /// A system node crashed.
    Crash { node: String },
    /// A system node restarted.
    Restart { node: String },
    /// A periodic audit: the output's parts listed without trusting its version (a change
    /// found here was missed by the reads the version allowed to skip).
    Audit,
    /// The final full read at the end of the run.
    Final,
}

/// Shared, append-only history of one run.
#[cfg(madsim)]
#[derive(Clone)]
pub struct History {
    events: Arc<Mutex<Vec<Event>>>,
    produced: Arc<std::sync::atomic::AtomicUsize>,
    completed: Arc<std::sync::atomic::AtomicUsize>,
    out_of_range: Arc<std::sync::atomic::AtomicUsize>,
    last_completed: Arc<std::sync::atomic::AtomicU64>,
    /// False for a run without verification: events are counted, not kept.
    keeps: bool,
}

/// Events a history has room for before it first grows: a run of a few thousand records
/// records about as many events, and growing the list copies every event recorded so far.
#[cfg(madsim)]
const INITIAL_EVENTS: usize = 8192;

#[cfg(madsim)]
impl Default for History {
    fn default() -> Self {
        Self {
            events: Arc::new(Mutex::new(Vec::with_capacity(INITIAL_EVENTS))),
            produced: Arc::default(),
            completed: Arc::default(),
            out_of_range: Arc::default(),
            last_completed: Arc::default(),
            keeps: true,
        }
    }
}

#[cfg(madsim)]
impl History {
    /// Creates an empty history.
    pub fn new() -> Self {
        Self::default()
    }

    /// A history that keeps no events, for a run without verification
    /// ([`crate::run::Verification::Off`]): it counts what the run's driver waits on
    /// (produced records, completed checkpoints, out-of-range fetches) and drops the rest.
    pub fn off() -> Self {
        Self { events: Arc::default(), keeps: false, ..Self::default() }
    }

    /// Whether recorded events are kept (false: [`History::off`]). A caller whose event is
    /// costly to build asks first.
    pub fn keeps(&self) -> bool {
        self.keeps
    }

    /// Appends an event stamped with the current virtual time (records one attempt emits at
    /// one instant, with nothing in between, extend the last `Emitted` event).
    pub fn record(&self, node: &str, kind: EventKind) {
        if let EventKind::Emitted { subtask, attempt, ids } = kind {
            return self.record_emitted(node, subtask, attempt, ids.into_iter());
        }
        match &kind {
            EventKind::Produced { .. } => {
                self.produced.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            EventKind::CheckpointCompleted { checkpoint } => {
                self.last_completed.fetch_max(*checkpoint, std::sync::atomic::Ordering::Relaxed);
                self.completed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            EventKind::OutOfRange { .. } => {
                self.out_of_range.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            _ => {}
        }
        if self.keeps {
            let t_us = madsim::time::TimeHandle::try_current().map(|t| t.elapsed().as_micros() as u64).unwrap_or(0);
            self.events.lock().unwrap().push(Event { t_us, node: node.to_string(), kind });
        }
    }

    /// Records that subtask `subtask`'s attempt `attempt` emitted records `ids`: the same as
    /// [`History::record`] of an [`EventKind::Emitted`], without building an id vector when
    /// the records join the event before (one poll emits one record, so this is the common
    /// case).
    pub fn record_emitted(&self, node: &str, subtask: usize, attempt: u64, ids: impl Iterator<Item = RecordId>) {
        if !self.keeps {
            return;
        }
        let t_us = madsim::time::TimeHandle::try_current().map(|t| t.elapsed().as_micros() as u64).unwrap_or(0);
        let mut events = self.events.lock().unwrap();
        // A reader emits one record per poll: records one attempt emits at one instant, with
        // nothing recorded in between, are one event (as a batch emitted at once was).
        if let Some(Event { t_us: t, node: n, kind: EventKind::Emitted { subtask: s, attempt: a, ids: last } }) =
            events.last_mut()
        {
            if *t == t_us && n == node && *s == subtask && *a == attempt {
                last.extend(ids);
                return;
            }
        }
        let kind = EventKind::Emitted { subtask, attempt, ids: ids.collect() };
        events.push(Event { t_us, node: node.to_string(), kind });
    }

    /// Records that `record` was produced into a source system at position `pos` of split
    /// `split`. The rule for positions: each split numbers its records 0, 1, 2, … in the
    /// order a reader of the split reads them (a log partition's offsets, a file's lines), so
    /// a declared start position ([`crate::run::StartPosition`]) means the same to the source
    /// and to the checks.
    pub fn record_produced(&self, node: &str, record: &Record, split: &str, pos: u64) {
        self.record_produced_all(node, [(record, split, pos)]);
    }

    /// [`History::record_produced`] for each `(record, split, pos)` in order, as one step:
    /// the same events, stamped with the same instant, for one lock and one clock read.
    pub fn record_produced_all<'a>(&self, node: &str, produced: impl IntoIterator<Item = (&'a Record, &'a str, u64)>) {
        let t_us = madsim::time::TimeHandle::try_current().map(|t| t.elapsed().as_micros() as u64).unwrap_or(0);
        let produced = produced.into_iter();
        if !self.keeps {
            self.produced.fetch_add(produced.count(), std::sync::atomic::Ordering::Relaxed);
            return;
        }
        let mut events = self.events.lock().unwrap();
        events.reserve(produced.size_hint().0);
        for (record, split, pos) in produced {
            self.produced.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let kind = EventKind::Produced {
                id: record.id,
                split: split.to_string(),
                pos,
                digest: record.digest(),
                event_time_ms: record.event_time_ms,
            };
            events.push(Event { t_us, node: node.to_string(), kind });
        }
    }

    /// Runs `f` over the events so far, without copying them.
    pub fn with_events<R>(&self, f: impl FnOnce(&[Event]) -> R) -> R {
        f(&self.events.lock().unwrap())
    }

    /// A copy of all events so far.
    pub fn events(&self) -> Vec<Event> {
        self.events.lock().unwrap().clone()
    }

    /// Takes all events out (the run is over); later `record` calls start a new list.
    pub fn take(&self) -> Vec<Event> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }

    /// Number of records produced into source systems so far.
    pub fn produced(&self) -> usize {
        self.produced.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many checkpoints completed so far.
    pub fn completed(&self) -> usize {
        self.completed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many fetches were answered out of range so far (they change what is expected).
    pub fn out_of_range(&self) -> usize {
        self.out_of_range.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The highest checkpoint id completed so far (0: none).
    pub fn last_completed(&self) -> CheckpointId {
        self.last_completed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Number of events so far.
    pub fn len(&self) -> usize {
        self.events.lock().unwrap().len()
    }

    /// Whether nothing was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
