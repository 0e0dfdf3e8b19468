//! Ordered delivery from the job master to one subtask attempt.
//!
//! Everything for an attempt goes through one queue, so the gateway's per-link FIFO keeps
//! split assignments and barriers in the order the coordinator decided. Operator events are
//! calls: if one cannot be delivered, the attempt is failed (as Flink fails a subtask whose
//! event delivery failed), so an assignment is never silently lost.

use super::protocol::{task_executor, Addressed, ToTask};
use crate::history::CheckpointId;
use crate::net::Endpoint;
use std::time::Duration;
use tokio::sync::mpsc;

/// What the downlink reports back to the job master's loop.
#[derive(Debug)]
pub(crate) enum DownlinkReport {
    Deployed { subtask: usize, attempt: u64 },
    Undeliverable { subtask: usize, attempt: u64, kind: &'static str },
    FinalCommitted { subtask: usize, attempt: u64, checkpoint: CheckpointId },
}

/// How long the job master waits for a deployment.
const DEPLOY_TIMEOUT: Duration = Duration::from_millis(200);

pub(crate) struct Downlink {
    tx: mpsc::UnboundedSender<ToTask>,
    task: madsim::task::JoinHandle<()>,
}

impl Downlink {
    /// Delivers to `attempt` of `subtask`, deployed on task executor `executor`.
    pub fn start(
        endpoint: Endpoint,
        subtask: usize,
        attempt: u64,
        executor: usize,
        report: mpsc::UnboundedSender<DownlinkReport>,
    ) -> Self {
        let (tx, mut rx) = mpsc::unbounded_channel::<ToTask>();
        let te = task_executor(executor);
        let task = madsim::task::spawn(async move {
            while let Some(msg) = rx.recv().await {
                let kind = msg.kind();
                let mut msg = Addressed { subtask, msg };
                if let ToTask::Deploy { deadline_ms, .. } = &mut msg.msg {
                    *deadline_ms = (crate::net::now() + DEPLOY_TIMEOUT).as_millis() as u64;
                }
                match msg.msg {
                    ToTask::Trigger { .. }
                    | ToTask::Notify { .. }
                    | ToTask::Abort { .. }
                    | ToTask::AlignWatermarks { .. } => endpoint.send(&te, kind, &msg),
                    ToTask::Deploy { .. } => {
                        // Never retried with the same attempt: the task executor may have
                        // restarted in between, and a retry would start a second incarnation
                        // of this attempt. A failed deployment fails the attempt (after a
                        // restart delay, so a task executor that is down causes no storm).
                        if endpoint.call::<_, bool>(&te, kind, &msg, DEPLOY_TIMEOUT).await == Ok(true) {
                            let _ = report.send(DownlinkReport::Deployed { subtask, attempt });
                        } else {
                            madsim::time::sleep(Duration::from_millis(50)).await;
                            let _ = report.send(DownlinkReport::Undeliverable { subtask, attempt, kind });
                            return;
                        }
                    }
                    ToTask::Wire { .. } => {
                        // Retried until answered, as it is the same for the attempt every time.
                        loop {
                            match endpoint.call::<_, bool>(&te, kind, &msg, Duration::from_millis(50)).await {
                                Ok(true) => break,
                                Ok(false) => {
                                    let _ = report.send(DownlinkReport::Undeliverable { subtask, attempt, kind });
                                    return;
                                }
                                Err(_) => madsim::time::sleep(Duration::from_millis(20)).await,
                            }
                        }
                    }
                    ToTask::NotifyFinal { checkpoint, .. } => {
                        // Retried until answered: the task executor only accepts it for the
                        // attempt it runs, and committing is idempotent.
                        loop {
                            match endpoint.call::<_, bool>(&te, kind, &msg, Duration::from_millis(200)).await {
                                Ok(true) => break,
                                Ok(false) => {
                                    let _ = report.send(DownlinkReport::Undeliverable { subtask, attempt, kind });
                                    return;
                                }
                                Err(_) => madsim::time::sleep(Duration::from_millis(20)).await,
                            }
                        }
                        let _ = report.send(DownlinkReport::FinalCommitted { subtask, attempt, checkpoint });
                    }
                    _ => {
                        if endpoint.call::<_, bool>(&te, kind, &msg, Duration::from_millis(50)).await != Ok(true) {
                            let _ = report.send(DownlinkReport::Undeliverable { subtask, attempt, kind });
                            return;
                        }
                    }
                }
            }
        });
        Self { tx, task }
    }

    pub fn send(&self, msg: ToTask) {
        let _ = self.tx.send(msg);
    }
}

impl Drop for Downlink {
    fn drop(&mut self) {
        self.task.abort();
    }
}
