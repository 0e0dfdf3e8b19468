//! A task executor node: offers slots, deploys subtask attempts into them and routes control
//! messages to the attempt they name, fencing messages addressed to any other attempt.
//!
//! Every attempt holds a lease the job master renews with its heartbeats (and with every
//! message it sends the attempt). An attempt whose lease ran out is cancelled, as Flink's
//! task manager fails its tasks when its heartbeat to the job manager times out. Until then
//! an attempt cut off from the job master keeps running: a zombie, still writing to every
//! external system it can reach, possibly next to its replacement on another task executor.

use super::config::Exchange;
use super::hooks::Hooks;
use super::protocol::{task_executor, Addressed, ToTask};
use super::shape::JobShape;
use super::subtask::{self, Control, SubtaskSetup};
use crate::api::{Sink, Source};
use crate::history::{EventKind, History};
use crate::net::{now, Gateway};
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

struct Running {
    attempt: u64,
    control: mpsc::UnboundedSender<Control>,
    cancel: oneshot::Sender<oneshot::Sender<()>>,
    task: madsim::task::JoinHandle<()>,
    /// Virtual time the job master last spoke about this attempt.
    renewed: Duration,
    /// When it was deployed (slots go to the newest when they run short).
    deployed: Duration,
    /// A task downstream of the writers (the global committer's or a committer's): it
    /// shares a slot with another subtask (Flink's slot sharing), so it takes none of its own.
    shares_slot: bool,
}

impl Running {
    fn alive(&self) -> bool {
        !self.task.is_finished()
    }
}

/// How long a cancelled attempt gets to close its components before it is aborted.
const CLOSE_TIMEOUT: Duration = Duration::from_millis(100);

/// Ends an attempt in order: whatever it is doing is abandoned and its components close
/// (Flink's cancel), then it stops; one that does not close in time is aborted.
async fn close(running: Running) {
    if running.alive() {
        let (done, closed) = oneshot::channel();
        if running.cancel.send(done).is_ok() {
            let _ = madsim::time::timeout(CLOSE_TIMEOUT, closed).await;
        }
    }
    running.task.abort();
}

/// How a task executor is set up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ExecutorConfig {
    /// Attempts it hosts at once.
    pub slots: usize,
    /// An attempt the job master has not spoken about for this long is cancelled.
    pub lease: Duration,
    /// Between the job's readers and writers.
    pub exchange: Exchange,
    /// Writers behind an exchange align barriers ([`JobConfig::aligned_barriers`](super::JobConfig)).
    pub aligned_barriers: bool,
    /// The strategy the job reads its source with (the job's, else the source's own).
    pub watermarks: Option<crate::api::WatermarkStrategy>,
    /// A runtime bug switched on ([`JobConfig::runtime_bug`](super::JobConfig)).
    pub runtime_bug: Option<super::config::RuntimeBug>,
    /// Committer tasks apart from the writers ([`JobConfig::committers`](super::JobConfig::committers)).
    pub committers: usize,
}

