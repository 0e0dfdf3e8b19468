//! One attempt of a task downstream of the writers (the global committer's or a
//! committer's) on a task executor: deployed (its state restored, recovered committables
//! committed), then a loop over the job master's control messages and the writers'
//! channels until it is cancelled.

use super::committer::CommitterOperator;
use super::global::GlobalOperator;
use super::Downstream;
use crate::api::{CommitterContext, GlobalCommitterContext, Sink, Source};
use crate::cluster::config::RuntimeBug;
use crate::cluster::exchange::{GateEvent, InputGate};
use crate::cluster::hooks::Hooks;
use crate::cluster::protocol::{task_executor, MasterMsg, SubtaskState};
use crate::cluster::subtask::{Control, SubtaskSetup};
use crate::cluster::uplink::Uplink;
use crate::error::{ConnectorError, RetryHint};
use crate::history::{CheckpointId, EventKind, History};
use crate::net::Endpoint;
use std::time::Duration;
use tokio::sync::mpsc;

/// The attempt's parts: the operator, its input gate, and its links.
struct DownstreamTask<Snk: Sink> {
    id: usize,
    attempt: u64,
    /// The subtask whose slot this task shares.
    host: usize,
    node: String,
    history: History,
    hooks: Hooks,
    endpoint: Endpoint,
    uplink: Uplink,
    operator: Downstream<Snk>,
    /// One channel from every writer; barriers align here.
    gate: InputGate,
    writers: usize,
}

/// Runs one attempt of a task downstream of the writers until it is cancelled; a failure is
/// reported to the job master.
pub(crate) async fn run<Src: Source, Snk: Sink>(setup: SubtaskSetup<Src, Snk>) {
    let ambient = setup.endpoint.for_attempt(setup.subtask, setup.attempt);
    crate::net::ambient::scope(ambient, run_attempt(setup)).await
}

async fn run_attempt<Src: Source, Snk: Sink>(setup: SubtaskSetup<Src, Snk>) {
    let SubtaskSetup {
        sink, subtask, attempt, restore, endpoint, history, hooks, mut control, mut cancel, shape, ..
    } = setup;
    let node = endpoint.addr().to_string();
    let uplink = Uplink::start(endpoint.clone(), subtask, attempt);
    let restored = restore.as_ref().map_or(0, |(c, _)| *c);
    history.record(&node, EventKind::Deployed { subtask, attempt, checkpoint: restored });
    let (first, _) = shape.downstream(sink.has_global_committer()).expect("deployed downstream of the writers");
    let global = sink.has_global_committer();
    let operator = if global {
        let ctx = GlobalCommitterContext {
            endpoint: endpoint.for_attempt(subtask, attempt),
            job_id: crate::history::job_id(shape.job),
        };
        let Some(committer) = sink.create_global_committer(ctx) else {
            let e = ConnectorError::fail_job(
                "the sink says it has a global committer, but create_global_committer returned None",
            );
            return report(&history, &node, subtask, uplink, e).await;
        };
        Downstream::Global(GlobalOperator::new(committer, shape.runtime_bug))
    } else {
        // Committer j of k: its context names its index among the committers.
        let committer = sink.create_committer(CommitterContext {
            subtask: subtask - first,
            attempt,
            restored_checkpoint: crate::history::local_checkpoint(restored),
            job_id: crate::history::job_id(shape.job),
            endpoint: endpoint.for_attempt(subtask, attempt),
        });
        Downstream::Committer(CommitterOperator::new(committer))
    };
    let aligned = global || shape.runtime_bug != Some(RuntimeBug::CommitterAcksAtTheFirstBarrier);
    // The global committer shares subtask 0's slot; committer j, subtask (j mod n)'s.
    let host = if global { 0 } else { (subtask - first) % first.max(1) };
    let mut task = DownstreamTask::<Snk> {
        id: subtask,
        attempt,
        host,
        node: node.clone(),
        history: history.clone(),
        hooks,
        endpoint,
        uplink,
        operator,
        // Aligned: the unaligned switch is about writers behind an exchange.
        gate: InputGate::new(subtask, attempt, shape.writers, aligned),
        writers: shape.writers,
    };
    let outcome = tokio::select! {
        biased;
        done = &mut cancel => Err(done.ok()),
        result = task.start_and_run(restore, &mut control) => Ok(result),
    };
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            task.operator.close().await;
            report(&history, &node, subtask, task.uplink, e).await
        }
        Err(done) => {
            task.operator.close().await;
            if let Some(done) = done {
                let _ = done.send(());
            }
        }
    }
}

