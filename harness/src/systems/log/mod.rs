//! A Kafka-like partitioned log: topics, partitions, offsets, transactional producers with
//! epochs and fencing, read-committed reads, a listing of open transactions, and an optional
//! transaction timeout (Kafka's `transaction.timeout.ms`: the broker aborts a transaction
//! open longer and fences its producer epoch), and optional retention (Kafka's
//! `retention.ms`: entries older are deleted, and a fetch below the log start offset is
//! answered `OffsetOutOfRange`).
//!
//! It serves two request families on one state: its own [`LogRequest`]s (the reference log
//! connectors', transactions as KIP-890 has them) and Kafka's protocol ([`KafkaRequest`],
//! which `connsim-rdkafka` speaks): idempotence sequences per partition, both transaction
//! protocols ([`TxnProtocol`]), consumer groups' offsets, `acks` levels and a high watermark.
//! Its timers (transaction timeouts, replication) run in the background, as a broker's do.

mod admin;
mod broker;
mod coordinator;
mod fetch;
mod group;
mod kafka;
mod legacy;
mod serve;
mod state;
mod upstream;

pub use admin::{
    AdminRequest, AdminResponse, ApiError, BrokerInfo, ClusterMetadata, ConfigOrigin, ConfigResourceKey,
    DescribedConfig, NewPartitionsRequest, NewTopicRequest, PartitionInfo, TopicInfo, BROKER_ID, BROKER_PORT,
};
pub use coordinator::TxnProtocol;
use coordinator::TxnState;
pub use group::{
    DescribedGroup, DescribedMember, GroupRequest, GroupResponse, JoinRequest, Joined, JoinedMember, MemberIdentity,
    GROUP_INITIAL_REBALANCE_DELAY_MS, GROUP_MAX_SESSION_TIMEOUT_MS, GROUP_MIN_SESSION_TIMEOUT_MS,
};
pub use kafka::{Acks, Fetched, KafkaCode, KafkaRequest, KafkaResponse, OffsetSpec, ProducerIdentity};
use state::{Entry, State, Status};
pub use state::{PRODUCER_STATE_BATCHES, REPLICATION_LAG_MS, TRANSACTION_MAX_TIMEOUT_MS};
pub use upstream::{OpenUpstream, UpstreamTxn};

use super::log_entry::{LogEntry, LogFormat, RecordLogFormat};
use super::output::{Entry as Visible, OutputReader, Part};
use super::{BoxFuture, ExternalSystem, Setting, SettingEnv};
use crate::history::History;
use crate::net::Inbox;
use crate::record::Record;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// A transactional producer's identity: transactional id and the epoch it was initialized with.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TxnHandle {
    /// Transactional id.
    pub id: String,
    /// Producer epoch.
    pub epoch: u64,
}

/// Requests the log serves. Fields name topics, partitions and offsets as Kafka does.
#[allow(missing_docs)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum LogRequest {
    /// Number of partitions of a topic.
    ListPartitions { topic: String },
    /// Read-committed fetch of at most `max` entries from `offset`.
    Fetch { topic: String, partition: u32, offset: u64, max: usize },
    /// End offsets of every partition as a read-committed consumer sees them: each
    /// partition's last stable offset (its high watermark, unless a transaction is open).
    ListOffsets { topic: String },
    /// Appends entries, inside a transaction when `txn` is set. Transactional produces are
    /// idempotent as Kafka's: `sequence` counts batches from 0 per epoch; a retry of one of
    /// the producer's last five batches is acknowledged without appending it again, and any
    /// other sequence but the next (older, or ahead) is refused `OutOfOrderSequence`.
    Produce { topic: String, partition: u32, entries: Vec<LogEntry>, txn: Option<TxnHandle>, sequence: u64 },
    /// Starts a new epoch for a transactional id, aborting its open transaction (fencing).
    InitTransactions { id: String },
    /// Commits the transaction of `txn`; its epoch ends with it (a produce still in flight
    /// under it is fenced, as Kafka does since KIP-890), and committing it again answers
    /// `AlreadyCommitted`.
    CommitTransaction { txn: TxnHandle },
    /// Aborts the transaction of `txn`; its epoch ends with it, as after a commit.
    AbortTransaction { txn: TxnHandle },
    /// Open transactions whose id starts with `prefix`.
    ListOpenTransactions { prefix: String },
}

