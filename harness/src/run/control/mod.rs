//! The scenario's hand on a running cluster: crash and restart nodes (task executors, the
//! job master, external systems), aim crashes at protocol phases, install network faults,
//! trigger checkpoints, take savepoints, rescale, produce data, wait.
//!
//! Every operation records what it did in the history, so the timeline shows the scenario
//! next to the protocol. Operations that disturb the job do nothing once the job has ended
//! (there is nothing left to disturb, and a finished job must stay finished).

mod nodes;

use super::config::RunConfig;
use super::testbed::{Producer, RecordMaker};
use crate::cluster::{
    task_executor, CheckpointStore, Hit, Hooks, JmCommand, JobStatus, JobStatusCell, NewJobStart, Phase, JOB_MASTER,
};
use crate::history::{CheckpointId, EventKind, History};
use crate::net::{FaultRule, Gateway, RuleId};
use crate::oracle::observe::Observer;
use crate::oracle::Starts;
use crate::systems::ExternalSystem;
use madsim::runtime::{Handle, NodeHandle};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What `all_visible` depends on: observed output changes, records produced, checkpoints
/// completed, fetches answered out of range.
type VisibleKey = (u64, usize, usize, usize);

/// Builds a task-executor node for subtask index `i`.
pub(crate) type TeBuilder = Box<dyn Fn(usize) -> NodeHandle + Send + Sync>;

/// How records are spread when a block produces them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Spread {
    /// Evenly at random over every split.
    Uniform,
    /// Four in five to the first split, the rest at random (a hot key).
    Skewed,
}

struct Nodes {
    job_master: NodeHandle,
    executors: Vec<NodeHandle>,
    systems: BTreeMap<String, (NodeHandle, Arc<dyn ExternalSystem>)>,
    down: BTreeSet<String>,
}

struct Inner {
    handle: Handle,
    gateway: Gateway,
    history: History,
    hooks: Hooks,
    status: JobStatusCell,
    store: CheckpointStore,
    config: RunConfig,
    rng: Mutex<ChaCha8Rng>,
    nodes: Mutex<Nodes>,
    build_te: TeBuilder,
    producer: Option<Arc<dyn Producer>>,
    records: RecordMaker,
    observer: Observer,
    starts: Starts,
    /// The last answer of `all_visible`, with the output changes and produced count it saw.
    visible_cache: Mutex<Option<(VisibleKey, bool)>>,
    bounded: bool,
    crash_restart_ms: Mutex<u64>,
    workloads: Vec<madsim::task::JoinHandle<()>>,
    /// Tells background tasks the run is over.
    shutdown: Arc<tokio::sync::Notify>,
}

/// A handle on the running cluster, for scenarios. Cheap to clone.
#[derive(Clone)]
pub struct Control {
    inner: Arc<Inner>,
}

/// What a [`Control`] is made of; assembled by the per-seed driver.
pub(crate) struct ControlParts {
    pub handle: Handle,
    pub gateway: Gateway,
    pub history: History,
    pub hooks: Hooks,
    pub status: JobStatusCell,
    pub store: CheckpointStore,
    pub config: RunConfig,
    pub rng: ChaCha8Rng,
    pub job_master: NodeHandle,
    pub executors: Vec<NodeHandle>,
    pub systems: Vec<(NodeHandle, Arc<dyn ExternalSystem>)>,
    pub build_te: TeBuilder,
    pub producer: Option<Arc<dyn Producer>>,
    pub records: RecordMaker,
    pub observer: Observer,
    pub starts: Starts,
    pub bounded: bool,
    pub workloads: Vec<madsim::task::JoinHandle<()>>,
}

const SUPERVISOR: &str = "supervisor";

/// How long a finished bounded job's output is watched after the systems restarted: longer
/// than a client's call timeout plus a retry, and than a checkpoint interval.
pub const SETTLE_BOUNDED_MS: u64 = 150;

impl Control {
    pub(crate) fn new(parts: ControlParts, hits: tokio::sync::mpsc::UnboundedReceiver<Hit>) -> Self {
        let systems = parts.systems.into_iter().map(|(n, s)| (s.name(), (n, s))).collect();
        let inner = Inner {
            handle: parts.handle,
            gateway: parts.gateway,
            history: parts.history,
            hooks: parts.hooks,
            status: parts.status,
            store: parts.store,
            config: parts.config,
            rng: Mutex::new(parts.rng),
            nodes: Mutex::new(Nodes {
                job_master: parts.job_master,
                executors: parts.executors,
                systems,
                down: BTreeSet::new(),
            }),
            build_te: parts.build_te,
            producer: parts.producer,
            records: parts.records,
            observer: parts.observer,
            starts: parts.starts,
            visible_cache: Mutex::new(None),
            bounded: parts.bounded,
            crash_restart_ms: Mutex::new(0),
            workloads: parts.workloads,
            shutdown: Arc::default(),
        };
        let control = Self { inner: Arc::new(inner) };
        control.listen(hits);
        control
    }

