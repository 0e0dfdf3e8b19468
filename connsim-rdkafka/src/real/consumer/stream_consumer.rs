//! `rdkafka::consumer::stream_consumer`: [`StreamConsumer`] around rdkafka's, whose `recv`
//! and `stream` are rdkafka's own (async there too), and rdkafka's own [`MessageStream`] and
//! [`StreamPartitionQueue`].

use super::DefaultConsumerContext;
use rdkafka::client::Client;
use rdkafka::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext};
use rdkafka::consumer::ConsumerContext;
use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::message::BorrowedMessage;
use rdkafka::util::{AsyncRuntime, DefaultRuntime};
use std::sync::Arc;

pub use rdkafka::consumer::stream_consumer::{MessageStream, StreamPartitionQueue};

/// A consumer whose messages are awaited: rdkafka's `StreamConsumer`, with the
/// [`Consumer`](super::Consumer) trait's `async` calls.
pub struct StreamConsumer<C = DefaultConsumerContext, R = DefaultRuntime>
where
    C: ConsumerContext,
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
    pub fn context(&self) -> &Arc<C> {
        rdkafka::consumer::Consumer::context(&*self.inner)
    }

    /// The client under the consumer: rdkafka's own, whose `fetch_*` calls block the
    /// caller's thread (`async` in the simulation); see
    /// [`BaseConsumer::client`](super::BaseConsumer::client).
    pub fn client(&self) -> &Client<C> {
        rdkafka::consumer::Consumer::client(&*self.inner)
    }

    /// The next message of an assigned, unpaused partition.
    pub async fn recv(&self) -> Result<BorrowedMessage<'_>, KafkaError> {
        self.inner.recv().await
    }

    /// The messages as a stream.
    pub fn stream(&self) -> MessageStream<'_, C> {
        self.inner.stream()
    }

    /// Routes one partition's messages to a queue of their own (rdkafka's call: `None` if
    /// rdkafka finds no such partition); the consumer's own `recv` must go on for
    /// rebalances, as in rdkafka.
    pub fn split_partition_queue(self: &Arc<Self>, topic: &str, partition: i32) -> Option<StreamPartitionQueue<C, R>> {
        self.inner.split_partition_queue(topic, partition)
    }
}

super::consumer_api!(impl<C, R> for StreamConsumer<C, R> where C: ConsumerContext + 'static, R: Send + Sync + 'static);
