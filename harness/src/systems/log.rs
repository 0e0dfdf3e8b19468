//! A Kafka-like partitioned log: topics, partitions, offsets, transactional producers with
//! epochs and fencing, read-committed reads and a listing of open transactions.

use super::{serve_requests, BoxFuture, ExternalSystem, OutputReader};
use crate::history::{EventKind, History};
use crate::net::Inbox;
use crate::record::{Record, RecordId};
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
    /// Appends records, inside a transaction when `txn` is set. Transactional produces are
    /// idempotent: `sequence` counts batches from 0 per epoch, and a repeated one is ignored.
    Produce { topic: String, partition: u32, records: Vec<Record>, txn: Option<TxnHandle>, sequence: u64 },
    /// Starts a new epoch for a transactional id, aborting its open transaction (fencing).
    InitTransactions { id: String },
    /// Commits the transaction of `txn`.
    CommitTransaction { txn: TxnHandle },
    /// Aborts the transaction of `txn`.
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
    /// A transactional produce skipped a sequence number.
    OutOfOrderSequence,
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
    Fetched { entries: Vec<(u64, Record)>, next_offset: u64 },
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
    record: Record,
    status: Status,
}

#[derive(Default)]
struct Producer {
    epoch: u64,
    /// Entries written by the open transaction of the current epoch.
    open: Option<Vec<(String, u32, u64)>>,
    /// Next expected produce sequence in this epoch.
    next_sequence: u64,
    committed_epochs: BTreeSet<u64>,
}

#[derive(Default)]
struct State {
    topics: BTreeMap<String, Vec<Vec<Entry>>>,
    producers: BTreeMap<String, Producer>,
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
        Self { name: name.to_string(), state: Arc::default(), history }
    }

    /// Creates a topic (or grows it) to `partitions` partitions.
    pub fn create_topic(&self, topic: &str, partitions: u32) {
        let mut s = self.state.lock().unwrap();
        let parts = s.topics.entry(topic.to_string()).or_default();
        while parts.len() < partitions as usize {
            parts.push(Vec::new());
        }
    }

    /// Appends records as an upstream producer would (outside any connector); each is recorded
    /// as produced into split `<topic>-<partition>`.
    pub fn append(&self, topic: &str, partition: u32, records: Vec<Record>) {
        let mut s = self.state.lock().unwrap();
        let part = &mut s.topics.get_mut(topic).expect("topic exists")[partition as usize];
        for record in records {
            let pos = part.len() as u64;
            self.history.record(
                &self.name,
                EventKind::Produced { id: record.id, split: format!("{topic}-{partition}"), pos },
            );
            part.push(Entry { record, status: Status::Committed });
        }
    }

    /// Number of partitions of `topic` (0 if it does not exist).
    pub fn partitions(&self, topic: &str) -> u32 {
        self.state.lock().unwrap().topics.get(topic).map_or(0, |p| p.len() as u32)
    }

    /// What a read-committed consumer of `topic` sees, partition by partition.
    pub fn read_committed(&self, topic: &str) -> Vec<Record> {
        let s = self.state.lock().unwrap();
        s.topics
            .get(topic)
            .map(|parts| {
                parts
                    .iter()
                    .flat_map(|p| p.iter().filter(|e| e.status == Status::Committed).map(|e| e.record.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The output reader for `topic`.
    pub fn output(&self, topic: &str) -> Arc<dyn OutputReader> {
        Arc::new(LogOutput { log: self.clone(), topic: topic.to_string() })
    }

    fn visible(&self, topic: &str, ids: Vec<RecordId>) {
        if !ids.is_empty() {
            self.history.record(&self.name, EventKind::Visible { location: format!("{}:{topic}", self.name), ids });
        }
    }

    fn handle(&self, req: LogRequest) -> LogResponse {
        let mut s = self.state.lock().unwrap();
        match req {
            LogRequest::ListPartitions { topic } => {
                LogResponse::Partitions(s.topics.get(&topic).map_or(0, |p| p.len() as u32))
            }
            LogRequest::ListOffsets { topic } => LogResponse::Offsets(
                s.topics.get(&topic).map(|parts| parts.iter().map(|p| p.len() as u64).collect()).unwrap_or_default(),
            ),
            LogRequest::Fetch { topic, partition, offset, max } => {
                let Some(part) = s.topics.get(&topic).and_then(|t| t.get(partition as usize)) else {
                    return LogResponse::Error(LogError::UnknownPartition);
                };
                let mut entries = Vec::new();
                let mut next = offset;
                // Read committed: stop at the first open transaction (the last stable offset).
                while (next as usize) < part.len() && entries.len() < max {
                    let e = &part[next as usize];
                    match e.status {
                        Status::Pending => break,
                        Status::Committed => entries.push((next, e.record.clone())),
                        Status::Aborted => {}
                    }
                    next += 1;
                }
                LogResponse::Fetched { entries, next_offset: next }
            }
            LogRequest::Produce { topic, partition, records, txn, sequence } => {
                if let Some(t) = &txn {
                    let Some(p) = s.producers.get_mut(&t.id).filter(|p| p.epoch == t.epoch) else {
                        return LogResponse::Error(LogError::Fenced);
                    };
                    if sequence < p.next_sequence {
                        return LogResponse::Ok; // a retry of a batch that was appended
                    }
                    if sequence > p.next_sequence {
                        return LogResponse::Error(LogError::OutOfOrderSequence);
                    }
                    p.next_sequence += 1;
                }
                let State { topics, producers } = &mut *s;
                let Some(part) = topics.get_mut(&topic).and_then(|t| t.get_mut(partition as usize)) else {
                    return LogResponse::Error(LogError::UnknownPartition);
                };
                let status = if txn.is_some() { Status::Pending } else { Status::Committed };
                let mut ids = Vec::new();
                for record in records {
                    if let Some(t) = &txn {
                        let p = producers.get_mut(&t.id).expect("checked above");
                        p.open.get_or_insert_with(Vec::new).push((topic.clone(), partition, part.len() as u64));
                    }
                    ids.push(record.id);
                    part.push(Entry { record, status });
                }
                drop(s);
                if txn.is_none() {
                    self.visible(&topic, ids);
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
                    s.topics.get_mut(&topic).unwrap()[part as usize][off as usize].status = Status::Aborted;
                }
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
                let writes = p.open.take().unwrap_or_default();
                let mut by_topic: BTreeMap<String, Vec<RecordId>> = BTreeMap::new();
                for (topic, part, off) in writes {
                    let e = &mut s.topics.get_mut(&topic).unwrap()[part as usize][off as usize];
                    e.status = Status::Committed;
                    by_topic.entry(topic).or_default().push(e.record.id);
                }
                drop(s);
                for (topic, ids) in by_topic {
                    self.visible(&topic, ids);
                }
                LogResponse::Ok
            }
            LogRequest::AbortTransaction { txn } => {
                let State { topics, producers } = &mut *s;
                match producers.get_mut(&txn.id) {
                    Some(p) if p.epoch == txn.epoch => {
                        for (topic, part, off) in p.open.take().unwrap_or_default() {
                            topics.get_mut(&topic).unwrap()[part as usize][off as usize].status = Status::Aborted;
                        }
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
        Box::pin(serve_requests(inbox, move |req| log.handle(req)))
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
    fn read_visible(&self) -> (Vec<RecordId>, Vec<String>) {
        (self.log.read_committed(&self.topic).iter().map(|r| r.id).collect(), Vec::new())
    }
}
