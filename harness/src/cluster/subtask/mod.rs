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

mod checkpointing;
mod event_time;
mod exchanged;

use super::config::Exchange;
use super::hooks::{Hooks, Phase};
use super::protocol::{MasterMsg, Payload, SubtaskState};
use super::reader_alignment::ReaderAlignment;
use super::uplink::Uplink;
use crate::api::PauseLedger;
use crate::api::{
    Committer, CommitterContext, InputStatus, ReaderContext, ReaderOutput, ReaderRequest, Sink, SinkWriter, Source,
    SourceReader, WatermarkTracker, WriterContext,
};
use crate::error::{ConnectorError, RetryHint};
use crate::history::{CheckpointId, EventKind, History};
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
    /// Readers (the source's parallelism); subtasks from here on host only a writer.
    pub parallelism: usize,
    /// Writers (the sink's parallelism); subtasks from here on host only a reader.
    pub writers: usize,
    pub attempt: u64,
    /// The job's index ([`crate::history::job_id`]).
    pub job: u64,
    pub restore: Option<(CheckpointId, SubtaskState)>,
    pub endpoint: Endpoint,
    pub history: History,
    pub hooks: Hooks,
    pub control: mpsc::UnboundedReceiver<Control>,
    pub cancel: Cancel,
    pub exchange: Exchange,
    pub aligned_barriers: bool,
    /// The strategy the job reads its source with, if any.
    pub watermarks: Option<crate::api::WatermarkStrategy>,
    /// A runtime bug switched on (connsim's own tests).
    pub runtime_bug: Option<crate::cluster::RuntimeBug>,
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

