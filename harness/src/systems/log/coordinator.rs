//! The Kafka face's producer state: transactional ids with their producer id, epoch and
//! transaction (the transaction coordinator's), per-partition idempotence sequences (the
//! partition leader's producer state), and consumer groups' committed offsets (the group
//! coordinator's).

use super::state::{Partition, Status};
use super::{KafkaCode, ProducerIdentity};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// Which transaction protocol the log's Kafka face follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TxnProtocol {
    /// Brokers before KIP-890 (most deployed ones): the epoch changes only at
    /// `InitProducerId` (and when the coordinator aborts a timed-out transaction), so one
    /// `(transactional id, epoch)` names every transaction of a producer session. A produce
    /// under that epoch after a commit opens the next transaction; an `EndTxn` commits
    /// whatever transaction is ongoing then. Sequences run on across transactions.
    #[default]
    Classic,
    /// KIP-890 part 2: every `EndTxn` bumps the epoch and answers the new one; a produce of
    /// the ended epoch is refused `INVALID_PRODUCER_EPOCH`, and a retried `EndTxn` of the
    /// epoch just ended is recognised and answered as before.
    Kip890,
    /// A classic broker without partition verification (before KIP-890 part 1, KAFKA-14402):
    /// a transactional produce to a partition the ongoing transaction did not add
    /// (`AddPartitionsToTxn`), or after the transaction ended, is written all the same, but
    /// the coordinator knows nothing of it: no marker ever ends it and no timeout aborts it, so
    /// it holds the partition's last stable offset for ever (a hanging transaction).
    ClassicUnverified,
}

/// Where a transaction of a transactional id is (the coordinator's `TransactionState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TxnState {
    /// No transaction yet in this epoch.
    Empty,
    /// Partitions or offsets were added: a transaction is open.
    Ongoing,
    /// The last transaction committed.
    CompleteCommit,
    /// The last transaction aborted.
    CompleteAbort,
}

/// One transactional id at the coordinator.
pub(super) struct Txn {
    pub(super) producer: ProducerIdentity,
    /// KIP-890: the epoch of the transaction that ended last, so a retried `EndTxn` of it is
    /// recognised; cleared by `InitProducerId`.
    pub(super) ended_epoch: Option<u64>,
    pub(super) state: TxnState,
    /// Entries the ongoing transaction wrote.
    pub(super) writes: Vec<(String, u32, u64)>,
    /// The epoch the last KIP-360 bump started from, so that a retry of that bump is
    /// answered with the epoch it got (Kafka's `lastProducerEpoch`); cleared by a fencing
    /// `InitProducerId`.
    pub(super) bumped_from: Option<u64>,
    /// Partitions `AddPartitionsToTxn` added to it: each gets its marker, written to or not.
    pub(super) added: std::collections::BTreeSet<(String, u32)>,
    /// Offsets it commits for consumer groups when it commits.
    pub(super) offsets: Vec<(String, String, u32, u64)>,
    /// `transaction.timeout.ms` the producer asked for.
    pub(super) timeout_ms: u64,
    /// When the ongoing transaction started (virtual ms).
    pub(super) started_ms: u64,
}

/// A batch the leader remembers per producer and partition, to recognise its retry.
#[derive(Clone, Copy)]
pub(super) struct Batch {
    pub(super) base_sequence: i64,
    pub(super) count: i64,
    pub(super) base_offset: u64,
}

/// A producer id's state at one partition's leader.
#[derive(Default)]
pub(super) struct Sequences {
    pub(super) epoch: u64,
    /// The last batches appended, newest last; at most the log's deduplication window
    /// ([`super::PRODUCER_STATE_BATCHES`] unless a setting changed it).
    pub(super) recent: VecDeque<Batch>,
}

impl Sequences {
    /// The sequence the next batch must start at.
    pub(super) fn next(&self) -> i64 {
        self.recent.back().map_or(0, |b| b.base_sequence + b.count)
    }
}

/// The Kafka face's coordinators.
#[derive(Default)]
pub(crate) struct Coordinator {
    pub(super) protocol: TxnProtocol,
    pub(super) txns: BTreeMap<String, Txn>,
    /// Per producer id, per `(topic, partition)`.
    pub(super) sequences: BTreeMap<u64, BTreeMap<(String, u32), Sequences>>,
    /// The current epoch of every producer id handed out.
    pub(super) epochs: BTreeMap<u64, u64>,
    pub(super) next_producer_id: u64,
    /// `(group, topic, partition)` → committed offset.
    pub(super) groups: BTreeMap<(String, String, u32), u64>,
    /// The group coordinator's groups and their members.
    pub(super) members: super::group::Groups,
    /// `(reader node, split)` → the log start a fetch of that reader was last told when its
    /// position was gone: its reset (`ListOffsets` earliest) learns where the log starts now.
    pub(super) resetting: BTreeMap<(String, String), u64>,
}

