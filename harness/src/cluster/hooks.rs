//! Instrumentation points a scenario arms from outside the cluster: crash a task executor at
//! a named phase of the checkpoint protocol, make a subtask decline its next checkpoint,
//! and hand commands to whichever job-master incarnation is running.
//!
//! This is the test's hand on the cluster (as the supervisor that kills nodes is); no node
//! reads another node's state through it.

use crate::history::CheckpointId;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

pub use crate::history::Phase;

/// Who an armed crash is for.
#[derive(Clone, Debug)]
enum Aim {
    /// Any subtask (a global committer's task too).
    Any,
    /// These subtasks.
    Subtasks(BTreeSet<usize>),
    /// The job master.
    JobMaster,
}

/// A task (a subtask, a global committer) or the job master reached an armed phase; the
/// supervisor crashes its node.
#[derive(Clone, Debug)]
pub(crate) struct Hit {
    pub node: String,
    pub subtask: Option<usize>,
    pub phase: Phase,
    pub checkpoint: CheckpointId,
}

/// Commands for the job master, from a scenario.
#[derive(Debug)]
pub(crate) enum JmCommand {
    /// Trigger a checkpoint now (if none is pending).
    TriggerCheckpoint,
    /// Take a savepoint, stop the sources at it, commit it, and stop the job.
    StopWithSavepoint,
    /// Give up a stop-with-savepoint under way; the job keeps running.
    CancelStop,
}

#[derive(Default)]
struct Armed {
    crashes: Vec<(Phase, Aim)>,
    declines: BTreeSet<usize>,
    /// Subtask → how long its next snapshot takes.
    slow: std::collections::BTreeMap<usize, u64>,
    /// Subtask → how long its next reader start takes before it registers.
    slow_start: std::collections::BTreeMap<usize, u64>,
    /// Subtask → how long each record its writer takes costs, and until when (virtual ms).
    slow_writes: std::collections::BTreeMap<usize, (u64, u64)>,
}

/// The shared instrumentation of one run.
#[derive(Clone)]
pub(crate) struct Hooks {
    any: Arc<AtomicBool>,
    armed: Arc<Mutex<Armed>>,
    hits: mpsc::UnboundedSender<Hit>,
    jm: Arc<Mutex<Option<mpsc::UnboundedSender<JmCommand>>>>,
}

impl Hooks {
    pub fn new() -> (Self, mpsc::UnboundedReceiver<Hit>) {
        let (hits, rx) = mpsc::unbounded_channel();
        let hooks = Self { any: Arc::default(), armed: Arc::default(), hits, jm: Arc::default() };
        (hooks, rx)
    }

    /// Arms one crash at `phase` for the first of `subtasks` (None: any) that reaches it.
    pub fn arm_crash(&self, phase: Phase, subtasks: Option<BTreeSet<usize>>) {
        let aim = subtasks.map_or(Aim::Any, Aim::Subtasks);
        self.armed.lock().unwrap().crashes.push((phase, aim));
        self.any.store(true, Ordering::Relaxed);
    }

    /// Arms one crash of the job master at `phase`.
    pub fn arm_job_master_crash(&self, phase: Phase) {
        self.armed.lock().unwrap().crashes.push((phase, Aim::JobMaster));
        self.any.store(true, Ordering::Relaxed);
    }

    /// Makes `subtask` decline the next checkpoint it is asked for.
    pub fn arm_decline(&self, subtask: usize) {
        self.armed.lock().unwrap().declines.insert(subtask);
        self.any.store(true, Ordering::Relaxed);
    }

    /// Makes `subtask`'s next snapshot take `ms` (a slow state upload), so the checkpoint
    /// can time out.
    pub fn arm_slow_snapshot(&self, subtask: usize, ms: u64) {
        self.armed.lock().unwrap().slow.insert(subtask, ms);
        self.any.store(true, Ordering::Relaxed);
    }

    /// Called by a subtask before it acknowledges a checkpoint: how long to stall first.
    pub fn snapshot_stall(&self, subtask: usize) -> Option<u64> {
        if !self.any.load(Ordering::Relaxed) {
            return None;
        }
        self.armed.lock().unwrap().slow.remove(&subtask)
    }

    /// Makes `subtask`'s next start take `ms` before its reader registers.
    pub fn arm_slow_start(&self, subtask: usize, ms: u64) {
        self.armed.lock().unwrap().slow_start.insert(subtask, ms);
        self.any.store(true, Ordering::Relaxed);
    }

