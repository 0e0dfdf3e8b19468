//! Blocks: one step applied to a running cluster, as a value. Blocks serialize (a saved
//! failure carries its scenario), print as `Debug`, and print as the Rust code that builds
//! them ([`Block::to_rust`]), so a shrunk failure can be pasted into a test.

use connsim::cluster::Phase;
use connsim::net::Refusal;
use connsim::run::Spread;
use connsim::systems::Setting;
use serde::{Deserialize, Serialize};

mod build;
pub use build::*;

/// Which task executor(s) a block aims at. `Nth` counts modulo the job's current parallelism,
/// so a block stays meaningful after a rescale or while shrinking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Worker {
    /// One, picked by the run's seed.
    Any,
    /// Subtask `n`'s task executor.
    Nth(usize),
    /// Every task executor.
    All,
}

/// Where the new job of a [`Block::NewJob`] starts (an operator's everyday choices).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NewJobFrom {
    /// Without state: its sources start where they declare, its checkpoints from 1.
    WithoutState,
    /// From the savepoint taken before the one that stopped the last job: older than the
    /// latest completed checkpoint. Its checkpoints are numbered on from that savepoint's.
    OlderSavepoint,
}

/// What a block aims at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    /// The job master.
    JobMaster,
    /// Task executor(s).
    Worker(Worker),
    /// An external system, by node name (e.g. `"log"`, `"fs"`).
    System(String),
}

impl From<Worker> for Target {
    fn from(w: Worker) -> Self {
        Target::Worker(w)
    }
}

/// A network fault, matched by message kind and link (node-name prefixes; `None`: any).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Fault {
    /// Drop messages with this probability.
    Drop {
        /// Chance per message.
        probability: f64,
        /// Message-kind prefix.
        kind: Option<String>,
        /// Sender.
        from: Option<Target>,
        /// Receiver.
        to: Option<Target>,
    },
    /// Delay messages by this long.
    Delay {
        /// Extra latency.
        ms: u64,
        /// Message-kind prefix.
        kind: Option<String>,
        /// Sender.
        from: Option<Target>,
        /// Receiver.
        to: Option<Target>,
    },
    /// Messages arrive `ms` late, overtaken by what their sender sent next on the same link:
    /// as a request that waited on a connection the client abandoned reaches the server after
    /// its retry on a new one. Order per connection holds, order across connections does not.
    Straggle {
        /// How late.
        ms: u64,
        /// Message-kind prefix (e.g. `"kafka.produce"`).
        kind: Option<String>,
        /// Sender.
        from: Option<Target>,
        /// Receiver.
        to: Option<Target>,
    },
    /// Messages are held until their sender's next message of a kind starting with `until`
    /// reaches the same receiver, and land right after it (at most `max_ms` late): a request
    /// the system applies after the client gave up on it and took its next step.
    Hold {
        /// Kind prefix of the message that releases a held one.
        until: String,
        /// Latest extra latency if nothing releases it.
        max_ms: u64,
        /// Message-kind prefix of the held messages (e.g. `"kafka.end_txn"`).
        kind: Option<String>,
        /// Sender.
        from: Option<Target>,
        /// Receiver.
        to: Option<Target>,
    },
    /// The request takes effect, its response is lost (the caller times out).
    LoseResponses {
        /// Chance per response.
        probability: f64,
        /// Message-kind prefix.
        kind: Option<String>,
        /// Caller.
        from: Option<Target>,
        /// Callee.
        to: Option<Target>,
    },
    /// Nothing gets through between `a` and `b`, in either direction.
    Partition {
        /// One side.
        a: Target,
        /// The other side.
        b: Target,
    },
    /// An external system answers requests with an error reply, without acting on them.
    Refuse {
        /// Chance per request.
        probability: f64,
        /// The error reply.
        refusal: Refusal,
        /// Message-kind prefix (e.g. `"fs.rename"`).
        kind: Option<String>,
        /// The refusing system ([`Target::System`]).
        to: Target,
    },
}