    /// A handle that does not keep the run's state alive: background tasks hold this, so
    /// a task still pending when the run ends does not keep the whole world in memory.
    fn weak(&self) -> std::sync::Weak<Inner> {
        Arc::downgrade(&self.inner)
    }

    /// Crashes the task executor of a subtask that reached an armed phase. Ends when the run
    /// ends ([`Control::kill_all`]).
    fn listen(&self, mut hits: tokio::sync::mpsc::UnboundedReceiver<Hit>) {
        let (weak, shutdown) = (self.weak(), self.inner.shutdown.clone());
        madsim::task::spawn(async move {
            loop {
                let hit = tokio::select! {
                    biased;
                    _ = shutdown.notified() => return,
                    hit = hits.recv() => match hit {
                        Some(hit) => hit,
                        None => return,
                    },
                };
                let Some(inner) = weak.upgrade() else { return };
                let me = Control { inner };
                me.record(EventKind::CrashPoint {
                    node: hit.node.clone(),
                    subtask: hit.subtask,
                    phase: hit.phase,
                    checkpoint: hit.checkpoint,
                });
                let delay = *me.inner.crash_restart_ms.lock().unwrap();
                me.crash_for(&hit.node, delay);
            }
        });
    }

    fn record(&self, kind: EventKind) {
        self.inner.history.record(SUPERVISOR, kind);
    }

    /// Notes a scenario step in the history (it shows in the report's timeline).
    pub fn step(&self, step: impl Into<String>) {
        self.record(EventKind::Step { step: step.into() });
    }

    /// A scenario block that disturbs the job began (`skipped`: it met no running job, which
    /// had already ended); see [`EventKind::FaultBlock`].
    pub fn fault_block(&self, skipped: bool) {
        self.record(EventKind::FaultBlock { skipped });
    }

    /// The run's configuration.
    pub fn config(&self) -> &RunConfig {
        &self.inner.config
    }

    /// The run's history so far (read-only use).
    pub fn history(&self) -> &History {
        &self.inner.history
    }

    /// Virtual milliseconds since the run started.
    pub fn now_ms(&self) -> u64 {
        crate::net::now().as_millis() as u64
    }

    /// Waits `ms` of virtual time.
    pub async fn sleep_ms(&self, ms: u64) {
        madsim::time::sleep(Duration::from_millis(ms.max(1))).await;
    }

    /// A number from the scenario's random stream (seeded from the run's seed).
    pub fn random(&self, below: u64) -> u64 {
        self.inner.rng.lock().unwrap().gen_range(0..below.max(1))
    }

    /// The job's current parallelism (changed by [`Control::rescale`]).
    pub fn parallelism(&self) -> usize {
        self.inner.store.parallelism().unwrap_or(self.inner.config.job.parallelism)
    }

    /// The job's subtasks now: one per reader, or per writer where a job behind an exchange
    /// has more writers ([`SinkParallelism::writers`](crate::cluster::SinkParallelism)). Faults
    /// aimed at workers choose among these.
    pub fn subtasks(&self) -> usize {
        let p = self.parallelism();
        p.max(self.inner.config.job.writers(p))
    }

    /// Subtasks that host a writer (`0..writers`): the sink's parallelism.
    pub fn writers(&self) -> usize {
        self.inner.config.job.writers(self.parallelism())
    }

    /// Where the job stands.
    pub fn status(&self) -> JobStatus {
        self.inner.status.lock().unwrap().clone()
    }

    /// Whether the job finished or failed for good (a stopped job can still be resumed).
    pub fn ended(&self) -> bool {
        matches!(self.status(), JobStatus::Finished | JobStatus::Failed(_))
    }

    /// Arms a crash of the task executor of the first of `subtasks` (None: any) that
    /// reaches `phase`; it restarts `restart_ms` later.
    pub fn arm_crash(&self, phase: Phase, subtasks: Option<BTreeSet<usize>>, restart_ms: u64) {
        *self.inner.crash_restart_ms.lock().unwrap() = restart_ms;
        self.inner.hooks.arm_crash(phase, subtasks);
    }

