//! Ordered, reliable delivery from one subtask attempt to the job master: each message is
//! retried until acknowledged, and numbered so the job master drops duplicates. Checkpoint
//! acknowledgements are the exception: sent once, unnumbered, as Flink's task executor sends
//! them; a lost one lets its checkpoint expire.

use super::protocol::{MasterMsg, ToMaster, JOB_MASTER};
use crate::net::Endpoint;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

pub(crate) struct Uplink {
    tx: Option<mpsc::UnboundedSender<MasterMsg>>,
    task: Option<madsim::task::JoinHandle<()>>,
    endpoint: Endpoint,
    subtask: usize,
    attempt: u64,
}

/// How long a one-shot acknowledgement waits for the job master's receipt.
const ACK_TIMEOUT: Duration = Duration::from_millis(50);

impl Uplink {
    pub fn start(endpoint: Endpoint, subtask: usize, attempt: u64) -> Self {
        let (tx, mut rx) = mpsc::unbounded_channel::<MasterMsg>();
        let stream = endpoint.clone();
        let task = madsim::task::spawn(async move {
            let mut seq = 0;
            while let Some(body) = rx.recv().await {
                seq += 1;
                let kind = body.kind();
                let msg = ToMaster { subtask, attempt, seq, body };
                while stream.call::<_, ()>(JOB_MASTER, kind, &msg, Duration::from_millis(50)).await.is_err() {
                    madsim::time::sleep(Duration::from_millis(10)).await;
                }
            }
        });
        Self { tx: Some(tx), task: Some(task), endpoint, subtask, attempt }
    }

    /// Sends `msg` once, outside the ordered stream (sequence number 0: the job master does not
    /// order it against the stream). The answer resolves once the job master received it; it
    /// is dropped unresolved if the message or its receipt was lost.
    pub fn send_once(&self, body: MasterMsg) -> oneshot::Receiver<()> {
        let (confirm, rx) = oneshot::channel();
        let endpoint = self.endpoint.clone();
        let kind = body.kind();
        let msg = ToMaster { subtask: self.subtask, attempt: self.attempt, seq: 0, body };
        madsim::task::spawn(async move {
            if endpoint.call::<_, ()>(JOB_MASTER, kind, &msg, ACK_TIMEOUT).await.is_ok() {
                let _ = confirm.send(());
            }
        });
        rx
    }

    pub fn send(&self, msg: MasterMsg) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(msg);
        }
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
    /// A cancelled attempt's undelivered messages are dropped with it (an acknowledgement
    /// already on its way still lands; the job master takes it only from the current attempt).
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}
