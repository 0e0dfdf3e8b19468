//! Produce requests in flight, as librdkafka's broker thread sends them: up to
//! `max.in.flight.requests.per.connection` at once on the producer's connection (one broker
//! here), each batch retried with its sequence until `message.timeout.ms` when it gets no
//! answer.
//!
//! A retry goes back to the head of the queue, before the batches not sent yet, but after
//! those already in flight. With idempotence the broker refuses a batch that overtook a
//! missing one (`OUT_OF_ORDER_SEQUENCE_NUMBER`) and recognises a retry of one it wrote, and
//! the client sends the refused one again after the missing one (librdkafka's drain and
//! resend), so the partition's log keeps the producer's order. Without idempotence a lost
//! request lets the later batches in flight overtake its retry (the partition is reordered),
//! and a lost answer (the batch was written) makes the retry a duplicate, as with librdkafka
//! and a real broker.

use super::core::{txn_error, Core, Delivered, Sends};
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::message::Timestamp;
use connsim::net::RpcError;
use connsim::systems::{Acks, KafkaCode, KafkaRequest, KafkaResponse, LogEntry, ProducerIdentity};
use futures::stream::{FuturesUnordered, StreamExt};
use std::collections::BTreeSet;

/// One batch for one partition.
pub(super) struct Batch {
    pub(super) topic: String,
    pub(super) partition: u32,
    pub(super) entries: Vec<LogEntry>,
    /// Its producer identity and base sequence, fixed when it is first sent.
    sent_as: Option<(Option<ProducerIdentity>, i64)>,
}

impl Batch {
    pub(super) fn new(topic: String, partition: u32, entries: Vec<LogEntry>) -> Batch {
        Batch { topic, partition, entries, sent_as: None }
    }
}

type Outcome = Vec<KafkaResult<Delivered>>;

impl Core {
    /// Sends `batches` in order with up to `max.in.flight` requests outstanding; one
    /// outcome per batch, in their order. Once one fails, those not sent yet fail with it
    /// (the producer must reset, as librdkafka's).
    pub(super) async fn dispatch(
        &self,
        sends: &mut Sends,
        batches: Vec<Batch>,
        until: Option<madsim::time::Instant>,
    ) -> Vec<Outcome> {
        let n = batches.len();
        let mut batches: Vec<Option<Batch>> = batches.into_iter().map(Some).collect();
        let mut outcomes: Vec<Option<Outcome>> = (0..n).map(|_| None).collect();
        let idempotent = self.settings.idempotence;
        let window = self.settings.max_in_flight.max(1) as usize;
        let acks = match self.settings.acks {
            0 => Acks::None,
            1 => Acks::Leader,
            _ => Acks::All,
        };
        // Batch indices waiting to go out, in order; a retry goes back in its place.
        let mut queue: BTreeSet<usize> = (0..n).collect();
        let mut in_flight = FuturesUnordered::new();
        let mut failed: Option<RDKafkaErrorCode> = None;
        loop {
            while in_flight.len() < window {
                let Some(i) = queue.pop_first() else { break };
                let batch = batches[i].as_mut().expect("a batch is sent once at a time");
                if let Some(code) = failed {
                    outcomes[i] = Some(fail_all(batch.entries.len(), code));
                    continue;
                }
                let req = match self.request(sends, batch, acks, until).await {
                    Ok(req) => req,
                    Err(code) => {
                        failed = Some(code);
                        outcomes[i] = Some(fail_all(batch.entries.len(), code));
                        continue;
                    }
                };
                if acks == Acks::None {
                    self.wire.send(&req);
                    outcomes[i] = Some(delivered(batch, -1));
                    continue;
                }
                let wire = &self.wire;
                in_flight.push(async move { (i, wire.call(&req).await) });
            }
            let Some((i, answer)) = in_flight.next().await else { break };
            let batch = batches[i].as_ref().expect("in flight");
            let code = match answer {
                Ok(KafkaResponse::Produced { base_offset }) => {
                    self.count_delivered(batch);
                    outcomes[i] = Some(delivered(batch, base_offset as i64));
                    continue;
                }
                // A batch ahead of a missing earlier one: sent again after it.
                Ok(KafkaResponse::Error(KafkaCode::OutOfOrderSequenceNumber))
                    if idempotent && earlier_unresolved(&outcomes, &batches, i) =>
                {
                    queue.insert(i);
                    continue;
                }
                Ok(KafkaResponse::Error(code)) => RDKafkaErrorCode::from(code),
                Ok(_) => RDKafkaErrorCode::State,
                Err(RpcError::Timeout { .. } | RpcError::Refused { .. })
                    if until.is_none_or_later() && failed.is_none() =>
                {
                    queue.insert(i);
                    continue;
                }
                Err(_) => RDKafkaErrorCode::MessageTimedOut,
            };
            self.produce_failed(sends, code);
            failed.get_or_insert(code);
            outcomes[i] = Some(fail_all(batch.entries.len(), code));
        }
        outcomes.into_iter().map(|o| o.expect("every batch has an outcome")).collect()
    }

