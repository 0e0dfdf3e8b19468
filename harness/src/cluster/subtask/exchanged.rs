//! A subtask behind an exchange: its reader's output goes out on channels, and its writer
//! takes input from every reader through an [`InputGate`] that aligns barriers.
//!
//! ```text
//!  Trigger c: reader.snapshot ─▶ Barrier c on every channel (split state kept until ─┐
//!  Data ─▶ gate ─▶ writer.write / write_watermark                                   │
//!          └─ barrier c on every channel (Aligned c) ─▶ writer snapshot ─▶ Ack(c, both halves)
//! ```

use super::{encode, now_ms, Subtask};
use crate::api::{Sink, SinkWriter, Source};
use crate::cluster::config::Exchange;
use crate::cluster::exchange::{GateEvent, InputGate, Outbox, HELD_MS};
use crate::cluster::protocol::{task_executor, Payload};
use crate::error::ConnectorError;
use crate::history::{CheckpointId, EventKind};
use crate::net::Endpoint;
use std::collections::BTreeMap;

/// The exchange's ends of one subtask attempt.
pub(crate) struct Exchanged {
    endpoint: Endpoint,
    pub out: Outbox,
    gate: InputGate,
    aligned: bool,
    /// Per barrier the reader took and the writer has not: the reader's split state,
    /// whether the reader's input had ended, and whether the barrier stops the source.
    pub barriers: BTreeMap<CheckpointId, (Vec<u8>, bool, bool)>,
    readers: usize,
    writers: usize,
    /// A full channel held the reader back already (recorded once per attempt).
    backpressure_seen: bool,
    /// Since when (virtual ms) full channels hold the reader back, while they do.
    held_since: Option<u64>,
}

impl Exchanged {
    /// The ends of `attempt` of subtask `me`: channels from `readers` readers and to
    /// `writers` writers.
    pub fn new(
        me: usize,
        attempt: u64,
        endpoint: &Endpoint,
        kind: Exchange,
        (readers, writers): (usize, usize),
        aligned: bool,
    ) -> Self {
        // A subtask without a reader sends nothing: it has no channels out.
        let writers = if me < readers { writers } else { 0 };
        Self {
            endpoint: endpoint.clone(),
            out: Outbox::new(me, attempt, endpoint.clone(), kind, writers),
            gate: InputGate::new(me, attempt, readers, aligned),
            readers,
            writers,
            aligned,
            barriers: BTreeMap::new(),
            backpressure_seen: false,
            held_since: None,
        }
    }
}

impl<Src: Source, Snk: Sink> Subtask<Src, Snk> {
    /// The reader must wait: a channel to a writer is full (or not wired yet). The first
    /// time a full channel holds this attempt's reader back, the history says so, and so it
    /// does of every hold that lasted [`HELD_MS`] or more.
    pub(super) fn backpressured(&mut self) -> bool {
        let Some(x) = self.exchange.as_mut() else { return false };
        let full = x.out.full_channel();
        let mut events = Vec::new();
        if let (Some(channel), false) = (full, x.backpressure_seen) {
            x.backpressure_seen = true;
            events.push(EventKind::Backpressured { subtask: self.id, attempt: self.attempt, channel });
        }
        // The clock is read only when a hold starts or ends, not on every poll.
        match (full, x.held_since) {
            (Some(_), None) => x.held_since = Some(now_ms()),
            (None, Some(since)) => {
                x.held_since = None;
                let ms = now_ms() - since;
                if ms >= HELD_MS {
                    events.push(EventKind::BackpressureHeld { subtask: self.id, attempt: self.attempt, ms });
                }
            }
            _ => {}
        }
        let waits = x.out.backpressured();
        for e in events {
            self.record(e);
        }
        waits
    }

    /// Learns where every subtask's attempt runs.
    pub(super) fn wire(&mut self, peers: &[(usize, u64)]) {
        if let Some(g) = self.sink.downstream.as_mut() {
            if let Some(downstream) = peers.get(g.subtasks()) {
                g.wire(downstream);
            }
        }
        if let Some(x) = self.exchange.as_mut() {
            if peers.len() >= x.readers.max(x.writers) {
                x.out.wire(&peers[..x.writers]);
                x.gate.wire(&peers[..x.readers]);
            }
        }
    }

    /// A subtask that hosts only a writer: its reader is never started or polled (it has
    /// no channels out, and no writer waits for it).
    pub(super) fn without_reader(&mut self) {
        self.source.ended = true;
    }

