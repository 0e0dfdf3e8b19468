//! The receiving end of an exchange: one channel from every reader subtask, and barrier
//! alignment across them.

use super::WINDOW;
use crate::cluster::protocol::{Addressed, Payload, ToTask};
use crate::history::CheckpointId;
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
    /// A writer's committables (serialized), for the global committer.
    Committables(Vec<u8>),
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
    pub fn new(me: usize, attempt: u64, parallelism: usize, aligned: bool) -> Self {
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
                Payload::Committables(bytes) => return Some(GateEvent::Committables(bytes)),
                Payload::Watermark(w) => {
                    ch.watermark = Some(ch.watermark.map_or(w, |old| old.max(w)));
                    let min = self.channels.iter().map(|ch| ch.watermark).min().flatten();
                    if let Some(m) = min.filter(|m| self.watermark < Some(*m)) {
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

    /// Credit for every channel owed it: what arrived in order, and how much more fits; each
    /// with the task executor its reader runs on.
    pub fn credits(&mut self) -> Vec<(usize, Addressed)> {
        let Some(peers) = &self.peers else { return Vec::new() };
        let mut credits = Vec::new();
        for (c, ch) in self.channels.iter_mut().enumerate().filter(|(_, ch)| ch.owes_credit) {
            ch.owes_credit = false;
            let msg = ToTask::Credit {
                attempt: peers[c].1,
                channel: self.me,
                from_attempt: self.attempt,
                received: ch.expected - 1,
                window: WINDOW.saturating_sub(ch.buffer.len() as u64),
            };
            credits.push((peers[c].0, Addressed { subtask: c, msg }));
        }
        credits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::RecordId;

    const PEERS: [(usize, u64); 3] = [(0, 10), (1, 20), (2, 30)];

    fn gate(aligned: bool) -> InputGate {
        let mut g = InputGate::new(0, 10, 3, aligned);
        g.wire(&PEERS);
        g
    }

    fn record(id: u64) -> Payload {
        Payload::Records(vec![Record {
            id: RecordId(id),
            key: id,
            event_time_ms: 0,
            payload: Vec::new(),
            extras: None,
        }])
    }

    /// Hands channel `c` its next message in order.
    fn send(g: &mut InputGate, c: usize, payload: Payload) {
        let seq = g.channels[c].expected;
        g.receive(c, PEERS[c].1, seq, payload);
    }

    fn drain(g: &mut InputGate) -> Vec<String> {
        std::iter::from_fn(|| g.next())
            .map(|e| match e {
                GateEvent::Records(r) => format!("r{}", r[0].id.0),
                GateEvent::Watermark(w) => format!("w{w}"),
                GateEvent::Blocked { channel, checkpoint } => format!("blocked {channel}@{checkpoint}"),
                GateEvent::Aligned(c) => format!("aligned {c}"),
                GateEvent::AlignmentAborted(c) => format!("aborted {c}"),
                GateEvent::EndOfInput => "end".into(),
                GateEvent::Committables(b) => format!("committables {}", b[0]),
            })
            .collect()
    }

    /// The global committer's gate: a writer that sent barrier 1 is held back, so what it
    /// prepares for checkpoint 2 comes only after checkpoint 1 aligned (and is combined with 2).
    #[test]
    fn committables_behind_a_barrier_wait_for_the_alignment() {
        let mut g = gate(true);
        send(&mut g, 0, Payload::Committables(vec![10]));
        send(&mut g, 0, Payload::Barrier(1));
        send(&mut g, 0, Payload::Committables(vec![20]));
        send(&mut g, 1, Payload::Committables(vec![11]));
        assert_eq!(drain(&mut g), ["committables 10", "blocked 0@1", "committables 11"]);
        send(&mut g, 1, Payload::Barrier(1));
        send(&mut g, 2, Payload::Barrier(1));
        assert_eq!(drain(&mut g), ["blocked 1@1", "aligned 1", "committables 20"]);
    }

    #[test]
    fn a_channel_that_delivered_the_barrier_waits_for_the_others() {
        let mut g = gate(true);
        send(&mut g, 0, Payload::Barrier(1));
        send(&mut g, 0, record(1)); // after the barrier: belongs to checkpoint 2
        send(&mut g, 1, record(2));
        assert_eq!(drain(&mut g), ["blocked 0@1", "r2"]);
        send(&mut g, 1, Payload::Barrier(1));
        send(&mut g, 2, Payload::Barrier(1));
        assert_eq!(drain(&mut g), ["blocked 1@1", "aligned 1", "r1"]);
    }

    #[test]
    fn unaligned_writers_snapshot_at_the_first_barrier() {
        let mut g = gate(false);
        send(&mut g, 0, Payload::Barrier(1));
        send(&mut g, 0, record(1));
        send(&mut g, 1, record(2));
        send(&mut g, 1, Payload::Barrier(1));
        assert_eq!(drain(&mut g), ["aligned 1", "r1", "r2"]);
    }

    #[test]
    fn an_aborted_newer_checkpoint_leaves_the_older_alignment_alone() {
        let mut g = gate(true);
        send(&mut g, 0, Payload::Barrier(5));
        assert_eq!(drain(&mut g), ["blocked 0@5"]);
        g.abort(6); // declined elsewhere while 5 is still aligning here
        send(&mut g, 1, Payload::Barrier(5));
        send(&mut g, 2, Payload::Barrier(5));
        assert_eq!(drain(&mut g), ["blocked 1@5", "aligned 5"]);
        for c in 0..3 {
            send(&mut g, c, Payload::Barrier(6)); // its barriers are ignored
        }
        send(&mut g, 0, Payload::Barrier(7));
        assert_eq!(drain(&mut g), ["blocked 0@7"]);
    }

    #[test]
    fn an_abort_before_any_barrier_spares_older_checkpoints() {
        let mut g = gate(true);
        g.abort(6);
        for c in 0..3 {
            send(&mut g, c, Payload::Barrier(5));
        }
        assert_eq!(drain(&mut g), ["blocked 0@5", "blocked 1@5", "aligned 5"]);
    }

    #[test]
    fn a_cancel_marker_or_a_newer_barrier_ends_the_alignment() {
        let mut g = gate(true);
        send(&mut g, 0, Payload::Barrier(1));
        send(&mut g, 0, record(1));
        send(&mut g, 1, Payload::CancelBarrier(1));
        assert_eq!(drain(&mut g), ["blocked 0@1", "aborted 1", "r1"]);
        send(&mut g, 2, Payload::Barrier(1)); // late: ignored
        send(&mut g, 0, Payload::Barrier(2));
        send(&mut g, 1, Payload::Barrier(3)); // its reader never took 2
        assert_eq!(drain(&mut g), ["blocked 0@2", "aborted 2", "blocked 1@3"]);
    }

    #[test]
    fn messages_out_of_order_or_from_another_attempt_are_dropped() {
        let mut g = gate(true);
        g.receive(0, 99, 1, record(1)); // another attempt of reader 0
        g.receive(1, 20, 2, record(2)); // a gap: message 1 was lost
        assert!(drain(&mut g).is_empty());
        g.receive(1, 20, 1, record(3));
        g.receive(1, 20, 1, record(3)); // a repeat
        g.receive(1, 20, 2, record(4));
        assert_eq!(drain(&mut g), ["r3", "r4"]);
        let credits = g.credits();
        assert_eq!(credits.len(), 1, "another attempt's message is not answered: {credits:?}");
        assert_eq!(credits[0].0, 1, "to reader 1's task executor");
        assert!(matches!(credits[0].1.msg, ToTask::Credit { received: 2, attempt: 20, .. }), "{:?}", credits[0].1);
        g.receive(1, 20, 1, record(3)); // a repeat after the credit: answered again
        assert_eq!(g.credits().len(), 1);
    }

    #[test]
    fn the_watermark_is_the_minimum_over_channels_and_the_end_comes_once() {
        let mut g = gate(true);
        send(&mut g, 0, Payload::Watermark(50));
        send(&mut g, 1, Payload::Watermark(30));
        assert!(drain(&mut g).is_empty());
        send(&mut g, 2, Payload::Watermark(40));
        assert_eq!(drain(&mut g), ["w30"]);
        send(&mut g, 1, Payload::Watermark(60));
        assert_eq!(drain(&mut g), ["w40"]);
        for c in 0..2 {
            send(&mut g, c, Payload::EndOfInput);
        }
        assert!(drain(&mut g).is_empty() && !g.ended());
        send(&mut g, 2, Payload::EndOfInput);
        assert_eq!(drain(&mut g), ["end"]);
        assert!(g.ended());
    }
}
