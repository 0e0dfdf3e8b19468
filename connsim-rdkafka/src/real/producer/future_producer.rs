//! `rdkafka::producer::FutureProducer`: `send` and `send_result` are rdkafka's own.

use super::{DeliveryFuture, FutureRecord, OwnedDeliveryResult};
use rdkafka::client::{ClientContext, DefaultClientContext};
use rdkafka::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext};
use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::message::ToBytes;
use rdkafka::util::{AsyncRuntime, DefaultRuntime, Timeout};
use std::sync::Arc;

/// A producer whose `send` waits for the delivery: rdkafka's `FutureProducer`, with the
/// [`Producer`](super::Producer) trait's `async` calls.
pub struct FutureProducer<C = DefaultClientContext, R = DefaultRuntime>
where
    C: ClientContext + 'static,
{
    inner: Arc<rdkafka::producer::FutureProducer<C, R>>,
}

impl<C: ClientContext + 'static, R> Clone for FutureProducer<C, R> {
    fn clone(&self) -> Self {
        FutureProducer { inner: self.inner.clone() }
    }
}

impl<R: AsyncRuntime> FromClientConfig for FutureProducer<DefaultClientContext, R> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        Ok(FutureProducer { inner: Arc::new(config.create()?) })
    }
}

impl<C: ClientContext + 'static, R: AsyncRuntime> FromClientConfigAndContext<C> for FutureProducer<C, R> {
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        Ok(FutureProducer { inner: Arc::new(config.create_with_context(context)?) })
    }
}

impl<C: ClientContext + 'static, R: AsyncRuntime> FutureProducer<C, R> {
    /// Sends a message and waits for its delivery; a full queue is retried until
    /// `queue_timeout`.
    pub async fn send<K, P, T>(&self, record: FutureRecord<'_, K, P>, queue_timeout: T) -> OwnedDeliveryResult
    where
        K: ToBytes + ?Sized,
        P: ToBytes + ?Sized,
        T: Into<Timeout>,
    {
        self.inner.send(record, queue_timeout).await
    }

    /// Hands a message over without waiting; the future resolves with the delivery.
    #[allow(clippy::result_large_err)]
    pub fn send_result<'a, K, P>(
        &self,
        record: FutureRecord<'a, K, P>,
    ) -> Result<DeliveryFuture, (KafkaError, FutureRecord<'a, K, P>)>
    where
        K: ToBytes + ?Sized,
        P: ToBytes + ?Sized,
    {
        self.inner.send_result(record)
    }
}

super::producer_api!(impl<C, R> for FutureProducer<C, R> where C: ClientContext + 'static, R: AsyncRuntime);