/// Why the log refused a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LogError {
    /// No such topic or partition.
    UnknownPartition,
    /// A newer epoch of this transactional id exists.
    Fenced,
    /// The transaction was aborted (or never existed); it cannot be committed.
    NotCommittable,
    /// A transactional produce's sequence was neither the next nor one of the producer's
    /// last five batches (a skipped batch, or a retry too old to be recognised).
    OutOfOrderSequence,
    /// A fetch asked for an offset retention has deleted.
    OffsetOutOfRange {
        /// The partition's first offset left (Kafka's fetch response carries it too).
        log_start: u64,
    },
}

/// The log's answers.
#[allow(missing_docs)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum LogResponse {
    /// Number of partitions.
    Partitions(u32),
    /// End offset per partition.
    Offsets(Vec<u64>),
    /// Committed entries with their offsets, and the offset to fetch next.
    Fetched { entries: Vec<(u64, LogEntry)>, next_offset: u64 },
    /// Done.
    Ok,
    /// The new producer epoch.
    Epoch(u64),
    /// The transaction had been committed before.
    AlreadyCommitted,
    /// Open transactions.
    Open(Vec<TxnHandle>),
    /// Refused.
    Error(LogError),
}

/// The partitioned-log model. Everything in it is durable.
#[derive(Clone)]
pub struct PartitionedLog {
    name: String,
    state: Arc<Mutex<State>>,
    history: History,
}

impl PartitionedLog {
    /// An empty log hosted on node `name`.
    pub fn new(name: &str, history: History) -> Self {
        let state = State { dedup_window: Some(PRODUCER_STATE_BATCHES), ..State::default() };
        Self { name: name.to_string(), state: Arc::new(Mutex::new(state)), history }
    }

    /// Creates a topic (or grows it) to `partitions` partitions; test records are written
    /// into it and decoded out of it as [`RecordLogFormat`] lays them out.
    pub fn create_topic(&self, topic: &str, partitions: u32) {
        self.grow(topic, partitions);
    }

    /// Creates a topic (or grows it) to `partitions` partitions, its test records written
    /// and decoded by `format`: your connector's serializer's layout.
    pub fn create_topic_with(&self, topic: &str, partitions: u32, format: Arc<dyn LogFormat>) {
        self.state.lock().unwrap().formats.insert(topic.to_string(), format);
        self.grow(topic, partitions);
    }

    fn format(&self, topic: &str) -> Arc<dyn LogFormat> {
        self.state.lock().unwrap().formats.get(topic).cloned().unwrap_or_else(|| Arc::new(RecordLogFormat))
    }

    fn grow(&self, topic: &str, partitions: u32) {
        self.state.lock().unwrap().grow(topic, partitions);
    }

    /// Appends records as an upstream producer would (outside any connector), serialized by
    /// the topic's format; each is recorded as produced into split `<topic>-<partition>`.
    pub fn append(&self, topic: &str, partition: u32, records: Vec<Record>) {
        let format = self.format(topic);
        let mut s = self.state.lock().unwrap();
        s.changes += 1;
        let part = &mut s.topics.get_mut(topic).expect("topic exists")[partition as usize];
        let appended_ms = madsim::time::TimeHandle::try_current().map_or(0, |t| t.elapsed().as_millis() as u64);
        for record in records {
            self.history.record_produced(&self.name, &record, &part.split, part.entries.len() as u64);
            part.push(Entry { entry: format.entry(&record), status: Status::Committed, appended_ms }, true);
        }
    }

    /// Appends each `(partition, record)` in order, as one producer call per record would
    /// ([`PartitionedLog::append`]): the same entries and `Produced` events, in one step.
    pub fn append_each(&self, topic: &str, records: Vec<(u32, Record)>) {
        let format = self.format(topic);
        let mut s = self.state.lock().unwrap();
        let parts = s.topics.get_mut(topic).expect("topic exists");
        // Checked before anything changes, and the panic comes after the lock is released,
        // so a bad partition leaves the log and the history as they were, and usable.
        if let Some((p, _)) = records.iter().find(|(p, _)| *p as usize >= parts.len()) {
            let (p, n) = (*p, parts.len());
            drop(s);
            panic!("append_each: topic {topic} has {n} partitions, no partition {p}");
        }
        s.changes += records.len() as u64;
        let parts = s.topics.get_mut(topic).expect("looked up above");
        let appended_ms = madsim::time::TimeHandle::try_current().map_or(0, |t| t.elapsed().as_millis() as u64);
        let mut added = vec![0u64; parts.len()];
        let produced = records.iter().map(|(partition, record)| {
            let part = &parts[*partition as usize];
            let pos = part.entries.len() as u64 + added[*partition as usize];
            added[*partition as usize] += 1;
            (record, part.split.as_str(), pos)
        });
        self.history.record_produced_all(&self.name, produced);
        // Each partition grows once, not once per doubling.
        for (part, n) in parts.iter_mut().zip(&added) {
            part.entries.reserve(*n as usize);
        }
        for (partition, record) in records {
            let entry = format.entry(&record);
            parts[partition as usize].push(Entry { entry, status: Status::Committed, appended_ms }, true);
        }
    }