/// One step of a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Block {
    /// Produce `n` records into the source system, spread over `over_ms` (0: at once).
    Produce {
        /// How many.
        n: u64,
        /// Over which splits.
        spread: Spread,
        /// Over how long.
        over_ms: u64,
    },
    /// Add `n` splits (partitions) to the source system.
    AddSplits {
        /// How many.
        n: u64,
    },
    /// Trigger a checkpoint and wait until it completes (or a second passes).
    Checkpoint,
    /// The worker declines the next checkpoint; it is aborted.
    DeclineCheckpoint {
        /// Who declines.
        worker: Worker,
    },
    /// One worker's next snapshot is slow, past the checkpoint timeout; the checkpoint is aborted.
    CheckpointTimeout,
    /// The next checkpoint completes, but its notification to the worker(s) is lost.
    LoseNotify {
        /// Who misses it.
        worker: Worker,
    },
    /// The worker's next snapshot is slow: it acknowledges `ms` after its barrier (a slow
    /// synchronous snapshot; the subtask reads nothing and takes no later barrier meanwhile),
    /// so the checkpoint stays pending that long and, with more than one checkpoint allowed at
    /// once, the next one is triggered meanwhile and the other subtasks take its barrier. The
    /// block itself takes no time.
    SlowSnapshot {
        /// Whose snapshot.
        worker: Worker,
        /// How long it takes.
        ms: u64,
    },
    /// The worker's next start is slow: its reader registers `ms` late (its splits wait in
    /// the enumerator meanwhile).
    SlowStart {
        /// Whose start.
        worker: Worker,
        /// How late.
        ms: u64,
    },
    /// The worker's writer takes `ms` per record for `for_ms`: a slow sink. Behind an
    /// exchange its input channels fill and the readers sending to it stop polling
    /// (backpressure); chained, its own reader slows with it. The block lasts `for_ms`.
    SlowSink {
        /// Whose writer.
        worker: Worker,
        /// Virtual time per record.
        ms: u64,
        /// How long the writer stays slow.
        for_ms: u64,
    },
    /// Crash a node, optionally when a subtask reaches a protocol phase; it restarts
    /// `restart_after_ms` later.
    Crash {
        /// What crashes.
        target: Target,
        /// Crash when a subtask on the target reaches this phase (workers only).
        at: Option<Phase>,
        /// Restart delay.
        restart_after_ms: u64,
    },
    /// Freeze a node for `ms` (a long garbage-collection pause, a stopped VM), then let it
    /// go on where it stopped; the block lasts as long as the pause.
    Pause {
        /// What freezes.
        target: Target,
        /// How long.
        ms: u64,
    },
    /// A network fault held for `for_ms`.
    Fault {
        /// The fault.
        fault: Fault,
        /// How long.
        for_ms: u64,
    },
    /// Change a server-side setting of an external system (e.g. a transaction timeout).
    Configure {
        /// The system, by node name.
        system: String,
        /// The new setting.
        setting: Setting,
    },
    /// Remove every fault, restart every node that is down.
    Heal,
    /// Stop with a savepoint, then resume from it (with another parallelism if given).
    StopWithSavepoint {
        /// Parallelism to resume with (`None`: unchanged).
        resume_with: Option<usize>,
    },
    /// Stop with a savepoint, then submit a new job in its place, started as `from` says,
    /// against the output the stopped job left.
    NewJob {
        /// Where the new job starts.
        from: NewJobFrom,
    },
    /// Cancel the job and restore it from the latest checkpoint with another parallelism.
    Rescale {
        /// The new parallelism.
        parallelism: usize,
    },
    /// Let `ms` of virtual time pass.
    Wait {
        /// How long.
        ms: u64,
    },
    /// Wait until the job converged (bounded: ended; unbounded: everything produced visible).
    Drain {
        /// Give up after this long.
        timeout_ms: u64,
    },
    /// Blocks one after another.
    Seq(Vec<Block>),
    /// A block `n` times.
    Repeat {
        /// How often.
        n: u32,
        /// What.
        block: Box<Block>,
    },
    /// A fault held for as long as `body` runs.
    During {
        /// The fault.
        fault: Fault,
        /// What runs meanwhile.
        body: Box<Block>,
    },
    /// A safety phase with faults, then everything healed and a liveness phase in which the
    /// job must converge (TigerBeetle's VOPR shape).
    Phases {
        /// The faulty part.
        safety: Box<Block>,
        /// How long the job gets to converge afterwards.
        liveness_ms: u64,
    },
    /// One of these, picked by the run's seed.
    OneOf(Vec<Block>),
    /// `block`, cut off after `ms` (its held faults stay until the next heal).
    TimeLimit {
        /// The limit.
        ms: u64,
        /// What.
        block: Box<Block>,
    },
}

