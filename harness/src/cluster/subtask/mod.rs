//! One subtask on a task executor: source reader → sink writer → committer, chained.
//!
//! ```text
//!  control (AddSplits, Trigger c, Notify c) ─▶ ┌──────────── subtask loop ─────────────┐
//!                                              │ reader.poll_next ─▶ writer.write       │
//!                                              │ Trigger c: reader.snapshot (barrier c)  │
//!                                              │   ─▶ writer.flush ─▶ prepare_commit(c)  │ ─▶ Ack(c, state)
//!                                              │ Notify c: committer.commit(≤ c)        │
//!                                              │ Abort c: notify_checkpoint_aborted      │
//!                                              └────────────────────────────────────────┘
//! ```
//!
//! The barrier is in-band: it is handled between two polls, so every record emitted before
//! it reached the writer before the writer prepared its committables.
//!
//! Behind an exchange ([`exchanged`]) the reader's records, watermarks and barriers go out on
//! channels to every subtask's writer instead, and the writer snapshots once barrier `c` came
//! on all of its input channels; the acknowledgement then carries both halves.
//!
//! Each operator owns its state ([`operators`]): the source operator (reader, input, event
//! time, alignment) and the sink operators (writer, committer, pending committables). The
//! attempt is deployed in `start.rs`, runs its loop here, hands what the reader emits on in
//! `output.rs`, checkpoints in `checkpointing.rs`, and keeps event time in `event_time.rs`.

mod checkpointing;
mod event_time;
mod exchanged;
mod operators;
mod output;
mod start;

use operators::{SinkOperator, SourceOperator};

use super::hooks::{Hooks, Phase};
use super::protocol::{MasterMsg, Payload, SubtaskState};
use super::reader_alignment::ReaderAlignment;
use super::shape::JobShape;
use super::uplink::Uplink;
use crate::api::{Committer, InputStatus, ReaderOutput, Sink, SinkWriter, Source, SourceReader, WatermarkTracker};
use crate::error::{ConnectorError, RetryHint};
use crate::history::{CheckpointId, Closing, EventKind, History};
use crate::net::Endpoint;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// A control message routed to the running attempt.
pub(crate) enum Control {
    AddSplits(Vec<u8>),
    NoMoreSplits,
    SourceEvent(Vec<u8>),
    /// A barrier; `true`: stop the source after it (stop-with-savepoint).
    Trigger(CheckpointId, bool),
    Notify(CheckpointId),
    /// Checkpoint aborted (declined, expired, subsumed, failed over).
    Aborted(CheckpointId),
    /// Watermark alignment: the group's minimum and the highest watermark a split may have.
    Align {
        minimum: i64,
        max_allowed: i64,
    },
    NotifyFinal(CheckpointId, oneshot::Sender<()>),
    /// The exchange's wiring: per subtask, its task executor and attempt.
    Wire(Vec<(usize, u64)>),
    /// An exchange message from reader subtask `channel`.
    Data {
        channel: usize,
        from_attempt: u64,
        seq: u64,
        payload: Payload,
    },
    /// Exchange credit from writer subtask `channel`.
    Credit {
        channel: usize,
        from_attempt: u64,
        received: u64,
        window: u64,
    },
}

/// Cancels an attempt (the job master cancelled it, its lease ran out, or the job is over):
/// whatever connector call it is in is abandoned, as Flink interrupts a cancelled task's
/// thread, then its components close; the sender inside is answered once they have.
pub(crate) type Cancel = oneshot::Receiver<oneshot::Sender<()>>;

pub(crate) struct SubtaskSetup<Src, Snk> {
    pub source: Src,
    pub sink: Snk,
    pub subtask: usize,
    pub attempt: u64,
    pub restore: Option<(CheckpointId, SubtaskState)>,
    pub endpoint: Endpoint,
    pub history: History,
    pub hooks: Hooks,
    pub control: mpsc::UnboundedReceiver<Control>,
    pub cancel: Cancel,
    /// What every subtask of the job shares.
    pub shape: JobShape,
}

impl<Src, Snk> SubtaskSetup<Src, Snk> {
    /// The setup without its cancel signal, and the signal (listened to apart from the rest).
    fn split_cancel(self) -> (Self, Cancel) {
        let (_, unused) = oneshot::channel();
        let mut setup = self;
        let cancel = std::mem::replace(&mut setup.cancel, unused);
        (setup, cancel)
    }
}

/// One attempt of a subtask: the chain's operators and what they share (the attempt's
/// identity, its links to the job master, the scenario's hooks).
struct Subtask<Src: Source, Snk: Sink> {
    id: usize,
    attempt: u64,
    node: String,
    history: History,
    hooks: Hooks,
    uplink: Uplink,
    control: mpsc::UnboundedReceiver<Control>,
    /// The source operator: reader, input, event time.
    source: SourceOperator<Src>,
    /// The writer and committer operators, and the committables between them.
    sink: SinkOperator<Snk>,
    /// The exchange's ends, when the job has one.
    exchange: Option<exchanged::Exchanged>,
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    bincode::serialize(value).expect("connector state serializes")
}

