//! The job master: source coordinator (hosts the enumerator), checkpoint coordinator,
//! failure detection and failover. One event loop owns all of its state.
//!
//! ```text
//!  tick ─▶ snapshot enumerator (valve closes) ─▶ store ─▶ Trigger c to every subtask (valve opens)
//!  Ack c from all ─▶ CheckpointStore ─▶ Notify c (best effort) │ NotifyFinal c when all input ended
//!  lost / failed subtask ─▶ region: add_splits_back + redeploy │ global: restore everything
//! ```
//!
//! The valve: between the enumerator's snapshot for c and the moment barrier c is sent to a
//! subtask, events for that subtask are held back, so an assignment the enumerator made after
//! its snapshot can never land in the reader's snapshot for c (Flink's operator-coordinator holder).

use super::config::{FailoverStrategy, JobConfig};
use super::downlink::{Downlink, DownlinkReport};
use super::global::GlobalHost;
use super::heartbeat::{self, Expected, Lost};
use super::hooks::{Hooks, JmCommand};
use super::rescale;
use super::protocol::{MasterMsg, SubtaskState, ToMaster, ToTask, JOB_MASTER};
use super::store::{CheckpointStore, CompletedCheckpoint};
use super::tracker::AssignmentTracker;
use crate::api::{
    Boundedness, EnumAction, EnumeratorContext, EnumeratorState, GlobalCommitterContext, Sink, Source, Split, SplitEnumerator,
};
use crate::error::RetryHint;
use crate::history::{CheckpointId, EventKind, History};
use crate::net::{Endpoint, Gateway, Inbox};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// Where the job stands; read by the runner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobStatus {
    /// Running (or recovering).
    Running,
    /// All input read and committed.
    Finished,
    /// Failed for good.
    Failed(String),
    /// Stopped at a savepoint (stop-with-savepoint); a new job can resume from it.
    Stopped(CheckpointId),
}

/// Shared view of the job status (instrumentation for the runner, not part of the protocol).
pub type JobStatusCell = Arc<Mutex<JobStatus>>;

struct Slot {
    attempt: u64,
    /// The enumerator signalled no more splits to this attempt.
    no_more_splits: bool,
    last_seq: u64,
    downlink: Downlink,
    /// Some while the valve is closed: events held back until the barrier is sent.
    held: Option<Vec<ToTask>>,
}

struct Pending {
    id: CheckpointId,
    enumerator: Vec<u8>,
    acks: BTreeMap<usize, SubtaskState>,
    started: Duration,
    triggered: bool,
    /// A savepoint that stops the job.
    stop: bool,
}

enum Internal {
    Stored(CheckpointId),
}

struct JobMaster<Src: Source, Snk: Sink> {
    source: Src,
    global: Option<GlobalHost<Snk>>,
    cfg: JobConfig,
    endpoint: Endpoint,
    history: History,
    store: CheckpointStore,
    status: JobStatusCell,
    enumerator: Src::Enumerator,
    ctx: EnumeratorContext<Src::Split>,
    slots: Vec<Slot>,
    expected: Expected,
    tracker: AssignmentTracker<Src::Split>,
    pending: Option<Pending>,
    /// The checkpoint whose completion ends the job, the subtasks that have not committed it
    /// yet, and whether it is a savepoint that stops the job (rather than the end of input).
    finishing: Option<(CheckpointId, BTreeSet<usize>, bool)>,
    /// A stop-with-savepoint was asked for and not yet taken.
    stop_requested: bool,
    hooks: Hooks,
    reports: mpsc::UnboundedSender<DownlinkReport>,
    internal: mpsc::UnboundedSender<Internal>,
    done: bool,
}

