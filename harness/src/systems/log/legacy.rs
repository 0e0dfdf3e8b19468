//! The log's own requests ([`LogRequest`]), the shape connsim's reference log connectors use.
//! Transactions here follow KIP-890: every commit or abort ends its producer epoch.

use super::{Entry, LogError, LogRequest, LogResponse, PartitionedLog, State, Status, TxnHandle};
use crate::history::{EventKind, FaultKind};
use crate::systems::Caller;

impl PartitionedLog {
    /// Serves one [`LogRequest`]; the broker's timers have run already.
    pub(super) fn handle_log(&self, s: &mut State, caller: &Caller, now_ms: u64, req: LogRequest) -> LogResponse {
        match req {
            LogRequest::ListPartitions { topic } => {
                LogResponse::Partitions(s.topics.get(&topic).map_or(0, |p| p.len() as u32))
            }
            LogRequest::ListOffsets { topic } => LogResponse::Offsets(
                s.topics.get(&topic).map(|parts| parts.iter().map(|p| p.lso()).collect()).unwrap_or_default(),
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
                // Read committed: stop at the first open transaction (the last stable offset).
                let (entries, next_offset) = super::fetch::committed(part, offset, max);
                let entries = entries.into_iter().map(|(o, e)| (o, e.clone())).collect();
                LogResponse::Fetched { entries, next_offset }
            }
            LogRequest::Produce { topic, partition, entries, txn, sequence } => {
                // A produce to a partition that does not exist is refused before its
                // sequence counts: the producer's next batch is not out of order for it.
                if s.topics.get(&topic).and_then(|t| t.get(partition as usize)).is_none() {
                    return LogResponse::Error(LogError::UnknownPartition);
                }
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
                                (true, _) => FaultKind::DuplicateSequence,
                                (false, true) => FaultKind::StaleSequence,
                                (false, false) => FaultKind::OutOfOrderSequence,
                            },
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
                let State { topics, producers, changes, .. } = s;
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
                part.hw = part.entries.len() as u64; // acks=all: replicated before the answer
                LogResponse::Ok
            }
            LogRequest::InitTransactions { id } => {
                let p = s.producers.entry(id).or_default();
                let open = p.open.take();
                p.epoch += 1;
                p.next_sequence = 0;
                // Every epoch before this one is fenced, committed ones included.
                p.fenced_below = p.epoch;
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
                // A retried commit of a transaction that committed is answered as such, as
                // long as no later `InitTransactions` fenced its epoch: after one, the broker
                // answers PRODUCER_FENCED (the coordinator no longer knows the old epoch).
                if txn.epoch < p.fenced_below {
                    return LogResponse::Error(LogError::Fenced);
                }
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
                let State { topics, producers, changes, .. } = s;
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