impl Block {
    /// This block, then `next`.
    pub fn then(self, next: impl Into<Block>) -> Block {
        match self {
            Block::Seq(mut v) => {
                v.push(next.into());
                Block::Seq(v)
            }
            b => Block::Seq(vec![b, next.into()]),
        }
    }

    /// This block `n` times.
    pub fn repeat(self, n: u32) -> Block {
        Block::Repeat { n, block: Box::new(self) }
    }

    /// This block, cut off after `ms`.
    pub fn time_limit(self, ms: u64) -> Block {
        Block::TimeLimit { ms, block: Box::new(self) }
    }

    /// How many leaf blocks this block contains (combinators count their parts).
    pub fn size(&self) -> usize {
        match self {
            Block::Seq(v) | Block::OneOf(v) => v.iter().map(Block::size).sum(),
            Block::Repeat { block, .. } | Block::TimeLimit { block, .. } => block.size(),
            Block::During { body, .. } => 1 + body.size(),
            Block::Phases { safety, .. } => safety.size(),
            _ => 1,
        }
    }

    /// Every block kind's name, as [`Block::kind`] gives it.
    pub const KINDS: [&'static str; 25] = [
        "produce",
        "add_splits",
        "checkpoint",
        "decline_checkpoint",
        "checkpoint_timeout",
        "lose_notify",
        "crash",
        "slow_start",
        "slow_snapshot",
        "slow_sink",
        "pause",
        "fault",
        "configure",
        "heal",
        "stop_with_savepoint",
        "new_job",
        "rescale",
        "wait",
        "drain",
        "then",
        "repeat",
        "during",
        "phases",
        "one_of",
        "time_limit",
    ];