    /// The produce request of `batch`: the producer id an idempotent producer gets lazily,
    /// the partition joining the transaction, and the batch's sequence (fixed at its first
    /// send, kept by its retries).
    async fn request(
        &self,
        sends: &mut Sends,
        batch: &mut Batch,
        acks: Acks,
        until: Option<madsim::time::Instant>,
    ) -> Result<KafkaRequest, RDKafkaErrorCode> {
        let count = batch.entries.len() as i64;
        let (producer, base_sequence) = match batch.sent_as {
            Some(sent) => sent,
            None => {
                if self.settings.idempotence && sends.identity.is_none() {
                    let req = KafkaRequest::InitProducerId {
                        transactional_id: None,
                        transaction_timeout_ms: 0,
                        producer: None,
                    };
                    match self.wire.call_until(&req, until).await {
                        Some(KafkaResponse::Producer(p)) => sends.identity = Some(p),
                        _ => return Err(RDKafkaErrorCode::MessageTimedOut),
                    }
                }
                let producer = if self.settings.idempotence { sends.identity } else { None };
                if let (Some(id), Some(p)) = (self.settings.transactional_id.clone(), producer) {
                    self.add_partition(sends, &id, p, &batch.topic, batch.partition, until).await?;
                }
                let base_sequence = match producer {
                    Some(_) => {
                        let next = sends.sequences.entry((batch.topic.clone(), batch.partition)).or_insert(0);
                        *next += count;
                        *next - count
                    }
                    None => 0,
                };
                batch.sent_as = Some((producer, base_sequence));
                (producer, base_sequence)
            }
        };
        Ok(KafkaRequest::Produce {
            topic: batch.topic.clone(),
            partition: batch.partition,
            entries: batch.entries.clone(),
            producer,
            base_sequence,
            transactional_id: self.settings.transactional_id.clone(),
            acks,
        })
    }

    /// A batch was acknowledged (for statistics).
    fn count_delivered(&self, batch: &Batch) {
        let bytes: usize = batch
            .entries
            .iter()
            .map(|e| e.key.as_ref().map_or(0, Vec::len) + e.value.as_ref().map_or(0, Vec::len))
            .sum();
        let mut d = self.delivered.lock().unwrap();
        let c = d.entry((batch.topic.clone(), batch.partition)).or_default();
        *c = (c.0 + batch.entries.len() as u64, c.1 + bytes as u64);
    }

    /// A batch failed: a transaction that lost a message cannot commit (a fenced producer is
    /// done); an idempotent producer's sequence may have a gap, so it starts a new producer
    /// id.
    fn produce_failed(&self, sends: &mut Sends, code: RDKafkaErrorCode) {
        let fatal = matches!(
            code,
            RDKafkaErrorCode::InvalidProducerEpoch
                | RDKafkaErrorCode::ProducerFenced
                | RDKafkaErrorCode::OutOfOrderSequenceNumber
                | RDKafkaErrorCode::InvalidProducerIdMapping
        );
        if self.settings.transactional_id.is_some() {
            sends.needs_bump = true;
            let e = txn_error(code, format!("a message of the transaction failed: {code}"));
            self.fail(if fatal { e.fatal() } else { e.abortable() });
        } else if self.settings.idempotence {
            sends.identity = None;
            sends.sequences.clear();
        }
    }
}

trait Deadline {
    fn is_none_or_later(&self) -> bool;
}

impl Deadline for Option<madsim::time::Instant> {
    /// No deadline, or one not reached yet.
    fn is_none_or_later(&self) -> bool {
        self.map_or(true, |d| madsim::time::Instant::now() < d)
    }
}

/// Whether a batch of the same partition before `i` has no outcome yet.
fn earlier_unresolved(outcomes: &[Option<Outcome>], batches: &[Option<Batch>], i: usize) -> bool {
    let b = batches[i].as_ref().expect("in flight");
    (0..i).any(|j| {
        outcomes[j].is_none() && batches[j].as_ref().is_some_and(|e| e.topic == b.topic && e.partition == b.partition)
    })
}

fn fail_all(count: usize, code: RDKafkaErrorCode) -> Outcome {
    (0..count).map(|_| Err(KafkaError::MessageProduction(code))).collect()
}

fn delivered(batch: &Batch, base: i64) -> Outcome {
    (0..batch.entries.len())
        .map(|i| {
            let offset = if base < 0 { -1 } else { base + i as i64 };
            let timestamp = Timestamp::CreateTime(batch.entries[i].timestamp_ms);
            Ok(Delivered { partition: batch.partition as i32, offset, timestamp })
        })
        .collect()
}
