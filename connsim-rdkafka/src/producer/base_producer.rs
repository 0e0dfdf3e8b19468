//! `rdkafka::producer::BaseProducer`: `send` queues a message; `poll` and `flush` deliver.

use super::context::{DefaultProducerContext, ProducerContext};
use super::core::{Core, Outgoing};
use super::partitioner::{NoCustomPartitioner, Partitioner};
use super::purge::PurgeConfig;
use crate::client::Client;
use crate::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext, Settings};
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::message::{BorrowedMessage, OwnedHeaders, OwnedMessage, Timestamp, ToBytes};
use crate::util::Timeout;
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// A message for [`BaseProducer::send`] (`rdkafka::producer::BaseRecord`).
#[derive(Debug)]
pub struct BaseRecord<'a, K: ToBytes + ?Sized = (), P: ToBytes + ?Sized = (), D = ()> {
    /// Topic.
    pub topic: &'a str,
    /// Partition; `None`: the default partitioner.
    pub partition: Option<i32>,
    /// Payload.
    pub payload: Option<&'a P>,
    /// Key.
    pub key: Option<&'a K>,
    /// Timestamp in ms.
    pub timestamp: Option<i64>,
    /// Headers.
    pub headers: Option<OwnedHeaders>,
    /// Handed to the delivery report.
    pub delivery_opaque: D,
}

impl<'a, K: ToBytes + ?Sized, P: ToBytes + ?Sized, D> BaseRecord<'a, K, P, D> {
    /// A message for `topic` with a delivery opaque.
    pub fn with_opaque_to(topic: &'a str, delivery_opaque: D) -> Self {
        BaseRecord { topic, partition: None, payload: None, key: None, timestamp: None, headers: None, delivery_opaque }
    }
    /// Sets the partition.
    pub fn partition(mut self, partition: i32) -> Self {
        self.partition = Some(partition);
        self
    }
    /// Sets the payload.
    pub fn payload(mut self, payload: &'a P) -> Self {
        self.payload = Some(payload);
        self
    }
    /// Sets the key.
    pub fn key(mut self, key: &'a K) -> Self {
        self.key = Some(key);
        self
    }
    /// Sets the timestamp.
    pub fn timestamp(mut self, timestamp: i64) -> Self {
        self.timestamp = Some(timestamp);
        self
    }
    /// Sets the headers.
    pub fn headers(mut self, headers: OwnedHeaders) -> Self {
        self.headers = Some(headers);
        self
    }
    /// Sets the topic.
    pub fn topic(mut self, topic: &'a str) -> Self {
        self.topic = topic;
        self
    }
    /// Sets the delivery opaque.
    pub fn delivery_opaque(mut self, delivery_opaque: D) -> Self {
        self.delivery_opaque = delivery_opaque;
        self
    }
}

impl<'a, K: ToBytes + ?Sized, P: ToBytes + ?Sized> BaseRecord<'a, K, P, ()> {
    /// A message for `topic`.
    pub fn to(topic: &'a str) -> Self {
        BaseRecord::with_opaque_to(topic, ())
    }
}

/// A producer that queues messages (`rdkafka::producer::BaseProducer`). Queued messages go
/// out, in order, on [`BaseProducer::poll`] or `flush`; each one's delivery report goes to
/// the context's [`ProducerContext::delivery`] with the record's opaque (the default context
/// drops it, as rdkafka's does). A message counts against `queue.buffering.max.messages` and
/// `.kbytes` until its report is handed out: a producer that is never polled fills up and
/// refuses more with `QueueFull`. Dropping it purges what is still queued: each such message
/// is reported `PurgeQueue`.
pub struct BaseProducer<C: ProducerContext<Part> = DefaultProducerContext, Part: Partitioner = NoCustomPartitioner> {
    pub(super) core: Arc<Core>,
    queue: Mutex<VecDeque<(Outgoing, C::DeliveryOpaque)>>,
    client: Client<C>,
    partitioner: PhantomData<fn() -> Part>,
}

impl FromClientConfig for BaseProducer<DefaultProducerContext> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        BaseProducer::from_config_and_context(config, DefaultProducerContext)
    }
}

impl<C, Part> FromClientConfigAndContext<C> for BaseProducer<C, Part>
where
    C: ProducerContext<Part> + 'static,
    Part: Partitioner + 'static,
{
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        let core = Arc::new(Core::new(Settings::read(config)?)?);
        let context = Arc::new(context);
        core.register_partitioner(&context);
        let client = Client::new(core.wire.clone(), context).with_fatal(core.fatal.clone());
        Ok(BaseProducer { core, queue: Mutex::new(VecDeque::new()), client, partitioner: PhantomData })
    }
}

impl<C: ProducerContext<Part>, Part: Partitioner> BaseProducer<C, Part> {
    /// The producer's context.
    pub fn context(&self) -> &Arc<C> {
        self.client.context()
    }

    /// The client under the producer (its fatal error, the cluster's metadata).
    pub fn client(&self) -> &Client<C> {
        &self.client
    }