/// The init task of task executor `index`: serves until the node is crashed.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn run<Src: Source, Snk: Sink>(
    index: usize,
    cfg: ExecutorConfig,
    gateway: Gateway,
    history: History,
    hooks: Hooks,
    source: Src,
    sink: Snk,
) {
    let name = task_executor(index);
    let (endpoint, mut inbox) = gateway.bind(&name);
    let mut running: BTreeMap<usize, Running> = BTreeMap::new();
    let mut leases = madsim::time::interval((cfg.lease / 4).max(Duration::from_millis(1)));
    loop {
        let msg = tokio::select! {
            biased;
            msg = inbox.recv() => match msg {
                Some(msg) => msg,
                None => return,
            },
            _ = leases.tick() => {
                expire(&mut running, cfg.lease, &history, &name).await;
                continue;
            }
        };
        let Ok(Addressed { subtask, msg: req }) = msg.decode::<Addressed>() else { continue };
        let replier = msg.replier;
        // Anything the job master sends an attempt renews its lease.
        let route = |running: &mut BTreeMap<usize, Running>, attempt: u64, ctl: Control| -> bool {
            match running.get_mut(&subtask) {
                Some(r) if r.attempt == attempt && r.alive() => {
                    r.renewed = now();
                    r.control.send(ctl).is_ok()
                }
                _ => false,
            }
        };
        match req {
            ToTask::Deploy { subtask, attempt, parallelism, writers, restore, deadline_ms, job } => {
                let late = now().as_millis() as u64 > deadline_ms;
                let ok = match running.get(&subtask) {
                    Some(r) if r.attempt == attempt => true,
                    Some(r) if r.attempt > attempt => false,
                    _ if late => false,
                    _ => {
                        if let Some(old) = running.remove(&subtask) {
                            close(old).await;
                        }
                        let downstream =
                            JobShape::downstream_of(parallelism, writers, cfg.committers, sink.has_global_committer());
                        let shares_slot = downstream.contains(&subtask);
                        if !shares_slot {
                            free_slot(&mut running, cfg.slots).await;
                        }
                        let (control, rx) = mpsc::unbounded_channel();
                        let (cancel, cancelled) = oneshot::channel();
                        let setup = SubtaskSetup {
                            source: source.clone(),
                            sink: sink.clone(),
                            subtask,
                            attempt,
                            restore,
                            endpoint: endpoint.clone(),
                            history: history.clone(),
                            hooks: hooks.clone(),
                            control: rx,
                            cancel: cancelled,
                            shape: JobShape {
                                job,
                                parallelism,
                                writers,
                                committers: cfg.committers,
                                exchange: cfg.exchange,
                                aligned_barriers: cfg.aligned_barriers,
                                watermarks: cfg.watermarks,
                                runtime_bug: cfg.runtime_bug,
                            },
                        };
                        let task = if shares_slot {
                            madsim::task::spawn(super::downstream::run::<Src, Snk>(setup))
                        } else {
                            madsim::task::spawn(subtask::run::<Src, Snk>(setup))
                        };
                        let at = now();
                        let running_attempt =
                            Running { attempt, control, cancel, task, renewed: at, deployed: at, shares_slot };
                        running.insert(subtask, running_attempt);
                        true
                    }
                };
                if let Some(r) = replier {
                    r.reply(&ok);
                }
            }
            ToTask::Ping { attempt } => {
                let current = running.get_mut(&subtask).filter(|r| r.alive()).map(|r| {
                    if r.attempt == attempt {
                        r.renewed = now();
                    }
                    r.attempt
                });
                if let Some(r) = replier {
                    r.reply(&current);
                }
            }
            ToTask::AddSplits { attempt, splits } => {
                let ok = route(&mut running, attempt, Control::AddSplits(splits));
                if let Some(r) = replier {
                    r.reply(&ok);
                }
            }
            ToTask::NoMoreSplits { attempt } => {
                let ok = route(&mut running, attempt, Control::NoMoreSplits);
                if let Some(r) = replier {
                    r.reply(&ok);
                }
            }
            ToTask::SourceEvent { attempt, event } => {
                let ok = route(&mut running, attempt, Control::SourceEvent(event));
                if let Some(r) = replier {
                    r.reply(&ok);
                }
            }
            ToTask::Trigger { attempt, checkpoint, stop } => {
                route(&mut running, attempt, Control::Trigger(checkpoint, stop));
            }
            ToTask::Notify { attempt, checkpoint } => {
                route(&mut running, attempt, Control::Notify(checkpoint));
            }
            ToTask::Abort { attempt, checkpoint } => {
                route(&mut running, attempt, Control::Aborted(checkpoint));
            }
            ToTask::AlignWatermarks { attempt, minimum, max_allowed } => {
                route(&mut running, attempt, Control::Align { minimum, max_allowed });
            }
            ToTask::Close { attempt } => {
                let ok = running.get(&subtask).is_some_and(|r| r.attempt == attempt && r.alive());
                if ok {
                    close(running.remove(&subtask).expect("checked")).await;
                }
                if let Some(r) = replier {
                    r.reply(&ok);
                }
            }
            ToTask::Wire { attempt, peers } => {
                let ok = route(&mut running, attempt, Control::Wire(peers));
                if let Some(r) = replier {
                    r.reply(&ok);
                }
            }
            // Exchange traffic comes from other subtasks, not the job master: it renews no lease.
            ToTask::Data { attempt, channel, from_attempt, seq, payload } => {
                deliver(&running, subtask, attempt, Control::Data { channel, from_attempt, seq, payload });
            }
            ToTask::Credit { attempt, channel, from_attempt, received, window } => {
                deliver(&running, subtask, attempt, Control::Credit { channel, from_attempt, received, window });
            }
            ToTask::NotifyFinal { attempt, checkpoint } => {
                let (done_tx, done_rx) = oneshot::channel();
                let ok = route(&mut running, attempt, Control::NotifyFinal(checkpoint, done_tx));
                if let Some(r) = replier {
                    if ok {
                        madsim::task::spawn(async move {
                            if done_rx.await.is_ok() {
                                r.reply(&true);
                            }
                        });
                    } else {
                        r.reply(&false);
                    }
                }
            }
        }
    }
}

/// Hands `ctl` to `attempt` of `subtask` if it runs here (without renewing its lease).
fn deliver(running: &BTreeMap<usize, Running>, subtask: usize, attempt: u64, ctl: Control) {
    if let Some(r) = running.get(&subtask).filter(|r| r.attempt == attempt && r.alive()) {
        let _ = r.control.send(ctl);
    }
}

/// Cancels every attempt whose lease ran out: the job master has not spoken about it for
/// longer than the lease, so it may have been replaced elsewhere.
async fn expire(running: &mut BTreeMap<usize, Running>, lease: Duration, history: &History, node: &str) {
    running.retain(|_, r| r.alive());
    let at = now();
    let expired: Vec<usize> =
        running.iter().filter(|(_, r)| at.saturating_sub(r.renewed) > lease).map(|(s, _)| *s).collect();
    for subtask in expired {
        let r = running.remove(&subtask).expect("listed above");
        history.record(node, EventKind::LeaseExpired { subtask, attempt: r.attempt });
        close(r).await;
    }
}

/// Makes room for one more attempt: when every slot is taken, the oldest attempts go (the
/// job master deploys only into slots it considers free, so they were given up).
async fn free_slot(running: &mut BTreeMap<usize, Running>, slots: usize) {
    running.retain(|_, r| r.alive());
    while running.values().filter(|r| !r.shares_slot).count() >= slots.max(1) {
        let oldest = running
            .iter()
            .filter(|(_, r)| !r.shares_slot)
            .min_by_key(|(s, r)| (r.deployed, **s))
            .map(|(s, _)| *s)
            .expect("not empty");
        close(running.remove(&oldest).expect("listed")).await;
    }
}
