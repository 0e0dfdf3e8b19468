//! `rdkafka::producer::BaseProducer`: `send` queues a message; `poll` waits on tokio's
//! blocking pool.

use super::{BaseRecord, DefaultProducerContext, NoCustomPartitioner, Partitioner, ProducerContext};
use crate::real::blocking::blocking;
use rdkafka::client::Client;
use rdkafka::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext};
use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::message::ToBytes;
use rdkafka::util::Timeout;
use std::sync::Arc;

/// A producer that queues messages: rdkafka's `BaseProducer`, with an `async` [`poll`] and
/// the [`Producer`](super::Producer) trait's `async` calls.
///
/// [`poll`]: BaseProducer::poll
pub struct BaseProducer<C = DefaultProducerContext, Part = NoCustomPartitioner>
where
    C: ProducerContext<Part>,
    Part: Partitioner,
{
    inner: Arc<rdkafka::producer::BaseProducer<C, Part>>,
}

impl FromClientConfig for BaseProducer<DefaultProducerContext> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        Ok(BaseProducer { inner: Arc::new(config.create()?) })
    }
}

impl<C, Part> FromClientConfigAndContext<C> for BaseProducer<C, Part>
where
    C: ProducerContext<Part> + 'static,
    Part: Partitioner + 'static,
{
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        let config = super::with_topic_conf(config, &context);
        Ok(BaseProducer { inner: Arc::new(config.create_with_context(context)?) })
    }
}

impl<C: ProducerContext<Part>, Part: Partitioner> BaseProducer<C, Part> {
    /// The producer's context (rdkafka's call).
    pub fn context(&self) -> &Arc<C> {
        rdkafka::producer::Producer::context(&*self.inner)
    }

    /// The client under the producer: rdkafka's own, whose `fetch_*` calls block the
    /// caller's thread (`async` in the simulation); its `fatal_error` and `context` are as
    /// in the simulation.
    pub fn client(&self) -> &Client<C> {
        rdkafka::producer::Producer::client(&*self.inner)
    }

    /// Queues a message (rdkafka's call: it does not wait).
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
}

impl<C, Part> BaseProducer<C, Part>
where
    C: ProducerContext<Part> + 'static,
    Part: Partitioner + Send + Sync + 'static,
{
    /// Serves delivery reports, waiting up to `timeout` for one (rdkafka's call, on tokio's
    /// blocking pool; the context's `delivery` runs there).
    pub async fn poll<T: Into<Timeout>>(&self, timeout: T) {
        let (inner, timeout) = (self.inner.clone(), timeout.into());
        blocking(move || inner.poll(timeout)).await
    }
}

super::producer_api!(impl<C, Part> for BaseProducer<C, Part> where C: ProducerContext<Part> + 'static, Part: Partitioner + Send + Sync + 'static);
