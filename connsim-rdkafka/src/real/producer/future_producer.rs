//! `rdkafka::producer::FutureProducer`: `send` and `send_result` are rdkafka's own.

use super::{
    DeliveryFuture, FutureProducerContext, FutureRecord, NoCustomPartitioner, OwnedDeliveryResult, Partitioner,
};
use rdkafka::client::{Client, ClientContext, DefaultClientContext};
use rdkafka::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext};
use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::message::ToBytes;
use rdkafka::util::{AsyncRuntime, DefaultRuntime, Timeout};
use std::marker::PhantomData;
use std::sync::Arc;

/// A producer whose `send` waits for the delivery: rdkafka's `FutureProducer`, with the
/// [`Producer`](super::Producer) trait's `async` calls.
///
/// `Part` is the simulation's and rdkafka's parameter, and as there it chooses nothing: a
/// future producer's context is rdkafka's [`FutureProducerContext`], which names no
/// partitioner of its own (`get_custom_partitioner` is `None` for every `Part`), so
/// librdkafka's `partitioner` property partitions. rdkafka 0.39 creates and sends only with
/// [`NoCustomPartitioner`]; this producer is rdkafka's `FutureProducer<C, R>` for every
/// `Part`, which is the same producer, so that every `Part` is created and sends as in the
/// simulation.
pub struct FutureProducer<C = DefaultClientContext, R = DefaultRuntime, Part = NoCustomPartitioner>
where
    C: ClientContext + 'static,
    Part: Partitioner,
{
    inner: Arc<rdkafka::producer::FutureProducer<C, R>>,
    partitioner: PhantomData<fn() -> Part>,
}

impl<C: ClientContext + 'static, R, Part: Partitioner> Clone for FutureProducer<C, R, Part> {
    fn clone(&self) -> Self {
        FutureProducer { inner: self.inner.clone(), partitioner: PhantomData }
    }
}

impl<R: AsyncRuntime> FromClientConfig for FutureProducer<DefaultClientContext, R> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        Ok(FutureProducer { inner: Arc::new(config.create()?), partitioner: PhantomData })
    }
}

impl<C, R, Part> FromClientConfigAndContext<C> for FutureProducer<C, R, Part>
where
    C: ClientContext + 'static,
    R: AsyncRuntime,
    Part: Partitioner + 'static,
{
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        Ok(FutureProducer { inner: Arc::new(config.create_with_context(context)?), partitioner: PhantomData })
    }
}

impl<C: ClientContext + 'static, R: AsyncRuntime, Part: Partitioner> FutureProducer<C, R, Part> {
    /// The client under the producer: rdkafka's own, whose `fetch_*` calls block the
    /// caller's thread (`async` in the simulation); its `fatal_error` and `context` are as
    /// in the simulation.
    pub fn client(&self) -> &Client<FutureProducerContext<C>> {
        rdkafka::producer::Producer::client(&*self.inner)
    }

    /// The producer's context: rdkafka's [`FutureProducerContext`] around the one it was
    /// created with.
    pub fn context(&self) -> &Arc<FutureProducerContext<C>> {
        rdkafka::producer::Producer::context(&*self.inner)
    }

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

    /// Serves the delivery reports that are ready (rdkafka's call, made without waiting: the
    /// producer's polling thread serves them anyway, and a wait would block the caller's
    /// thread; `timeout` is not waited for, as in the simulation).
    pub fn poll<T: Into<Timeout>>(&self, timeout: T) {
        let _ = timeout.into();
        self.inner.poll(std::time::Duration::ZERO)
    }
}

super::producer_api!(impl<C, R, Part> for FutureProducer<C, R, Part> where C: ClientContext + 'static, R: AsyncRuntime, Part: Partitioner);
