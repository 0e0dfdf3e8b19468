//! `rdkafka::producer::ThreadedProducer`: a base producer whose delivery reports are served
//! by a polling thread of its own; `send` and `poll` are rdkafka's.

use super::{BaseRecord, DefaultProducerContext, NoCustomPartitioner, Partitioner, ProducerContext};
use rdkafka::client::Client;
use rdkafka::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext};
use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::message::ToBytes;
use rdkafka::util::Timeout;
use std::sync::Arc;

/// A base producer polled by a thread of its own: rdkafka's `ThreadedProducer`, with the
/// [`Producer`](super::Producer) trait's `async` calls.
pub struct ThreadedProducer<C, Part = NoCustomPartitioner>
where
    C: ProducerContext<Part> + 'static,
    Part: Partitioner + 'static,
{
    inner: Arc<rdkafka::producer::ThreadedProducer<C, Part>>,
}

impl FromClientConfig for ThreadedProducer<DefaultProducerContext> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        Ok(ThreadedProducer { inner: Arc::new(config.create()?) })
    }
}

impl<C, Part> FromClientConfigAndContext<C> for ThreadedProducer<C, Part>
where
    C: ProducerContext<Part> + 'static,
    Part: Partitioner + Send + Sync + 'static,
{
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        let config = super::with_topic_conf(config, &context);
        Ok(ThreadedProducer { inner: Arc::new(config.create_with_context(context)?) })
    }
}

impl<C: ProducerContext<Part> + 'static, Part: Partitioner + 'static> ThreadedProducer<C, Part> {
    /// Queues a message for the producer's thread to serve (rdkafka's call: it does not
    /// wait).
    #[allow(clippy::result_large_err, clippy::type_complexity)]
    pub fn send<'a, K, P>(
        &self,
        record: BaseRecord<'a, K, P, C::DeliveryOpaque>,
    ) -> Result<(), (KafkaError, BaseRecord<'a, K, P, C::DeliveryOpaque>)>
    where
        K: ToBytes + ?Sized,
        P: ToBytes + ?Sized,
    {
        self.inner.send(record)
    }

    /// Serves the delivery reports that are ready (rdkafka's call, made without waiting: the
    /// producer's thread serves them anyway, and a wait would block the caller's thread;
    /// `timeout` is not waited for, as in the simulation).
    pub fn poll<T: Into<Timeout>>(&self, timeout: T) {
        let _ = timeout.into();
        self.inner.poll(std::time::Duration::ZERO)
    }

    /// The producer's context (rdkafka's call).
    pub fn context(&self) -> &Arc<C> {
        rdkafka::producer::Producer::context(&*self.inner)
    }

    /// The client under the producer: rdkafka's own, whose `fetch_*` calls block the
    /// caller's thread (`async` in the simulation).
    pub fn client(&self) -> &Client<C> {
        rdkafka::producer::Producer::client(&*self.inner)
    }
}

super::producer_api!(impl<C, Part> for ThreadedProducer<C, Part> where C: ProducerContext<Part> + 'static, Part: Partitioner + Send + Sync + 'static);