    /// Arms a crash of the job master when it reaches `phase` (one it can reach, see
    /// [`Phase::on_job_master`]); it restarts `restart_ms` later.
    pub fn arm_job_master_crash(&self, phase: Phase, restart_ms: u64) {
        *self.inner.crash_restart_ms.lock().unwrap() = restart_ms;
        self.inner.hooks.arm_job_master_crash(phase);
    }

    /// Whether an armed crash has not been hit yet.
    pub fn crash_armed(&self) -> bool {
        self.inner.hooks.crash_armed()
    }

    /// Disarms everything armed and not yet hit: crashes, declines, slow snapshots, slow
    /// starts and slow writes.
    pub fn disarm(&self) {
        self.inner.hooks.disarm();
    }

    /// Makes `subtask` decline the next checkpoint it is asked for.
    pub fn decline_next(&self, subtask: usize) {
        self.inner.hooks.arm_decline(subtask);
    }

    /// Makes `subtask`'s next snapshot take `ms` before it is acknowledged.
    pub fn slow_snapshot(&self, subtask: usize, ms: u64) {
        self.inner.hooks.arm_slow_snapshot(subtask, ms);
    }

    /// Makes `subtask`'s writer take `ms` per record for the next `for_ms` (a slow sink).
    pub fn slow_writes(&self, subtask: usize, ms: u64, for_ms: u64) {
        self.inner.hooks.arm_slow_writes(subtask, ms, self.now_ms() + for_ms);
    }

    /// Makes `subtask`'s next start take `ms` before its reader registers.
    pub fn slow_start(&self, subtask: usize, ms: u64) {
        self.inner.hooks.arm_slow_start(subtask, ms);
    }

    /// Installs a network fault rule; returns its id for [`Control::remove_rule`].
    pub fn add_rule(&self, rule: FaultRule) -> RuleId {
        self.inner.gateway.add_rule(rule)
    }

    /// Removes a fault rule.
    pub fn remove_rule(&self, id: RuleId) {
        self.inner.gateway.remove_rule(id);
    }

    /// Removes every network fault rule.
    pub fn heal_network(&self) {
        self.inner.gateway.heal();
    }

    /// Heals everything: removes fault rules and armed crashes, restarts every node that is
    /// down (the job master last, once the others are up), and so also resumes a job stopped
    /// at a savepoint.
    pub async fn heal_all(&self) {
        self.disarm();
        self.heal_network();
        self.resume_if_stopped().await;
        let down: Vec<String> = self.inner.nodes.lock().unwrap().down.iter().cloned().collect();
        let needed = self.config().job.task_executors(self.parallelism());
        for node in down.iter().filter(|n| *n != JOB_MASTER) {
            let beyond = (needed..self.inner.nodes.lock().unwrap().executors.len()).any(|i| task_executor(i) == *node);
            if !beyond {
                self.restart(node);
            }
        }
        if self.is_down(JOB_MASTER) {
            self.sleep_ms(1).await;
            self.restart(JOB_MASTER);
        }
    }

    /// A job stopped at a savepoint nobody resumed cannot converge: resume it from there.
    async fn resume_if_stopped(&self) {
        if matches!(self.status(), JobStatus::Stopped(_)) {
            self.step("the job is stopped at a savepoint: resuming it");
            self.shut_down_job();
            self.resume(self.parallelism()).await;
        }
    }

    /// Asks the job master to trigger a checkpoint now. False if no job master runs.
    pub fn trigger_checkpoint(&self) -> bool {
        !self.is_down(JOB_MASTER) && self.inner.hooks.command(JmCommand::TriggerCheckpoint)
    }

    /// The highest completed checkpoint so far (0: none).
    pub fn last_completed(&self) -> CheckpointId {
        self.inner.history.last_completed()
    }

    /// Waits until a checkpoint newer than `after` completes; None after `timeout_ms` or
    /// when the job ended.
    pub async fn await_checkpoint(&self, after: CheckpointId, timeout_ms: u64) -> Option<CheckpointId> {
        let deadline = self.now_ms() + timeout_ms;
        loop {
            let last = self.last_completed();
            if last > after {
                return Some(last);
            }
            if self.now_ms() >= deadline || self.ended() {
                return None;
            }
            self.sleep_ms(5).await;
        }
    }