/// The init task of the job-master node.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn run<Src: Source, Snk: Sink>(
    source: Src,
    sink: Snk,
    cfg: JobConfig,
    gateway: Gateway,
    history: History,
    store: CheckpointStore,
    status: JobStatusCell,
    hooks: Hooks,
) {
    let (endpoint, inbox) = gateway.bind(JOB_MASTER);
    let (reports, reports_rx) = mpsc::unbounded_channel();
    let (internal, internal_rx) = mpsc::unbounded_channel();
    let (lost_tx, lost_rx) = mpsc::unbounded_channel();
    let (commands_tx, commands_rx) = mpsc::unbounded_channel();
    hooks.register_job_master(commands_tx);
    let epoch = store.next_epoch();
    let p = store.parallelism().unwrap_or(cfg.parallelism);
    *status.lock().unwrap() = JobStatus::Running;
    let expected: Expected = Arc::new(Mutex::new(vec![None; p]));
    heartbeat::start(
        endpoint.clone(),
        expected.clone(),
        Duration::from_millis(cfg.heartbeat_interval_ms),
        cfg.heartbeat_misses_max,
        lost_tx,
    );
    history.record(JOB_MASTER, EventKind::JobStarted { parallelism: p });
    let ctx = EnumeratorContext::new(p, endpoint.clone());
    let enumerator = source.create_enumerator(&ctx);
    let slots = (0..p)
        // Attempts start at `epoch << 32`, above every earlier incarnation's, so a task
        // executor fences whatever an older job master still has in flight.
        .map(|i| Slot { attempt: epoch << 32, no_more_splits: false, last_seq: 0, downlink: Downlink::start(endpoint.clone(), i, 0, reports.clone()), held: None })
        .collect();
    let global = if sink.has_global_committer() {
        match sink.create_global_committer(GlobalCommitterContext { endpoint: endpoint.clone() }) {
            Some(g) => Some(GlobalHost::new(g)),
            None => {
                let reason = "the sink says it has a global committer, but create_global_committer returned None";
                history.record(JOB_MASTER, EventKind::JobFailed { reason: reason.into() });
                *status.lock().unwrap() = JobStatus::Failed(reason.into());
                return;
            }
        }
    } else {
        None
    };
    let mut jm: JobMaster<Src, Snk> = JobMaster {
        source,
        global,
        cfg,
        endpoint,
        history,
        store,
        status,
        enumerator,
        ctx,
        slots,
        expected,
        tracker: AssignmentTracker::new(),
        pending: None,
        finishing: None,
        stop_requested: false,
        hooks: hooks.clone(),
        reports,
        internal,
        done: false,
    };
    match jm.store.latest() {
        None => {
            jm.start_enumerator().await;
            for i in 0..p {
                jm.redeploy(i);
            }
        }
        Some(cp) => {
            // A new incarnation (job-master failover, resume from a savepoint, rescale):
            // everything restarts from the latest completed checkpoint.
            let strategy = if cp.subtasks.len() != p { "rescale" } else { "jobmaster" };
            let cause = format!("job master incarnation {epoch} started");
            jm.restore_all(strategy, cause).await;
        }
    }
    jm.run(inbox, reports_rx, internal_rx, lost_rx, commands_rx).await;
}

impl<Src: Source, Snk: Sink> JobMaster<Src, Snk> {
    fn record(&self, kind: EventKind) {
        self.history.record(JOB_MASTER, kind);
    }

    async fn start_enumerator(&mut self) {
        loop {
            match self.enumerator.start(&mut self.ctx).await {
                Ok(()) => break,
                Err(e) if e.hint == RetryHint::Retry => madsim::time::sleep(Duration::from_millis(20)).await,
                Err(e) => return self.fail_job(format!("enumerator failed to start: {e}")),
            }
        }
        self.apply_actions();
    }

