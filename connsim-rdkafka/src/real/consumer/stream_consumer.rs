//! `rdkafka::consumer::StreamConsumer`: `recv` and `stream` are rdkafka's own, async there too.

use super::{DefaultConsumerContext, MessageStream};
use rdkafka::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext};
use rdkafka::consumer::ConsumerContext;
use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::message::BorrowedMessage;
use rdkafka::util::{AsyncRuntime, DefaultRuntime};
use std::sync::Arc;

/// A consumer whose messages are awaited: rdkafka's `StreamConsumer`, with the
/// [`Consumer`](super::Consumer) trait's `async` calls.
pub struct StreamConsumer<C = DefaultConsumerContext, R = DefaultRuntime>
where
    C: ConsumerContext + 'static,
{
    inner: Arc<rdkafka::consumer::StreamConsumer<C, R>>,
}

impl<R: AsyncRuntime> FromClientConfig for StreamConsumer<DefaultConsumerContext, R> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        Ok(StreamConsumer { inner: Arc::new(config.create()?) })
    }
}

impl<C: ConsumerContext + 'static, R: AsyncRuntime> FromClientConfigAndContext<C> for StreamConsumer<C, R> {
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        Ok(StreamConsumer { inner: Arc::new(config.create_with_context(context)?) })
    }
}

impl<C: ConsumerContext + 'static, R> StreamConsumer<C, R> {
    /// The consumer's context (rdkafka's call).
    pub fn context(&self) -> &std::sync::Arc<C> {
        rdkafka::consumer::Consumer::context(&*self.inner)
    }

    /// The next message of an assigned, unpaused partition.
    pub async fn recv(&self) -> Result<BorrowedMessage<'_>, KafkaError> {
        self.inner.recv().await
    }

    /// The messages as a stream.
    pub fn stream(&self) -> MessageStream<'_, C> {
        self.inner.stream()
    }
}

super::consumer_api!(impl<C, R> for StreamConsumer<C, R> where C: ConsumerContext + 'static, R: Send + Sync + 'static);