    /// Appends entries as an upstream transactional producer whose transaction aborted: they
    /// take offsets, as does the abort marker after them, and no read-committed consumer
    /// ever sees them (nor are they produced
    /// records in the history: a source that reads them invents records).
    pub fn append_aborted(&self, topic: &str, partition: u32, entries: Vec<LogEntry>) {
        let mut s = self.state.lock().unwrap();
        s.changes += 1;
        let part = &mut s.topics.get_mut(topic).expect("topic exists")[partition as usize];
        let appended_ms = madsim::time::TimeHandle::try_current().map_or(0, |t| t.elapsed().as_millis() as u64);
        let empty = entries.is_empty();
        for entry in entries {
            part.push(Entry { entry, status: Status::Aborted, appended_ms }, true);
        }
        // The abort marker the coordinator wrote after them (none without a transaction).
        if !empty {
            part.mark(appended_ms);
        }
    }

    /// The end offset of a partition (0 if it does not exist).
    pub fn end_offset(&self, topic: &str, partition: u32) -> u64 {
        let s = self.state.lock().unwrap();
        s.topics.get(topic).and_then(|t| t.get(partition as usize)).map_or(0, |p| p.entries.len() as u64)
    }

    /// Number of partitions of `topic` (0 if it does not exist).
    pub fn partitions(&self, topic: &str) -> u32 {
        self.state.lock().unwrap().topics.get(topic).map_or(0, |p| p.len() as u32)
    }

    /// What a read-committed consumer of `topic` sees, partition by partition: committed
    /// entries below each partition's last stable offset.
    pub fn read_committed(&self, topic: &str) -> Vec<LogEntry> {
        let s = self.state.lock().unwrap();
        let Some(parts) = s.topics.get(topic) else { return Vec::new() };
        parts
            .iter()
            .flat_map(|p| {
                let stable = &p.entries[p.start.min(p.lso()) as usize..p.lso() as usize];
                stable.iter().filter(|e| e.status == Status::Committed).map(|e| e.entry.clone())
            })
            .collect()
    }

    /// The output reader for `topic`: a read-committed consumer, partition by partition,
    /// decoding each entry by the topic's format (an entry it cannot decode is visible
    /// garbage named by partition and offset).
    /// Each partition is read up to its last stable offset, the first offset still in an
    /// open transaction: records behind an open transaction stay invisible until it ends,
    /// even committed ones, exactly as Kafka's `isolation.level=read_committed`.
    /// Retention never deletes from a topic read as output.
    pub fn output(&self, topic: &str) -> Arc<dyn OutputReader> {
        self.state.lock().unwrap().outputs.insert(topic.to_string());
        Arc::new(LogOutput { log: self.clone(), topic: topic.to_string() })
    }
}