impl Coordinator {
    /// Ends the ongoing transaction of `id` (commit or abort): its entries are settled, its
    /// group offsets applied on commit, and under KIP-890 its epoch bumped. Returns whether
    /// a last stable offset moved.
    pub(super) fn end(
        &mut self,
        topics: &mut BTreeMap<String, Vec<Partition>>,
        id: &str,
        commit: bool,
        now_ms: u64,
    ) -> bool {
        let protocol = self.protocol;
        let txn = self.txns.get_mut(id).expect("ended transaction exists");
        let status = if commit { Status::Committed } else { Status::Aborted };
        let moved = !txn.writes.is_empty();
        let mut touched = std::mem::take(&mut txn.added);
        for (topic, part, off) in std::mem::take(&mut txn.writes) {
            topics.get_mut(&topic).expect("written topic")[part as usize].settle(off, status);
            touched.insert((topic, part));
        }
        // KIP-98: the coordinator writes a commit or abort marker to every partition of the
        // transaction; it takes an offset there.
        for (topic, part) in touched {
            topics.get_mut(&topic).expect("written topic")[part as usize].mark(now_ms);
        }
        let offsets = std::mem::take(&mut txn.offsets);
        if commit {
            for (group, topic, part, off) in offsets {
                self.groups.insert((group, topic, part), off);
            }
        }
        txn.state = if commit { TxnState::CompleteCommit } else { TxnState::CompleteAbort };
        if protocol == TxnProtocol::Kip890 {
            // The epoch moves on: a bump of the one before is a stale one now.
            txn.bumped_from = None;
            txn.ended_epoch = Some(txn.producer.epoch);
            txn.producer.epoch += 1;
            self.epochs.insert(txn.producer.id, txn.producer.epoch);
        }
        moved
    }

    /// Aborts ongoing transactions whose timeout passed, bumping their epoch (the
    /// coordinator fences the producer it gave up on); `cap_ms` is the broker's own limit.
    /// Returns the `(transactional id, epoch)` of each.
    pub(super) fn expire(
        &mut self,
        topics: &mut BTreeMap<String, Vec<Partition>>,
        now_ms: u64,
        cap_ms: Option<u64>,
    ) -> Vec<(String, u64)> {
        let due: Vec<String> = self
            .txns
            .iter()
            .filter(|(_, t)| t.state == TxnState::Ongoing && now_ms >= t.deadline(cap_ms))
            .map(|(id, _)| id.clone())
            .collect();
        let mut expired = Vec::new();
        for id in due {
            let epoch = self.txns[&id].producer.epoch;
            self.end(topics, &id, false, now_ms);
            let txn = self.txns.get_mut(&id).expect("due transaction exists");
            // Fenced: the next epoch is one the producer was never given.
            txn.producer.epoch = epoch + 1;
            txn.ended_epoch = None;
            txn.bumped_from = None;
            self.epochs.insert(txn.producer.id, epoch + 1);
            expired.push((id, epoch));
        }
        expired
    }

    /// A request of `producer` joins the ongoing transaction of `id` (`AddPartitionsToTxn`,
    /// `AddOffsetsToTxn`), which starts if none is: refused for a producer id that is not
    /// the transactional id's, and for an epoch a newer one fenced (KIP-98).
    pub(super) fn join(&mut self, id: &str, producer: ProducerIdentity, now_ms: u64) -> Result<&mut Txn, KafkaCode> {
        let Some(txn) = self.txns.get_mut(id) else { return Err(KafkaCode::InvalidProducerIdMapping) };
        if txn.producer.id != producer.id {
            return Err(KafkaCode::InvalidProducerIdMapping);
        }
        if txn.producer.epoch != producer.epoch {
            return Err(KafkaCode::ProducerFenced);
        }
        if txn.state != TxnState::Ongoing {
            txn.state = TxnState::Ongoing;
            txn.started_ms = now_ms;
        }
        Ok(txn)
    }

    /// The earliest deadline of an ongoing transaction or a group's timer, if any.
    pub(super) fn next_deadline(&self, cap_ms: Option<u64>) -> Option<u64> {
        let txn = self.txns.values().filter(|t| t.state == TxnState::Ongoing).map(|t| t.deadline(cap_ms)).min();
        [txn, self.members.next_deadline()].into_iter().flatten().min()
    }

    /// Whether an open transaction commits offsets of `group` for the partition (KIP-447's
    /// unstable offsets).
    pub(super) fn pending_offset(&self, group: &str, topic: &str, partition: u32) -> bool {
        self.txns
            .values()
            .filter(|t| t.state == TxnState::Ongoing)
            .any(|t| t.offsets.iter().any(|(g, tp, p, _)| g == group && tp == topic && *p == partition))
    }
}

impl Txn {
    fn deadline(&self, cap_ms: Option<u64>) -> u64 {
        let timeout = cap_ms.map_or(self.timeout_ms, |cap| cap.min(self.timeout_ms));
        self.started_ms.saturating_add(timeout)
    }
}
