//! A Kafka-like partitioned log: topics, partitions, offsets, transactional producers with
//! epochs and fencing, read-committed reads, a listing of open transactions, and an optional
//! transaction timeout (Kafka's `transaction.timeout.ms`: the broker aborts a transaction
//! open longer and fences its producer epoch), and optional retention (Kafka's
//! `retention.ms`: entries older are deleted, and a fetch below the log start offset is
//! answered `OffsetOutOfRange`).

use super::log_entry::{LogEntry, LogFormat, RecordLogFormat};
use super::output::{Entry as Visible, OutputReader, Part};
use super::{serve_calls, BoxFuture, Caller, ExternalSystem, Setting, SettingEnv};
use crate::history::EventKind;
use crate::history::History;
use crate::net::Inbox;
use crate::record::Record;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
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
    /// End offsets (high watermarks) of every partition.
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Committed,
    Pending,
    Aborted,
}

struct Entry {
    entry: LogEntry,
    status: Status,
    /// When it was appended (virtual ms): retention counts from here.
    appended_ms: u64,
}

/// One partition: its entries by offset, the offsets of entries in open transactions, and
/// the log start offset (entries below it were deleted by retention; their slots stay so
/// that offsets index the vector).
#[derive(Default)]
struct Partition {
    entries: Vec<Entry>,
    open: BTreeSet<u64>,
    start: u64,
    /// Its split id, `<topic>-<partition>`, named once instead of per record.
    split: String,
}

impl Partition {
    /// The last stable offset: a read-committed consumer reads no further.
    fn lso(&self) -> u64 {
        self.open.first().copied().unwrap_or(self.entries.len() as u64)
    }
    fn settle(&mut self, offset: u64, status: Status) {
        self.entries[offset as usize].status = status;
        self.open.remove(&offset);
    }
}

#[derive(Default)]
struct Producer {
    epoch: u64,
    /// Entries written by the open transaction of the current epoch.
    open: Option<Vec<(String, u32, u64)>>,
    /// Next expected produce sequence in this epoch.
    next_sequence: u64,
    /// When the open transaction wrote first (virtual ms): its timeout counts from here.
    opened_ms: u64,
    committed_epochs: BTreeSet<u64>,
}

#[derive(Default)]
struct State {
    topics: BTreeMap<String, Vec<Partition>>,
    producers: BTreeMap<String, Producer>,
    /// Changes whenever a last stable offset may have moved (for output readers).
    changes: u64,
    /// Transactions open longer than this (virtual ms) are aborted; `None`: never.
    txn_timeout_ms: Option<u64>,
    /// Entries older than this (virtual ms) are deleted from topics that are not read as
    /// output; `None`: kept forever.
    retention_ms: Option<u64>,
    /// When retention last ran (virtual ms).
    retention_checked_ms: u64,
    /// Topics the harness reads as output: retention never deletes from them.
    outputs: BTreeSet<String>,
    /// How test records are written into and decoded out of each topic; a topic not named
    /// here uses [`RecordLogFormat`].
    formats: BTreeMap<String, Arc<dyn LogFormat>>,
    /// How many of a producer's last batches a retry is recognised against; `None`: all.
    dedup_window: Option<u64>,
}

/// How many of a producer's last batches the log remembers to acknowledge a retry without
/// appending it again (Kafka's producer state keeps five).
pub const PRODUCER_STATE_BATCHES: u64 = 5;

/// How often retention runs, in virtual ms (Kafka's `log.retention.check.interval.ms`).
const RETENTION_CHECK_MS: u64 = 50;