impl ExternalSystem for PartitionedLog {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn serve(&self, inbox: Inbox) -> BoxFuture {
        Box::pin(self.clone().serve_loop(inbox))
    }
    /// Split `<topic>-<partition>` at the group's committed offset, for every partition the
    /// group has one of.
    fn committed_offsets(&self, group: &str) -> Vec<(String, u64)> {
        let s = self.state.lock().unwrap();
        s.kafka
            .groups
            .iter()
            .filter(|((g, _, _), _)| g == group)
            .map(|((_, topic, partition), offset)| (format!("{topic}-{partition}"), *offset))
            .collect()
    }
    /// Transactional ids of both faces, consumer groups with offsets or members, and the
    /// transactions still open (a broker keeps each long after the job).
    fn leftovers(&self) -> crate::history::Leftovers {
        let s = self.state.lock().unwrap();
        let k = &s.kafka;
        let ids: BTreeSet<&String> = s.producers.keys().chain(k.txns.keys()).collect();
        let groups: BTreeSet<&String> = k.groups.keys().map(|(g, _, _)| g).chain(k.members.with_members()).collect();
        let open_native = s.producers.iter().filter(|(_, p)| p.open.is_some()).map(|(id, _)| id);
        let open_kafka = k.txns.iter().filter(|(_, t)| t.state == TxnState::Ongoing).map(|(id, _)| id);
        let open: BTreeSet<&String> = open_native.chain(open_kafka).collect();
        crate::history::Leftovers {
            transactional_ids: ids.len() as u64,
            groups: groups.len() as u64,
            open_transactions: open.into_iter().cloned().collect(),
            uploads: Vec::new(),
        }
    }
    /// The broker crashed. Everything below the high watermarks is on disk on every
    /// replica; with [`Setting::LoseUnreplicatedOnCrash`] on, a follower that never copied
    /// what lies above becomes leader and it is gone (what `acks=1` risks).
    fn crash(&self) {
        let mut s = self.state.lock().unwrap();
        s.kafka.members.crash(crate::net::now().as_millis() as u64);
        if !s.lose_unreplicated {
            return;
        }
        let now_ms = crate::net::now().as_millis() as u64;
        let mut lost = Vec::new();
        for p in s.topics.values_mut().flat_map(|parts| parts.iter_mut()) {
            p.replicate(now_ms);
            if (p.hw as usize) < p.entries.len() {
                lost.push(format!("{} offsets {}..{}", p.split, p.hw, p.entries.len()));
                p.entries.truncate(p.hw as usize);
            }
        }
        s.lagging = false;
        drop(s);
        for what in lost {
            let event = crate::history::EventKind::Fault {
                fault: crate::history::FaultKind::UnreplicatedLost,
                from: self.name.clone(),
                to: self.name.clone(),
                kind: what,
                call: None,
            };
            self.history.record(&self.name, event);
        }
    }
    fn configure(&self, setting: &Setting, _env: &SettingEnv) -> Result<(), String> {
        match setting {
            Setting::TransactionTimeoutMs(ms) => self.state.lock().unwrap().txn_timeout_ms = *ms,
            Setting::RetentionMs(ms) => self.state.lock().unwrap().retention_ms = *ms,
            Setting::DeduplicationWindow(batches) => self.state.lock().unwrap().dedup_window = *batches,
            Setting::TransactionProtocol(protocol) => self.state.lock().unwrap().kafka.protocol = *protocol,
            Setting::LoseUnreplicatedOnCrash(on) => self.state.lock().unwrap().lose_unreplicated = *on,
            Setting::GroupInitialRebalanceDelayMs(ms) => {
                self.state.lock().unwrap().kafka.members.initial_delay_ms = *ms
            }
            other => return Err(format!("the log {} has no setting {other:?}", self.name)),
        }
        Ok(())
    }
}

struct LogOutput {
    log: PartitionedLog,
    topic: String,
}

impl OutputReader for LogOutput {
    fn location(&self) -> String {
        format!("{}:{}", self.log.name, self.topic)
    }
    fn version(&self) -> Option<u64> {
        Some(self.log.state.lock().unwrap().changes)
    }
    fn parts(&self) -> Vec<Part> {
        let s = self.log.state.lock().unwrap();
        let Some(parts) = s.topics.get(&self.topic) else { return Vec::new() };
        let name = |i: usize| format!("{}-{i}", self.topic);
        parts.iter().enumerate().map(|(i, p)| Part { name: name(i), version: 0, end: p.lso() }).collect()
    }
    fn read(&self, part: &str, from: u64) -> Vec<Visible> {
        let s = self.log.state.lock().unwrap();
        let index = part.strip_prefix(&format!("{}-", self.topic)).and_then(|i| i.parse::<usize>().ok());
        let Some(p) = index.and_then(|i| s.topics.get(&self.topic)?.get(i)) else { return Vec::new() };
        let from = from.min(p.lso());
        let stable = &p.entries[from as usize..p.lso() as usize];
        let committed: Vec<(u64, LogEntry)> = (from..)
            .zip(stable)
            .filter(|(_, e)| e.status == Status::Committed)
            .map(|(o, e)| (o, e.entry.clone()))
            .collect();
        let format = s.formats.get(&self.topic).cloned().unwrap_or_else(|| Arc::new(RecordLogFormat));
        // The user's decoder runs with the log unlocked: a decoder that panics leaves the log
        // usable (the observer reports the panic), never a poisoned lock.
        drop(s);
        let decode = |(offset, entry): (u64, LogEntry)| match format.seen(&entry) {
            Ok(seen) => Visible::Record(seen),
            Err(why) => Visible::Garbage(format!("{}:{part} offset {offset}: {why}", self.log.name)),
        };
        committed.into_iter().map(decode).collect()
    }
}
