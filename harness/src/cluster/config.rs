//! Job configuration.

use serde::{Deserialize, Serialize};

/// How the job master recovers from a failed subtask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailoverStrategy {
    /// Restart only the failed subtasks from the last completed checkpoint; splits assigned
    /// to them since then go back through `add_splits_back`.
    Region,
    /// Restart every subtask and the enumerator from the last completed checkpoint.
    Global,
}

/// How records travel from the source's subtasks to the sink's (Flink's partitioners).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Exchange {
    /// Reader and writer chained in one task: subtask i's records go to writer i, no network.
    #[default]
    Forward,
    /// Every reader sends to every writer, round robin, over the gateway.
    Rebalance,
    /// Every reader sends each record to the writer its key hashes to, over the gateway.
    KeyBy,
}

impl Exchange {
    /// Every reader may send to every writer: the job is one failover region.
    pub fn all_to_all(self) -> bool {
        self != Exchange::Forward
    }
}

/// A bug in a behaviour the runtime owns, switched on to show that the suites catch it
/// (connsim's own tests and the catalogue's runtime mutants); never set in real use. Each
/// breaks what a connector cannot break on purpose, as bugs of the kind shipped in Flink's own
/// runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RuntimeBug {
    /// On a restore with another parallelism, new reader `i` restores the split state of old
    /// reader `i` instead of a share of every old reader's (state restored by index, as
    /// for state that is not redistributable): scaling up is right, scaling down drops the
    /// splits the removed readers held.
    SplitStateByIndex,
    /// The global committer combines only the committables prepared for the checkpoint that
    /// completed: what writers prepared for a checkpoint that was then aborted (declined,
    /// expired, given up) never reaches it, though the writers hand it on with the next one.
    CombinesOnlyTheCompletedCheckpoint,
    /// After a restore with another parallelism the global committer starts empty: the
    /// global committables the restored checkpoint stored, not yet committed, are dropped
    /// (its bookkeeping is rebuilt for the new parallelism and forgets them).
    GlobalCommitterForgetsOnRescale,
    /// A committer apart from the writers ([`SinkParallelism::committers`]) acknowledges its
    /// part of checkpoint `c` at the first writer's barrier `c` instead of once the barrier
    /// came from every writer (the class of Flink's FLINK-36368: a committer behind a shuffle
    /// that cannot tell whether every upstream writer's committables arrived). What a slower
    /// writer prepared for `c` lands in the committer's part of the next checkpoint, though
    /// that writer's part of `c` no longer holds it: a restore from `c` loses it.
    CommitterAcksAtTheFirstBarrier,
    /// A reader's split that has no watermark yet (assigned, no record read) does not hold
    /// the reader's combined watermark back: the other splits' watermarks carry it past the
    /// new split's first records.
    SplitWithoutWatermarkDoesNotHold,
    /// A reader whose splits have all gone idle takes the maximum watermark for each of them
    /// when alignment decides what to pause (an idle output's last emitted watermark is the
    /// maximum): its splits are paused though within the drift, stay silent, so stay idle,
    /// and are never resumed.
    IdleReaderWaitsForAlignment,
}

impl RuntimeBug {
    /// The bug as the watermark tracker knows it, if it is one of the tracker's.
    pub(crate) fn in_tracker(self) -> Option<crate::api::TrackerBug> {
        use crate::api::TrackerBug;
        match self {
            RuntimeBug::SplitWithoutWatermarkDoesNotHold => Some(TrackerBug::SplitWithoutWatermarkDoesNotHold),
            RuntimeBug::IdleReaderWaitsForAlignment => Some(TrackerBug::IdleReaderWaitsForAlignment),
            _ => None,
        }
    }
}

/// Settings of the simulated job. Documented field by field; printed in every report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobConfig {
    /// Number of subtasks.
    pub parallelism: usize,
    /// Slots each task executor offers: how many subtasks it can host at once.
    #[serde(default = "one")]
    pub slots_per_task_executor: usize,
    /// Task executors beyond those the subtasks need: spare capacity a lost task executor's
    /// subtasks are redeployed to, as Flink's slot pool keeps slots of other task managers.
    #[serde(default = "one")]
    pub spare_task_executors: usize,
    /// When checkpoints are triggered, how long they may take, how many may be pending.
    #[serde(flatten)]
    pub checkpoints: CheckpointConfig,
    /// Recovery strategy.
    pub failover: FailoverStrategy,
    /// Heartbeats between the job master and the task executors, and the leases they renew.
    #[serde(flatten)]
    pub heartbeats: HeartbeatConfig,
    /// Hold back enumerator events between its snapshot and the barrier (always on in real
    /// use). Off only in connsim's own tests, to show the split-accounting check catches
    /// what the valve prevents.
    #[serde(default = "yes")]
    pub coordinator_valve: bool,
    /// Between the readers and the writers: chained (forward), or a network exchange. With
    /// an exchange, a failed subtask restarts every subtask (the job is one region).
    #[serde(default)]
    pub exchange: Exchange,
    /// A writer behind an exchange snapshots once barrier `c` came on every input channel,
    /// holding back channels that delivered it (aligned barriers, always on in real use).
    /// Off only in connsim's own tests: it then snapshots at the first barrier.
    #[serde(default = "yes")]
    pub aligned_barriers: bool,
    /// The sink's parallelisms: its writers' and its committers' (in a case file, flat:
    /// `sink_parallelism`, `committer_parallelism`).
    #[serde(flatten)]
    pub sink: SinkParallelism,
    /// The watermark strategy the job reads its source with (what Flink's
    /// `env.fromSource(source, strategy, name)` is given); `None`: the source's own
    /// ([`Source::watermark_strategy`](crate::api::Source::watermark_strategy)), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watermarks: Option<crate::api::WatermarkStrategy>,
    /// A runtime bug switched on (connsim's own tests only); `None` in real use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_bug: Option<RuntimeBug>,
}

