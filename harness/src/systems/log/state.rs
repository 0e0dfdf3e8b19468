//! The log's state: partitions of entries, the producers of its own requests, and the
//! timers a broker runs (transaction timeouts, retention, replication).

use super::coordinator::Coordinator;
use super::{LogEntry, LogFormat, TxnHandle};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// How long followers take to copy an entry the leader appended, in virtual ms: an `acks=1`
/// produce is answered before, and its entries stay above the high watermark until then.
pub const REPLICATION_LAG_MS: u64 = 5;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    Committed,
    Pending,
    Aborted,
    /// A transaction marker (KIP-98's control record): the commit or abort written to each
    /// partition a transaction touched. It takes an offset, so a partition's offsets have
    /// gaps; no consumer ever returns it.
    Marker,
}

pub(super) struct Entry {
    pub(super) entry: LogEntry,
    pub(super) status: Status,
    /// When it was appended (virtual ms): retention counts from here.
    pub(super) appended_ms: u64,
}

/// One partition: its entries by offset, the offsets of entries in open transactions, and
/// the log start offset (entries below it were deleted by retention; their slots stay so
/// that offsets index the vector).
#[derive(Default)]
pub(super) struct Partition {
    pub(super) entries: Vec<Entry>,
    pub(super) open: BTreeSet<u64>,
    pub(super) start: u64,
    /// Its split id, `<topic>-<partition>`, named once instead of per record.
    pub(super) split: String,
    /// The high watermark: entries below it are on every replica. Consumers read no
    /// further; only `acks=1` (and `acks=0`) produces leave entries above it for a while.
    pub(super) hw: u64,
}

impl Partition {
    /// The last stable offset: a read-committed consumer reads no further.
    pub(super) fn lso(&self) -> u64 {
        self.open.first().copied().unwrap_or(self.hw).min(self.hw)
    }
    /// Appends an entry; `replicated`: the produce waited for every replica (`acks=all`,
    /// the only level the log's own requests and upstream producers use).
    pub(super) fn push(&mut self, entry: Entry, replicated: bool) -> u64 {
        let offset = self.entries.len() as u64;
        self.entries.push(entry);
        if replicated {
            self.hw = self.entries.len() as u64;
        }
        offset
    }
    /// Followers copy what the leader appended [`REPLICATION_LAG_MS`] ago: the high
    /// watermark catches up with it.
    pub(super) fn replicate(&mut self, now_ms: u64) -> bool {
        let before = self.hw;
        while (self.hw as usize) < self.entries.len()
            && self.entries[self.hw as usize].appended_ms + REPLICATION_LAG_MS <= now_ms
        {
            self.hw += 1;
        }
        self.hw != before
    }
    /// Appends the marker that ends a transaction in this partition (written with every
    /// replica, as the coordinator's markers are).
    pub(super) fn mark(&mut self, now_ms: u64) {
        let entry =
            crate::systems::LogEntry { key: None, value: None, headers: Vec::new(), timestamp_ms: now_ms as i64 };
        self.push(Entry { entry, status: Status::Marker, appended_ms: now_ms }, true);
    }
    pub(super) fn settle(&mut self, offset: u64, status: Status) {
        self.entries[offset as usize].status = status;
        self.open.remove(&offset);
    }
}

#[derive(Default)]
pub(super) struct Producer {
    pub(super) epoch: u64,
    /// Entries written by the open transaction of the current epoch.
    pub(super) open: Option<Vec<(String, u32, u64)>>,
    /// Next expected produce sequence in this epoch.
    pub(super) next_sequence: u64,
    /// When the open transaction wrote first (virtual ms): its timeout counts from here.
    pub(super) opened_ms: u64,
    pub(super) committed_epochs: BTreeSet<u64>,
    /// Epochs below this were fenced by an `InitTransactions`: even a committed one
    /// answers `Fenced` to a commit (a timed-out epoch answers `NotCommittable`).
    pub(super) fenced_below: u64,
}

#[derive(Default)]
pub(super) struct State {
    pub(super) topics: BTreeMap<String, Vec<Partition>>,
    pub(super) producers: BTreeMap<String, Producer>,
    /// Changes whenever a last stable offset may have moved (for output readers).
    pub(super) changes: u64,
    /// Transactions open longer than this (virtual ms) are aborted; `None`: never.
    pub(super) txn_timeout_ms: Option<u64>,
    /// Entries older than this (virtual ms) are deleted from topics that are not read as
    /// output; `None`: kept forever.
    pub(super) retention_ms: Option<u64>,
    /// When retention last ran (virtual ms).
    pub(super) retention_checked_ms: u64,
    /// Topics the harness reads as output: retention never deletes from them.
    pub(super) outputs: BTreeSet<String>,
    /// How test records are written into and decoded out of each topic; a topic not named
    /// here uses [`RecordLogFormat`].
    pub(super) formats: BTreeMap<String, Arc<dyn LogFormat>>,
    /// How many of a producer's last batches a retry is recognised against; `None`: all.
    pub(super) dedup_window: Option<u64>,
    /// The Kafka face's producers, transactions and consumer groups.
    pub(super) kafka: Coordinator,
    /// A crash of the log loses the entries above each partition's high watermark
    /// ([`crate::systems::Setting::LoseUnreplicatedOnCrash`]).
    pub(super) lose_unreplicated: bool,
    /// Some partition may hold entries above its high watermark.
    pub(super) lagging: bool,
    /// What the admin APIs keep: topic configs and replication factors.
    pub(super) admin: super::admin::AdminState,
}

