//! The job master: source coordinator (hosts the enumerator), checkpoint coordinator,
//! failure detection and failover. One event loop owns all of its state, but for an enumerator
//! whose start is being retried (a task of its own, `enumerator.rs`).
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
//!
//! Each component owns its state (`components.rs`): the source coordinator (enumerator, its
//! start retried beside the loop in `enumerator.rs`, callables in `calls.rs`, assignments,
//! alignment), the checkpoint coordinator (`checkpoints.rs`) and the scheduler (slots,
//! heartbeat suspicion, `recovery.rs`). The node starts in `start.rs`; the loop and the
//! enumerator's actions are here.

mod alignment;
mod calls;
mod checkpoints;
mod components;
mod enumerator;
mod start;

pub(crate) use start::run;
mod recovery;

use calls::Called;
use components::{CheckpointCoordinator, Scheduler, SourceCoordinator};

use super::config::JobConfig;
use super::downlink::{Downlink, DownlinkReport};
use super::heartbeat::Lost;
use super::hooks::{Hooks, JmCommand};
use super::protocol::{MasterMsg, SubtaskState, ToMaster, ToTask, JOB_MASTER};
use crate::api::{EnumAction, Sink, Source, Split, SplitEnumerator};
use crate::history::{AbortReason, CheckpointId, EventKind, History};
use crate::net::{Endpoint, Inbox};
use std::collections::BTreeMap;
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

/// The job master: the source coordinator, the checkpoint coordinator and the scheduler,
/// and what they share (configuration, the endpoint, the history, the scenario's hooks, the
/// loop's channels).
struct JobMaster<Src: Source, Snk: Sink> {
    sink: std::marker::PhantomData<fn() -> Snk>,
    coordinator: SourceCoordinator<Src>,
    checkpoints: CheckpointCoordinator,
    scheduler: Scheduler,
    cfg: JobConfig,
    endpoint: Endpoint,
    history: History,
    status: JobStatusCell,
    hooks: Hooks,
    reports: mpsc::UnboundedSender<DownlinkReport>,
    internal: mpsc::UnboundedSender<Internal>,
    done: bool,
}