fn decode<T: DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, ConnectorError> {
    crate::bytes::decode(bytes).map_err(|e| ConnectorError::fail_job(format!("{what} did not deserialize: {e}")))
}

/// Virtual milliseconds since the simulation started.
fn now_ms() -> u64 {
    crate::net::now().as_millis() as u64
}

/// Stops here for good when a scenario aimed a crash at this phase: the supervisor kills the
/// node as soon as it hears of the hit.
async fn crash_point(hooks: &Hooks, node: &str, subtask: usize, phase: Phase, c: CheckpointId) {
    if hooks.at(node, subtask, phase, c) {
        std::future::pending::<()>().await;
    }
}

/// Runs one subtask attempt until it is cancelled; a connector error is reported to the job master.
pub(crate) async fn run<Src: Source, Snk: Sink>(setup: SubtaskSetup<Src, Snk>) {
    // Clients the connector builds without the context (rdkafka's) send as this attempt.
    let ambient = setup.endpoint.for_attempt(setup.subtask, setup.attempt);
    crate::net::ambient::scope(ambient, run_attempt(setup)).await
}

async fn run_attempt<Src: Source, Snk: Sink>(setup: SubtaskSetup<Src, Snk>) {
    let uplink = Uplink::start(setup.endpoint.clone(), setup.subtask, setup.attempt);
    let history = setup.history.clone();
    let node = setup.endpoint.addr().to_string();
    let subtask = setup.subtask;
    let (setup, mut cancel) = setup.split_cancel();
    let err = match Subtask::<Src, Snk>::start(setup, uplink).await {
        Ok(mut task) => {
            let outcome = tokio::select! {
                biased;
                done = &mut cancel => Err(done.ok()),
                result = task.run() => Ok(result),
            };
            match outcome {
                Ok(Ok(())) => return,
                Ok(Err(e)) => {
                    task.close(true).await; // a failed attempt releases what it holds, as a cancelled one does
                    (e, task.uplink)
                }
                Err(done) => {
                    task.close(false).await;
                    if let Some(done) = done {
                        let _ = done.send(());
                    }
                    return;
                }
            }
        }
        Err((e, uplink)) => (e, uplink),
    };
    let (e, uplink) = err;
    history.record(&node, EventKind::ConnectorError { subtask: Some(subtask), message: e.to_string() });
    uplink.send(MasterMsg::Failed { reason: e.message.clone(), job: e.hint == RetryHint::FailJob });
    uplink.finish().await;
}

impl<Src: Source, Snk: Sink> Subtask<Src, Snk> {
    async fn run(&mut self) -> Result<(), ConnectorError> {
        enum Wake<R> {
            Control(Option<Control>),
            Request(Option<R>),
            Available,
            RetryCommits,
            Tick,
        }
        loop {
            while let Ok(req) = self.source.requests.try_recv() {
                self.forward(req);
            }
            while let Ok(ctl) = self.control.try_recv() {
                self.on_control(ctl).await?;
            }
            self.exchange_poll(now_ms());
            if !self.source.ended && !self.source.stopped && !self.backpressured() {
                let mut out = ReaderOutput {
                    event_time: self.source.watermarks.is_some(),
                    records: std::mem::take(&mut self.source.spare_records),
                    ..ReaderOutput::default()
                };
                if let Some(split) = self.source.current_split.take() {
                    out.split_runs.push((0, split)); // a split said in an earlier poll stays current
                }
                let status = self.source.reader.poll_next(&mut out)?;
                self.deliver(out).await?;
                match status {
                    InputStatus::MoreAvailable => {
                        madsim::task::yield_now().await;
                        continue;
                    }
                    InputStatus::EndOfInput => {
                        self.source.ended = true;
                        if let Some(a) = self.source.watermarks.as_mut().and_then(WatermarkTracker::end_of_input) {
                            self.announce(a).await?;
                        }
                        match self.exchange.as_mut() {
                            Some(x) => x.out.broadcast(Payload::EndOfInput),
                            None => self.end_writer_input().await?,
                        }
                        self.record(EventKind::SubtaskFinished { subtask: self.id, attempt: self.attempt });
                    }
                    InputStatus::NothingAvailable => {}
                }
            }
            let retry = self.sink.pending.iter().any(|(c, _, _)| *c <= self.sink.last_completed);
            // The next periodic watermark emission, while the input runs (idleness needs it),
            // or alignment report.
            let emission = self
                .source
                .watermarks
                .as_ref()
                .filter(|_| !self.source.ended && !self.source.stopped)
                .map(|w| w.next_emission_ms());
            let report = self.source.alignment.as_ref().map(ReaderAlignment::next_report_ms);
            let resend = self.exchange.as_mut().and_then(|x| {
                x.out.flush(); // the reader has nothing more for now: what was collected goes out
                x.out.next_resend_ms()
            });
            let global = self.sink.downstream.as_ref().and_then(crate::cluster::exchange::Outbox::next_resend_ms);
            let tick = [emission, report, resend, global]
                .into_iter()
                .flatten()
                .min()
                .map(|t| t.saturating_sub(now_ms()).max(1));
            let reading = !self.source.ended && !self.source.stopped && !self.backpressured();
            let wake = tokio::select! {
                biased;
                ctl = self.control.recv() => Wake::Control(ctl),
                // A reader that let go of its context closed this channel: a closed channel
                // answers at once, so it is not listened to any more (it would spin).
                req = self.source.requests.recv(), if self.source.requests_open => Wake::Request(req),
                _ = self.source.reader.available(), if reading => Wake::Available,
                _ = madsim::time::sleep(Duration::from_millis(20)), if retry => Wake::RetryCommits,
                _ = madsim::time::sleep(Duration::from_millis(tick.unwrap_or(1))), if tick.is_some() => Wake::Tick,
            };
            match wake {
                Wake::Control(Some(ctl)) => self.on_control(ctl).await?,
                Wake::Control(None) => return Ok(()),
                Wake::Request(Some(req)) => self.forward(req),
                Wake::Request(None) => self.source.requests_open = false,
                Wake::Available => {}
                Wake::RetryCommits => self.commit_due(false).await?,
                Wake::Tick => self.on_tick().await?,
            }
        }
    }