impl State {
    /// Aborts every transaction open longer than the timeout and bumps its producer's epoch
    /// (the old epoch is fenced, as Kafka's coordinator does); returns the ids it aborted.
    fn expire(&mut self, now_ms: u64) -> Vec<TxnHandle> {
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
    fn retain(&mut self, now_ms: u64) {
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
        let mut s = self.state.lock().unwrap();
        let parts = s.topics.entry(topic.to_string()).or_default();
        while parts.len() < partitions as usize {
            let split = format!("{topic}-{}", parts.len());
            parts.push(Partition { split, ..Partition::default() });
        }
        s.changes += 1;
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
            part.entries.push(Entry { entry: format.entry(&record), status: Status::Committed, appended_ms });
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
        for (partition, record) in records {
            let entry = format.entry(&record);
            parts[partition as usize].entries.push(Entry { entry, status: Status::Committed, appended_ms });
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

    fn handle(&self, caller: &Caller, req: LogRequest) -> LogResponse {
        let mut s = self.state.lock().unwrap();
        // The broker's timer: checked before every request, so no request sees a transaction
        // that outlived its timeout.
        let now_ms = crate::net::now().as_millis() as u64;
        for txn in s.expire(now_ms) {
            let event = EventKind::Fault {
                fault: "txn-timeout".into(),
                from: self.name.clone(),
                to: txn.id.clone(),
                kind: format!("epoch {}", txn.epoch),
                call: None,
            };
            self.history.record(&self.name, event);
        }
        s.retain(now_ms);
        match req {
            LogRequest::ListPartitions { topic } => {
                LogResponse::Partitions(s.topics.get(&topic).map_or(0, |p| p.len() as u32))
            }
            LogRequest::ListOffsets { topic } => LogResponse::Offsets(
                s.topics
                    .get(&topic)
                    .map(|parts| parts.iter().map(|p| p.entries.len() as u64).collect())
                    .unwrap_or_default(),
            ),
            LogRequest::Fetch { topic, partition, offset, max } => {
                let Some(part) = s.topics.get(&topic).and_then(|t| t.get(partition as usize)) else {
                    return LogResponse::Error(LogError::UnknownPartition);
                };
                if offset < part.start {
                    let split = format!("{topic}-{partition}");
                    let (reader, call) = (caller.node.clone(), caller.call);
                    let event = EventKind::OutOfRange { split, offset, start: part.start, reader, call };
                    self.history.record(&self.name, event);
                    return LogResponse::Error(LogError::OffsetOutOfRange { log_start: part.start });
                }
                let mut entries = Vec::new();
                let mut next = offset;
                // Read committed: stop at the first open transaction (the last stable offset).
                let lso = part.lso();
                while next < lso && entries.len() < max {
                    let e = &part.entries[next as usize];
                    if e.status == Status::Committed {
                        entries.push((next, e.entry.clone()));
                    }
                    next += 1;
                }
                LogResponse::Fetched { entries, next_offset: next }
            }
            LogRequest::Produce { topic, partition, entries, txn, sequence } => {
                if let Some(t) = &txn {
                    let window = s.dedup_window.unwrap_or(u64::MAX);
                    let Some(p) = s.producers.get_mut(&t.id).filter(|p| p.epoch == t.epoch) else {
                        return LogResponse::Error(LogError::Fenced);
                    };
                    let next = p.next_sequence;
                    if sequence != next {
                        // Kafka keeps the last five batches per producer: a retry of one of
                        // them is acknowledged without appending it again; any other
                        // sequence, older or ahead, is out of order.
                        let duplicate = sequence < next && sequence.saturating_add(window) >= next;
                        let event = EventKind::Fault {
                            fault: match (duplicate, sequence < next) {
                                (true, _) => "duplicate-sequence",
                                (false, true) => "stale-sequence",
                                (false, false) => "out-of-order-sequence",
                            }
                            .into(),
                            from: self.name.clone(),
                            to: t.id.clone(),
                            kind: format!("sequence {sequence}, next {next}"),
                            call: None,
                        };
                        self.history.record(&self.name, event);
                        return match duplicate {
                            true => LogResponse::Ok,
                            false => LogResponse::Error(LogError::OutOfOrderSequence),
                        };
                    }
                    p.next_sequence += 1;
                }
                let State { topics, producers, changes, .. } = &mut *s;
                let Some(part) = topics.get_mut(&topic).and_then(|t| t.get_mut(partition as usize)) else {
                    return LogResponse::Error(LogError::UnknownPartition);
                };
                *changes += 1;
                let status = if txn.is_some() { Status::Pending } else { Status::Committed };
                for entry in entries {
                    let offset = part.entries.len() as u64;
                    if let Some(t) = &txn {
                        let p = producers.get_mut(&t.id).expect("checked above");
                        if p.open.is_none() {
                            p.opened_ms = now_ms;
                        }
                        p.open.get_or_insert_with(Vec::new).push((topic.clone(), partition, offset));
                        part.open.insert(offset);
                    }
                    part.entries.push(Entry { entry, status, appended_ms: now_ms });
                }
                LogResponse::Ok
            }
            LogRequest::InitTransactions { id } => {
                let p = s.producers.entry(id).or_default();
                let open = p.open.take();
                p.epoch += 1;
                p.next_sequence = 0;
                let epoch = p.epoch;
                for (topic, part, off) in open.unwrap_or_default() {
                    s.topics.get_mut(&topic).unwrap()[part as usize].settle(off, Status::Aborted);
                }
                s.changes += 1;
                LogResponse::Epoch(epoch)
            }
            LogRequest::CommitTransaction { txn } => {
                let Some(p) = s.producers.get_mut(&txn.id) else {
                    return LogResponse::Error(LogError::NotCommittable);
                };
                if p.committed_epochs.contains(&txn.epoch) {
                    return LogResponse::AlreadyCommitted;
                }
                if p.epoch != txn.epoch {
                    return LogResponse::Error(LogError::NotCommittable);
                }
                p.committed_epochs.insert(txn.epoch);
                // The transaction is over: its epoch ends with it (Kafka's KIP-890), so a
                // produce still in flight cannot open a new transaction under it.
                p.epoch += 1;
                p.next_sequence = 0;
                let writes = p.open.take().unwrap_or_default();
                for (topic, part, off) in writes {
                    s.topics.get_mut(&topic).unwrap()[part as usize].settle(off, Status::Committed);
                }
                s.changes += 1;
                LogResponse::Ok
            }
            LogRequest::AbortTransaction { txn } => {
                let State { topics, producers, changes, .. } = &mut *s;
                match producers.get_mut(&txn.id) {
                    Some(p) if p.epoch == txn.epoch => {
                        for (topic, part, off) in p.open.take().unwrap_or_default() {
                            topics.get_mut(&topic).unwrap()[part as usize].settle(off, Status::Aborted);
                        }
                        // As after a commit: a late produce under this epoch is fenced
                        // instead of opening a transaction no one will end.
                        p.epoch += 1;
                        p.next_sequence = 0;
                        *changes += 1;
                        LogResponse::Ok
                    }
                    _ => LogResponse::Error(LogError::Fenced),
                }
            }
            LogRequest::ListOpenTransactions { prefix } => LogResponse::Open(
                s.producers
                    .iter()
                    .filter(|(id, p)| id.starts_with(&prefix) && p.open.is_some())
                    .map(|(id, p)| TxnHandle { id: id.clone(), epoch: p.epoch })
                    .collect(),
            ),
        }
    }
}

impl ExternalSystem for PartitionedLog {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn serve(&self, inbox: Inbox) -> BoxFuture {
        let log = self.clone();
        Box::pin(serve_calls(inbox, move |caller, req| Some(log.handle(caller, req))))
    }
    fn configure(&self, setting: &Setting, _env: &SettingEnv) -> Result<(), String> {
        match setting {
            Setting::TransactionTimeoutMs(ms) => self.state.lock().unwrap().txn_timeout_ms = *ms,
            Setting::RetentionMs(ms) => self.state.lock().unwrap().retention_ms = *ms,
            Setting::DeduplicationWindow(batches) => self.state.lock().unwrap().dedup_window = *batches,
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
