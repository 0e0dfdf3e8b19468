//! `rdkafka::consumer::stream_consumer`: [`StreamConsumer`], whose `recv` and `stream` wait
//! for the next message, serving the group's rebalances on the way, and its partition queues.

use super::core::ConsumerCore;
use super::polled::{poll, BaseConsumer};
use super::{ConsumerContext, DefaultConsumerContext};
use crate::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext};
use crate::error::{KafkaError, KafkaResult};
use crate::message::BorrowedMessage;
use crate::util::{DefaultRuntime, Timeout};
use futures::Stream;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// A consumer whose messages are awaited (`rdkafka::consumer::StreamConsumer`).
pub struct StreamConsumer<C: ConsumerContext = DefaultConsumerContext, R = DefaultRuntime> {
    base: Arc<BaseConsumer<C>>,
    runtime: PhantomData<fn() -> R>,
}

impl<R> FromClientConfig for StreamConsumer<DefaultConsumerContext, R> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        StreamConsumer::from_config_and_context(config, DefaultConsumerContext)
    }
}

impl<C: ConsumerContext, R> FromClientConfigAndContext<C> for StreamConsumer<C, R> {
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        let base = Arc::new(BaseConsumer::from_config_and_context(config, context)?);
        Ok(StreamConsumer { base, runtime: PhantomData })
    }
}

/// The next message of the consumer or of one partition's queue, waiting for it.
async fn recv<'a, C: ConsumerContext>(
    base: &'a BaseConsumer<C>,
    only: Option<&(String, u32)>,
) -> Result<BorrowedMessage<'a>, KafkaError> {
    loop {
        if let Some(next) = poll(&base.view, Timeout::Never, only).await {
            return next;
        }
    }
}

impl<C: ConsumerContext, R> StreamConsumer<C, R> {
    /// The consumer's context.
    pub fn context(&self) -> &Arc<C> {
        self.base.context()
    }

    /// The client under the consumer.
    pub fn client(&self) -> &crate::client::Client<C> {
        self.base.client()
    }

    pub(crate) fn core(&self) -> &Arc<ConsumerCore> {
        self.base.core()
    }

    /// The next message of an assigned, unpaused partition.
    pub async fn recv(&self) -> Result<BorrowedMessage<'_>, KafkaError> {
        recv(&self.base, None).await
    }

    /// The messages as a stream.
    pub fn stream(&self) -> MessageStream<'_, C> {
        MessageStream::new(&self.base, None)
    }

    /// Routes one partition's messages to a queue of their own (`None` if they go to one
    /// already); the consumer's own `recv` must go on for rebalances, as in rdkafka.
    pub fn split_partition_queue(self: &Arc<Self>, topic: &str, partition: i32) -> Option<StreamPartitionQueue<C, R>> {
        let queue = self.base.split_partition_queue(topic, partition)?;
        Some(StreamPartitionQueue { queue, runtime: PhantomData })
    }
}

type Messages<'a> = Pin<Box<dyn Stream<Item = KafkaResult<BorrowedMessage<'a>>> + Send + 'a>>;

/// The stream of [`StreamConsumer::stream`] (`rdkafka::consumer::MessageStream`, named with
/// its consumer's context as there); it is `Send`, so a task may own it.
pub struct MessageStream<'a, C: ConsumerContext> {
    inner: Messages<'a>,
    context: PhantomData<fn() -> C>,
}

impl<'a, C: ConsumerContext> MessageStream<'a, C> {
    fn new(base: &'a BaseConsumer<C>, only: Option<(String, u32)>) -> Self {
        let inner = futures::stream::unfold((base, only), |(base, only)| async move {
            let next = recv(base, only.as_ref()).await;
            Some((next, (base, only)))
        });
        MessageStream { inner: Box::pin(inner), context: PhantomData }
    }
}

impl<'a, C: ConsumerContext> Stream for MessageStream<'a, C> {
    type Item = KafkaResult<BorrowedMessage<'a>>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// One partition's messages, awaited apart from its consumer
/// (`rdkafka::consumer::stream_consumer::StreamPartitionQueue`).
pub struct StreamPartitionQueue<C: ConsumerContext, R = DefaultRuntime> {
    queue: super::polled::PartitionQueue<C>,
    runtime: PhantomData<fn() -> R>,
}

impl<C: ConsumerContext, R> StreamPartitionQueue<C, R> {
    /// The partition's next message.
    pub async fn recv(&self) -> Result<BorrowedMessage<'_>, KafkaError> {
        recv(self.queue.consumer(), Some(self.queue.key())).await
    }

    /// The partition's messages as a stream.
    pub fn stream(&self) -> MessageStream<'_, C> {
        MessageStream::new(self.queue.consumer(), Some(self.queue.key().clone()))
    }
}

super::consumer_api!(<C, R> StreamConsumer<C, R> where C: ConsumerContext);
