//! A consumer's statistics (`statistics.interval.ms`): what it knows of its partitions
//! (positions, stored and committed offsets, the marks its last fetch answered, what it
//! handed the application) and of its group, in librdkafka's layout.

use super::core::ConsumerCore;
use crate::statistics::{GroupSnapshot, PartitionSnapshot, Snapshot};

/// An offset for statistics: librdkafka's `-1001` when unknown.
fn offset(o: Option<u64>) -> i64 {
    o.map_or(-1001, |o| o as i64)
}

impl ConsumerCore {
    /// The statistics JSON, if due.
    pub(crate) fn stats_if_due(&self) -> Option<Vec<u8>> {
        if !self.stats.due() {
            return None;
        }
        let s = &self.settings;
        let mut snap =
            Snapshot::new(format!("{}#consumer", s.client_id), s.client_id.clone(), "consumer", s.broker.clone());
        snap.now_us = crate::stats_clock::now_us();
        snap.age_us = self.stats.age_us();
        snap.read_committed = s.read_committed;
        let state = self.state.lock().unwrap();
        for ((topic, partition), place) in &state.places {
            let (lo, hi, ls) = place.marks.map_or((None, None, None), |(l, h, s)| (Some(l), Some(h), Some(s)));
            let p = PartitionSnapshot {
                desired: true,
                fetchq_cnt: 0,
                fetch_state: if place.stopped { "stopped" } else { "active" },
                next_offset: place.fetch_at as i64,
                app_offset: offset(place.app_pos),
                stored_offset: offset(place.stored),
                committed_offset: offset(place.committed),
                lo_offset: offset(lo),
                hi_offset: offset(hi),
                ls_offset: offset(ls),
                rxmsgs: place.received.0,
                rxbytes: place.received.1,
                ..PartitionSnapshot::default()
            };
            snap.topics.entry(topic.clone()).or_default().insert(*partition as i32, p);
        }
        let assigned = state.assignment.len() as i32;
        drop(state);
        if s.group_id.is_some() {
            let g = self.group.inner.lock().unwrap();
            let joined = g.generation >= 0 && !g.subscription.is_empty();
            let now_ms = connsim::net::now().as_millis() as u64;
            snap.cgrp = Some(GroupSnapshot {
                state: "up",
                join_state: if joined || g.subscription.is_empty() { "steady" } else { "init" },
                rebalance_age_ms: if g.rebalances.0 > 0 { now_ms.saturating_sub(g.rebalances.1) as i64 } else { 0 },
                rebalance_cnt: g.rebalances.0,
                rebalance_reason: String::new(),
                assignment_size: assigned,
            });
        }
        Some(crate::statistics::to_json(&snap))
    }
}