    async fn run(
        &mut self,
        mut inbox: Inbox,
        mut reports: mpsc::UnboundedReceiver<DownlinkReport>,
        mut internal: mpsc::UnboundedReceiver<Internal>,
        mut lost: mpsc::UnboundedReceiver<Lost>,
        mut commands: mpsc::UnboundedReceiver<JmCommand>,
    ) {
        enum Wake {
            Command(JmCommand),
            Internal(Internal),
            Report(DownlinkReport),
            Lost(Lost),
            Msg(crate::net::Incoming),
            Tick,
            Discover,
        }
        let mut ticks = madsim::time::interval(Duration::from_millis(self.cfg.checkpoint_interval_ms));
        let mut discovery: Option<(Duration, madsim::time::Interval)> = None;
        while !self.done {
            if let Some(d) = self.ctx.discovery_interval {
                if discovery.as_ref().map(|(old, _)| *old) != Some(d) {
                    discovery = Some((d, madsim::time::interval(d)));
                }
            }
            let wake = tokio::select! {
                biased;
                Some(i) = internal.recv() => Wake::Internal(i),
                Some(r) = reports.recv() => Wake::Report(r),
                Some(l) = lost.recv() => Wake::Lost(l),
                Some(c) = commands.recv() => Wake::Command(c),
                Some(m) = inbox.recv() => Wake::Msg(m),
                _ = ticks.tick() => Wake::Tick,
                _ = async { discovery.as_mut().unwrap().1.tick().await }, if discovery.is_some() => Wake::Discover,
            };
            match wake {
                Wake::Command(JmCommand::TriggerCheckpoint) => self.trigger(),
                Wake::Command(JmCommand::StopWithSavepoint) => {
                    self.stop_requested = true;
                    self.trigger();
                }
                Wake::Command(JmCommand::CancelStop) => self.cancel_stop().await,
                Wake::Internal(Internal::Stored(c)) => self.send_barriers(c),
                Wake::Report(r) => self.on_report(r).await,
                Wake::Lost(l) => {
                    if self.slots[l.subtask].attempt == l.attempt {
                        self.failover(vec![l.subtask], l.cause.to_string()).await;
                    }
                }
                Wake::Msg(m) => self.on_message(m).await,
                Wake::Tick => {
                    self.on_tick().await;
                    self.commit_global().await;
                }
                Wake::Discover => {
                    if let Err(e) = self.enumerator.discover(&mut self.ctx).await {
                        self.record(EventKind::ConnectorError { subtask: None, message: format!("discovery: {e}") });
                    }
                    self.apply_actions();
                }
            }
        }
    }

    async fn on_report(&mut self, r: DownlinkReport) {
        match r {
            DownlinkReport::Deployed { subtask, attempt } => {
                if self.slots[subtask].attempt == attempt {
                    self.expected.lock().unwrap()[subtask] = Some(attempt);
                }
            }
            DownlinkReport::Undeliverable { subtask, attempt, kind } => {
                if self.slots[subtask].attempt == attempt {
                    self.failover(vec![subtask], format!("{kind} could not be delivered")).await;
                }
            }
            DownlinkReport::FinalCommitted { subtask, attempt, checkpoint } => {
                if self.slots[subtask].attempt != attempt {
                    return;
                }
                if let Some((c, waiting, _)) = &mut self.finishing {
                    if *c == checkpoint {
                        waiting.remove(&subtask);
                        if waiting.is_empty() {
                            self.finish().await;
                        }
                    }
                }
            }
        }
    }

    async fn on_message(&mut self, m: crate::net::Incoming) {
        let Ok(msg) = m.decode::<ToMaster>() else { return };
        if let Some(r) = m.replier {
            r.reply(&()); // delivery acknowledged, even when fenced, so the sender stops retrying
        }
        let ToMaster { subtask, attempt, seq, body } = msg;
        let Some(slot) = self.slots.get_mut(subtask) else { return };
        if slot.attempt != attempt || seq <= slot.last_seq {
            return; // an older attempt's message, or a duplicate delivery
        }
        slot.last_seq = seq;
        match body {
            MasterMsg::Register => {
                self.ctx.registered.insert(subtask);
                self.record(EventKind::ReaderRegistered { subtask, attempt });
                self.enumerator.add_reader(subtask, &mut self.ctx);
                self.apply_actions();
            }
            MasterMsg::SplitRequest => {
                self.enumerator.handle_split_request(subtask, &mut self.ctx);
                self.apply_actions();
            }
            MasterMsg::SourceEvent(event) => {
                self.enumerator.handle_source_event(subtask, event, &mut self.ctx);
                self.apply_actions();
            }
            MasterMsg::Ack { checkpoint, state } => self.on_ack(subtask, attempt, checkpoint, state).await,
            MasterMsg::Decline { checkpoint, reason } => {
                if self.pending.as_ref().is_some_and(|p| p.id == checkpoint) {
                    self.abort_pending(&format!("declined by subtask {subtask}: {reason}")).await;
                }
            }
            MasterMsg::Failed { reason, job } => {
                if job {
                    self.fail_job(format!("subtask {subtask}: {reason}"));
                } else {
                    self.failover(vec![subtask], format!("subtask failed: {reason}")).await;
                }
            }
        }
    }