    /// The block kind's name (for coverage of the block library).
    pub fn kind(&self) -> &'static str {
        match self {
            Block::Produce { .. } => "produce",
            Block::AddSplits { .. } => "add_splits",
            Block::Checkpoint => "checkpoint",
            Block::DeclineCheckpoint { .. } => "decline_checkpoint",
            Block::CheckpointTimeout => "checkpoint_timeout",
            Block::LoseNotify { .. } => "lose_notify",
            Block::Crash { .. } => "crash",
            Block::SlowStart { .. } => "slow_start",
            Block::SlowSnapshot { .. } => "slow_snapshot",
            Block::SlowSink { .. } => "slow_sink",
            Block::Pause { .. } => "pause",
            Block::Fault { .. } => "fault",
            Block::Configure { .. } => "configure",
            Block::Heal => "heal",
            Block::StopWithSavepoint { .. } => "stop_with_savepoint",
            Block::NewJob { .. } => "new_job",
            Block::Rescale { .. } => "rescale",
            Block::Wait { .. } => "wait",
            Block::Drain { .. } => "drain",
            Block::Seq(_) => "then",
            Block::Repeat { .. } => "repeat",
            Block::During { .. } => "during",
            Block::Phases { .. } => "phases",
            Block::OneOf(_) => "one_of",
            Block::TimeLimit { .. } => "time_limit",
        }
    }

    /// Whether a fault `is` accepts is held anywhere inside this block (a held fault, or one
    /// around a body), combinators searched through.
    pub fn any_fault(&self, is: &impl Fn(&Fault) -> bool) -> bool {
        match self {
            Block::Fault { fault, .. } => is(fault),
            Block::During { fault, body } => is(fault) || body.any_fault(is),
            Block::Repeat { block, .. } | Block::TimeLimit { block, .. } => block.any_fault(is),
            Block::Seq(v) | Block::OneOf(v) => v.iter().any(|b| b.any_fault(is)),
            Block::Phases { safety, .. } => safety.any_fault(is),
            _ => false,
        }
    }

    /// Whether this block, or one inside it, satisfies `is`.
    pub fn any_block(&self, is: &impl Fn(&Block) -> bool) -> bool {
        is(self)
            || match self {
                Block::During { body, .. } => body.any_block(is),
                Block::Repeat { block, .. } | Block::TimeLimit { block, .. } => block.any_block(is),
                Block::Seq(v) | Block::OneOf(v) => v.iter().any(|b| b.any_block(is)),
                Block::Phases { safety, .. } => safety.any_block(is),
                _ => false,
            }
    }

    /// Every block kind this block uses, itself included.
    pub fn kinds(&self, out: &mut std::collections::BTreeSet<&'static str>) {
        out.insert(self.kind());
        match self {
            Block::Seq(v) | Block::OneOf(v) => v.iter().for_each(|b| b.kinds(out)),
            Block::Repeat { block, .. } | Block::TimeLimit { block, .. } => block.kinds(out),
            Block::During { body, .. } => body.kinds(out),
            Block::Phases { safety, .. } => safety.kinds(out),
            _ => {}
        }
    }

    /// Checks the block can run; the error says what to change.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            Block::Crash { target: Target::JobMaster, at: Some(phase), .. } if !phase.on_job_master() => Err(format!(
                "crash(job_master()).at({phase:?}): the job master never reaches {phase:?}; aim the crash at a \
                 Worker (a global committer is a task too, in subtask 0's slot), or use Phase::BeforeNotify"
            )),
            Block::Crash { target: Target::Worker(_), at: Some(phase), .. } if !phase.on_subtasks() => Err(format!(
                "crash(worker).at({phase:?}): only the job master reaches {phase:?}; aim the crash at job_master()"
            )),
            Block::Crash { target: target @ Target::System(_), at: Some(phase), .. } => Err(format!(
                "crash({target:?}).at({phase:?}): protocol phases belong to subtasks and the job master; aim the \
                 crash at a Worker or job_master(), or drop .at(..) to crash the system at a random moment"
            )),
            Block::StopWithSavepoint { resume_with: Some(0) } | Block::Rescale { parallelism: 0 } => {
                Err("a job needs at least one subtask: use a parallelism of 1 or more".into())
            }
            Block::Configure { setting: Setting::TornAppends(p), .. } if !(0.0..=1.0).contains(p) => {
                Err(format!("torn-append probability {p} is not between 0.0 and 1.0"))
            }
            Block::Configure { setting: Setting::SlowDown(p) | Setting::InternalErrors(p), .. }
                if !(0.0..=1.0).contains(p) =>
            {
                Err(format!("an error probability {p} is not between 0.0 and 1.0"))
            }
            Block::Fault { fault, .. } | Block::During { fault, .. } => {
                validate_fault(fault).and_then(|_| match self {
                    Block::During { body, .. } => body.validate(),
                    _ => Ok(()),
                })
            }
            Block::Seq(v) | Block::OneOf(v) => v.iter().try_for_each(Block::validate),
            Block::Repeat { block, .. } | Block::TimeLimit { block, .. } => block.validate(),
            Block::Phases { safety, .. } => safety.validate(),
            _ => Ok(()),
        }
    }
}

fn validate_fault(fault: &Fault) -> Result<(), String> {
    match fault {
        Fault::Drop { probability: p, .. }
        | Fault::LoseResponses { probability: p, .. }
        | Fault::Refuse { probability: p, .. }
            if !(0.0..=1.0).contains(p) =>
        {
            Err(format!("fault probability {p} is not between 0.0 and 1.0"))
        }
        Fault::Refuse { to: to @ (Target::JobMaster | Target::Worker(_)), .. } => Err(format!(
            "refuse(..) aims at {to:?}: error replies come from external systems; name one with system(\"fs\") \
             (or partition the node to cut it off)"
        )),
        _ => Ok(()),
    }
}