/// The sink's parallelisms (in a case file, flat: `sink_parallelism`,
/// `committer_parallelism`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SinkParallelism {
    /// Writers behind an exchange, when other than `parallelism` (the readers). Subtask `i`
    /// hosts reader `i` and writer `i` where they exist, as a Flink slot hosts one subtask
    /// of each operator. Needs an exchange: a chained job has a writer per reader.
    #[serde(rename = "sink_parallelism", default)]
    pub writers: Option<usize>,
    /// Committers as tasks of their own, when set (Flink's committer operator with a
    /// parallelism other than the writers'): `k` tasks after every reader and writer's `n`
    /// subtasks, committer `j` sharing subtask `j mod n`'s slot; `k` stays the same across
    /// rescales of the readers and writers. Every writer has a channel to every
    /// committer: writer `w` sends its committables to committer `w mod k`, and its barriers
    /// to all of them. `None`: each writer's committer is chained to it. Not with a sink that
    /// has a global committer (it commits instead).
    #[serde(rename = "committer_parallelism", default, skip_serializing_if = "Option::is_none")]
    pub committers: Option<usize>,
}

/// Checkpointing settings of a job (in a case file, flat: `checkpoint_interval_ms`,
/// `checkpoint_timeout_ms`, `max_concurrent_checkpoints`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointConfig {
    /// Virtual time between checkpoint triggers.
    #[serde(rename = "checkpoint_interval_ms")]
    pub interval_ms: u64,
    /// A checkpoint not complete after this long is aborted (it expires, as in Flink).
    #[serde(rename = "checkpoint_timeout_ms")]
    pub timeout_ms: u64,
    /// How many checkpoints may be pending at once (Flink's
    /// `execution.checkpointing.max-concurrent-checkpoints`). With more than one, the next
    /// checkpoint can be triggered before the previous one completed, so a subtask may take
    /// barrier `c + 1` before it hears that `c` completed. 0 counts as 1.
    #[serde(rename = "max_concurrent_checkpoints", default = "one")]
    pub max_concurrent: usize,
}

/// Heartbeat settings of a job (in a case file, flat: `heartbeat_interval_ms`,
/// `heartbeat_misses_max`, `executor_heartbeat_timeout_ms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeartbeatConfig {
    /// Virtual time between heartbeats to each task executor.
    #[serde(rename = "heartbeat_interval_ms")]
    pub interval_ms: u64,
    /// Consecutive missed heartbeats after which a task executor counts as lost.
    #[serde(rename = "heartbeat_misses_max")]
    pub misses_max: u32,
    /// A task executor that has not heard from the job master about an attempt for this
    /// long cancels it, as Flink's task manager does when its heartbeat to the job manager
    /// times out. Until then an attempt cut off from the job master keeps running: a zombie,
    /// still reaching every external system it can reach.
    #[serde(rename = "executor_heartbeat_timeout_ms", default = "executor_timeout")]
    pub executor_timeout_ms: u64,
}

fn yes() -> bool {
    true
}

fn one() -> usize {
    1
}

fn executor_timeout() -> u64 {
    500
}

impl JobConfig {
    /// How many task executors a job of `parallelism` readers runs on: enough slots for
    /// every subtask (one per reader, or per writer where there are more), plus the spares.
    pub fn task_executors(&self, parallelism: usize) -> usize {
        let subtasks = parallelism.max(self.writers(parallelism));
        subtasks.div_ceil(self.slots_per_task_executor.max(1)) + self.spare_task_executors
    }

    /// Writers of a job whose source has `readers` subtasks.
    pub fn writers(&self, readers: usize) -> usize {
        self.sink.writers.unwrap_or(readers)
    }

    /// Committer tasks apart from the writers (0: each writer's committer is chained to it).
    pub fn committers(&self) -> usize {
        self.sink.committers.unwrap_or(0)
    }

    /// Why this configuration cannot run, if it cannot.
    pub fn problem(&self) -> Option<String> {
        if self.sink.committers == Some(0) {
            return Some(
                "committer_parallelism is 0: set at least one committer, or leave it unset to chain \
                 each writer's committer to it"
                    .into(),
            );
        }
        match self.sink.writers {
            Some(0) => Some("sink_parallelism is 0: a job needs at least one writer".into()),
            Some(_) if !self.exchange.all_to_all() => Some(
                "sink_parallelism needs an exchange between readers and writers (set `exchange` to \
                 Rebalance or KeyBy): a chained job has one writer per reader"
                    .into(),
            ),
            _ => None,
        }
    }

    /// The task executor subtask `subtask` is first deployed to.
    pub fn home(&self, subtask: usize) -> usize {
        subtask / self.slots_per_task_executor.max(1)
    }
}

impl Default for JobConfig {
    fn default() -> Self {
        Self {
            parallelism: 4,
            slots_per_task_executor: 1,
            spare_task_executors: 1,
            checkpoints: CheckpointConfig { interval_ms: 100, timeout_ms: 400, max_concurrent: 1 },
            failover: FailoverStrategy::Region,
            heartbeats: HeartbeatConfig { interval_ms: 50, misses_max: 3, executor_timeout_ms: executor_timeout() },
            coordinator_valve: true,
            exchange: Exchange::Forward,
            aligned_barriers: true,
            sink: SinkParallelism::default(),
            watermarks: None,
            runtime_bug: None,
        }
    }
}
