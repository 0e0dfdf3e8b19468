//! The producer both producer types share: partitioning, idempotence sequences, and the
//! transactional state machine librdkafka keeps (`init → ready → in transaction → ready`,
//! with abortable and fatal errors).

use super::partitioner::{BuiltIn, Custom, Sticky};
use super::pipeline::Batch;
use crate::config::Settings;
use crate::error::{KafkaError, KafkaResult, RDKafkaError, RDKafkaErrorCode};
use crate::message::{OwnedHeaders, Timestamp};
use crate::util::Timeout;
use crate::wire::{deadline, Wire};
use connsim::systems::{KafkaRequest, KafkaResponse, LogEntry, ProducerIdentity};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Where the transactional producer is.
#[derive(Clone, Debug)]
pub(super) enum Phase {
    /// `init_transactions` not called (or not done) yet.
    Init,
    Ready,
    InTransaction,
    /// A `commit_transaction` (`commit`) or `abort_transaction` timed out and goes on: the
    /// same call resumes it.
    Ending {
        commit: bool,
    },
    /// The transaction cannot commit; `abort_transaction` first.
    Abortable(RDKafkaError),
    /// The producer is finished (fenced): create a new one.
    Fatal(RDKafkaError),
}

/// What sends share, held across a send so that one producer's sends go in order.
#[derive(Default)]
pub(super) struct Sends {
    pub(super) identity: Option<ProducerIdentity>,
    /// Next sequence per `(topic, partition)` in the current epoch.
    pub(super) sequences: BTreeMap<(String, u32), i64>,
    /// Partition counts of topics seen.
    partitions: BTreeMap<String, u32>,
    /// Whether the current transaction sent the broker anything (a partition, offsets): if
    /// not, librdkafka ends it without an EndTxn.
    pub(super) txn_work: bool,
    /// Partitions the current transaction added at the coordinator.
    pub(super) added: std::collections::BTreeSet<(String, u32)>,
    /// A message of the transaction failed after its sequence was taken: the partition's
    /// sequence may have a gap, so the abort bumps the epoch (KIP-360) instead of an EndTxn.
    pub(super) needs_bump: bool,
}

impl Sends {
    /// The current transaction ended at the coordinator: the next one adds its partitions
    /// again.
    pub(super) fn transaction_ended(&mut self) {
        self.txn_work = false;
        self.added.clear();
    }

    /// The producer has a new epoch (`InitProducerId`, KIP-360's bump): sequences start at
    /// 0 on every partition, and no transaction is open.
    pub(super) fn new_epoch(&mut self, producer: ProducerIdentity) {
        self.identity = Some(producer);
        self.sequences.clear();
        self.needs_bump = false;
        self.transaction_ended();
    }
}

/// One message to send, owned.
pub(crate) struct Outgoing {
    pub topic: String,
    pub partition: Option<i32>,
    pub key: Option<Vec<u8>>,
    pub payload: Option<Vec<u8>>,
    pub timestamp: Option<i64>,
    pub headers: Option<OwnedHeaders>,
}

impl Outgoing {
    /// What it counts for against `queue.buffering.max.kbytes` (librdkafka's
    /// `rd_kafka_curr_msgs_add`: the payload's length).
    pub(crate) fn size(&self) -> usize {
        self.payload.as_ref().map_or(0, Vec::len)
    }
}

/// Where a message went.
pub(crate) struct Delivered {
    pub partition: i32,
    pub offset: i64,
    pub timestamp: Timestamp,
}

pub(crate) struct Core {
    pub(super) wire: Wire,
    pub(super) settings: Settings,
    pub(super) phase: Mutex<Phase>,
    pub(super) sends: tokio::sync::Mutex<Sends>,
    /// The context's partitioner, if it has one; else the `partitioner` property's.
    pub(super) custom: Mutex<Option<Custom>>,
    builtin: BuiltIn,
    sticky: Mutex<Sticky>,
    /// Messages (and their bytes) handed over and not yet reported delivered or failed:
    /// `queue.buffering.max.messages` and `.kbytes` bound them (`QueueFull`).
    pending: Mutex<(usize, usize)>,
    /// The error that finished the producer (`Client::fatal_error`).
    pub(crate) fatal: crate::client::FatalError,
    /// When it hands its statistics to its context.
    pub(crate) stats: crate::stats_clock::StatsClock,
    /// Messages (and their bytes) acknowledged per partition (for statistics).
    pub(super) delivered: Mutex<BTreeMap<(String, u32), (u64, u64)>>,
}

