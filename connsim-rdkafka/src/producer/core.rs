//! The producer both producer types share: partitioning, idempotence sequences, and the
//! transactional state machine librdkafka keeps (`init → ready → in transaction → ready`,
//! with abortable and fatal errors).

use super::partitioner::{BuiltIn, Custom, Sticky};
use crate::config::Settings;
use crate::error::{KafkaError, KafkaResult, RDKafkaError, RDKafkaErrorCode};
use crate::message::{OwnedHeaders, Timestamp};
use crate::util::Timeout;
use crate::wire::{deadline, Wire};
use connsim::systems::{Acks, KafkaRequest, KafkaResponse, LogEntry, ProducerIdentity};
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
    /// What it counts for against `queue.buffering.max.kbytes` (librdkafka: key and value).
    pub(crate) fn size(&self) -> usize {
        self.key.as_ref().map_or(0, Vec::len) + self.payload.as_ref().map_or(0, Vec::len)
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
        let mut phase = self.phase.lock().unwrap();
        match (&*phase, e.is_fatal()) {
            (Phase::Fatal(_), _) | (Phase::Abortable(_), false) => {}
            (_, true) => *phase = Phase::Fatal(e.clone()),
            (_, false) => *phase = Phase::Abortable(e.clone()),
        }
        KafkaError::Transaction(e)
    }

    /// Sends messages in order, as librdkafka does: consecutive messages for the same
    /// partition go in one batch (at most `batch.num.messages`), and a request that got no
    /// answer is retried with the same sequence until `message.timeout.ms`. One result per
    /// message; after a failed batch the rest fail too, as a producer that must reset.
    pub(crate) async fn send_batch(&self, messages: Vec<Outgoing>) -> Vec<KafkaResult<Delivered>> {
        let n = messages.len();
        let mut out = Vec::with_capacity(n);
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
        let mut batch: Vec<(String, u32, LogEntry)> = Vec::new();
        let mut failed: Option<RDKafkaErrorCode> = None;
        for m in messages {
            if let Some(code) = failed {
                out.push(Err(KafkaError::MessageProduction(code)));
                continue;
            }
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
                    // The batch before it goes first: one result per message, in order.
                    if !batch.is_empty() {
                        let sent = self.produce(&mut sends, std::mem::take(&mut batch), until).await;
                        failed = sent.iter().find_map(|r| r.as_ref().err().and_then(KafkaError::rdkafka_error_code));
                        out.extend(sent);
                    }
                    out.push(Err(e));
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
            let full = batch.len() >= self.settings.batch_max;
            if full || batch.last().is_some_and(|(t, p, _)| *t != m.topic || *p != partition) {
                let sent = self.produce(&mut sends, std::mem::take(&mut batch), until).await;
                failed = sent.iter().find_map(|r| r.as_ref().err().and_then(KafkaError::rdkafka_error_code));
                out.extend(sent);
            }
            batch.push((m.topic, partition, entry));
        }
        if !batch.is_empty() {
            match failed {
                Some(code) => out.extend(batch.iter().map(|_| Err(KafkaError::MessageProduction(code)))),
                None => out.extend(self.produce(&mut sends, batch, until).await),
            }
        }
        out
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

    /// One batch to one partition.
    async fn produce(
        &self,
        sends: &mut Sends,
        batch: Vec<(String, u32, LogEntry)>,
        until: Option<madsim::time::Instant>,
    ) -> Vec<KafkaResult<Delivered>> {
        let count = batch.len();
        let (topic, partition) = (batch[0].0.clone(), batch[0].1);
        let fail = |code| (0..count).map(|_| Err(KafkaError::MessageProduction(code))).collect::<Vec<_>>();
        if self.settings.idempotence && sends.identity.is_none() {
            // An idempotent producer without a transactional id gets its producer id lazily.
            let req =
                KafkaRequest::InitProducerId { transactional_id: None, transaction_timeout_ms: 0, producer: None };
            match self.wire.call_until(&req, until).await {
                Some(KafkaResponse::Producer(p)) => sends.identity = Some(p),
                _ => return fail(RDKafkaErrorCode::MessageTimedOut),
            }
        }
        let producer = if self.settings.idempotence { sends.identity } else { None };
        let transactional_id = self.settings.transactional_id.clone();
        if let (Some(id), Some(p)) = (&transactional_id, producer) {
            if let Err(code) = self.add_partition(sends, id, p, &topic, partition, until).await {
                return fail(code);
            }
        }
        let base_sequence = match producer {
            Some(_) => {
                let next = sends.sequences.entry((topic.clone(), partition)).or_insert(0);
                *next += count as i64;
                *next - count as i64
            }
            None => 0,
        };
        let timestamps: Vec<i64> = batch.iter().map(|(_, _, e)| e.timestamp_ms).collect();
        let acks = match self.settings.acks {
            0 => Acks::None,
            1 => Acks::Leader,
            _ => Acks::All,
        };
        let req = KafkaRequest::Produce {
            topic,
            partition,
            entries: batch.into_iter().map(|(_, _, e)| e).collect(),
            producer,
            base_sequence,
            transactional_id: transactional_id.clone(),
            acks,
        };
        let delivered = |base: i64| -> Vec<KafkaResult<Delivered>> {
            (0..count)
                .map(|i| {
                    let offset = if base < 0 { -1 } else { base + i as i64 };
                    Ok(Delivered {
                        partition: partition as i32,
                        offset,
                        timestamp: Timestamp::CreateTime(timestamps[i]),
                    })
                })
                .collect()
        };
        if acks == Acks::None {
            self.wire.send(&req);
            return delivered(-1);
        }
        let code = match self.wire.call_until(&req, until).await {
            Some(KafkaResponse::Produced { base_offset }) => return delivered(base_offset as i64),
            Some(KafkaResponse::Error(code)) => RDKafkaErrorCode::from(code),
            Some(_) => RDKafkaErrorCode::State,
            None => RDKafkaErrorCode::MessageTimedOut,
        };
        let fatal = matches!(
            code,
            RDKafkaErrorCode::InvalidProducerEpoch
                | RDKafkaErrorCode::ProducerFenced
                | RDKafkaErrorCode::OutOfOrderSequenceNumber
                | RDKafkaErrorCode::InvalidProducerIdMapping
        );
        if transactional_id.is_some() {
            // A transaction that lost a message cannot commit; a fenced producer is done.
            sends.needs_bump = true;
            let e = txn_error(code, format!("a message of the transaction failed: {code}"));
            self.fail(if fatal { e.fatal() } else { e.abortable() });
        } else if producer.is_some() {
            // The sequence may have a gap now: the next message starts a new producer id.
            sends.identity = None;
            sends.sequences.clear();
        }
        fail(code)
    }
}