struct Subtask<Src: Source, Snk: Sink> {
    id: usize,
    attempt: u64,
    node: String,
    history: History,
    /// Created for every subtask, but started, given splits and polled only where the
    /// subtask hosts a reader (`has_reader`).
    reader: Src::Reader,
    has_reader: bool,
    /// The writer and committer, where the subtask hosts a writer.
    writer: Option<Snk::Writer>,
    committer: Option<Snk::Committer>,
    /// Committables not yet committed, with the checkpoint that prepared them and retry counts.
    pending: Vec<(CheckpointId, Snk::Committable, u32)>,
    last_completed: CheckpointId,
    /// The newest checkpoint this attempt's writer prepared (0: none yet).
    last_prepared: CheckpointId,
    /// The sink commits through a global committer on the job master: committables are
    /// handed over in acks and dropped here once their checkpoint completed.
    global: bool,
    ended: bool,
    /// Stopped at a savepoint barrier: the reader is not polled any more.
    stopped: bool,
    hooks: Hooks,
    uplink: Uplink,
    control: mpsc::UnboundedReceiver<Control>,
    requests: mpsc::UnboundedReceiver<ReaderRequest>,
    requests_open: bool,
    /// Per-split watermark generation, when the job reads its source with a strategy.
    watermarks: Option<WatermarkTracker>,
    /// The split the reader last said its records belong to ([`ReaderOutput::for_split`]).
    current_split: Option<crate::api::SplitId>,
    /// The records vector of the last poll, emptied: the next poll collects into it, so a
    /// poll of one record allocates nothing.
    spare_records: Vec<crate::record::Record>,
    /// Watermark alignment, when the strategy asks for it.
    alignment: Option<ReaderAlignment>,
    /// The reader tells which fetch its records came from ([`ReaderOutput`]'s `tells_fetches`).
    tells_fetches: bool,
    /// What the reader holds paused, if it is built on the reader base.
    pauses: PauseLedger,
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
                    task.close().await; // a failed attempt releases what it holds, as a cancelled one does
                    (e, task.uplink)
                }
                Err(done) => {
                    task.close().await;
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
    async fn start(setup: SubtaskSetup<Src, Snk>, uplink: Uplink) -> Result<Self, (ConnectorError, Uplink)> {
        let node = setup.endpoint.addr().to_string();
        let restored_cp = setup.restore.as_ref().map_or(0, |(c, _)| *c);
        setup.history.record(
            &node,
            EventKind::Deployed { subtask: setup.subtask, attempt: setup.attempt, checkpoint: restored_cp },
        );
        let restored = match &setup.restore {
            Some((_, state)) => (|| {
                Ok((
                    decode::<Vec<Src::Split>>(&state.splits, "restored splits")?,
                    decode::<Vec<Snk::WriterState>>(&state.writer, "restored writer state")?,
                    decode::<Vec<(CheckpointId, Snk::Committable)>>(&state.committables, "restored committables")?,
                ))
            })(),
            None => Ok((Vec::new(), Vec::new(), Vec::new())),
        };
        let (splits, writer_state, committables): (Vec<Src::Split>, _, _) = match restored {
            Ok(r) => r,
            Err(e) => return Err((e, uplink)),
        };
        let (req_tx, requests) = mpsc::unbounded_channel();
        // What the connector sends is known to come from this attempt.
        let connector_endpoint = setup.endpoint.for_attempt(setup.subtask, setup.attempt);
        let pauses = PauseLedger::default();
        let reader = setup.source.create_reader(ReaderContext {
            subtask: setup.subtask,
            parallelism: setup.parallelism,
            endpoint: connector_endpoint.clone(),
            requests: req_tx,
            pauses: pauses.clone(),
        });
        let wctx = WriterContext {
            subtask: setup.subtask,
            parallelism: setup.writers,
            attempt: setup.attempt,
            restored_checkpoint: crate::history::local_checkpoint(restored_cp),
            job_id: crate::history::job_id(setup.job),
            endpoint: connector_endpoint.clone(),
        };
        let mut reader = reader;
        let has_writer = setup.subtask < setup.writers;
        let writer = if has_writer {
            match setup.sink.create_writer(wctx, writer_state).await {
                Ok(w) => Some(w),
                Err(e) => {
                    reader.close().await;
                    return Err((e, uplink));
                }
            }
        } else {
            None
        };
        let committer = has_writer.then(|| {
            setup.sink.create_committer(CommitterContext {
                subtask: setup.subtask,
                attempt: setup.attempt,
                restored_checkpoint: crate::history::local_checkpoint(restored_cp),
                job_id: crate::history::job_id(setup.job),
                endpoint: connector_endpoint.clone(),
            })
        });
        let has_reader = setup.subtask < setup.parallelism;
        let mut task: Subtask<Src, Snk> = Subtask {
            id: setup.subtask,
            attempt: setup.attempt,
            node,
            history: setup.history,
            reader,
            has_reader,
            writer,
            committer,
            pending: committables.into_iter().map(|(c, x)| (c, x, 0)).collect(),
            last_completed: restored_cp,
            last_prepared: 0,
            global: setup.sink.has_global_committer(),
            ended: false,
            stopped: false,
            hooks: setup.hooks,
            uplink,
            control: setup.control,
            requests,
            requests_open: true,
            watermarks: setup.watermarks.map(|w| {
                WatermarkTracker::new(w, now_ms()).with_bug(setup.runtime_bug.and_then(super::RuntimeBug::in_tracker))
            }),
            current_split: None,
            spare_records: Vec::new(),
            // Only readers report to watermark alignment.
            alignment: setup
                .watermarks
                .and_then(|w| w.alignment)
                .filter(|_| setup.subtask < setup.parallelism)
                .map(|a| ReaderAlignment::new(a, now_ms())),
            tells_fetches: false,
            pauses,
            exchange: setup.exchange.all_to_all().then(|| {
                exchanged::Exchanged::new(
                    setup.subtask,
                    setup.attempt,
                    &setup.endpoint,
                    setup.exchange,
                    (setup.parallelism, setup.writers),
                    setup.aligned_barriers,
                )
            }),
        };
        if !splits.is_empty() {
            task.track_splits(&splits);
            task.reader.add_splits(splits);
        }
        if !task.has_reader {
            task.without_reader();
        } else if let Err(e) = task.reader.start().await {
            task.close().await;
            return Err((e, task.uplink));
        }
        if restored_cp > 0 {
            // Restored: writer, reader and committer hold their state; nothing committed or polled yet.
            crash_point(&task.hooks, &task.node, task.id, Phase::AfterRestore, restored_cp).await;
        }
        // Recovered committables belong to a completed checkpoint: commit them again (idempotently).
        if let Err(e) = task.commit_due(true).await {
            task.close().await;
            return Err((e, task.uplink));
        }
        if let Some(ms) = task.hooks.start_stall(task.id) {
            madsim::time::sleep(Duration::from_millis(ms)).await; // a scenario made this start slow
        }
        if task.has_reader {
            task.uplink.send(MasterMsg::Register);
        }
        Ok(task)
    }

    async fn run(&mut self) -> Result<(), ConnectorError> {
        enum Wake<R> {
            Control(Option<Control>),
            Request(Option<R>),
            Available,
            RetryCommits,
            Tick,
        }
        loop {
            while let Ok(req) = self.requests.try_recv() {
                self.forward(req);
            }
            while let Ok(ctl) = self.control.try_recv() {
                self.on_control(ctl).await?;
            }
            self.exchange_poll(now_ms());
            if !self.ended && !self.stopped && !self.backpressured() {
                let mut out = ReaderOutput {
                    event_time: self.watermarks.is_some(),
                    records: std::mem::take(&mut self.spare_records),
                    ..ReaderOutput::default()
                };
                if let Some(split) = self.current_split.take() {
                    out.split_runs.push((0, split)); // a split said in an earlier poll stays current
                }
                let status = self.reader.poll_next(&mut out)?;
                self.deliver(out).await?;
                match status {
                    InputStatus::MoreAvailable => {
                        madsim::task::yield_now().await;
                        continue;
                    }
                    InputStatus::EndOfInput => {
                        self.ended = true;
                        if let Some(a) = self.watermarks.as_mut().and_then(WatermarkTracker::end_of_input) {
                            self.announce(a).await?;
                        }
                        match self.exchange.as_mut() {
                            Some(x) => x.out.broadcast(Payload::EndOfInput),
                            None => self.writer().flush(true).await?,
                        }
                        self.record(EventKind::SubtaskFinished { subtask: self.id, attempt: self.attempt });
                    }
                    InputStatus::NothingAvailable => {}
                }
            }
            let retry = self.pending.iter().any(|(c, _, _)| *c <= self.last_completed);
            // The next periodic watermark emission, while the input runs (idleness needs it),
            // or alignment report.
            let emission =
                self.watermarks.as_ref().filter(|_| !self.ended && !self.stopped).map(|w| w.next_emission_ms());
            let report = self.alignment.as_ref().map(ReaderAlignment::next_report_ms);
            let resend = self.exchange.as_mut().and_then(|x| {
                x.out.flush(); // the reader has nothing more for now: what was collected goes out
                x.out.next_resend_ms()
            });
            let tick =
                [emission, report, resend].into_iter().flatten().min().map(|t| t.saturating_sub(now_ms()).max(1));
            let reading = !self.ended && !self.stopped && !self.backpressured();
            let wake = tokio::select! {
                biased;
                ctl = self.control.recv() => Wake::Control(ctl),
                // A reader that let go of its context closed this channel: a closed channel
                // answers at once, so it is not listened to any more (it would spin).
                req = self.requests.recv(), if self.requests_open => Wake::Request(req),
                _ = self.reader.available(), if reading => Wake::Available,
                _ = madsim::time::sleep(Duration::from_millis(20)), if retry => Wake::RetryCommits,
                _ = madsim::time::sleep(Duration::from_millis(tick.unwrap_or(1))), if tick.is_some() => Wake::Tick,
            };
            match wake {
                Wake::Control(Some(ctl)) => self.on_control(ctl).await?,
                Wake::Control(None) => return Ok(()),
                Wake::Request(Some(req)) => self.forward(req),
                Wake::Request(None) => self.requests_open = false,
                Wake::Available => {}
                Wake::RetryCommits => self.commit_due(false).await?,
                Wake::Tick => self.on_tick().await?,
            }
        }
    }

    /// The writer: every subtask of a chained job has one, and behind an exchange only
    /// subtasks with a writer get records.
    fn writer(&mut self) -> &mut Snk::Writer {
        self.writer.as_mut().expect("records reach only subtasks that host a writer")
    }

    fn record(&self, kind: EventKind) {
        self.history.record(&self.node, kind);
    }

    /// Closes the reader, the writer and the committer, once.
    async fn close(&mut self) {
        if self.has_reader {
            self.reader.close().await;
        }
        if let Some(w) = self.writer.as_mut() {
            w.close().await;
        }
        if let Some(c) = self.committer.as_mut() {
            c.close().await;
        }
    }

    fn forward(&self, req: ReaderRequest) {
        if !self.has_reader {
            return; // the idle reader of a subtask that hosts only a writer speaks for nobody
        }
        self.uplink.send(match req {
            ReaderRequest::SplitRequest => MasterMsg::SplitRequest,
            ReaderRequest::SourceEvent(e) => MasterMsg::SourceEvent(e),
        });
    }

    async fn deliver(&mut self, mut out: ReaderOutput) -> Result<(), ConnectorError> {
        self.tells_fetches |= out.tells_fetches;
        for (start, end, split) in std::mem::take(&mut out.paused_reads) {
            let ids = out.records[start..end.min(out.records.len())].iter().map(|r| r.id).collect();
            self.record(EventKind::PausedSplitRead { subtask: self.id, attempt: self.attempt, split, ids });
        }
        if self.watermarks.is_none() {
            self.write_records(std::mem::take(&mut out.records)).await?;
        } else {
            self.deliver_in_event_time(&mut out).await?;
        }
        for split in out.finished_splits {
            if let Some(w) = self.watermarks.as_mut() {
                w.finish_split(&split);
                if self.current_split.as_ref() == Some(&split) {
                    self.current_split = None;
                }
            }
            self.record(EventKind::SplitFinished { subtask: self.id, attempt: self.attempt, split });
        }
        if self.watermarks.as_ref().is_some_and(|w| w.due(now_ms())) {
            self.emit_watermarks().await?;
        }
        Ok(())
    }

    /// Records that `records` were emitted and hands them to the writer (or the exchange).
    async fn write_records(&mut self, records: Vec<crate::record::Record>) -> Result<(), ConnectorError> {
        if records.is_empty() {
            self.spare_records = records;
            return Ok(());
        }
        self.history.record_emitted(&self.node, self.id, self.attempt, records.iter().map(|r| r.id));
        if let Some(x) = self.exchange.as_mut() {
            x.out.push(records);
            return Ok(());
        }
        let mut records = records;
        for record in records.drain(..) {
            self.write(record).await?;
        }
        self.spare_records = records;
        Ok(())
    }

    /// Hands one record to the writer; a scenario may have made the writer slow.
    async fn write(&mut self, record: crate::record::Record) -> Result<(), ConnectorError> {
        self.writer().write(record).await?;
        if let Some(ms) = self.hooks.write_stall(self.id) {
            madsim::time::sleep(Duration::from_millis(ms)).await;
        }
        Ok(())
    }

    /// Handles one control message.
    async fn on_control(&mut self, ctl: Control) -> Result<(), ConnectorError> {
        match ctl {
            Control::AddSplits(bytes) => {
                let splits: Vec<Src::Split> = decode(&bytes, "assigned splits")?;
                self.track_splits(&splits);
                self.reader.add_splits(splits);
            }
            Control::NoMoreSplits => self.reader.notify_no_more_splits(),
            Control::SourceEvent(event) => self.reader.handle_source_event(event),
            Control::Trigger(c, stop) => {
                if self.hooks.declines(self.id) {
                    self.record(EventKind::Declined { subtask: self.id, attempt: self.attempt, checkpoint: c });
                    self.uplink.send(MasterMsg::Decline { checkpoint: c, reason: "declined by the scenario".into() });
                    if let Some(x) = self.exchange.as_mut() {
                        x.out.broadcast(Payload::CancelBarrier(c)); // writers stop aligning it
                    }
                } else {
                    self.checkpoint(c, stop).await?;
                    self.stopped |= stop;
                }
            }
            Control::Notify(c) => self.completed(c).await?,
            Control::Aborted(c) => {
                if self.has_reader {
                    self.reader.notify_checkpoint_aborted(c);
                }
                if let Some(w) = self.writer.as_mut() {
                    w.notify_checkpoint_aborted(c).await?;
                }
                self.abort_alignment(c).await?;
            }
            Control::Wire(peers) => self.wire(&peers),
            Control::Data { channel, from_attempt, seq, payload } => {
                self.receive(channel, from_attempt, seq, payload).await?
            }
            Control::Credit { channel, from_attempt, received, window } => {
                if let Some(x) = self.exchange.as_mut() {
                    x.out.on_credit(channel, from_attempt, received, window);
                }
            }
            Control::Align { minimum, max_allowed } => {
                if let Some(a) = self.alignment.as_mut() {
                    a.on_announcement(minimum, max_allowed);
                    self.align()?;
                }
            }
            Control::NotifyFinal(c, done) => {
                self.completed(c).await?;
                while self.pending.iter().any(|(p, _, _)| *p <= c) {
                    madsim::time::sleep(Duration::from_millis(10)).await;
                    self.commit_due(false).await?;
                }
                let _ = done.send(());
            }
        }
        Ok(())
    }
}
