//! The job master: source coordinator (hosts the enumerator), checkpoint coordinator,
//! failure detection and failover. One event loop owns all of its state.
//!
//! ```text
//!  tick ─▶ snapshot enumerator (valve closes) ─▶ store ─▶ Trigger c to every subtask (valve opens)
//!  Ack c from all ─▶ CheckpointStore ─▶ Notify c (best effort) │ NotifyFinal c when all input ended
//!  decline / expiry / failover / subsumed ─▶ Abort c (best effort)
//!  lost / failed subtask ─▶ region: add_splits_back + redeploy │ global: restore everything
//! ```
//!
//! The valve: between the enumerator's snapshot for c and the moment barrier c is sent to a
//! subtask, events for that subtask are held back, so an assignment the enumerator made after
//! its snapshot can never land in the reader's snapshot for c (Flink's operator-coordinator holder).

mod alignment;
mod checkpoints;
mod recovery;

use alignment::AlignmentCoordinator;

use super::config::JobConfig;
use super::downlink::{Downlink, DownlinkReport};
use super::global::GlobalHost;
use super::heartbeat::{self, Expected, Lost};
use super::hooks::{Hooks, JmCommand};
use super::protocol::{MasterMsg, SubtaskState, ToMaster, ToTask, JOB_MASTER};
use super::store::CheckpointStore;
use super::tracker::AssignmentTracker;
use crate::api::{
    AsyncCall, AsyncResult, EnumAction, EnumeratorContext, GlobalCommitterContext, Sink, Source, Split, SplitEnumerator,
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
    /// The task executor the attempt is deployed on.
    executor: usize,
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
    /// Subtasks `0..readers` host a reader (the source's parallelism); the rest only a writer.
    readers: usize,
    /// Per task executor: since when it is suspected lost (it missed heartbeats or a
    /// deployment did not reach it); cleared when a deployment reaches it.
    suspects: Vec<Option<Duration>>,
    expected: Expected,
    tracker: AssignmentTracker<Src::Split>,
    /// Checkpoints triggered and neither completed nor aborted, by id (at most
    /// [`JobConfig::max_concurrent_checkpoints`]).
    pending: BTreeMap<CheckpointId, Pending>,
    /// The checkpoint whose completion ends the job, the subtasks that have not committed it
    /// yet, and whether it is a savepoint that stops the job (rather than the end of input).
    finishing: Option<(CheckpointId, BTreeSet<usize>, bool)>,
    /// A stop-with-savepoint was asked for and not yet taken.
    stop_requested: bool,
    hooks: Hooks,
    reports: mpsc::UnboundedSender<DownlinkReport>,
    internal: mpsc::UnboundedSender<Internal>,
    /// Callables the enumerator started, and where their results go (tagged with the
    /// enumerator generation that asked, so a replaced enumerator's results are dropped).
    calls: Vec<madsim::task::JoinHandle<()>>,
    call_results: mpsc::UnboundedSender<Called>,
    generation: u64,
    /// Watermark alignment, when the source is read with it.
    alignment: Option<AlignmentCoordinator>,
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
    // The enumerator and the global committer run here: clients they build without the
    // context (rdkafka's) send from the job master.
    let ambient = endpoint.clone();
    crate::net::ambient::scope(ambient, async move {
        let (reports, reports_rx) = mpsc::unbounded_channel();
        let (internal, internal_rx) = mpsc::unbounded_channel();
        let (call_results, call_results_rx) = mpsc::unbounded_channel();
        let (lost_tx, lost_rx) = mpsc::unbounded_channel();
        let (commands_tx, commands_rx) = mpsc::unbounded_channel();
        hooks.register_job_master(commands_tx);
        let epoch = store.next_epoch();
        // Readers; subtasks host a reader, a writer, or both (slot sharing).
        let p = store.parallelism().unwrap_or(cfg.parallelism);
        let n = p.max(cfg.writers(p));
        *status.lock().unwrap() = JobStatus::Running;
        if let Some(problem) = cfg.problem() {
            history.record(JOB_MASTER, EventKind::JobFailed { reason: problem.clone() });
            *status.lock().unwrap() = JobStatus::Failed(problem);
            return;
        }
        let expected: Expected = Arc::new(Mutex::new(vec![None; n]));
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
        let slots = (0..n)
            // Attempts start at `epoch << 32`, above every earlier incarnation's, so a task
            // executor fences whatever an older job master still has in flight.
            .map(|i| {
                let executor = cfg.home(i);
                let downlink = Downlink::start(endpoint.clone(), i, 0, executor, reports.clone());
                Slot { attempt: epoch << 32, executor, no_more_splits: false, last_seq: 0, downlink, held: None }
            })
            .collect();
        let suspects = vec![None; cfg.task_executors(p)];
        let global = if sink.has_global_committer() {
            match sink.create_global_committer(GlobalCommitterContext {
                endpoint: endpoint.clone(),
                job_id: crate::history::job_id(store.job()),
            }) {
                Some(g) => Some(GlobalHost::new(g, cfg.runtime_bug)),
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
            readers: p,
            suspects,
            expected,
            tracker: AssignmentTracker::new(),
            pending: BTreeMap::new(),
            finishing: None,
            stop_requested: false,
            hooks: hooks.clone(),
            reports,
            internal,
            calls: Vec::new(),
            call_results,
            generation: 0,
            alignment: None,
            done: false,
        };
        let watermarks = jm.cfg.watermarks.or(jm.source.watermark_strategy());
        jm.alignment = watermarks.and_then(|w| w.alignment).map(AlignmentCoordinator::new);
        match jm.store.latest() {
            None => {
                jm.start_enumerator().await;
                for i in 0..n {
                    jm.redeploy(i);
                }
                jm.wire();
            }
            Some(cp) => {
                // A new incarnation (job-master failover, resume from a savepoint, rescale):
                // everything restarts from the latest completed checkpoint.
                let strategy = if cp.readers != p || cp.subtasks.len() != n { "rescale" } else { "jobmaster" };
                let cause = format!("job master incarnation {epoch} started");
                jm.restore_all(strategy, cause).await;
            }
        }
        jm.run(inbox, reports_rx, internal_rx, lost_rx, commands_rx, call_results_rx).await;
    })
    .await;
}

/// A callable's result on its way to the coordinator's loop: the enumerator generation that
/// started it and, for a periodic call, how many of its results the loop has handled (bumped
/// there, read by the call before its next round).
pub(super) struct Called {
    generation: u64,
    result: AsyncResult,
    handled: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
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
        mut call_results: mpsc::UnboundedReceiver<Called>,
    ) {
        enum Wake {
            Command(JmCommand),
            Internal(Internal),
            Report(DownlinkReport),
            Lost(Lost),
            Msg(Box<crate::net::Incoming>),
            Tick,
            Called(Called),
            Align,
        }
        let mut ticks = madsim::time::interval(Duration::from_millis(self.cfg.checkpoint_interval_ms));
        let aligning = self.alignment.is_some();
        let every = self.alignment.as_ref().map_or(1_000, |a| a.alignment.update_interval_ms.max(1));
        let mut align_ticks = madsim::time::interval(Duration::from_millis(every));
        while !self.done {
            let wake = tokio::select! {
                biased;
                Some(i) = internal.recv() => Wake::Internal(i),
                Some(r) = reports.recv() => Wake::Report(r),
                Some(l) = lost.recv() => Wake::Lost(l),
                Some(c) = commands.recv() => Wake::Command(c),
                // Before the inbox: a busy inbox must not starve the announcements.
                _ = align_ticks.tick(), if aligning => Wake::Align,
                Some(m) = inbox.recv() => Wake::Msg(Box::new(m)),
                _ = ticks.tick() => Wake::Tick,
                Some(called) = call_results.recv() => Wake::Called(called),
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
                        if l.unreachable {
                            self.suspect(self.slots[l.subtask].executor);
                        }
                        self.failover(vec![l.subtask], l.cause.to_string()).await;
                    }
                }
                Wake::Msg(m) => self.on_message(*m).await,
                Wake::Tick => {
                    self.on_tick().await;
                    self.commit_global().await;
                }
                Wake::Align => self.announce_alignment(),
                Wake::Called(Called { generation, result, handled }) => {
                    if generation == self.generation {
                        self.enumerator.handle_async(result, &mut self.ctx);
                        self.apply_actions();
                    }
                    if let Some(handled) = handled {
                        handled.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            }
        }
    }

    async fn on_report(&mut self, r: DownlinkReport) {
        match r {
            DownlinkReport::Deployed { subtask, attempt } => {
                if self.slots[subtask].attempt == attempt {
                    let executor = self.slots[subtask].executor;
                    self.suspects[executor] = None;
                    self.expected.lock().unwrap()[subtask] = Some((executor, attempt));
                }
            }
            DownlinkReport::Undeliverable { subtask, attempt, kind } => {
                if self.slots[subtask].attempt == attempt {
                    if kind == "Deploy" {
                        self.suspect(self.slots[subtask].executor);
                    }
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
        // Sequence 0: sent once outside the ordered stream (an acknowledgement; taking one twice
        // is harmless).
        if slot.attempt != attempt || (seq != 0 && seq <= slot.last_seq) {
            return; // an older attempt's message, or a duplicate delivery
        }
        slot.last_seq = slot.last_seq.max(seq);
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
            MasterMsg::ReportedWatermark { watermark } => {
                if let Some(a) = &mut self.alignment {
                    a.on_report(subtask, attempt, watermark);
                }
            }
            MasterMsg::Ack { checkpoint, state } => self.on_ack(subtask, attempt, checkpoint, state).await,
            MasterMsg::Decline { checkpoint, reason } => {
                if self.pending.contains_key(&checkpoint) {
                    self.abort_pending(checkpoint, &format!("declined by subtask {subtask}: {reason}")).await;
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

    /// Announces the alignment group's minimum to every subtask (best effort, one-way; the
    /// next announcement repairs a lost one).
    fn announce_alignment(&mut self) {
        let attempts: Vec<u64> = self.slots.iter().map(|s| s.attempt).collect();
        let Some(((minimum, max_allowed), changed)) = self.alignment.as_mut().and_then(|a| a.announcement(&attempts))
        else {
            return;
        };
        if changed {
            self.record(EventKind::WatermarkAlignment { minimum, max_allowed });
        }
        for slot in &self.slots {
            slot.downlink.send(ToTask::AlignWatermarks { attempt: slot.attempt, minimum, max_allowed });
        }
    }

    /// Starts the callables the enumerator asked for, each as a task of its own. A periodic
    /// one runs at a fixed rate, as Flink's `scheduleAtFixedRate`: every `interval` from its
    /// start, never two at once; a round that takes longer delays the next, which then starts
    /// as soon as it ends, before the enumerator has handled the previous result (recorded
    /// as [`EventKind::PeriodicCallOverlapped`]: two discovery rounds overlap).
    fn start_calls(&mut self) {
        for call in std::mem::take(&mut self.ctx.calls) {
            let (results, generation) = (self.call_results.clone(), self.generation);
            let ambient = self.endpoint.clone();
            let task = match call {
                AsyncCall::Once(callable) => {
                    madsim::task::spawn(crate::net::ambient::scope(ambient.clone(), async move {
                        let _ = results.send(Called { generation, result: callable.await, handled: None });
                    }))
                }
                AsyncCall::Periodic(interval, make) => {
                    let history = self.history.clone();
                    madsim::task::spawn(crate::net::ambient::scope(ambient, async move {
                        let handled = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
                        let (mut due, mut sent) = (madsim::time::Instant::now() + interval, 0);
                        loop {
                            // A late round starts at once (a sleep would take at least 1 ms).
                            if madsim::time::Instant::now() < due {
                                madsim::time::sleep_until(due).await;
                            }
                            let unhandled = sent - handled.load(std::sync::atomic::Ordering::Relaxed);
                            if unhandled > 0 {
                                let interval_ms = interval.as_millis() as u64;
                                history
                                    .record(JOB_MASTER, EventKind::PeriodicCallOverlapped { interval_ms, unhandled });
                            }
                            let result = make().await;
                            sent += 1;
                            if results.send(Called { generation, result, handled: Some(handled.clone()) }).is_err() {
                                return;
                            }
                            due += interval;
                        }
                    }))
                }
            };
            self.calls.push(task);
        }
        self.calls.retain(|t| !t.is_finished());
    }

    /// Stops every callable of the current enumerator (it is being replaced).
    pub(super) fn stop_calls(&mut self) {
        for task in self.calls.drain(..) {
            task.abort();
        }
        self.generation += 1;
    }

    /// Sends what the enumerator asked for, through the valve.
    fn apply_actions(&mut self) {
        self.start_calls();
        for action in std::mem::take(&mut self.ctx.actions) {
            let target = match &action {
                EnumAction::Assign { subtask, .. }
                | EnumAction::NoMoreSplits { subtask }
                | EnumAction::Event { subtask, .. } => *subtask,
            };
            if target >= self.readers {
                self.fail_job(format!(
                    "the enumerator addressed subtask {target}, but parallelism is {} (subtasks 0..{})",
                    self.readers, self.readers
                ));
                return;
            }
            let (subtask, msg) = match action {
                EnumAction::Assign { subtask, splits } => {
                    let attempt = self.slots[subtask].attempt;
                    if !self.ctx.registered.contains(&subtask) {
                        let ids: Vec<_> = splits.iter().map(Split::id).collect();
                        self.fail_job(format!(
                            "the enumerator assigned splits {ids:?} to reader {subtask}, which is not registered (it \
                             failed, or has not started yet); keep the splits until add_reader({subtask}) is called"
                        ));
                        return;
                    }
                    if self.slots[subtask].no_more_splits {
                        let ids: Vec<_> = splits.iter().map(Split::id).collect();
                        self.fail_job(format!(
                            "the enumerator assigned splits {ids:?} to subtask {subtask} after signalling it no more \
                             splits; a reader that was told no more splits may already have ended (assign returned \
                             splits to a reader that has not been told, or to the failed reader's next attempt)"
                        ));
                        return;
                    }
                    let (bytes, splits) = match super::wall::round_trip(&splits, "assigned splits") {
                        Ok(crossed) => crossed,
                        Err(e) => return self.fail_job(e),
                    };
                    self.record(EventKind::SplitsAssigned {
                        subtask,
                        attempt,
                        splits: splits.iter().map(Split::id).collect(),
                    });
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
}