    /// Resends what the writers have not acknowledged in time.
    pub(super) fn resend(&mut self, now: u64) {
        if let Some(g) = self.sink.downstream.as_mut().filter(|g| g.next_resend_ms().is_some_and(|due| due <= now)) {
            let to = g.subtasks().start;
            let resent = g.resend(now).into_iter().map(|(c, first, last)| (to + c, first, last)).collect();
            self.record_resent(resent);
        }
        let Some(x) = self.exchange.as_mut() else { return };
        let resent = x.out.resend(now);
        self.record_resent(resent);
    }

    /// Between two polls of a busy reader: collected records go out now and then, and
    /// what is due for resending is resent.
    pub(super) fn exchange_poll(&mut self, now: u64) {
        let Some(x) = self.exchange.as_mut() else { return };
        let resent = x.out.on_poll(now);
        self.record_resent(resent);
    }

    fn record_resent(&self, resent: Vec<(usize, u64, u64)>) {
        for (channel, first, last) in resent {
            self.record(EventKind::ExchangeResent { subtask: self.id, attempt: self.attempt, channel, first, last });
        }
    }

    /// A message from a reader: into the gate, and on to the writer as far as alignment lets it.
    pub(super) async fn receive(
        &mut self,
        channel: usize,
        from_attempt: u64,
        seq: u64,
        payload: Payload,
    ) -> Result<(), ConnectorError> {
        let Some(x) = self.exchange.as_mut() else { return Ok(()) };
        x.gate.receive(channel, from_attempt, seq, payload);
        self.drain_gate().await
    }

    /// The job master aborted checkpoint `c`: the writer stops aligning it.
    pub(super) async fn abort_alignment(&mut self, c: CheckpointId) -> Result<(), ConnectorError> {
        let Some(x) = self.exchange.as_mut() else { return Ok(()) };
        x.gate.abort(c);
        self.drain_gate().await
    }

    /// Hands the writer everything the gate lets through, snapshots at each aligned barrier,
    /// then answers the readers with credit.
    async fn drain_gate(&mut self) -> Result<(), ConnectorError> {
        loop {
            let Some(x) = self.exchange.as_mut() else { return Ok(()) };
            let Some(event) = x.gate.next() else {
                for (executor, msg) in x.gate.credits() {
                    x.endpoint.send(&task_executor(executor), msg.msg.kind(), &msg);
                }
                return Ok(());
            };
            match event {
                GateEvent::Records(records) => {
                    for record in records {
                        self.write(record).await?;
                    }
                }
                GateEvent::Watermark(w) => self.writer().write_watermark(w).await?,
                GateEvent::Blocked { channel, checkpoint } => self.record(EventKind::ChannelBlocked {
                    subtask: self.id,
                    attempt: self.attempt,
                    channel,
                    checkpoint,
                }),
                GateEvent::AlignmentAborted(checkpoint) => {
                    x.barriers.remove(&checkpoint);
                    if let Some(g) = self.sink.downstream.as_mut() {
                        g.broadcast(Payload::CancelBarrier(checkpoint)); // downstream, as Flink's cancel marker
                    }
                    self.record(EventKind::AlignmentAborted { subtask: self.id, attempt: self.attempt, checkpoint });
                }
                GateEvent::EndOfInput => self.end_writer_input().await?,
                GateEvent::Committables(_) => {} // only the gates downstream of the writers have them
                GateEvent::Aligned(c) => {
                    let aligned = x.aligned;
                    let input_ended = x.gate.ended();
                    // Barriers before `c` that never aligned here are over.
                    let mut later = x.barriers.split_off(&c);
                    let own = later.remove(&c);
                    x.barriers = later;
                    self.record(EventKind::BarrierAligned {
                        subtask: self.id,
                        attempt: self.attempt,
                        checkpoint: c,
                        aligned,
                    });
                    // The reader's own barrier `c` came through its own channel, so its half is
                    // here; a subtask without a reader has none.
                    let own = own.or_else(|| {
                        (!self.source.has_reader).then(|| (encode(&Vec::<Src::Split>::new()), true, false))
                    });
                    if let Some((splits, reader_ended, stop)) = own {
                        self.snapshot_writer(c, splits, input_ended, reader_ended && input_ended, stop).await?;
                    }
                }
            }
        }
    }
}
