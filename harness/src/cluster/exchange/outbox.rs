//! The sending end of an exchange: one channel to every writer subtask.

use super::{BUFFER_RECORDS, FLUSH_MS, RESEND_AFTER_MS, WINDOW};
use crate::cluster::config::Exchange;
use crate::cluster::protocol::{task_executor, Addressed, Payload, ToTask};
use crate::net::Endpoint;
use crate::record::Record;
use std::collections::VecDeque;

/// One channel to a writer subtask.
#[derive(Default)]
struct Channel {
    /// Records collected for the next message.
    buffer: Vec<Record>,
    /// Messages not yet acknowledged (sent or not), numbered from 1.
    queue: VecDeque<(u64, Payload)>,
    /// The number the next message gets.
    next_seq: u64,
    /// Every message up to this one is acknowledged.
    acked: u64,
    /// Messages up to this one may be sent (credit).
    limit: u64,
    /// The highest message sent.
    sent: u64,
    /// Virtual time (ms) of the last acknowledgement or resend.
    progress_ms: u64,
}

/// The sending end: partitions records, numbers messages, keeps them until acknowledged.
pub(crate) struct Outbox {
    me: usize,
    /// The subtask channel 0 goes to (the others follow it): 0, or the first task downstream
    /// of the writers.
    first: usize,
    attempt: u64,
    endpoint: Endpoint,
    kind: Exchange,
    /// Per writer subtask: the task executor it runs on and its attempt (none until wired).
    peers: Option<Vec<(usize, u64)>>,
    channels: Vec<Channel>,
    /// The channel the next rebalanced record goes to.
    next: usize,
    /// Virtual time (ms) collected records were last sent.
    flushed_ms: u64,
}

impl Outbox {
    /// The sending end of subtask `me`'s attempt, to `parallelism` writers.
    pub fn new(me: usize, attempt: u64, endpoint: Endpoint, kind: Exchange, parallelism: usize) -> Self {
        let channels = (0..parallelism).map(|_| Channel { next_seq: 1, limit: WINDOW, ..Channel::default() }).collect();
        // Senders start their round robin at different writers, as Flink's rebalance does.
        let next = me % parallelism.max(1);
        Self { me, attempt, endpoint, kind, first: 0, peers: None, channels, next, flushed_ms: 0 }
    }

    /// The sending end of writer `me`'s attempt to the tasks that commit downstream of the
    /// writers, subtasks `first..first + count` (the global committer's, or the committers'
    /// when they run apart from the writers): a channel to each, for committables, barriers
    /// and the end of input.
    pub fn downstream(me: usize, attempt: u64, endpoint: Endpoint, first: usize, count: usize) -> Self {
        Self { first, next: 0, ..Self::new(me, attempt, endpoint, Exchange::Forward, count) }
    }

    /// The subtasks the channels go to, in channel order.
    pub fn subtasks(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.channels.len()
    }

    /// The channel to subtask `subtask`, if one goes there.
    pub fn channel_to(&self, subtask: usize) -> Option<usize> {
        self.subtasks().contains(&subtask).then(|| subtask - self.first)
    }

    /// Queues `payload` on channel `channel` alone (sent with the next broadcast or pump).
    pub fn enqueue_on(&mut self, channel: usize, payload: Payload) {
        enqueue(&mut self.channels[channel], payload);
    }

    /// Learns where every writer runs; sends what waited for it.
    pub fn wire(&mut self, peers: &[(usize, u64)]) {
        if peers.len() == self.channels.len() {
            self.peers = Some(peers.to_vec());
            self.pump(crate::net::now().as_millis() as u64);
        }
    }

    /// The channel `record` goes to.
    fn channel_of(&mut self, record: &Record) -> usize {
        let n = self.channels.len();
        match self.kind {
            Exchange::KeyBy => (mix(record.key) % n as u64) as usize,
            Exchange::Rebalance | Exchange::Forward => {
                let c = self.next;
                self.next = (self.next + 1) % n;
                c
            }
        }
    }

    /// Collects records for their channels; a full buffer becomes a message.
    pub fn push(&mut self, records: Vec<Record>) {
        for record in records {
            let c = self.channel_of(&record);
            let ch = &mut self.channels[c];
            ch.buffer.push(record);
            if ch.buffer.len() >= BUFFER_RECORDS {
                let batch = std::mem::take(&mut ch.buffer);
                enqueue(ch, Payload::Records(batch));
            }
        }
    }

    /// Sends every collected record, then `payload` on every channel.
    pub fn broadcast(&mut self, payload: Payload) {
        for ch in &mut self.channels {
            if !ch.buffer.is_empty() {
                let batch = std::mem::take(&mut ch.buffer);
                enqueue(ch, Payload::Records(batch));
            }
            enqueue(ch, payload.clone());
        }
        self.pump(crate::net::now().as_millis() as u64);
    }