    /// Sends what the enumerator asked for, through the valve.
    fn apply_actions(&mut self) {
        for action in std::mem::take(&mut self.ctx.actions) {
            let target = match &action {
                EnumAction::Assign { subtask, .. }
                | EnumAction::NoMoreSplits { subtask }
                | EnumAction::Event { subtask, .. } => *subtask,
            };
            if target >= self.slots.len() {
                self.fail_job(format!(
                    "the enumerator addressed subtask {target}, but parallelism is {} (subtasks 0..{})",
                    self.slots.len(),
                    self.slots.len()
                ));
                return;
            }
            let (subtask, msg) = match action {
                EnumAction::Assign { subtask, splits } => {
                    let attempt = self.slots[subtask].attempt;
                    if self.slots[subtask].no_more_splits {
                        let ids: Vec<_> = splits.iter().map(Split::id).collect();
                        self.fail_job(format!(
                            "the enumerator assigned splits {ids:?} to subtask {subtask} after signalling it no more \
                             splits; a reader that was told no more splits may already have ended (assign returned \
                             splits to a reader that has not been told, or to the failed reader's next attempt)"
                        ));
                        return;
                    }
                    self.record(EventKind::SplitsAssigned {
                        subtask,
                        attempt,
                        splits: splits.iter().map(Split::id).collect(),
                    });
                    let bytes = bincode::serialize(&splits).expect("splits serialize");
                    self.tracker.record(subtask, splits);
                    (subtask, ToTask::AddSplits { attempt, splits: bytes })
                }
                EnumAction::NoMoreSplits { subtask } => {
                    self.slots[subtask].no_more_splits = true;
                    (subtask, ToTask::NoMoreSplits { attempt: self.slots[subtask].attempt })
                }
                EnumAction::Event { subtask, event } => {
                    (subtask, ToTask::SourceEvent { attempt: self.slots[subtask].attempt, event })
                }
            };
            let slot = &mut self.slots[subtask];
            match &mut slot.held {
                Some(held) => held.push(msg),
                None => slot.downlink.send(msg),
            }
        }
    }

    async fn on_tick(&mut self) {
        let now = crate::net::now();
        if let Some(p) = &self.pending {
            if now - p.started >= Duration::from_millis(self.cfg.checkpoint_timeout_ms) {
                self.abort_pending("timed out").await;
            }
        }
        self.trigger();
    }

    /// Triggers a checkpoint (a stopping savepoint when one was asked for), unless one is
    /// pending, the job is finishing, or a subtask is not deployed.
    fn trigger(&mut self) {
        let now = crate::net::now();
        let all_deployed = self.expected.lock().unwrap().iter().all(Option::is_some);
        if self.pending.is_some() || self.finishing.is_some() || !all_deployed || self.done {
            return;
        }
        let c = self.store.next_checkpoint_id();
        let stop = self.stop_requested;
        let state = self.enumerator.snapshot_state(c);
        self.record(EventKind::CheckpointTriggered { checkpoint: c, pending: state.pending_splits() });
        self.tracker.snapshot(c);
        if self.cfg.coordinator_valve {
            for slot in &mut self.slots {
                slot.held = Some(Vec::new());
            }
        }
        let enumerator = bincode::serialize(&state).expect("enumerator state serializes");
        self.pending = Some(Pending { id: c, enumerator, acks: BTreeMap::new(), started: now, triggered: false, stop });
        // Writing the enumerator's state to checkpoint storage takes time; events wait meanwhile.
        let internal = self.internal.clone();
        madsim::task::spawn(async move {
            madsim::time::sleep(Duration::from_millis(2)).await;
            let _ = internal.send(Internal::Stored(c));
        });
    }

    fn open_valves(&mut self) {
        let checkpoint = self.pending.as_ref().map_or(0, |p| p.id);
        for (subtask, slot) in self.slots.iter_mut().enumerate() {
            let held = slot.held.take().unwrap_or_default();
            if !held.is_empty() {
                self.history.record(JOB_MASTER, EventKind::ValveReleased { subtask, checkpoint, events: held.len() });
            }
            for msg in held {
                slot.downlink.send(msg);
            }
        }
    }

    fn send_barriers(&mut self, c: CheckpointId) {
        let stop = match &mut self.pending {
            Some(p) if p.id == c => {
                p.triggered = true;
                p.stop
            }
            _ => return,
        };
        for slot in &self.slots {
            slot.downlink.send(ToTask::Trigger { attempt: slot.attempt, checkpoint: c, stop });
        }
        self.open_valves();
    }