    /// Called by a subtask before its reader registers: how long to stall first.
    pub fn start_stall(&self, subtask: usize) -> Option<u64> {
        if !self.any.load(Ordering::Relaxed) {
            return None;
        }
        self.armed.lock().unwrap().slow_start.remove(&subtask)
    }

    /// Makes `subtask`'s writer take `ms` per record until virtual time `until_ms` (a slow
    /// sink: behind an exchange its input channels fill and the readers are backpressured).
    pub fn arm_slow_writes(&self, subtask: usize, ms: u64, until_ms: u64) {
        self.armed.lock().unwrap().slow_writes.insert(subtask, (ms, until_ms));
        self.any.store(true, Ordering::Relaxed);
    }

    /// Called by a subtask after its writer took a record: how long to stall. Costs one
    /// atomic load per record unless a scenario armed something.
    pub fn write_stall(&self, subtask: usize) -> Option<u64> {
        if !self.any.load(Ordering::Relaxed) {
            return None;
        }
        let mut armed = self.armed.lock().unwrap();
        let (ms, until) = *armed.slow_writes.get(&subtask)?;
        if crate::net::now().as_millis() as u64 >= until {
            armed.slow_writes.remove(&subtask);
            return None;
        }
        Some(ms)
    }

    /// Disarms everything not yet hit.
    pub fn disarm(&self) {
        *self.armed.lock().unwrap() = Armed::default();
        self.any.store(false, Ordering::Relaxed);
    }

    /// Whether any crash is still armed.
    pub fn crash_armed(&self) -> bool {
        !self.armed.lock().unwrap().crashes.is_empty()
    }

    /// Called by a subtask on task executor `node` at `phase`: true when it must crash here
    /// (the caller then waits for the supervisor to kill its node).
    pub fn at(&self, node: &str, subtask: usize, phase: Phase, checkpoint: CheckpointId) -> bool {
        self.at_hosted(node, subtask, subtask, phase, checkpoint)
    }

    /// [`Hooks::at`] for a task that shares subtask `host`'s slot (a global committer): a
    /// crash aimed at either applies.
    pub fn at_hosted(&self, node: &str, subtask: usize, host: usize, phase: Phase, checkpoint: CheckpointId) -> bool {
        if !self.any.load(Ordering::Relaxed) {
            return false;
        }
        let mut armed = self.armed.lock().unwrap();
        let found = armed.crashes.iter().position(|(p, aim)| {
            *p == phase
                && match aim {
                    Aim::Any => true,
                    Aim::Subtasks(w) => w.contains(&subtask) || w.contains(&host),
                    Aim::JobMaster => false,
                }
        });
        let Some(i) = found else { return false };
        armed.crashes.remove(i);
        let node = node.to_string();
        let _ = self.hits.send(Hit { node, subtask: Some(subtask), phase, checkpoint });
        true
    }

    /// Called by the job master at `phase`: true when it must crash here (a crash aimed at
    /// the job master).
    pub fn at_job_master(&self, phase: Phase, checkpoint: CheckpointId) -> bool {
        if !self.any.load(Ordering::Relaxed) {
            return false;
        }
        let mut armed = self.armed.lock().unwrap();
        let aimed = |aim: &Aim| matches!(aim, Aim::JobMaster);
        let Some(i) = armed.crashes.iter().position(|(p, aim)| *p == phase && aimed(aim)) else { return false };
        armed.crashes.remove(i);
        let node = super::protocol::JOB_MASTER.to_string();
        let _ = self.hits.send(Hit { node, subtask: None, phase, checkpoint });
        true
    }

    /// Called by a subtask when asked for a checkpoint: true when it must decline it.
    pub fn declines(&self, subtask: usize) -> bool {
        self.any.load(Ordering::Relaxed) && self.armed.lock().unwrap().declines.remove(&subtask)
    }

    /// The running job master registers where its commands go.
    pub fn register_job_master(&self, tx: mpsc::UnboundedSender<JmCommand>) {
        *self.jm.lock().unwrap() = Some(tx);
    }

    /// Hands a command to the running job master; false when none is running.
    pub fn command(&self, cmd: JmCommand) -> bool {
        self.jm.lock().unwrap().as_ref().is_some_and(|tx| tx.send(cmd).is_ok())
    }
}