impl<Src: Source, Snk: Sink> JobMaster<Src, Snk> {
    fn record(&self, kind: EventKind) {
        self.history.record(JOB_MASTER, kind);
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
        enum Wake<Started> {
            Command(JmCommand),
            Internal(Internal),
            Report(DownlinkReport),
            Lost(Lost),
            Msg(Box<crate::net::Incoming>),
            Tick,
            Called(Called),
            Align,
            Started(Started),
        }
        let mut ticks = madsim::time::interval(Duration::from_millis(self.cfg.checkpoints.interval_ms));
        let aligning = self.coordinator.alignment.is_some();
        let every = self.coordinator.alignment.as_ref().map_or(1_000, |a| a.alignment.update_interval_ms.max(1));
        let mut align_ticks = madsim::time::interval(Duration::from_millis(every));
        while !self.done {
            let wake = tokio::select! {
                biased;
                Some(i) = internal.recv() => Wake::Internal(i),
                Some(r) = reports.recv() => Wake::Report(r),
                Some(l) = lost.recv() => Wake::Lost(l),
                Some(c) = commands.recv() => Wake::Command(c),
                started = enumerator::retried(&mut self.coordinator.starting) => Wake::Started(started),
                // Before the inbox: a busy inbox must not starve the announcements.
                _ = align_ticks.tick(), if aligning => Wake::Align,
                Some(m) = inbox.recv() => Wake::Msg(Box::new(m)),
                _ = ticks.tick() => Wake::Tick,
                Some(called) = call_results.recv() => Wake::Called(called),
            };
            match wake {
                Wake::Command(JmCommand::TriggerCheckpoint) => self.trigger(),
                Wake::Command(JmCommand::StopWithSavepoint) => {
                    self.checkpoints.stop_requested = true;
                    self.trigger();
                }
                Wake::Command(JmCommand::CancelStop) => self.cancel_stop().await,
                Wake::Internal(Internal::Stored(c)) => self.send_barriers(c),
                Wake::Report(r) => self.on_report(r).await,
                Wake::Lost(l) => {
                    if self.scheduler.slots[l.subtask].attempt == l.attempt {
                        if l.unreachable {
                            self.suspect(self.scheduler.slots[l.subtask].executor);
                        }
                        self.failover(vec![l.subtask], l.cause.to_string()).await;
                    }
                }
                Wake::Msg(m) => self.on_message(*m).await,
                Wake::Tick => self.on_tick().await,
                Wake::Align => self.announce_alignment(),
                Wake::Started(started) => self.on_started(started),
                Wake::Called(Called { generation, result, handled }) => {
                    if generation == self.coordinator.generation {
                        let (enumerator, ctx) =
                            self.coordinator.enumerator_mut().expect("its callables start once it started");
                        enumerator.handle_async(result, ctx);
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
                if self.scheduler.slots[subtask].attempt == attempt {
                    let executor = self.scheduler.slots[subtask].executor;
                    self.scheduler.suspects[executor] = None;
                    self.scheduler.expected.lock().unwrap()[subtask] = Some((executor, attempt));
                }
            }
            DownlinkReport::Undeliverable { subtask, attempt, kind } => {
                if self.scheduler.slots[subtask].attempt == attempt {
                    if kind == "Deploy" {
                        self.suspect(self.scheduler.slots[subtask].executor);
                    }
                    self.failover(vec![subtask], format!("{kind} could not be delivered")).await;
                }
            }
            DownlinkReport::FinalCommitted { subtask, attempt, checkpoint } => {
                if self.scheduler.slots[subtask].attempt != attempt {
                    return;
                }
                if let Some((c, waiting, _)) = &mut self.checkpoints.finishing {
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
        let Some(slot) = self.scheduler.slots.get_mut(subtask) else { return };
        // Sequence 0: sent once outside the ordered stream (an acknowledgement; taking one twice
        // is harmless).
        if slot.attempt != attempt || (seq != 0 && seq <= slot.last_seq) {
            return; // an older attempt's message, or a duplicate delivery
        }
        slot.last_seq = slot.last_seq.max(seq);
        match body {
            body @ (MasterMsg::Register | MasterMsg::SplitRequest | MasterMsg::SourceEvent(_)) => {
                self.on_reader_request(subtask, attempt, body)
            }
            MasterMsg::ReportedWatermark { watermark } => {
                if let Some(a) = &mut self.coordinator.alignment {
                    a.on_report(subtask, attempt, watermark);
                }
            }
            MasterMsg::Ack { checkpoint, state } => self.on_ack(subtask, attempt, checkpoint, state).await,
            MasterMsg::Decline { checkpoint, reason } => {
                if self.checkpoints.pending.contains_key(&checkpoint) {
                    self.abort_pending(checkpoint, AbortReason::Declined { subtask, why: reason }).await;
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
        let attempts: Vec<u64> = self.scheduler.slots.iter().map(|s| s.attempt).collect();
        let Some(((minimum, max_allowed), changed)) =
            self.coordinator.alignment.as_mut().and_then(|a| a.announcement(&attempts))
        else {
            return;
        };
        if changed {
            self.record(EventKind::WatermarkAlignment { minimum, max_allowed });
        }
        for slot in &self.scheduler.slots {
            slot.downlink.send(ToTask::AlignWatermarks { attempt: slot.attempt, minimum, max_allowed });
        }
    }

    /// Sends what the enumerator asked for, through the valve.
    fn apply_actions(&mut self) {
        self.start_calls();
        for action in std::mem::take(&mut self.coordinator.ctx.actions) {
            let target = match &action {
                EnumAction::Assign { subtask, .. }
                | EnumAction::NoMoreSplits { subtask }
                | EnumAction::Event { subtask, .. } => *subtask,
            };
            if target >= self.coordinator.readers {
                self.fail_job(format!(
                    "the enumerator addressed subtask {target}, but parallelism is {} (subtasks 0..{})",
                    self.coordinator.readers, self.coordinator.readers
                ));
                return;
            }
            let (subtask, msg) = match action {
                EnumAction::Assign { subtask, splits } => {
                    let attempt = self.scheduler.slots[subtask].attempt;
                    if !self.coordinator.ctx.registered.contains(&subtask) {
                        let ids: Vec<_> = splits.iter().map(Split::id).collect();
                        self.fail_job(format!(
                            "the enumerator assigned splits {ids:?} to reader {subtask}, which is not registered (it \
                             failed, or has not started yet); keep the splits until add_reader({subtask}) is called"
                        ));
                        return;
                    }
                    if self.scheduler.slots[subtask].no_more_splits {
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
                    self.coordinator.tracker.record(subtask, splits);
                    (subtask, ToTask::AddSplits { attempt, splits: bytes })
                }
                EnumAction::NoMoreSplits { subtask } => {
                    self.scheduler.slots[subtask].no_more_splits = true;
                    (subtask, ToTask::NoMoreSplits { attempt: self.scheduler.slots[subtask].attempt })
                }
                EnumAction::Event { subtask, event } => {
                    (subtask, ToTask::SourceEvent { attempt: self.scheduler.slots[subtask].attempt, event })
                }
            };
            let slot = &mut self.scheduler.slots[subtask];
            match &mut slot.held {
                Some(held) => held.push(msg),
                None => slot.downlink.send(msg),
            }
        }
    }
}