    /// Gives up a stop-with-savepoint: if its barriers went out, sources may have stopped, so
    /// everything restarts from the last completed checkpoint (as when the savepoint fails).
    async fn cancel_stop(&mut self) {
        self.stop_requested = false;
        let stopping = self.pending.as_ref().is_some_and(|p| p.stop) || matches!(self.finishing, Some((_, _, true)));
        if stopping {
            self.abort_quietly("stop-with-savepoint cancelled");
            self.restore_all("global", "stop-with-savepoint cancelled".into()).await;
        }
    }

    /// Aborts the pending checkpoint. A stopping savepoint whose barriers went out may have
    /// stopped some sources already: then everything restarts from the last completed
    /// checkpoint and the job keeps running (the stop failed).
    async fn abort_pending(&mut self, reason: &str) {
        let stopped_some = self.abort_quietly(reason);
        if stopped_some {
            self.restore_all("global", format!("stop-with-savepoint failed: {reason}")).await;
        }
    }

    /// Aborts the pending checkpoint; true if it was a stopping savepoint whose barriers went out.
    fn abort_quietly(&mut self, reason: &str) -> bool {
        let mut stopped_some = false;
        if let Some(p) = self.pending.take() {
            self.record(EventKind::CheckpointAborted { checkpoint: p.id, reason: reason.to_string() });
            stopped_some = p.stop && p.triggered;
            if p.stop {
                self.stop_requested = false;
            }
        }
        self.open_valves();
        stopped_some
    }

    async fn on_ack(&mut self, subtask: usize, attempt: u64, c: CheckpointId, state: SubtaskState) {
        let Some(p) = &mut self.pending else { return };
        if p.id != c || !p.triggered {
            return;
        }
        p.acks.insert(subtask, state);
        let acks = p.acks.len();
        self.record(EventKind::Acked { subtask, attempt, checkpoint: c });
        if acks < self.slots.len() {
            return;
        }
        let p = self.pending.take().expect("checked above");
        let stop = p.stop;
        let final_checkpoint =
            stop || (self.source.boundedness() == Boundedness::Bounded && p.acks.values().all(|s| s.finished));
        let subtasks: Vec<SubtaskState> = p.acks.into_values().collect();
        let global = match &mut self.global {
            Some(g) => match g.combine(c, &subtasks) {
                Ok(bytes) => bytes,
                Err(e) => return self.fail_job(e),
            },
            None => Vec::new(),
        };
        self.store.put(CompletedCheckpoint { id: c, enumerator: p.enumerator, subtasks, global, savepoint: stop });
        self.record(EventKind::CheckpointCompleted { checkpoint: c });
        self.tracker.complete(c);
        self.enumerator.notify_checkpoint_complete(c);
        self.apply_actions();
        for slot in &self.slots {
            slot.downlink.send(if final_checkpoint {
                ToTask::NotifyFinal { attempt: slot.attempt, checkpoint: c }
            } else {
                ToTask::Notify { attempt: slot.attempt, checkpoint: c }
            });
        }
        if final_checkpoint {
            self.finishing = Some((c, (0..self.slots.len()).collect(), stop));
        }
        self.commit_global().await;
    }

    async fn commit_global(&mut self) {
        let Some(g) = &mut self.global else { return };
        if let Err(e) = g.commit(&self.history, JOB_MASTER, &self.hooks).await {
            self.fail_job(e);
        }
    }