/// Reports a failure of the attempt to the job master.
async fn report(history: &History, node: &str, subtask: usize, uplink: Uplink, e: ConnectorError) {
    history.record(node, EventKind::ConnectorError { subtask: Some(subtask), message: e.to_string() });
    uplink.send(MasterMsg::Failed { reason: e.message.clone(), job: e.hint == RetryHint::FailJob });
    uplink.finish().await;
}

impl<Snk: Sink> DownstreamTask<Snk> {
    async fn start_and_run(
        &mut self,
        restore: Option<(CheckpointId, SubtaskState)>,
        control: &mut mpsc::UnboundedReceiver<Control>,
    ) -> Result<(), ConnectorError> {
        if let Some((c, state)) = restore {
            // As Flink's restart strategy does, a restore that fails for a reason that may
            // pass (an unreachable system) is tried again after a delay, here.
            while let Err(e) = self.operator.restore(c, &state.committables).await {
                if e.hint == RetryHint::FailJob {
                    return Err(e);
                }
                let what =
                    if matches!(self.operator, Downstream::Global(_)) { "global committer" } else { "committer" };
                let message = format!("{what} restore: {e}; retrying in 50 ms");
                self.history.record(&self.node, EventKind::ConnectorError { subtask: Some(self.id), message });
                madsim::time::sleep(Duration::from_millis(50)).await;
            }
            // Recovered committables belong to a completed checkpoint: committed again at once.
            self.commit().await?;
        }
        loop {
            let retry = self.operator.due();
            let ctl = tokio::select! {
                biased;
                ctl = control.recv() => ctl,
                _ = madsim::time::sleep(Duration::from_millis(20)), if retry => {
                    self.commit().await?;
                    continue;
                }
            };
            match ctl {
                Some(ctl) => self.on_control(ctl).await?,
                None => return Ok(()),
            }
        }
    }

    async fn commit(&mut self) -> Result<(), ConnectorError> {
        self.operator.commit(&self.history, &self.node, &self.hooks, (self.id, self.attempt, self.host)).await
    }

    async fn on_control(&mut self, ctl: Control) -> Result<(), ConnectorError> {
        match ctl {
            Control::Wire(peers) => {
                if peers.len() > self.id {
                    self.gate.wire(&peers[..self.writers]);
                }
            }
            Control::Data { channel, from_attempt, seq, payload } => {
                self.gate.receive(channel, from_attempt, seq, payload);
                self.drain_gate()?;
            }
            Control::Aborted(c) => {
                self.gate.abort(c);
                self.drain_gate()?;
            }
            Control::Notify(c) => {
                self.operator.completed(c);
                self.commit().await?;
            }
            Control::NotifyFinal(c, done) => {
                self.operator.completed(c);
                self.commit().await?;
                while self.operator.due() {
                    madsim::time::sleep(Duration::from_millis(10)).await;
                    self.commit().await?;
                }
                // A stopping savepoint ends no input: only the end of input is announced.
                if self.gate.ended() {
                    self.operator.end_of_input().await?;
                }
                let _ = done.send(());
            }
            // Barriers come from the writers; the rest is for readers and writers.
            Control::Trigger(..)
            | Control::AddSplits(_)
            | Control::NoMoreSplits
            | Control::SourceEvent(_)
            | Control::Align { .. }
            | Control::Credit { .. } => {}
        }
        Ok(())
    }

    /// Takes in what the gate lets through, acknowledges each aligned barrier with the
    /// operator's state, then answers the writers with credit.
    fn drain_gate(&mut self) -> Result<(), ConnectorError> {
        while let Some(event) = self.gate.next() {
            match event {
                GateEvent::Committables(bytes) => self.operator.receive(&bytes)?,
                GateEvent::Aligned(c) => {
                    let committables = self.operator.aligned(c)?;
                    let state =
                        SubtaskState { committables, finished: self.gate.ended(), ..crate::cluster::rescale::empty() };
                    // Sent once, as every acknowledgement: a lost one lets the checkpoint expire.
                    drop(self.uplink.send_once(MasterMsg::Ack { checkpoint: c, state }));
                }
                GateEvent::Records(_)
                | GateEvent::Watermark(_)
                | GateEvent::Blocked { .. }
                | GateEvent::AlignmentAborted(_)
                | GateEvent::EndOfInput => {}
            }
        }
        for (executor, msg) in self.gate.credits() {
            self.endpoint.send(&task_executor(executor), msg.msg.kind(), &msg);
        }
        Ok(())
    }
}
