//! `rdkafka::consumer::BaseConsumer`: `poll`, its stream ([`Iter`]) and its partition queues'
//! `poll` ([`PartitionQueue`]) wait with tokio's timer, never blocking.

use super::DefaultConsumerContext;
use futures::Stream;
use rdkafka::client::Client;
use rdkafka::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext};
use rdkafka::consumer::ConsumerContext;
use rdkafka::error::KafkaResult;
use rdkafka::message::BorrowedMessage;
use rdkafka::util::Timeout;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// A consumer polled for messages: rdkafka's `BaseConsumer`, with an `async` [`poll`], a
/// stream for [`iter`], and partition queues whose `poll` is `async`.
///
/// [`poll`]: BaseConsumer::poll
/// [`iter`]: BaseConsumer::iter
pub struct BaseConsumer<C = DefaultConsumerContext>
where
    C: ConsumerContext,
{
    inner: Arc<rdkafka::consumer::BaseConsumer<C>>,
}

impl FromClientConfig for BaseConsumer {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        Ok(BaseConsumer { inner: Arc::new(config.create()?) })
    }
}

impl<C: ConsumerContext + 'static> FromClientConfigAndContext<C> for BaseConsumer<C> {
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        Ok(BaseConsumer { inner: Arc::new(config.create_with_context(context)?) })
    }
}

/// How long a poll sleeps between looks at librdkafka's queue while nothing is there.
const POLL_BACKOFF: Duration = Duration::from_millis(1);

/// A poll of one of librdkafka's queues (`look`, which asks it without waiting) until
/// `timeout`, an async sleep between looks: dropping the future loses no message, since a
/// message is taken from librdkafka only when it is returned.
async fn poll_until<'a, F>(timeout: Timeout, mut look: F) -> Option<KafkaResult<BorrowedMessage<'a>>>
where
    F: FnMut() -> Option<KafkaResult<BorrowedMessage<'a>>>,
{
    let deadline = match timeout {
        Timeout::After(d) => Some(tokio::time::Instant::now() + d),
        Timeout::Never => None,
    };
    loop {
        if let Some(polled) = look() {
            return Some(polled);
        }
        if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
            return None;
        }
        tokio::time::sleep(POLL_BACKOFF).await;
    }
}

impl<C: ConsumerContext> BaseConsumer<C> {
    /// The consumer's context (rdkafka's call).
    pub fn context(&self) -> &Arc<C> {
        rdkafka::consumer::Consumer::context(&*self.inner)
    }

    /// The client under the consumer: rdkafka's own. Its `fatal_error` and `context` are as
    /// in the simulation, but its `fetch_metadata`, `fetch_watermarks` and `fetch_group_list`
    /// are rdkafka's blocking calls here (`async` in the simulation): they block the caller's
    /// thread until the broker answers. Call the consumer's own, `async` in both halves
    /// ([`Consumer`](super::Consumer)).
    pub fn client(&self) -> &Client<C> {
        rdkafka::consumer::Consumer::client(&*self.inner)
    }

    /// The next message, or `None` if none came within `timeout`. librdkafka is asked
    /// without waiting (`poll(0)` never blocks) on the caller's thread, with an async sleep
    /// between looks: dropping this future loses no message, since a message is taken from
    /// librdkafka only when it is returned.
    pub async fn poll<T: Into<Timeout>>(&self, timeout: T) -> Option<KafkaResult<BorrowedMessage<'_>>> {
        let inner = &*self.inner;
        poll_until(timeout.into(), move || inner.poll(Duration::ZERO)).await
    }

    /// The messages, as rdkafka's iterator gives them (`poll` without a timeout), as a
    /// stream: each is looked for as [`BaseConsumer::poll`] does, without blocking.
    pub fn iter(&self) -> Iter<'_, C> {
        Iter { consumer: &self.inner, backoff: None }
    }

    /// Routes the messages of one partition to a queue of its own, polled apart from the
    /// consumer (rdkafka's call; `None` if rdkafka finds no such partition). The consumer's
    /// own poll must go on for rebalances and commit outcomes, as in rdkafka.
    pub fn split_partition_queue(self: &Arc<Self>, topic: &str, partition: i32) -> Option<PartitionQueue<C>> {
        let inner = self.inner.split_partition_queue(topic, partition)?;
        Some(PartitionQueue { inner })
    }
}

/// The messages of a [`BaseConsumer`] (`rdkafka::consumer::base_consumer::Iter`), as a
/// stream that never ends: librdkafka's queue is looked at without waiting, with tokio's
/// timer in between.
pub struct Iter<'a, C>
where
    C: ConsumerContext,
{
    consumer: &'a rdkafka::consumer::BaseConsumer<C>,
    /// The sleep before the next look, while the queue was empty at the last one.
    backoff: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<'a, C: ConsumerContext> Stream for Iter<'a, C> {
    type Item = KafkaResult<BorrowedMessage<'a>>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let consumer = self.consumer;
        loop {
            if let Some(backoff) = self.backoff.as_mut() {
                if backoff.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                self.backoff = None;
            }
            if let Some(polled) = consumer.poll(Duration::ZERO) {
                return Poll::Ready(Some(polled));
            }
            self.backoff = Some(Box::pin(tokio::time::sleep(POLL_BACKOFF)));
        }
    }
}

/// One partition's messages, polled apart from its consumer
/// (`rdkafka::consumer::base_consumer::PartitionQueue`, with an `async` [`poll`]).
///
/// [`poll`]: PartitionQueue::poll
pub struct PartitionQueue<C>
where
    C: ConsumerContext,
{
    inner: rdkafka::consumer::base_consumer::PartitionQueue<C>,
}

impl<C: ConsumerContext> PartitionQueue<C> {
    /// The partition's next message, or `None` if none came within `timeout`: looked for as
    /// [`BaseConsumer::poll`] does, without blocking.
    pub async fn poll<T: Into<Timeout>>(&self, timeout: T) -> Option<KafkaResult<BorrowedMessage<'_>>> {
        let inner = &self.inner;
        poll_until(timeout.into(), move || inner.poll(Duration::ZERO)).await
    }
}

super::consumer_api!(impl<C> for BaseConsumer<C> where C: ConsumerContext + 'static);
