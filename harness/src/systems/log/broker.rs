//! The broker side of the log's Kafka face ([`KafkaRequest`]): partition leaders, the
//! transaction coordinator and the group coordinator, each rule named after the Kafka
//! behaviour it follows.

use super::coordinator::{Batch, Sequences, Txn, TxnProtocol, TxnState};
use super::kafka::{Acks, Fetched, KafkaCode, KafkaRequest, KafkaResponse, OffsetSpec, ProducerIdentity};
use super::state::{Entry, State, Status};
use super::PartitionedLog;
use crate::history::{EventKind, FaultKind};
use crate::systems::Caller;

use KafkaCode::*;

fn refuse(code: KafkaCode) -> KafkaResponse {
    KafkaResponse::Error(code)
}

impl PartitionedLog {
    /// Serves one [`KafkaRequest`]; the broker's timers have run already.
    pub(super) fn handle_kafka(&self, s: &mut State, caller: &Caller, now_ms: u64, req: KafkaRequest) -> KafkaResponse {
        match req {
            KafkaRequest::Metadata { topics } => {
                let known = |t: &String| s.topics.get(t).map(|p| (t.clone(), p.len() as u32));
                match topics {
                    None => KafkaResponse::Metadata(s.topics.keys().filter_map(known).collect()),
                    Some(names) => match names.iter().map(known).collect::<Option<Vec<_>>>() {
                        Some(found) => KafkaResponse::Metadata(found),
                        None => refuse(UnknownTopicOrPartition),
                    },
                }
            }
            KafkaRequest::Admin(req) => self.handle_admin(s, now_ms, req),
            KafkaRequest::InitProducerId { transactional_id, transaction_timeout_ms, producer } => {
                let k = &mut s.kafka;
                let Some(id) = transactional_id else {
                    // An idempotent producer without a transactional id: a fresh producer id.
                    let producer = ProducerIdentity { id: k.next_producer_id, epoch: 0 };
                    k.next_producer_id += 1;
                    k.epochs.insert(producer.id, 0);
                    return KafkaResponse::Producer(producer);
                };
                if transaction_timeout_ms > super::TRANSACTION_MAX_TIMEOUT_MS {
                    return refuse(InvalidTransactionTimeout);
                }
                // KIP-360: a producer bumping its own epoch must hold the current one, so a
                // fenced producer cannot fence its successor this way; a retry of the last
                // bump (its answer lost) is answered with the epoch that bump gave.
                if let Some(p) = producer {
                    match k.txns.get(&id).map(|t| (t.producer, t.bumped_from)) {
                        Some((current, _)) if current.id != p.id => return refuse(InvalidProducerIdMapping),
                        Some((current, Some(from))) if from == p.epoch => return KafkaResponse::Producer(current),
                        Some((current, _)) if current.epoch != p.epoch => return refuse(ProducerFenced),
                        Some(_) => {}
                        None => return refuse(InvalidProducerIdMapping),
                    }
                }
                // An ongoing transaction of the id is aborted, and the new epoch fences
                // every producer of an older one (KIP-98's zombie fencing).
                if k.txns.get(&id).is_some_and(|t| t.state == TxnState::Ongoing) {
                    k.end(&mut s.topics, &id, false, now_ms);
                    s.changes += 1;
                }
                let fresh = ProducerIdentity { id: k.next_producer_id, epoch: 0 };
                let txn = k.txns.entry(id).or_insert_with(|| {
                    k.next_producer_id += 1;
                    Txn {
                        producer: ProducerIdentity { epoch: u64::MAX, ..fresh },
                        ended_epoch: None,
                        state: TxnState::Empty,
                        writes: Vec::new(),
                        bumped_from: None,
                        added: Default::default(),
                        offsets: Vec::new(),
                        timeout_ms: 0,
                        started_ms: 0,
                    }
                });
                txn.bumped_from = producer.map(|p| p.epoch);
                txn.producer.epoch = txn.producer.epoch.wrapping_add(1);
                txn.ended_epoch = None;
                txn.state = TxnState::Empty;
                txn.timeout_ms = transaction_timeout_ms;
                k.epochs.insert(txn.producer.id, txn.producer.epoch);
                KafkaResponse::Producer(txn.producer)
            }
            KafkaRequest::Produce { topic, partition, entries, producer, base_sequence, transactional_id, acks } => {
                self.produce(s, now_ms, topic, partition, entries, producer, base_sequence, transactional_id, acks)
            }
            // AddOffsetsToTxn: the group joins the transaction, which starts if none is.
            KafkaRequest::TxnOffsetCommit { transactional_id, producer, group, member, offsets } => {
                // AddOffsetsToTxn first (the transaction starts at its coordinator), then the
                // group coordinator's TxnOffsetCommit checks the member (KIP-447): a refusal
                // leaves a transaction the client can abort.
                if let Err(code) = s.kafka.join(&transactional_id, producer, now_ms) {
                    return refuse(code);
                }
                if let Err(code) = s.kafka.members.validate_txn_commit(&group, member.as_ref()) {
                    return refuse(code);
                }
                let txn = s.kafka.join(&transactional_id, producer, now_ms).expect("joined above");
                txn.offsets.extend(offsets.into_iter().map(|(t, p, o)| (group.clone(), t, p, o)));
                KafkaResponse::Ok
            }
            KafkaRequest::AddPartitionsToTxn { transactional_id, producer, topic, partition } => {
                if s.topics.get(&topic).and_then(|t| t.get(partition as usize)).is_none() {
                    return refuse(UnknownTopicOrPartition);
                }
                match s.kafka.join(&transactional_id, producer, now_ms) {
                    Ok(txn) => txn.added.insert((topic, partition)),
                    Err(code) => return refuse(code),
                };
                KafkaResponse::Ok
            }
            KafkaRequest::EndTxn { transactional_id, producer, commit } => {
                self.end_txn(s, &transactional_id, producer, commit, now_ms)
            }
            KafkaRequest::Fetch { topic, partition, offset, max, read_committed } => {
                let Some(part) = s.topics.get(&topic).and_then(|t| t.get(partition as usize)) else {
                    return refuse(UnknownTopicOrPartition);
                };
                // The valid range runs to the log end offset: a fetch above the high
                // watermark but not past the end is answered with nothing yet, as a leader
                // answers while followers catch up; past the end (a truncation lost what the
                // consumer saw) it is out of range.
                if offset < part.start || offset > part.entries.len() as u64 {
                    if offset < part.start {
                        let split = part.split.clone();
                        let (reader, call) = (caller.node.clone(), caller.call);
                        s.kafka.resetting.insert((reader.clone(), split.clone()), part.start);
                        let event = EventKind::OutOfRange { split, offset, start: part.start, reader, call };
                        self.history.record(&self.name, event);
                    }
                    return refuse(OffsetOutOfRange);
                }
                // `isolation.level=read_committed` reads to the last stable offset and leaves
                // aborted entries out; `read_uncommitted` reads to the high watermark, open
                // and aborted transactions' entries included (KIP-98).
                let end = if read_committed { part.lso() } else { part.hw };
                let (mut entries, mut markers, mut next) = (Vec::new(), Vec::new(), offset);
                while next < end && entries.len() < max {
                    let e = &part.entries[next as usize];
                    // Markers are never returned; the offset they take is skipped.
                    if e.status == Status::Marker {
                        markers.push(next);
                    } else if e.status == Status::Committed || !read_committed {
                        entries.push((next, e.entry.clone()));
                    }
                    next += 1;
                }
                let (log_start, high_watermark, last_stable_offset) = (part.start, part.hw, part.lso());
                KafkaResponse::Fetched(Fetched {
                    entries,
                    markers,
                    next_offset: next,
                    log_start,
                    high_watermark,
                    last_stable_offset,
                })
            }
            KafkaRequest::ListOffsets { topic, partition, spec, read_committed } => {
                let Some(part) = s.topics.get(&topic).and_then(|t| t.get(partition as usize)) else {
                    return refuse(UnknownTopicOrPartition);
                };
                // A consumer resetting after an out-of-range fetch learns where the log starts
                // now: what retention deleted since it was told is gone for it too (recorded
                // as the rest of the out-of-range answer: from the start it was told then to
                // the start now).
                let reset = (caller.node.clone(), part.split.clone());
                if spec == OffsetSpec::Earliest {
                    if let Some(offset) = s.kafka.resetting.remove(&reset).filter(|told| *told < part.start) {
                        let (split, reader, call, start) = (reset.1, reset.0, caller.call, part.start);
                        self.history.record(&self.name, EventKind::OutOfRange { split, offset, start, reader, call });
                    }
                }
                let end = if read_committed { part.lso() } else { part.hw };
                match spec {
                    OffsetSpec::Earliest => KafkaResponse::Offset(part.start),
                    OffsetSpec::Latest => KafkaResponse::Offset(end),
                    // KIP-79: the first message at or after the timestamp (markers are not
                    // messages), if it is below the end the client may read to.
                    OffsetSpec::Timestamp(ts) => KafkaResponse::OffsetForTime((part.start..end).find(|&o| {
                        let e = &part.entries[o as usize];
                        e.status != Status::Marker && e.entry.timestamp_ms >= ts
                    })),
                }
            }
            KafkaRequest::OffsetCommit { group, member, offsets } => {
                if let Err(code) = s.kafka.members.validate_commit(&group, member.as_ref()) {
                    return refuse(code);
                }
                for (topic, partition, offset) in offsets {
                    s.kafka.groups.insert((group.clone(), topic, partition), offset);
                }
                KafkaResponse::Ok
            }
            KafkaRequest::OffsetFetch { group, partitions, require_stable } => {
                if require_stable && partitions.iter().any(|(t, p)| s.kafka.pending_offset(&group, t, *p)) {
                    return refuse(UnstableOffsetCommit);
                }
                KafkaResponse::Committed(
                    partitions.into_iter().map(|(t, p)| s.kafka.groups.get(&(group.clone(), t, p)).copied()).collect(),
                )
            }
            // Served with the caller's replier (answers may wait): `PartitionedLog::handle_group`.
            KafkaRequest::Group(_) => unreachable!("group requests are served by handle_group"),
        }
    }