    /// The writer: every subtask of a chained job has one, and behind an exchange only
    /// subtasks with a writer get records.
    fn writer(&mut self) -> &mut Snk::Writer {
        self.sink.writer.as_mut().expect("records reach only subtasks that host a writer")
    }

    fn record(&self, kind: EventKind) {
        self.history.record(&self.node, kind);
    }

    /// Closes the reader, the writer and the committer, once (`failed`: the connector
    /// failed the attempt), and records how the attempt ended.
    async fn close(&mut self, failed: bool) {
        if self.source.has_reader {
            self.source.reader.close().await;
        }
        if let Some(w) = self.sink.writer.as_mut() {
            w.close().await;
        }
        if let Some(c) = self.sink.committer.as_mut() {
            c.close().await;
        }
        let how = match (failed, self.source.ended || self.sink.input_ended) {
            (true, _) => Closing::Failed,
            (false, true) => Closing::Finished,
            (false, false) => Closing::Cancelled,
        };
        let snapshot_us = self.sink.snapshot_us;
        self.record(EventKind::Closed { subtask: self.id, attempt: self.attempt, how, snapshot_us });
    }

    /// Handles one control message.
    async fn on_control(&mut self, ctl: Control) -> Result<(), ConnectorError> {
        match ctl {
            Control::AddSplits(bytes) => {
                let splits: Vec<Src::Split> = decode(&bytes, "assigned splits")?;
                self.track_splits(&splits);
                self.source.reader.add_splits(splits);
            }
            Control::NoMoreSplits => self.source.reader.notify_no_more_splits(),
            Control::SourceEvent(event) => self.source.reader.handle_source_event(event),
            Control::Trigger(c, stop) => {
                if self.hooks.declines(self.id) {
                    self.record(EventKind::Declined { subtask: self.id, attempt: self.attempt, checkpoint: c });
                    self.uplink.send(MasterMsg::Decline { checkpoint: c, reason: "declined by the scenario".into() });
                    if let Some(x) = self.exchange.as_mut() {
                        x.out.broadcast(Payload::CancelBarrier(c)); // writers stop aligning it
                    }
                    if let Some(g) = self.sink.downstream.as_mut().filter(|_| self.exchange.is_none()) {
                        g.broadcast(Payload::CancelBarrier(c)); // so do the tasks downstream of the writers
                    }
                } else {
                    self.checkpoint(c, stop).await?;
                    self.source.stopped |= stop;
                }
            }
            Control::Notify(c) => self.completed(c).await?,
            Control::Aborted(c) => {
                if self.source.has_reader {
                    self.source.reader.notify_checkpoint_aborted(c);
                }
                if let Some(w) = self.sink.writer.as_mut() {
                    w.notify_checkpoint_aborted(c).await?;
                }
                self.abort_alignment(c).await?;
            }
            Control::Wire(peers) => self.wire(&peers),
            Control::Data { channel, from_attempt, seq, payload } => {
                self.receive(channel, from_attempt, seq, payload).await?
            }
            Control::Credit { channel, from_attempt, received, window } => {
                if let Some((g, c)) = self.sink.downstream.as_mut().and_then(|g| g.channel_to(channel).map(|c| (g, c)))
                {
                    g.on_credit(c, from_attempt, received, window);
                } else if let Some(x) = self.exchange.as_mut() {
                    x.out.on_credit(channel, from_attempt, received, window);
                }
            }
            Control::Align { minimum, max_allowed } => {
                if let Some(a) = self.source.alignment.as_mut() {
                    a.on_announcement(minimum, max_allowed);
                    self.align()?;
                }
            }
            Control::NotifyFinal(c, done) => {
                self.completed(c).await?;
                while self.sink.pending.iter().any(|(p, _, _)| *p <= c) {
                    madsim::time::sleep(Duration::from_millis(10)).await;
                    self.commit_due(false).await?;
                }
                let _ = done.send(());
            }
        }
        Ok(())
    }
}
