//! `rdkafka::consumer::StreamConsumer`: `recv` and `stream` wait for the next message.

use super::core::ConsumerCore;
use super::{ConsumerContext, DefaultConsumerContext};
use crate::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext, Settings};
use crate::error::{KafkaError, KafkaResult};
use crate::message::BorrowedMessage;
use crate::util::DefaultRuntime;
use futures::Stream;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// A consumer whose messages are awaited (`rdkafka::consumer::StreamConsumer`).
pub struct StreamConsumer<C: ConsumerContext = DefaultConsumerContext, R = DefaultRuntime> {
    pub(crate) core: ConsumerCore,
    context: Arc<C>,
    runtime: PhantomData<fn() -> R>,
}

impl<R> FromClientConfig for StreamConsumer<DefaultConsumerContext, R> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        StreamConsumer::from_config_and_context(config, DefaultConsumerContext)
    }
}

impl<C: ConsumerContext, R> FromClientConfigAndContext<C> for StreamConsumer<C, R> {
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        let core = ConsumerCore::new(Settings::read(config)?)?;
        Ok(StreamConsumer { core, context: Arc::new(context), runtime: PhantomData })
    }
}

impl<C: ConsumerContext, R> StreamConsumer<C, R> {
    /// The consumer's context.
    pub fn context(&self) -> &Arc<C> {
        &self.context
    }

    /// The next message of an assigned, unpaused partition.
    pub async fn recv(&self) -> Result<BorrowedMessage<'_>, KafkaError> {
        let next = self.core.next(None).await;
        super::serve_commit_events(&self.core, &*self.context);
        match next {
            Some(Ok(m)) => Ok(BorrowedMessage::new(m)),
            Some(Err(e)) => Err(e),
            None => unreachable!("no deadline"),
        }
    }

    /// The messages as a stream.
    pub fn stream(&self) -> MessageStream<'_, C> {
        let next = Box::pin(futures::stream::unfold(self, |c| async move { Some((c.recv().await, c)) }));
        MessageStream { inner: next, context: PhantomData }
    }
}

/// The stream of [`StreamConsumer::stream`] (`rdkafka::consumer::MessageStream`, named with
/// its consumer's context as there).
pub struct MessageStream<'a, C> {
    #[allow(clippy::type_complexity)]
    inner: Pin<Box<dyn Stream<Item = KafkaResult<BorrowedMessage<'a>>> + 'a>>,
    context: PhantomData<fn() -> C>,
}

impl<'a, C> Stream for MessageStream<'a, C> {
    type Item = KafkaResult<BorrowedMessage<'a>>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

super::consumer_api!(<C, R> StreamConsumer<C, R> where C: ConsumerContext);
