//! The receiving end of an exchange: one channel from every reader subtask, and barrier
//! alignment across them.

use super::WINDOW;
use crate::cluster::protocol::{task_executor, Addressed, Payload, ToTask};
use crate::history::CheckpointId;
use crate::net::Endpoint;
use crate::record::Record;
use std::collections::{BTreeSet, VecDeque};

/// What the writer's side gets from the gate, in order.
#[derive(Debug)]
pub(crate) enum GateEvent {
    /// Records for the writer.
    Records(Vec<Record>),
    /// The minimum over every channel's watermark advanced.
    Watermark(i64),
    /// `channel` delivered barrier `checkpoint` and is held back until every channel has.
    Blocked { channel: usize, checkpoint: CheckpointId },
    /// Every channel delivered barrier `checkpoint`: the writer snapshots now.
    Aligned(CheckpointId),
    /// The alignment of `checkpoint` was given up (a sender declined it, a newer barrier
    /// came, or the job master aborted it): held-back channels go on.
    AlignmentAborted(CheckpointId),
    /// Every sender reached the end of its input.
    EndOfInput,
}

/// One channel from a reader subtask.
struct Channel {
    /// The number of the next message in order.
    expected: u64,
    /// Messages received and not yet handed on (they wait while the channel is blocked).
    buffer: VecDeque<Payload>,
    blocked: bool,
    watermark: Option<i64>,
    ended: bool,
    /// Something arrived or was handed on since the last credit.
    owes_credit: bool,
}

/// The receiving end of subtask `me`'s attempt.
pub(crate) struct InputGate {
    me: usize,
    attempt: u64,
    endpoint: Endpoint,
    /// Per reader subtask: the task executor it runs on and its attempt (none until wired).
    peers: Option<Vec<(usize, u64)>>,
    channels: Vec<Channel>,
    /// Off only in connsim's own tests: the writer snapshots at the first barrier.
    aligned: bool,
    /// The checkpoint being aligned.
    aligning: Option<CheckpointId>,
    /// Barriers up to this checkpoint are over (aligned or given up): late ones are ignored.
    done: CheckpointId,
    /// Newer checkpoints the job master aborted: their barriers are ignored too.
    aborted: BTreeSet<CheckpointId>,
    watermark: Option<i64>,
    ended: bool,
    out: VecDeque<GateEvent>,
}

impl InputGate {
    /// The receiving end of subtask `me`'s attempt, from `parallelism` readers.
    pub fn new(me: usize, attempt: u64, endpoint: Endpoint, parallelism: usize, aligned: bool) -> Self {
        let channels = (0..parallelism)
            .map(|_| Channel {
                expected: 1,
                buffer: VecDeque::new(),
                blocked: false,
                watermark: None,
                ended: false,
                owes_credit: false,
            })
            .collect();
        Self {
            me,
            attempt,
            endpoint,
            peers: None,
            channels,
            aligned,
            aligning: None,
            done: 0,
            aborted: BTreeSet::new(),
            watermark: None,
            ended: false,
            out: VecDeque::new(),
        }
    }

    /// Learns which attempt of every reader to listen to.
    pub fn wire(&mut self, peers: &[(usize, u64)]) {
        if peers.len() == self.channels.len() {
            self.peers = Some(peers.to_vec());
        }
    }

    /// Every sender reached the end of its input.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// A message from reader `channel`: kept when it is the next in order (a gap or a
    /// repeat is dropped; the sender resends), and answered with credit either way.
    pub fn receive(&mut self, channel: usize, from_attempt: u64, seq: u64, payload: Payload) {
        let Some(peers) = &self.peers else { return };
        if peers.get(channel).map(|p| p.1) != Some(from_attempt) {
            return; // from another attempt of that reader (a zombie, or one before a failover)
        }
        let ch = &mut self.channels[channel];
        if seq == ch.expected {
            ch.buffer.push_back(payload);
            ch.expected += 1;
        }
        ch.owes_credit = true;
    }