/// How many of a producer's last batches the log remembers to acknowledge a retry without
/// appending it again (Kafka's producer state keeps five).
pub const PRODUCER_STATE_BATCHES: u64 = 5;

/// A broker's `transaction.max.timeout.ms` (Kafka's default, 15 minutes): an
/// `InitProducerId` asking for a longer transaction timeout is refused.
pub const TRANSACTION_MAX_TIMEOUT_MS: u64 = 900_000;

/// How often retention runs, in virtual ms (Kafka's `log.retention.check.interval.ms`).
const RETENTION_CHECK_MS: u64 = 50;

impl State {
    /// Creates a topic or grows it to `partitions` partitions.
    pub(super) fn grow(&mut self, topic: &str, partitions: u32) {
        let parts = self.topics.entry(topic.to_string()).or_default();
        while parts.len() < partitions as usize {
            let split = format!("{topic}-{}", parts.len());
            parts.push(Partition { split, ..Partition::default() });
        }
        self.changes += 1;
    }

    /// Replication: high watermarks catch up with what followers copied by now.
    pub(super) fn replicate(&mut self, now_ms: u64) {
        if !self.lagging {
            return;
        }
        let mut lagging = false;
        for p in self.topics.values_mut().flat_map(|parts| parts.iter_mut()) {
            if p.replicate(now_ms) {
                self.changes += 1;
            }
            lagging |= (p.hw as usize) < p.entries.len();
        }
        self.lagging = lagging;
    }

    /// When a timer of the broker is next due (virtual ms): a transaction timeout of either
    /// request family, or followers copying an entry.
    pub(super) fn next_due(&self) -> Option<u64> {
        let own = self.txn_timeout_ms.and_then(|timeout| {
            self.producers.values().filter(|p| p.open.is_some()).map(|p| p.opened_ms.saturating_add(timeout)).min()
        });
        let kafka = self.kafka.next_deadline(self.txn_timeout_ms);
        let copy = self.lagging.then(|| {
            self.topics
                .values()
                .flat_map(|parts| parts.iter())
                .filter_map(|p| p.entries.get(p.hw as usize).map(|e| e.appended_ms + REPLICATION_LAG_MS))
                .min()
        });
        [own, kafka, copy.flatten()].into_iter().flatten().min()
    }
    /// Aborts every transaction of the log's own requests open longer than the timeout and
    /// bumps its producer's epoch (the old epoch is fenced, as Kafka's coordinator does);
    /// returns the ids it aborted.
    pub(super) fn expire(&mut self, now_ms: u64) -> Vec<TxnHandle> {
        let Some(timeout) = self.txn_timeout_ms else { return Vec::new() };
        let State { topics, producers, changes, .. } = self;
        let mut aborted = Vec::new();
        for (id, p) in producers.iter_mut() {
            if p.open.is_none() || now_ms < p.opened_ms.saturating_add(timeout) {
                continue;
            }
            for (topic, part, off) in p.open.take().unwrap_or_default() {
                topics.get_mut(&topic).expect("written topic")[part as usize].settle(off, Status::Aborted);
            }
            aborted.push(TxnHandle { id: id.clone(), epoch: p.epoch });
            p.epoch += 1;
            p.next_sequence = 0;
            *changes += 1;
        }
        aborted
    }

    /// Deletes the entries older than the retention from every topic not read as output, at
    /// most every [`RETENTION_CHECK_MS`]; never past the last stable offset (an open
    /// transaction keeps its entries).
    pub(super) fn retain(&mut self, now_ms: u64) {
        let Some(retention) = self.retention_ms else { return };
        if now_ms < self.retention_checked_ms + RETENTION_CHECK_MS {
            return;
        }
        self.retention_checked_ms = now_ms;
        for (_, parts) in self.topics.iter_mut().filter(|(t, _)| !self.outputs.contains(*t)) {
            for p in parts.iter_mut() {
                let lso = p.lso();
                while p.start < lso && p.entries[p.start as usize].appended_ms + retention <= now_ms {
                    p.start += 1;
                }
            }
        }
    }
}