    /// Queues a message; refused with `QueueFull` while `queue.buffering.max.messages`
    /// messages (or `.kbytes` of them) wait for their delivery report.
    #[allow(clippy::result_large_err, clippy::type_complexity)]
    pub fn send<'a, K, P>(
        &self,
        record: BaseRecord<'a, K, P, C::DeliveryOpaque>,
    ) -> Result<(), (KafkaError, BaseRecord<'a, K, P, C::DeliveryOpaque>)>
    where
        K: ToBytes + ?Sized,
        P: ToBytes + ?Sized,
    {
        if record.partition.is_some_and(|p| p < -1) {
            return Err((KafkaError::MessageProduction(RDKafkaErrorCode::UnknownPartition), record));
        }
        let outgoing = Outgoing {
            topic: record.topic.to_string(),
            partition: record.partition.filter(|p| *p >= 0),
            key: record.key.map(|k| k.to_bytes().to_vec()),
            payload: record.payload.map(|p| p.to_bytes().to_vec()),
            timestamp: record.timestamp,
            headers: record.headers.clone(),
        };
        if let Err(e) = self.core.reserve(outgoing.size()) {
            return Err((e, record));
        }
        self.queue.lock().unwrap().push_back((outgoing, record.delivery_opaque));
        Ok(())
    }

    /// Delivers what is queued (`async`: see the module's note on blocking calls).
    pub async fn poll<T: Into<Timeout>>(&self, timeout: T) {
        let _ = self.flush_queue(timeout.into()).await;
    }

    /// Sends what is queued until the queue is empty; past `timeout`, what is still queued
    /// stays queued (`KafkaError::Flush(OperationTimedOut)`). A batch already sent is waited
    /// for, as librdkafka waits for requests in flight.
    async fn flush_queue(&self, timeout: Timeout) -> KafkaResult<()> {
        if let Some(json) = self.core.stats_if_due() {
            crate::client::ClientContext::stats_raw(&**self.context(), &json);
        }
        let deadline = crate::wire::deadline(timeout);
        loop {
            if deadline.is_some_and(|d| madsim::time::Instant::now() >= d) && self.queued() > 0 {
                return Err(KafkaError::Flush(RDKafkaErrorCode::OperationTimedOut));
            }
            let (queued, opaques): (Vec<Outgoing>, Vec<C::DeliveryOpaque>) =
                self.queue.lock().unwrap().drain(..).unzip();
            if queued.is_empty() {
                return Ok(());
            }
            let sent: Vec<OwnedMessage> = queued.iter().map(report).collect();
            let sizes: Vec<usize> = queued.iter().map(Outgoing::size).collect();
            let results = self.core.send_batch(queued).await;
            for (((result, mut message), opaque), size) in results.into_iter().zip(sent).zip(opaques).zip(sizes) {
                let delivery = match result {
                    Ok(d) => {
                        message.landed(d.partition, d.offset, d.timestamp);
                        Ok(BorrowedMessage::new(message))
                    }
                    Err(e) => Err((e, BorrowedMessage::new(message))),
                };
                self.core.release(size);
                self.context().delivery(&delivery, opaque);
            }
        }
    }

    /// Purges what is queued: each message's report says `PurgeQueue`, handed to the
    /// context now (nothing of a base producer is in flight between its polls).
    fn purge_queue(&self, flags: PurgeConfig) {
        if !flags.purges_queue() {
            return;
        }
        let purged: Vec<(Outgoing, C::DeliveryOpaque)> = self.queue.lock().unwrap().drain(..).collect();
        for (outgoing, opaque) in purged {
            self.core.release(outgoing.size());
            let e = KafkaError::MessageProduction(RDKafkaErrorCode::PurgeQueue);
            self.context().delivery(&Err((e, BorrowedMessage::new(report(&outgoing)))), opaque);
        }
    }

    fn queued(&self) -> usize {
        self.queue.lock().unwrap().len()
    }

    /// Messages handed over and not yet reported (librdkafka's `rd_kafka_outq_len`).
    fn in_flight(&self) -> usize {
        self.core.pending()
    }
}

impl<C: ProducerContext<Part>, Part: Partitioner> Drop for BaseProducer<C, Part> {
    fn drop(&mut self) {
        // rdkafka's drop: queued and in-flight messages purged, their reports served.
        self.purge_queue(PurgeConfig::default().queue().inflight());
    }
}

/// The message a delivery report shows, before it landed: its partition if it named one, no
/// offset.
pub(super) fn report(m: &Outgoing) -> OwnedMessage {
    let timestamp = m.timestamp.map_or(Timestamp::NotAvailable, Timestamp::CreateTime);
    OwnedMessage::new(
        m.payload.clone(),
        m.key.clone(),
        m.topic.clone(),
        timestamp,
        m.partition.unwrap_or(-1),
        -1,
        m.headers.clone(),
    )
}

super::producer_api!(<C, Part> BaseProducer<C, Part> where C: ProducerContext<Part>, Part: Partitioner);