    /// A partition leader's `Produce`: the producer's epoch is checked, then its sequence
    /// for this partition (KIP-98's idempotence: the next batch is appended; a retry of one
    /// of the last five is answered with its offset and not appended again; anything else is
    /// `OUT_OF_ORDER_SEQUENCE_NUMBER`).
    #[allow(clippy::too_many_arguments)]
    fn produce(
        &self,
        s: &mut State,
        now_ms: u64,
        topic: String,
        partition: u32,
        entries: Vec<crate::systems::LogEntry>,
        producer: Option<ProducerIdentity>,
        base_sequence: i64,
        transactional_id: Option<String>,
        acks: Acks,
    ) -> KafkaResponse {
        if s.topics.get(&topic).and_then(|t| t.get(partition as usize)).is_none() {
            return refuse(UnknownTopicOrPartition);
        }
        // The batches a producer's state keeps per partition (five on a broker; the
        // `DeduplicationWindow` setting changes it).
        let window = s.dedup_window.unwrap_or(u64::MAX);
        let k = &mut s.kafka;
        if let Some(tid) = &transactional_id {
            let Some(txn) = k.txns.get(tid) else { return refuse(InvalidProducerIdMapping) };
            match producer {
                Some(p) if p.id != txn.producer.id => return refuse(InvalidProducerIdMapping),
                Some(p) if p.epoch != txn.producer.epoch => return refuse(InvalidProducerEpoch),
                Some(_) => {}
                None => return refuse(InvalidProducerIdMapping),
            }
        }
        if let Some(p) = producer {
            match k.epochs.get(&p.id) {
                None => return refuse(InvalidProducerIdMapping),
                Some(&current) if current != p.epoch => return refuse(InvalidProducerEpoch),
                Some(_) => {}
            }
            let seqs = k.sequences.entry(p.id).or_default().entry((topic.clone(), partition)).or_default();
            if seqs.epoch != p.epoch {
                // A new epoch starts its sequences at 0 on every partition.
                *seqs = Sequences { epoch: p.epoch, ..Sequences::default() };
            }
            let next = seqs.next();
            if base_sequence != next {
                let duplicate = seqs.recent.iter().find(|b| b.base_sequence == base_sequence).copied();
                let fault = match (duplicate.is_some(), base_sequence < next) {
                    (true, _) => FaultKind::DuplicateSequence,
                    (false, true) => FaultKind::StaleSequence,
                    (false, false) => FaultKind::OutOfOrderSequence,
                };
                let kind = format!("{topic}-{partition} sequence {base_sequence}, next {next}");
                let to = transactional_id.clone().unwrap_or_else(|| format!("producer {}", p.id));
                let event = EventKind::Fault { fault, from: self.name.clone(), to, kind, call: None };
                self.history.record(&self.name, event);
                return match duplicate {
                    Some(b) => KafkaResponse::Produced { base_offset: b.base_offset },
                    None => refuse(OutOfOrderSequenceNumber),
                };
            }
        }
        // Without partition verification, a produce the transaction did not add hangs.
        let hangs = transactional_id.as_ref().is_some_and(|tid| {
            let txn = &k.txns[tid];
            k.protocol == TxnProtocol::ClassicUnverified
                && (txn.state != TxnState::Ongoing || !txn.added.contains(&(topic.clone(), partition)))
        });
        let part = &mut s.topics.get_mut(&topic).expect("checked above")[partition as usize];
        let base_offset = part.entries.len() as u64;
        let count = entries.len() as i64;
        let status = if transactional_id.is_some() { Status::Pending } else { Status::Committed };
        let replicated = acks == Acks::All;
        for entry in entries {
            let offset = part.push(Entry { entry, status, appended_ms: now_ms }, replicated);
            if transactional_id.is_some() {
                part.open.insert(offset);
            }
        }
        s.lagging |= !replicated;
        s.changes += 1;
        if let Some(p) = producer {
            let seqs = k.sequences.get_mut(&p.id).and_then(|m| m.get_mut(&(topic.clone(), partition)));
            let seqs = seqs.expect("made above");
            seqs.recent.push_back(Batch { base_sequence, count, base_offset });
            if seqs.recent.len() as u64 > window {
                seqs.recent.pop_front();
            }
        }
        if hangs {
            let event = EventKind::Fault {
                fault: FaultKind::HangingTransaction,
                from: self.name.clone(),
                to: transactional_id.clone().unwrap_or_default(),
                kind: format!("{topic}-{partition} offsets {base_offset}..{}", base_offset + count as u64),
                call: None,
            };
            self.history.record(&self.name, event);
            return KafkaResponse::Produced { base_offset };
        }
        if let Some(tid) = transactional_id {
            // AddPartitionsToTxn: the partition joins the ongoing transaction, which starts
            // if none is. On a classic broker this is also how a late produce of an ended
            // transaction's epoch opens the next one.
            let txn = k.txns.get_mut(&tid).expect("checked above");
            if txn.state != TxnState::Ongoing {
                txn.state = TxnState::Ongoing;
                txn.started_ms = now_ms;
            }
            txn.writes.extend((base_offset..base_offset + count as u64).map(|o| (topic.clone(), partition, o)));
        }
        KafkaResponse::Produced { base_offset }
    }

