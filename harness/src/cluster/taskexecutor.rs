//! A task executor node: deploys subtask attempts and routes control messages to the one
//! running, fencing messages addressed to any other attempt.

use super::hooks::Hooks;
use super::protocol::{task_executor, ToTask};
use super::subtask::{self, Control, SubtaskSetup};
use crate::api::{Sink, Source};
use crate::history::History;
use crate::net::Gateway;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

struct Running {
    subtask: usize,
    attempt: u64,
    control: mpsc::UnboundedSender<Control>,
    task: madsim::task::JoinHandle<()>,
}

impl Running {
    fn alive(&self) -> bool {
        !self.task.is_finished()
    }
}

/// How long a cancelled attempt gets to close its components before it is aborted.
const CLOSE_TIMEOUT: Duration = Duration::from_millis(100);

/// Ends an attempt in order: its components close (Flink's cancel), then it stops; one that
/// does not close in time is aborted.
async fn close(running: Running) {
    if running.alive() {
        let (done, closed) = oneshot::channel();
        if running.control.send(Control::Close(done)).is_ok() {
            let _ = madsim::time::timeout(CLOSE_TIMEOUT, closed).await;
        }
    }
    running.task.abort();
}

/// The init task of task executor `index`: serves until the node is crashed.
pub(crate) async fn run<Src: Source, Snk: Sink>(
    index: usize,
    gateway: Gateway,
    history: History,
    hooks: Hooks,
    source: Src,
    sink: Snk,
) {
    let (endpoint, mut inbox) = gateway.bind(&task_executor(index));
    let mut current: Option<Running> = None;
    while let Some(msg) = inbox.recv().await {
        let Ok(req) = msg.decode::<ToTask>() else { continue };
        let replier = msg.replier;
        let route = |current: &Option<Running>, attempt: u64, ctl: Control| -> bool {
            match current {
                Some(r) if r.attempt == attempt && r.alive() => r.control.send(ctl).is_ok(),
                _ => false,
            }
        };
        match req {
            ToTask::Deploy { subtask, attempt, parallelism, restore } => {
                let ok = match &current {
                    Some(r) if r.attempt == attempt => true,
                    Some(r) if r.attempt > attempt => false,
                    _ => {
                        if let Some(old) = current.take() {
                            close(old).await;
                        }
                        let (control, rx) = mpsc::unbounded_channel();
                        let setup = SubtaskSetup {
                            source: source.clone(),
                            sink: sink.clone(),
                            subtask,
                            parallelism,
                            attempt,
                            restore,
                            endpoint: endpoint.clone(),
                            history: history.clone(),
                            hooks: hooks.clone(),
                            control: rx,
                        };
                        let task = madsim::task::spawn(subtask::run::<Src, Snk>(setup));
                        current = Some(Running { subtask, attempt, control, task });
                        true
                    }
                };
                if let Some(r) = replier {
                    r.reply(&ok);
                }
            }
            ToTask::Ping => {
                let running = current.as_ref().filter(|r| r.alive()).map(|r| (r.subtask, r.attempt));
                if let Some(r) = replier {
                    r.reply(&running);
                }
            }
            ToTask::AddSplits { attempt, splits } => {
                let ok = route(&current, attempt, Control::AddSplits(splits));
                if let Some(r) = replier {
                    r.reply(&ok);
                }
            }
            ToTask::NoMoreSplits { attempt } => {
                let ok = route(&current, attempt, Control::NoMoreSplits);
                if let Some(r) = replier {
                    r.reply(&ok);
                }
            }
            ToTask::SourceEvent { attempt, event } => {
                let ok = route(&current, attempt, Control::SourceEvent(event));
                if let Some(r) = replier {
                    r.reply(&ok);
                }
            }
            ToTask::Trigger { attempt, checkpoint, stop } => {
                route(&current, attempt, Control::Trigger(checkpoint, stop));
            }
            ToTask::Notify { attempt, checkpoint } => {
                route(&current, attempt, Control::Notify(checkpoint));
            }
            ToTask::Close { attempt } => {
                let ok = current.as_ref().is_some_and(|r| r.attempt == attempt && r.alive());
                if ok {
                    close(current.take().expect("checked")).await;
                }
                if let Some(r) = replier {
                    r.reply(&ok);
                }
            }
            ToTask::NotifyFinal { attempt, checkpoint } => {
                let (done_tx, done_rx) = oneshot::channel();
                let ok = route(&current, attempt, Control::NotifyFinal(checkpoint, done_tx));
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