    /// The next thing for the writer, if any channel not held back has one.
    pub fn next(&mut self) -> Option<GateEvent> {
        loop {
            if let Some(e) = self.out.pop_front() {
                return Some(e);
            }
            let c = self.channels.iter().position(|ch| !ch.blocked && !ch.buffer.is_empty())?;
            let ch = &mut self.channels[c];
            let payload = ch.buffer.pop_front().expect("not empty");
            ch.owes_credit = true;
            match payload {
                Payload::Records(records) => return Some(GateEvent::Records(records)),
                Payload::Watermark(w) => {
                    ch.watermark = Some(ch.watermark.map_or(w, |old| old.max(w)));
                    let min = self.channels.iter().map(|ch| ch.watermark).min().flatten();
                    if let Some(m) = min.filter(|m| self.watermark.map_or(true, |old| *m > old)) {
                        self.watermark = Some(m);
                        return Some(GateEvent::Watermark(m));
                    }
                }
                Payload::EndOfInput => {
                    ch.ended = true;
                    if !self.ended && self.channels.iter().all(|ch| ch.ended) {
                        self.ended = true;
                        return Some(GateEvent::EndOfInput);
                    }
                }
                Payload::Barrier(cp) => self.barrier(c, cp),
                Payload::CancelBarrier(cp) => self.cancel(cp),
            }
        }
    }

    fn barrier(&mut self, channel: usize, cp: CheckpointId) {
        if cp <= self.done || self.aborted.contains(&cp) || self.aligning.is_some_and(|a| cp < a) {
            return; // a barrier whose alignment is over, or older than the one under way
        }
        if let Some(a) = self.aligning.filter(|a| cp > *a) {
            self.give_up(a); // a newer barrier: the older checkpoint cannot complete here
        }
        if !self.aligned {
            self.done = cp;
            self.out.push_back(GateEvent::Aligned(cp));
            return;
        }
        self.aligning = Some(cp);
        self.channels[channel].blocked = true;
        if self.channels.iter().all(|ch| ch.blocked) {
            self.release();
            self.aligning = None;
            self.done = cp;
            self.aborted.retain(|a| *a > cp);
            self.out.push_back(GateEvent::Aligned(cp));
        } else {
            self.out.push_back(GateEvent::Blocked { channel, checkpoint: cp });
        }
    }

    /// A sender declined `cp`: that channel will carry no barrier `cp`, and, being in
    /// order, none of an older checkpoint either, so no alignment up to `cp` can complete.
    fn cancel(&mut self, cp: CheckpointId) {
        if let Some(a) = self.aligning.filter(|a| *a <= cp) {
            self.give_up(a);
        }
        self.done = self.done.max(cp);
    }

    /// The job master aborted `cp`: its alignment is given up; an older checkpoint's, under
    /// way or still to come, is not (with checkpoints overlapping it may still complete).
    pub fn abort(&mut self, cp: CheckpointId) {
        if cp <= self.done {
            return;
        }
        if self.aligning == Some(cp) {
            self.give_up(cp);
        } else {
            self.aborted.insert(cp);
        }
    }

    fn give_up(&mut self, cp: CheckpointId) {
        self.release();
        self.aligning = None;
        self.done = self.done.max(cp);
        self.aborted.retain(|a| *a > cp);
        self.out.push_back(GateEvent::AlignmentAborted(cp));
    }

    fn release(&mut self) {
        for ch in &mut self.channels {
            if ch.blocked {
                ch.blocked = false;
                ch.owes_credit = true;
            }
        }
    }

    /// Answers every channel owed credit: what arrived in order, and how much more fits.
    pub fn send_credits(&mut self) {
        let Some(peers) = &self.peers else { return };
        for (c, ch) in self.channels.iter_mut().enumerate().filter(|(_, ch)| ch.owes_credit) {
            ch.owes_credit = false;
            let msg = ToTask::Credit {
                attempt: peers[c].1,
                channel: self.me,
                from_attempt: self.attempt,
                received: ch.expected - 1,
                window: WINDOW.saturating_sub(ch.buffer.len() as u64),
            };
            let kind = msg.kind();
            self.endpoint.send(&task_executor(peers[c].0), kind, &Addressed { subtask: c, msg });
        }
    }
}