    /// Every subtask committed the final checkpoint: commit what the global committer still
    /// holds, then the job is finished.
    async fn finish(&mut self) {
        if let Some(g) = &mut self.global {
            while !g.is_idle() {
                if let Err(e) = g.commit(&self.history, JOB_MASTER, &self.hooks).await {
                    return self.fail_job(e);
                }
                if !g.is_idle() {
                    madsim::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
        if let Some((c, _, true)) = self.finishing {
            self.record(EventKind::JobStopped { savepoint: c });
            *self.status.lock().unwrap() = JobStatus::Stopped(c);
            self.done = true;
            return;
        }
        if let Some(g) = &mut self.global {
            if let Err(e) = g.end_of_input().await {
                return self.fail_job(format!("global committer end of input: {e}"));
            }
        }
        self.record(EventKind::JobFinished);
        *self.status.lock().unwrap() = JobStatus::Finished;
        self.done = true;
    }

    /// The state subtask `subtask` restores from: the latest completed checkpoint's, dealt
    /// out again when that checkpoint was taken with another parallelism.
    fn restore_state(&self, subtask: usize) -> Result<Option<(CheckpointId, SubtaskState)>, String> {
        let Some(cp) = self.store.latest() else { return Ok(None) };
        if cp.subtasks.len() == self.slots.len() {
            return Ok(Some((cp.id, cp.subtasks[subtask].clone())));
        }
        let states = rescale::redistribute::<Src, Snk>(&cp.subtasks, self.slots.len())?;
        Ok(Some((cp.id, states[subtask].clone())))
    }

    fn redeploy(&mut self, subtask: usize) {
        let restore = match self.restore_state(subtask) {
            Ok(r) => r,
            Err(e) => return self.fail_job(e),
        };
        let p = self.slots.len();
        let slot = &mut self.slots[subtask];
        slot.attempt += 1;
        slot.no_more_splits = false;
        slot.last_seq = 0;
        slot.held = None;
        slot.downlink = Downlink::start(self.endpoint.clone(), subtask, slot.attempt, self.reports.clone());
        self.expected.lock().unwrap()[subtask] = None;
        slot.downlink.send(ToTask::Deploy { subtask, attempt: slot.attempt, parallelism: p, restore });
    }

    async fn failover(&mut self, failed: Vec<usize>, cause: String) {
        if self.done {
            return;
        }
        // A failure while a stopping savepoint is under way may leave sources stopped that
        // no region restart would resume: the whole job restarts instead.
        let stopping = self.pending.as_ref().is_some_and(|p| p.stop) || matches!(self.finishing, Some((_, _, true)));
        self.abort_quietly("failover");
        self.finishing = None;
        if self.cfg.failover == FailoverStrategy::Global || stopping {
            return self.restore_all("global", cause).await;
        }
        let checkpoint = self.store.latest().map_or(0, |c| c.id);
        self.record(EventKind::Failover { strategy: "region".into(), subtasks: failed.clone(), checkpoint, cause });
        for subtask in failed {
            let returned = self.tracker.take_uncheckpointed(subtask);
            self.ctx.registered.remove(&subtask);
            if !returned.is_empty() {
                self.record(EventKind::SplitsReturned { subtask, splits: returned.iter().map(Split::id).collect() });
                self.enumerator.add_splits_back(returned, subtask, &mut self.ctx);
            }
            self.redeploy(subtask);
        }
        self.apply_actions();
    }

    /// Restarts everything — enumerator, global committer, every subtask — from the latest
    /// completed checkpoint. `strategy` names why in the history: a global failover, a new
    /// job-master incarnation, or a rescale.
    async fn restore_all(&mut self, strategy: &str, cause: String) {
        let latest = self.store.latest();
        let checkpoint = latest.as_ref().map_or(0, |c| c.id);
        let all: Vec<usize> = (0..self.slots.len()).collect();
        self.abort_quietly("failover");
        self.finishing = None;
        self.record(EventKind::Failover { strategy: strategy.into(), subtasks: all.clone(), checkpoint, cause });
        self.tracker.reset();
        self.ctx = EnumeratorContext::new(self.slots.len(), self.endpoint.clone());
        if let Some(g) = &mut self.global {
            if let Err(e) = g.restore(latest.as_ref()).await {
                return self.fail_job(format!("global committer restore: {e}"));
            }
        }
        self.enumerator = match latest {
            Some(cp) => match bincode::deserialize(&cp.enumerator) {
                Ok(state) => self.source.restore_enumerator(&self.ctx, state),
                Err(e) => return self.fail_job(format!("enumerator state did not deserialize: {e}")),
            },
            None => self.source.create_enumerator(&self.ctx),
        };
        for subtask in all {
            self.redeploy(subtask);
            if self.done {
                return;
            }
        }
        self.start_enumerator().await;
        self.commit_global().await;
    }

    fn fail_job(&mut self, reason: String) {
        self.record(EventKind::JobFailed { reason: reason.clone() });
        *self.status.lock().unwrap() = JobStatus::Failed(reason);
        self.done = true;
    }
}