    /// Sends collected records at least every [`FLUSH_MS`] while the reader keeps
    /// producing (Flink's buffer timeout), and anything due for resending.
    pub fn on_poll(&mut self, now: u64) -> Vec<(usize, u64, u64)> {
        if now >= self.flushed_ms + FLUSH_MS {
            self.flush();
        }
        match self.next_resend_ms() {
            Some(due) if due <= now => self.resend(now),
            _ => Vec::new(),
        }
    }

    /// Sends every collected record (the reader has nothing more for now).
    pub fn flush(&mut self) {
        self.flushed_ms = crate::net::now().as_millis() as u64;
        for ch in &mut self.channels {
            if !ch.buffer.is_empty() {
                let batch = std::mem::take(&mut ch.buffer);
                enqueue(ch, Payload::Records(batch));
            }
        }
        self.pump(crate::net::now().as_millis() as u64);
    }

    /// Credit from writer `channel`: drops what it acknowledged, sends what it has room for.
    pub fn on_credit(&mut self, channel: usize, from_attempt: u64, received: u64, window: u64) {
        let Some(peers) = &self.peers else { return };
        if peers.get(channel).map(|p| p.1) != Some(from_attempt) {
            return; // from another attempt of that writer
        }
        let now = crate::net::now().as_millis() as u64;
        let ch = &mut self.channels[channel];
        if received > ch.acked {
            ch.acked = received;
            ch.progress_ms = now;
            while ch.queue.front().is_some_and(|(seq, _)| *seq <= received) {
                ch.queue.pop_front();
            }
        }
        ch.sent = ch.sent.max(ch.acked);
        ch.limit = ch.limit.max(received + window);
        self.pump(now);
    }

    /// Sends every queued message the credit allows.
    fn pump(&mut self, now: u64) {
        let Some(peers) = &self.peers else { return };
        for (c, ch) in self.channels.iter_mut().enumerate() {
            let (from, to) = (ch.sent, ch.limit);
            let mut last = from;
            for (seq, payload) in ch.queue.iter().filter(|(seq, _)| *seq > from && *seq <= to) {
                send(&self.endpoint, peers[c], self.first + c, self.me, self.attempt, *seq, payload);
                last = *seq;
            }
            if last > from {
                if from == ch.acked {
                    ch.progress_ms = now; // nothing was in flight: the resend clock starts now
                }
                ch.sent = last;
            }
        }
    }

    /// Sends again what was not acknowledged in time; with no credit left, the oldest
    /// message probes for it (its credit may have been lost, or the writer is full).
    /// Returns, per channel, the first and last message sent again that had been sent
    /// before (a probe alone is not a resend).
    pub fn resend(&mut self, now: u64) -> Vec<(usize, u64, u64)> {
        let mut resent = Vec::new();
        let Some(peers) = &self.peers else { return resent };
        for (c, ch) in self.channels.iter_mut().enumerate() {
            if ch.queue.is_empty() || now < ch.progress_ms + RESEND_AFTER_MS {
                continue;
            }
            let upto = ch.sent.max(ch.acked + 1);
            for (seq, payload) in ch.queue.iter().take_while(|(seq, _)| *seq <= upto) {
                send(&self.endpoint, peers[c], self.first + c, self.me, self.attempt, *seq, payload);
            }
            if ch.sent > ch.acked {
                resent.push((c, ch.acked + 1, ch.sent));
            }
            ch.sent = upto;
            ch.progress_ms = now;
        }
        resent
    }

    /// When the next resend may be due (virtual ms), if anything waits for acknowledgement.
    pub fn next_resend_ms(&self) -> Option<u64> {
        self.peers.as_ref()?;
        self.channels.iter().filter(|ch| !ch.queue.is_empty()).map(|ch| ch.progress_ms + RESEND_AFTER_MS).min()
    }

    /// The reader must wait: a channel holds as many messages as its receiver has room for
    /// (or the exchange is not wired yet).
    pub fn backpressured(&self) -> bool {
        self.peers.is_none() || self.full_channel().is_some()
    }

    /// The first channel holding as many messages as its receiver has room for.
    pub fn full_channel(&self) -> Option<usize> {
        self.channels.iter().position(|ch| ch.queue.len() as u64 >= WINDOW)
    }
}

fn enqueue(ch: &mut Channel, payload: Payload) {
    ch.queue.push_back((ch.next_seq, payload));
    ch.next_seq += 1;
}

#[allow(clippy::too_many_arguments)]
fn send(endpoint: &Endpoint, peer: (usize, u64), to: usize, me: usize, attempt: u64, seq: u64, payload: &Payload) {
    let msg = ToTask::Data { attempt: peer.1, channel: me, from_attempt: attempt, seq, payload: payload.clone() };
    let kind = msg.kind();
    endpoint.send(&task_executor(peer.0), kind, &Addressed { subtask: to, msg });
}

/// Spreads keys over channels (a fixed 64-bit mix, the same on every run).
fn mix(key: u64) -> u64 {
    let mut x = key ^ (key >> 33);
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}