    /// Stop-with-savepoint: the job master takes a savepoint that stops the sources, commits
    /// it and stops the job; then every job node is shut down. The savepoint's id, or why it
    /// failed (the job then keeps running).
    pub async fn stop_with_savepoint(&self, timeout_ms: u64) -> Result<CheckpointId, String> {
        if self.ended() {
            return Err("the job already ended".into());
        }
        if !self.inner.hooks.command(JmCommand::StopWithSavepoint) || self.is_down(JOB_MASTER) {
            return Err("no job master is running".into());
        }
        let deadline = self.now_ms() + timeout_ms;
        while self.now_ms() < deadline && self.status() == JobStatus::Running {
            self.sleep_ms(5).await;
        }
        if self.status() == JobStatus::Running {
            // Give up: the job master cancels the stop and keeps the job running; a stop that
            // completes meanwhile still counts.
            self.inner.hooks.command(JmCommand::CancelStop);
            self.sleep_ms(20).await;
        }
        match self.status() {
            JobStatus::Stopped(c) => {
                self.shut_down_job();
                Ok(c)
            }
            JobStatus::Running => Err(format!("no savepoint within {timeout_ms} ms; the stop was cancelled")),
            other => Err(format!("the job ended instead: {other:?}")),
        }
    }

    /// Stops the job master and every task executor (a cancelled or stopped job).
    fn shut_down_job(&self) {
        let mut names = vec![JOB_MASTER.to_string()];
        names.extend((0..self.inner.nodes.lock().unwrap().executors.len()).map(task_executor));
        for name in names {
            if self.is_down(&name) {
                continue;
            }
            let Some(handle) = self.node_handle(&name) else { continue };
            self.inner.nodes.lock().unwrap().down.insert(name.clone());
            self.inner.gateway.node_down(&name);
            self.inner.handle.kill(handle.id());
            self.record(EventKind::NodeStopped { node: name });
        }
    }

    /// Starts the job again from its latest completed checkpoint or savepoint with
    /// `parallelism` subtasks: split states, writer states and committables are dealt out
    /// again. The job keeps its durable coordinates (checkpoint ids, the leader epoch).
    pub async fn resume(&self, parallelism: usize) {
        let parallelism = parallelism.max(1);
        // From here on the job is running again (recovering), not stopped: nothing else
        // resumes it a second time while its job master comes up.
        *self.inner.status.lock().unwrap() = JobStatus::Running;
        self.inner.store.set_parallelism(parallelism);
        let existing = self.inner.nodes.lock().unwrap().executors.len();
        let needed = self.config().job.task_executors(parallelism);
        for i in existing..needed {
            let node = (self.inner.build_te)(i);
            self.inner.nodes.lock().unwrap().executors.push(node);
            self.record(EventKind::Restarted { node: task_executor(i) });
        }
        for i in 0..needed.min(existing) {
            self.restart(&task_executor(i));
        }
        self.sleep_ms(1).await; // the task executors come up before the job master deploys
        self.restart(JOB_MASTER);
    }

    /// Replaces the stopped job (after [`Control::stop_with_savepoint`]) by a new one, started
    /// as `start` says: without state, or from the savepoint before the latest one. The new
    /// job runs against the output the previous job left; its checkpoints are numbered as
    /// Flink numbers a new job's (from 1, or on from the savepoint). Returns the new job's
    /// index and the savepoint it restores (0: none), or why it cannot start so; then nothing
    /// changes and the caller resumes the job as it was.
    pub async fn start_new_job(&self, start: NewJobStart) -> Result<(u64, CheckpointId), String> {
        if !matches!(self.status(), JobStatus::Stopped(_)) {
            return Err(format!("the job is not stopped at a savepoint ({:?})", self.status()));
        }
        let (job, restored_from) = self.inner.store.start_new_job(start)?;
        self.record(EventKind::NewJob { job, restored_from });
        if let (0, Some(group)) = (restored_from, &self.inner.starts.group) {
            self.record_group_offsets(group);
        }
        self.resume(self.parallelism()).await;
        Ok((job, restored_from))
    }

    /// Records what `group` has committed in every system, as a new job without state
    /// starting from it finds it.
    fn record_group_offsets(&self, group: &str) {
        let nodes = self.inner.nodes.lock().unwrap();
        let mut committed: Vec<(String, u64)> =
            nodes.systems.values().flat_map(|(_, system)| system.committed_offsets(group)).collect();
        drop(nodes);
        committed.sort();
        let (splits, offsets) = committed.into_iter().unzip();
        self.record(EventKind::GroupOffsets { group: group.to_string(), splits, offsets });
    }

    /// Rescales from the latest completed checkpoint: the running job is cancelled (every job
    /// node goes down), then resumed with `parallelism` subtasks. False if the job ended.
    pub async fn rescale(&self, parallelism: usize) -> bool {
        if self.ended() {
            self.step(format!("rescale to {parallelism} skipped: the job already ended"));
            return false;
        }
        self.shut_down_job();
        self.resume(parallelism).await;
        true
    }

