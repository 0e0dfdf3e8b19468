//! An upstream transactional producer: what a topic written by a Kafka Streams job or
//! another exactly-once sink holds. Committed transactions end in a commit marker, aborted
//! ones in an abort marker, and an open one holds every read-committed consumer back at its
//! first offset (the last stable offset) until it ends. Markers take offsets, so a
//! partition's offsets have gaps and it may end in a control record no consumer returns.

use super::state::{Entry, Status};
use super::PartitionedLog;
use crate::record::Record;
use crate::systems::LogEntry;

/// One transaction of an upstream producer, in one partition.
#[derive(Clone, Debug)]
pub enum UpstreamTxn {
    /// Records committed together, then the commit marker; each is a produced record.
    Committed(u32, Vec<Record>),
    /// Entries of a transaction that aborted, then the abort marker; none is ever read
    /// committed, nor is any a produced record (a source that reads them invents records).
    Aborted(u32, Vec<LogEntry>),
    /// Entries of a transaction still open: no marker yet, and nothing behind it is read
    /// committed until [`PartitionedLog::abort_upstream`] ends it.
    Open(u32, Vec<LogEntry>),
}

/// A transaction an upstream producer left open, to end later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenUpstream {
    topic: String,
    partition: u32,
    offsets: Vec<u64>,
}

impl PartitionedLog {
    /// Writes `txns` in order into `topic`, under one lock (one producer call per
    /// transaction would write the same entries and `Produced` events); returns the open
    /// ones, to end with [`PartitionedLog::abort_upstream`].
    pub fn append_transactions(&self, topic: &str, txns: Vec<UpstreamTxn>) -> Vec<OpenUpstream> {
        let format = self.format(topic);
        let now_ms = madsim::time::TimeHandle::try_current().map_or(0, |t| t.elapsed().as_millis() as u64);
        let mut s = self.state.lock().unwrap();
        let parts = s.topics.get_mut(topic).expect("topic exists");
        let partition_of = |t: &UpstreamTxn| match t {
            UpstreamTxn::Committed(p, _) | UpstreamTxn::Aborted(p, _) | UpstreamTxn::Open(p, _) => *p,
        };
        if let Some(p) = txns.iter().map(partition_of).find(|p| *p as usize >= parts.len()) {
            let n = parts.len();
            drop(s);
            panic!("append_transactions: topic {topic} has {n} partitions, no partition {p}");
        }
        // Where every produced record lands: offsets as the markers and aborted entries
        // before it leave them.
        let mut next: Vec<u64> = parts.iter().map(|p| p.entries.len() as u64).collect();
        let mut produced = Vec::new();
        for txn in &txns {
            match txn {
                UpstreamTxn::Committed(p, records) => {
                    let split = parts[*p as usize].split.as_str();
                    for r in records {
                        produced.push((r, split, next[*p as usize]));
                        next[*p as usize] += 1;
                    }
                    next[*p as usize] += 1;
                }
                UpstreamTxn::Aborted(p, entries) => next[*p as usize] += entries.len() as u64 + 1,
                UpstreamTxn::Open(p, entries) => next[*p as usize] += entries.len() as u64,
            }
        }
        self.history.record_produced_all(&self.name, produced);
        let mut open = Vec::new();
        for txn in txns {
            match txn {
                UpstreamTxn::Committed(p, records) => {
                    let part = &mut parts[p as usize];
                    for r in &records {
                        part.push(
                            Entry { entry: format.entry(r), status: Status::Committed, appended_ms: now_ms },
                            true,
                        );
                    }
                    part.mark(now_ms);
                }
                UpstreamTxn::Aborted(p, entries) => {
                    let part = &mut parts[p as usize];
                    for entry in entries {
                        part.push(Entry { entry, status: Status::Aborted, appended_ms: now_ms }, true);
                    }
                    part.mark(now_ms);
                }
                UpstreamTxn::Open(p, entries) => {
                    let part = &mut parts[p as usize];
                    let offsets: Vec<u64> = entries
                        .into_iter()
                        .map(|entry| part.push(Entry { entry, status: Status::Pending, appended_ms: now_ms }, true))
                        .collect();
                    part.open.extend(&offsets);
                    open.push(OpenUpstream { topic: topic.to_string(), partition: p, offsets });
                }
            }
        }
        s.changes += 1;
        open
    }

    /// Aborts a transaction the upstream producer left open (its timeout ran out, or it
    /// gave up): its entries are aborted and the abort marker follows; what was behind it
    /// becomes readable.
    pub fn abort_upstream(&self, txn: OpenUpstream) {
        let now_ms = madsim::time::TimeHandle::try_current().map_or(0, |t| t.elapsed().as_millis() as u64);
        let mut s = self.state.lock().unwrap();
        let part = &mut s.topics.get_mut(&txn.topic).expect("topic exists")[txn.partition as usize];
        for offset in txn.offsets {
            part.settle(offset, Status::Aborted);
        }
        part.mark(now_ms);
        s.changes += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{EventKind, History};
    use crate::systems::RecordLogFormat;

    fn record(id: u64) -> Record {
        Record::new(crate::record::RecordId(id), id, id as i64, format!("v{id}").into_bytes())
    }

    /// KIP-98: every transaction end takes an offset (its marker), aborted entries are never
    /// read committed, and an open transaction holds the last stable offset at its first entry
    /// until it ends; produced records are recorded at the offsets they landed on.
    #[test]
    fn markers_take_offsets_and_an_open_transaction_holds_readers_back() {
        let history = History::new();
        let log = PartitionedLog::new("log", history.clone());
        log.create_topic("input", 1);
        let aborted = vec![RecordLogFormat::encode(&record(90))];
        let open = log.append_transactions(
            "input",
            vec![
                UpstreamTxn::Committed(0, vec![record(1), record(2)]),
                UpstreamTxn::Aborted(0, aborted),
                UpstreamTxn::Open(0, vec![RecordLogFormat::encode(&record(91))]),
                UpstreamTxn::Committed(0, vec![record(3)]),
            ],
        );
        // r1 r2 marker | aborted marker | open | r3 marker
        assert_eq!(log.end_offset("input", 0), 8);
        let positions: Vec<(u64, u64)> = history
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Produced { id, pos, .. } => Some((id.0, *pos)),
                _ => None,
            })
            .collect();
        assert_eq!(positions, vec![(1, 0), (2, 1), (3, 6)]);
        let ids = |log: &PartitionedLog| -> Vec<u64> {
            log.read_committed("input").iter().map(|e| RecordLogFormat::into_record(e.clone()).unwrap().id.0).collect()
        };
        // r3 is committed, but behind the open transaction.
        assert_eq!(ids(&log), vec![1, 2]);
        assert_eq!(open.len(), 1);
        log.abort_upstream(open.into_iter().next().unwrap());
        assert_eq!(ids(&log), vec![1, 2, 3]);
        // The abort marker took an offset too: the partition ends in a control record.
        assert_eq!(log.end_offset("input", 0), 9);
    }
}
