//! Ordered, reliable delivery from one subtask attempt to the job master: each message is
//! retried until acknowledged, and numbered so the job master drops duplicates.

use super::protocol::{MasterMsg, ToMaster, JOB_MASTER};
use crate::net::Endpoint;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

pub(crate) struct Uplink {
    tx: Option<mpsc::UnboundedSender<(MasterMsg, Option<oneshot::Sender<()>>)>>,
    task: Option<madsim::task::JoinHandle<()>>,
}

impl Uplink {
    pub fn start(endpoint: Endpoint, subtask: usize, attempt: u64) -> Self {
        let (tx, mut rx) = mpsc::unbounded_channel::<(MasterMsg, Option<oneshot::Sender<()>>)>();
        let task = madsim::task::spawn(async move {
            let mut seq = 0;
            while let Some((body, confirm)) = rx.recv().await {
                seq += 1;
                let kind = body.kind();
                let msg = ToMaster { subtask, attempt, seq, body };
                while endpoint.call::<_, ()>(JOB_MASTER, kind, &msg, Duration::from_millis(50)).await.is_err() {
                    madsim::time::sleep(Duration::from_millis(10)).await;
                }
                if let Some(confirm) = confirm {
                    let _ = confirm.send(());
                }
            }
        });
        Self { tx: Some(tx), task: Some(task) }
    }

    pub fn send(&self, msg: MasterMsg) {
        if let Some(tx) = &self.tx {
            let _ = tx.send((msg, None));
        }
    }

    /// Sends `msg`; the answer resolves once the job master acknowledged it.
    pub fn send_confirmed(&self, msg: MasterMsg) -> oneshot::Receiver<()> {
        let (confirm, rx) = oneshot::channel();
        if let Some(tx) = &self.tx {
            let _ = tx.send((msg, Some(confirm)));
        }
        rx
    }

    /// Delivers everything queued, then stops.
    pub async fn finish(mut self) {
        self.tx = None; // the task ends once the queue is drained
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for Uplink {
    /// A cancelled attempt's undelivered messages are dropped with it.
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}