    /// Produces `n` records into the source system. Errors when the testbed registered no
    /// producer (see [`crate::run::World::set_producer`]).
    pub fn produce(&self, n: u64, spread: Spread) -> Result<(), String> {
        let producer = self.producer()?;
        let splits = producer.splits().max(1);
        let mut rng = self.inner.rng.lock().unwrap();
        let batch = (0..n)
            .map(|_| {
                let key = rng.gen_range(0..1_000u64);
                let hint = match spread {
                    Spread::Skewed if rng.gen_range(0..5) != 0 => 0,
                    _ => rng.gen_range(0..splits),
                };
                (self.inner.records.make(key, format!("value-{key}").into_bytes()), hint)
            })
            .collect();
        drop(rng);
        producer.produce(batch);
        Ok(())
    }

    /// Adds `n` splits to the source system.
    pub fn add_splits(&self, n: u64) -> Result<(), String> {
        self.producer()?.add_splits(n);
        Ok(())
    }

    fn producer(&self) -> Result<Arc<dyn Producer>, String> {
        self.inner.producer.clone().ok_or_else(|| {
            "this block writes into the source system while the job runs, but the source setup registered no \
             producer: use a source setup that calls World::set_producer (e.g. an unbounded log source)"
                .to_string()
        })
    }

    /// Whether every expected record (produced at or after its split's declared start) is
    /// visible in the sink's output, as the harness last observed it.
    pub fn all_visible(&self) -> bool {
        // What is expected changes with what is produced, with completed checkpoints and with
        // fetches answered out of range; what is visible with every observed change.
        let h = &self.inner.history;
        let key = (self.inner.observer.changes(), h.produced(), h.completed(), h.out_of_range());
        if let Some((seen, answer)) = *self.inner.visible_cache.lock().unwrap() {
            if seen == key {
                return answer;
            }
        }
        let expected = self.inner.history.with_events(|events| self.inner.starts.expected(events));
        let answer = self.inner.observer.all_visible(expected.required.iter());
        *self.inner.visible_cache.lock().unwrap() = Some((key, answer));
        answer
    }

    /// After the output converged, every external system crashes and restarts once (what a
    /// sink committed must survive it); then an unbounded job keeps running until
    /// [`SETTLE_CHECKPOINTS`] more checkpoints completed with no new input (or `timeout_ms`
    /// passed), and a bounded one gets [`SETTLE_BOUNDED_MS`] for whatever still reacts to the
    /// restarts. What the output shows must not change meanwhile.
    ///
    /// [`SETTLE_CHECKPOINTS`]: crate::oracle::checks::SETTLE_CHECKPOINTS
    pub(crate) async fn settle(&self, timeout_ms: u64) {
        let finished = self.status() == JobStatus::Finished;
        let running_unbounded = !self.inner.bounded && self.status() == JobStatus::Running && self.all_visible();
        if !finished && !running_unbounded {
            return;
        }
        self.record(EventKind::Converged);
        self.restart_systems().await;
        if finished {
            self.sleep_ms(SETTLE_BOUNDED_MS).await;
            return;
        }
        let want = self.inner.history.completed() + crate::oracle::checks::SETTLE_CHECKPOINTS;
        let deadline = self.now_ms() + timeout_ms;
        while self.inner.history.completed() < want && self.now_ms() < deadline && !self.ended() {
            self.sleep_ms(10).await;
        }
    }

    /// Whether the testbed's during-run workloads (upstream producers) have all finished.
    pub fn workloads_done(&self) -> bool {
        self.inner.workloads.iter().all(|w| w.is_finished())
    }

    /// Waits until the job converged — a bounded job ended; an unbounded one shows every
    /// expected record and nothing is producing any more — or `timeout_ms` passed. True if
    /// it converged.
    pub async fn drain(&self, timeout_ms: u64) -> bool {
        let deadline = self.now_ms() + timeout_ms;
        while self.now_ms() < deadline {
            self.resume_if_stopped().await;
            if self.ended() || (!self.inner.bounded && self.workloads_done() && self.all_visible()) {
                return true;
            }
            self.sleep_ms(20).await;
        }
        false
    }

    /// Kills every node at the end of the run, so no server loop outlives it.
    pub(crate) fn kill_all(&self) {
        self.inner.shutdown.notify_one();
        for w in &self.inner.workloads {
            w.abort();
        }
        let nodes = self.inner.nodes.lock().unwrap();
        self.inner.handle.kill(nodes.job_master.id());
        for n in &nodes.executors {
            self.inner.handle.kill(n.id());
        }
        for (n, _) in nodes.systems.values() {
            self.inner.handle.kill(n.id());
        }
    }
}
