//! A producer's statistics (`statistics.interval.ms`): its queue against its bounds, what
//! each partition acknowledged, and its idempotent and transactional state, in librdkafka's
//! layout.

use super::core::{Core, Phase};
use crate::statistics::{EosSnapshot, PartitionSnapshot, Snapshot};

impl Core {
    /// The statistics JSON, if due.
    pub(crate) fn stats_if_due(&self) -> Option<Vec<u8>> {
        if !self.stats.due() {
            return None;
        }
        let s = &self.settings;
        let mut snap =
            Snapshot::new(format!("{}#producer", s.client_id), s.client_id.clone(), "producer", s.broker.clone());
        snap.now_us = crate::stats_clock::now_us();
        snap.age_us = self.stats.age_us();
        let (msgs, bytes) = self.pending_bytes();
        (snap.msg_cnt, snap.msg_size) = (msgs as u64, bytes as u64);
        (snap.msg_max, snap.msg_size_max) = (s.queue_max_messages as u64, s.queue_max_kbytes as u64 * 1024);
        for ((topic, partition), (count, size)) in self.delivered.lock().unwrap().iter() {
            let p = PartitionSnapshot {
                desired: true,
                txmsgs: *count,
                txbytes: *size,
                produced: *count,
                ..PartitionSnapshot::default()
            };
            snap.topics.entry(topic.clone()).or_default().insert(*partition as i32, p);
        }
        if s.idempotence {
            let identity = self.sends.try_lock().ok().and_then(|sends| sends.identity);
            let (txn_state, may_enq) = match &*self.phase.lock().unwrap() {
                _ if s.transactional_id.is_none() => ("Init", true),
                Phase::Init => ("Init", false),
                Phase::Ready => ("Ready", false),
                Phase::InTransaction => ("InTransaction", true),
                Phase::Ending { commit: true } => ("CommittingTransaction", false),
                Phase::Ending { commit: false } => ("AbortingTransaction", false),
                Phase::Abortable(_) => ("AbortableError", false),
                Phase::Fatal(_) => ("FatalError", false),
            };
            snap.eos = Some(EosSnapshot {
                idemp_state: if identity.is_some() { "Assigned" } else { "Init" },
                txn_state,
                txn_may_enq: may_enq,
                producer_id: identity.map_or(-1, |p| p.id as i64),
                producer_epoch: identity.map_or(-1, |p| p.epoch as i64),
                epoch_cnt: 0,
            });
        }
        Some(crate::statistics::to_json(&snap))
    }
}
