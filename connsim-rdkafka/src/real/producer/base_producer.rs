//! `rdkafka::producer::BaseProducer`: `send` queues a message; `poll` waits on tokio's
//! blocking pool.

use super::{BaseRecord, DefaultProducerContext, ProducerContext};
use crate::real::blocking::blocking;
use rdkafka::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext};
use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::message::ToBytes;
use rdkafka::util::Timeout;
use std::sync::Arc;

/// A producer that queues messages: rdkafka's `BaseProducer`, with an `async` [`poll`] and
/// the [`Producer`](super::Producer) trait's `async` calls.
///
/// [`poll`]: BaseProducer::poll
pub struct BaseProducer<C = DefaultProducerContext>
where
    C: ProducerContext + 'static,
{
    inner: Arc<rdkafka::producer::BaseProducer<C>>,
}

impl FromClientConfig for BaseProducer {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        Ok(BaseProducer { inner: Arc::new(config.create()?) })
    }
}

impl<C: ProducerContext + 'static> FromClientConfigAndContext<C> for BaseProducer<C> {
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        Ok(BaseProducer { inner: Arc::new(config.create_with_context(context)?) })
    }
}

impl<C: ProducerContext + 'static> BaseProducer<C> {
    /// The producer's context (rdkafka's call).
    pub fn context(&self) -> &Arc<C> {
        rdkafka::producer::Producer::context(&*self.inner)
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

    /// Serves delivery reports, waiting up to `timeout` for one.
    pub async fn poll<T: Into<Timeout>>(&self, timeout: T) {
        let (inner, timeout) = (self.inner.clone(), timeout.into());
        blocking(move || inner.poll(timeout)).await
    }
}

super::producer_api!(impl<C> for BaseProducer<C> where C: ProducerContext + 'static);