    /// The transaction coordinator's `EndTxn`. An epoch an `InitProducerId` replaced is
    /// `PRODUCER_FENCED`, whatever became of its transaction; a retry of the `EndTxn` that
    /// completed the id's last transaction is answered as the first was.
    fn end_txn(&self, s: &mut State, id: &str, producer: ProducerIdentity, commit: bool, now_ms: u64) -> KafkaResponse {
        let k = &mut s.kafka;
        let Some(txn) = k.txns.get(id) else { return refuse(InvalidProducerIdMapping) };
        if txn.producer.id != producer.id {
            return refuse(InvalidProducerIdMapping);
        }
        let completed = match txn.state {
            TxnState::CompleteCommit => Some(true),
            TxnState::CompleteAbort => Some(false),
            _ => None,
        };
        let current = producer.epoch == txn.producer.epoch;
        let retry_of_last = match k.protocol {
            TxnProtocol::Classic | TxnProtocol::ClassicUnverified => current,
            TxnProtocol::Kip890 => txn.ended_epoch == Some(producer.epoch),
        };
        if retry_of_last && completed.is_some() {
            return match completed == Some(commit) {
                true => KafkaResponse::Producer(txn.producer),
                false => refuse(InvalidTxnState),
            };
        }
        if !current {
            return refuse(ProducerFenced);
        }
        if txn.state != TxnState::Ongoing {
            return refuse(InvalidTxnState);
        }
        if k.end(&mut s.topics, id, commit, now_ms) {
            s.changes += 1;
        }
        KafkaResponse::Producer(s.kafka.txns[id].producer)
    }
}
