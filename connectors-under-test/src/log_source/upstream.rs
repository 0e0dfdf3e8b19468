//! The input as a transactional upstream writes it (on real data): a Kafka Streams job or
//! another exactly-once sink. Records arrive in committed transactions of one to six, each
//! ending in a commit marker; an aborted transaction sits before every fourth; a transaction
//! left open mid-stream holds every read-committed reader of its partition back until it is
//! aborted; and a bounded read's partitions end in a control record, then in a transaction
//! still open (the upstream's next one, within its timeout) past the stopping offsets.

use super::new_record;
use connsim::record::Record;
use connsim::run::{RecordMaker, World};
use connsim::systems::{LogEntry, OpenUpstream, PartitionedLog, RecordLogFormat, UpstreamTxn};
use rand::Rng;

/// Largest committed upstream transaction, in records.
const TXN_MAX: usize = 6;

/// Entries no read-committed consumer may return: records made up for an aborted or open
/// transaction, never produced.
fn junk(world: &mut World, n: u64) -> Vec<LogEntry> {
    (0..n).map(|_| RecordLogFormat::encode(&new_record(world))).collect()
}

/// What the upstream of a bounded read writes, round by round (all of it at once when the
/// records are there at the start), and what it leaves open at the tail.
pub(super) struct Plan {
    rounds: Vec<Vec<Step>>,
    tail: Vec<UpstreamTxn>,
}

enum Step {
    Txn(UpstreamTxn),
    /// Aborts the transaction left open mid-stream.
    AbortOpen,
}

impl Plan {
    /// The transactions of `rounds` (each a list of (partition, record)) among `partitions`:
    /// each round's records of a partition in committed transactions of one to six, an
    /// aborted one before every fourth, and, over three rounds or more, a transaction left
    /// open in partition 0 in the first round and aborted in the fourth (or the last).
    pub(super) fn new(world: &mut World, partitions: u32, rounds: Vec<Vec<(u32, Record)>>) -> Self {
        let n_rounds = rounds.len();
        let mut plan = Plan { rounds: Vec::with_capacity(n_rounds), tail: Vec::new() };
        let mut count = 0u64;
        for (round, records) in rounds.into_iter().enumerate() {
            let mut by_partition: Vec<Vec<Record>> = vec![Vec::new(); partitions as usize];
            for (p, r) in records {
                by_partition[p as usize].push(r);
            }
            let mut steps = Vec::new();
            if n_rounds >= 3 && round == 3.min(n_rounds - 1) {
                steps.push(Step::AbortOpen);
            }
            for (p, records) in by_partition.into_iter().enumerate() {
                let p = p as u32;
                let mut rest = records.into_iter().peekable();
                while rest.peek().is_some() {
                    if count % 4 == 1 {
                        let size = world.rng().gen_range(1..=2);
                        steps.push(Step::Txn(UpstreamTxn::Aborted(p, junk(world, size))));
                    }
                    let size = world.rng().gen_range(1..=TXN_MAX);
                    steps.push(Step::Txn(UpstreamTxn::Committed(p, rest.by_ref().take(size).collect())));
                    count += 1;
                }
            }
            if n_rounds >= 3 && round == 0 {
                steps.push(Step::Txn(UpstreamTxn::Open(0, junk(world, 1))));
            }
            plan.rounds.push(steps);
        }
        plan.tail = (0..partitions).map(|p| UpstreamTxn::Open(p, junk(world, 1))).collect();
        plan
    }

    /// The offsets the rounds take in each partition: records, aborted entries, open
    /// entries and every marker (not the tail's open transactions).
    pub(super) fn offsets_taken(&self, partitions: u32) -> Vec<u64> {
        let mut taken = vec![0u64; partitions as usize];
        for step in self.rounds.iter().flatten() {
            match step {
                Step::Txn(UpstreamTxn::Committed(p, r)) => taken[*p as usize] += r.len() as u64 + 1,
                Step::Txn(UpstreamTxn::Aborted(p, e)) => taken[*p as usize] += e.len() as u64 + 1,
                Step::Txn(UpstreamTxn::Open(p, e)) => taken[*p as usize] += e.len() as u64,
                Step::AbortOpen => taken[0] += 1,
            }
        }
        taken
    }

    /// Writes round `round`; after the last, the tail's open transactions.
    pub(super) fn write_round(&mut self, log: &PartitionedLog, round: usize, open: &mut Option<OpenUpstream>) {
        let mut txns = Vec::new();
        for step in std::mem::take(&mut self.rounds[round]) {
            match step {
                Step::Txn(txn) => txns.push(txn),
                Step::AbortOpen => {
                    *open = log.append_transactions("input", std::mem::take(&mut txns)).pop().or(open.take());
                    if let Some(o) = open.take() {
                        log.abort_upstream(o);
                    }
                }
            }
        }
        if round + 1 == self.rounds.len() {
            txns.append(&mut self.tail);
        }
        let opened = log.append_transactions("input", txns);
        if round + 1 < self.rounds.len() {
            *open = opened.into_iter().next().or(open.take());
        }
    }
}

/// The upstream of an unbounded read, round by round: each round's records of a partition
/// are one committed transaction; every third round aborts one in the round's partition
/// first. Round 1 leaves a transaction open in partition 0, aborted three rounds later.
pub(super) struct Rounds {
    open: Option<OpenUpstream>,
}

impl Rounds {
    /// Before the first round.
    pub(super) fn new() -> Self {
        Self { open: None }
    }

    /// Writes round `round`'s `records` (partition, record) among `partitions`.
    pub(super) fn write(
        &mut self,
        log: &PartitionedLog,
        maker: &RecordMaker,
        rng: &mut impl Rng,
        round: u64,
        partitions: u32,
        records: Vec<(u32, Record)>,
    ) {
        let mut junk = || {
            let key = rng.gen_range(0..1_000u64);
            RecordLogFormat::encode(&maker.make(key, b"aborted".to_vec()))
        };
        let mut txns = Vec::new();
        if round % 3 == 2 {
            txns.push(UpstreamTxn::Aborted((round % u64::from(partitions)) as u32, vec![junk()]));
        }
        if round == 4 {
            if let Some(open) = self.open.take() {
                log.abort_upstream(open);
            }
        }
        let mut by_partition: Vec<Vec<Record>> = vec![Vec::new(); partitions as usize];
        for (p, r) in records {
            by_partition[p as usize].push(r);
        }
        txns.extend(
            by_partition
                .into_iter()
                .enumerate()
                .filter(|(_, r)| !r.is_empty())
                .map(|(p, r)| UpstreamTxn::Committed(p as u32, r)),
        );
        if round == 1 {
            txns.push(UpstreamTxn::Open(0, vec![junk()]));
        }
        self.open = log.append_transactions("input", txns).pop().or(self.open.take());
    }

    /// The run's rounds are over: a transaction still open is aborted.
    pub(super) fn finish(mut self, log: &PartitionedLog) {
        if let Some(open) = self.open.take() {
            log.abort_upstream(open);
        }
    }
}
