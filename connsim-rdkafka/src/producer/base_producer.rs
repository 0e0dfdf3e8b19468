//! `rdkafka::producer::BaseProducer`: `send` queues a message; `poll` and `flush` deliver.

use super::core::{Core, Outgoing};
use crate::config::{ClientConfig, FromClientConfig, Settings};
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::message::{OwnedHeaders, ToBytes};
use crate::util::Timeout;
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// The default producer context: delivery reports are dropped
/// (`rdkafka::producer::DefaultProducerContext`).
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultProducerContext;

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
}

impl<'a, K: ToBytes + ?Sized, P: ToBytes + ?Sized> BaseRecord<'a, K, P, ()> {
    /// A message for `topic`.
    pub fn to(topic: &'a str) -> Self {
        BaseRecord::with_opaque_to(topic, ())
    }
}

/// A producer that queues messages (`rdkafka::producer::BaseProducer`). Queued messages go
/// out, in order, on [`BaseProducer::poll`] or `flush`; a failed one is reported to the
/// context, which by default drops it, as rdkafka's default context does.
pub struct BaseProducer<C = DefaultProducerContext> {
    pub(super) core: Arc<Core>,
    queue: Mutex<VecDeque<Outgoing>>,
    context: PhantomData<fn() -> C>,
}

impl FromClientConfig for BaseProducer<DefaultProducerContext> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        let core = Arc::new(Core::new(Settings::read(config)?)?);
        Ok(BaseProducer { core, queue: Mutex::new(VecDeque::new()), context: PhantomData })
    }
}

impl<C> BaseProducer<C> {
    /// Queues a message.
    #[allow(clippy::result_large_err)]
    pub fn send<'a, K, P>(&self, record: BaseRecord<'a, K, P, ()>) -> Result<(), (KafkaError, BaseRecord<'a, K, P, ()>)>
    where
        K: ToBytes + ?Sized,
        P: ToBytes + ?Sized,
    {
        if record.partition.is_some_and(|p| p < -1) {
            return Err((KafkaError::MessageProduction(RDKafkaErrorCode::UnknownPartition), record));
        }
        self.queue.lock().unwrap().push_back(Outgoing {
            topic: record.topic.to_string(),
            partition: record.partition.filter(|p| *p >= 0),
            key: record.key.map(|k| k.to_bytes().to_vec()),
            payload: record.payload.map(|p| p.to_bytes().to_vec()),
            timestamp: record.timestamp,
            headers: record.headers,
        });
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
        let deadline = crate::wire::deadline(timeout);
        loop {
            if deadline.is_some_and(|d| madsim::time::Instant::now() >= d) && self.queued() > 0 {
                return Err(KafkaError::Flush(RDKafkaErrorCode::OperationTimedOut));
            }
            let queued: Vec<Outgoing> = self.queue.lock().unwrap().drain(..).collect();
            if queued.is_empty() {
                return Ok(());
            }
            // Delivery reports go to the default context, which drops them.
            let _ = self.core.send_batch(queued).await;
        }
    }

    fn queued(&self) -> usize {
        self.queue.lock().unwrap().len()
    }
}

super::producer_api!(<C> BaseProducer<C>);