/// Milliseconds since the Unix epoch on the simulation's wall clock.
pub(crate) fn wall_clock_ms() -> i64 {
    let now = madsim::time::TimeHandle::current().now_time();
    now.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

pub(super) fn txn_error(code: RDKafkaErrorCode, message: impl Into<String>) -> RDKafkaError {
    RDKafkaError::new(code, message)
}

impl Core {
    pub(crate) fn new(settings: Settings) -> KafkaResult<Core> {
        let wire = Wire::new(&settings)?;
        let phase = if settings.transactional_id.is_some() { Phase::Init } else { Phase::Ready };
        let builtin = BuiltIn::named(settings.partitioner.as_deref().unwrap_or("consistent_random"))?;
        let settings_interval = settings.statistics_interval;
        Ok(Core {
            wire,
            settings,
            phase: Mutex::new(phase),
            sends: Default::default(),
            custom: Mutex::new(None),
            builtin,
            sticky: Mutex::default(),
            pending: Mutex::new((0, 0)),
            fatal: Default::default(),
            stats: crate::stats_clock::StatsClock::new(settings_interval),
            delivered: Mutex::default(),
        })
    }

    /// Registers the context's partitioner, if it has one, for messages that name no
    /// partition.
    pub(crate) fn register_partitioner<C, Part>(&self, context: &std::sync::Arc<C>)
    where
        C: super::ProducerContext<Part> + 'static,
        Part: super::Partitioner + 'static,
    {
        if context.get_custom_partitioner().is_some() {
            let context = context.clone();
            let custom: Custom = std::sync::Arc::new(move |topic, key, count| {
                let p = context.get_custom_partitioner().expect("registered");
                p.partition(topic, key, count, |_| true)
            });
            *self.custom.lock().unwrap() = Some(custom);
        }
    }

    /// Takes a message into the producer's queue, or refuses it while
    /// `queue.buffering.max.messages` messages or `queue.buffering.max.kbytes` of them wait
    /// for their delivery report (librdkafka's `rd_kafka_curr_msgs_add`).
    pub(crate) fn reserve(&self, bytes: usize) -> KafkaResult<()> {
        let mut p = self.pending.lock().unwrap();
        let (max_msgs, max_bytes) = (self.settings.queue_max_messages, self.settings.queue_max_kbytes * 1024);
        if (max_msgs > 0 && p.0 + 1 > max_msgs) || p.1 + bytes > max_bytes {
            return Err(KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull));
        }
        p.0 += 1;
        p.1 += bytes;
        Ok(())
    }

    /// A message's delivery report was handed out: it leaves the producer's queue.
    pub(crate) fn release(&self, bytes: usize) {
        let mut p = self.pending.lock().unwrap();
        p.0 = p.0.saturating_sub(1);
        p.1 = p.1.saturating_sub(bytes);
    }

    /// Messages handed over and not yet reported, and their bytes.
    pub(crate) fn pending_bytes(&self) -> (usize, usize) {
        *self.pending.lock().unwrap()
    }

    /// Messages handed over and not yet reported.
    pub(crate) fn pending(&self) -> usize {
        self.pending.lock().unwrap().0
    }

    pub(super) fn transactional(&self) -> KafkaResult<&str> {
        self.settings.transactional_id.as_deref().ok_or_else(|| {
            KafkaError::Transaction(txn_error(
                RDKafkaErrorCode::NotImplemented,
                "the transactional API needs transactional.id set",
            ))
        })
    }

    /// Records a transactional error, as librdkafka keeps them: a fatal error stays, and the
    /// first abortable error of a transaction is the one it keeps.
    pub(super) fn fail(&self, e: RDKafkaError) -> KafkaError {
        // librdkafka's `rd_kafka_txn_normalize_err`: the broker's fencing codes reach the
        // application as one, `__FENCED`.
        let e = match e.code() {
            RDKafkaErrorCode::InvalidProducerEpoch | RDKafkaErrorCode::ProducerFenced => {
                let normalized = RDKafkaError::new(RDKafkaErrorCode::Fenced, e.string());
                if e.is_fatal() {
                    normalized.fatal()
                } else {
                    normalized.abortable()
                }
            }
            _ => e,
        };
        if e.is_fatal() {
            self.fatal.lock().unwrap().get_or_insert((e.code(), e.string()));
        }
        let mut phase = self.phase.lock().unwrap();
        match (&*phase, e.is_fatal()) {
            (Phase::Fatal(_), _) | (Phase::Abortable(_), false) => {}
            (_, true) => *phase = Phase::Fatal(e.clone()),
            (_, false) => *phase = Phase::Abortable(e.clone()),
        }
        KafkaError::Transaction(e)
    }

    /// Sends messages in order, as librdkafka does: consecutive messages for the same
    /// partition go in one batch (at most `batch.num.messages`), the batches go out with up
    /// to `max.in.flight` requests outstanding, and a request that got no answer is retried
    /// with the same sequence until `message.timeout.ms` ([`super::pipeline`]). One result
    /// per message; after a failed batch the rest fail too, as a producer that must reset.
    pub(crate) async fn send_batch(&self, messages: Vec<Outgoing>) -> Vec<KafkaResult<Delivered>> {
        let n = messages.len();
        let transactional = self.settings.transactional_id.clone();
        if transactional.is_some() {
            let refused = match &mut *self.phase.lock().unwrap() {
                // What was queued before a commit began goes out while it flushes.
                Phase::InTransaction | Phase::Ending { commit: true } => None,
                Phase::Fatal(e) => Some(e.code()),
                _ => Some(RDKafkaErrorCode::State),
            };
            if let Some(code) = refused {
                return (0..n).map(|_| Err(KafkaError::MessageProduction(code))).collect();
            }
        }
        let until = deadline(Timeout::After(self.settings.message_timeout));
        let mut sends = self.sends.lock().await;
        // Each message's place: a batch (and its index in it), or its own failure.
        let mut places: Vec<Result<(usize, usize), KafkaError>> = Vec::with_capacity(n);
        let mut batches: Vec<Batch> = Vec::new();
        let mut open = false;
        for m in messages {
            let known = sends.partitions.contains_key(&m.topic);
            let partition = match self.partition_of(&mut sends, &m, until).await {
                Ok(p) => p,
                Err(e) => {
                    // librdkafka refuses at once only a partition its cached metadata says
                    // does not exist; a message that waited for metadata was queued, and its
                    // failed delivery leaves the transaction unable to commit.
                    let queued =
                        !known || !matches!(e, KafkaError::MessageProduction(RDKafkaErrorCode::UnknownPartition));
                    if let (Some(_), true, Some(code)) = (&transactional, queued, e.rdkafka_error_code()) {
                        let _ = self
                            .fail(txn_error(code, format!("a message of the transaction failed: {code}")).abortable());
                    }
                    places.push(Err(e));
                    open = false;
                    continue;
                }
            };
            // librdkafka stamps a message without a timestamp with the wall clock (the
            // simulation's, a date in 2022 drawn from the seed) when it is produced.
            let timestamp_ms = m.timestamp.unwrap_or_else(wall_clock_ms);
            let entry = LogEntry {
                key: m.key,
                value: m.payload,
                headers: m.headers.map(|h| h.to_log()).unwrap_or_default(),
                timestamp_ms,
            };
            let joins = open
                && batches.last().is_some_and(|b| {
                    b.topic == m.topic && b.partition == partition && b.entries.len() < self.settings.batch_max
                });
            if !joins {
                batches.push(Batch::new(m.topic, partition, Vec::new()));
                open = true;
            }
            let b = batches.len() - 1;
            places.push(Ok((b, batches[b].entries.len())));
            batches[b].entries.push(entry);
        }
        let mut outcomes: Vec<std::vec::IntoIter<KafkaResult<Delivered>>> =
            self.dispatch(&mut sends, batches, until).await.into_iter().map(Vec::into_iter).collect();
        places
            .into_iter()
            .map(|place| match place {
                Ok((b, _)) => outcomes[b].next().expect("one outcome per message"),
                Err(e) => Err(e),
            })
            .collect()
    }

    /// The partition a message goes to: its own, else the context's partitioner's choice,
    /// else the built-in partitioner's.
    async fn partition_of(
        &self,
        sends: &mut Sends,
        m: &Outgoing,
        until: Option<madsim::time::Instant>,
    ) -> KafkaResult<u32> {
        let partitions = match sends.partitions.get(&m.topic) {
            Some(&n) => n,
            None => {
                let req = KafkaRequest::Metadata { topics: Some(vec![m.topic.clone()]) };
                match self.wire.call_until(&req, until).await {
                    Some(KafkaResponse::Metadata(found)) if !found.is_empty() => {
                        sends.partitions.insert(m.topic.clone(), found[0].1);
                        found[0].1
                    }
                    Some(_) => return Err(KafkaError::MessageProduction(RDKafkaErrorCode::UnknownTopicOrPartition)),
                    None => return Err(KafkaError::MessageProduction(RDKafkaErrorCode::MessageTimedOut)),
                }
            }
        };
        let partition = match (m.partition, &*self.custom.lock().unwrap()) {
            (Some(p), _) => p,
            (None, Some(custom)) => custom(&m.topic, m.key.as_deref(), partitions as i32),
            (None, None) => {
                let mut sticky = self.sticky.lock().unwrap();
                self.builtin.partition(&mut sticky, &m.topic, m.key.as_deref(), partitions) as i32
            }
        };
        if partition < 0 || partition as u32 >= partitions {
            return Err(KafkaError::MessageProduction(RDKafkaErrorCode::UnknownPartition));
        }
        Ok(partition as u32)
    }
}
