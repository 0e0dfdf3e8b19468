//! `rdkafka::consumer::BaseConsumer`: `poll` returns the next message, an error, or nothing
//! in time, serving the group's rebalances and commit outcomes on the way as rdkafka's poll
//! does. Its iterator and partition queues wait, so they are streams and `async` here.

use super::base_consumer::BaseConsumer as View;
use super::core::{ConsumerCore, Next};
use super::events::{self, Served};
use super::{ConsumerContext, DefaultConsumerContext};
use crate::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext, Settings};
use crate::error::KafkaResult;
use crate::message::BorrowedMessage;
use crate::util::Timeout;
use futures::Stream;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// A consumer polled for messages (`rdkafka::consumer::BaseConsumer`).
pub struct BaseConsumer<C: ConsumerContext = DefaultConsumerContext> {
    pub(crate) view: View<C>,
}

impl FromClientConfig for BaseConsumer<DefaultConsumerContext> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        BaseConsumer::from_config_and_context(config, DefaultConsumerContext)
    }
}

impl<C: ConsumerContext> FromClientConfigAndContext<C> for BaseConsumer<C> {
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        let core = Arc::new(ConsumerCore::new(Settings::read(config)?)?);
        Ok(BaseConsumer { view: View::new(core, Arc::new(context)) })
    }
}

/// Counts the application as polling while it waits in a poll (librdkafka does not count
/// that time against `max.poll.interval.ms`).
pub(crate) struct Polling<'a>(&'a ConsumerCore);

impl<'a> Polling<'a> {
    pub(crate) fn start(core: &'a ConsumerCore) -> Self {
        core.group.poll_started();
        Polling(core)
    }
}

impl Drop for Polling<'_> {
    fn drop(&mut self) {
        self.0.group.poll_ended();
    }
}

/// One poll of the consumer (or of one partition's queue, `only`), as rdkafka's `poll`: a
/// rebalance served ends a poll with a timeout without a message.
pub(crate) async fn poll<'a, C: ConsumerContext>(
    view: &'a View<C>,
    timeout: Timeout,
    only: Option<&(String, u32)>,
) -> Option<KafkaResult<BorrowedMessage<'a>>> {
    let _polling = Polling::start(&view.core);
    if let Some(json) = view.core.stats_if_due() {
        crate::client::ClientContext::stats_raw(&**view.client.context(), &json);
    }
    let deadline = crate::wire::deadline(timeout);
    loop {
        if only.is_none() {
            match events::next_event(view) {
                Served::Rebalance if timeout != Timeout::Never => {
                    events::commit_events(view);
                    return None;
                }
                Served::Rebalance => continue,
                Served::Error(e) => return Some(Err(e)),
                Served::Nothing => {}
            }
        }
        let next = view.core.next(deadline, only).await;
        events::commit_events(view);
        match next {
            Next::Message(m) => return Some(Ok(BorrowedMessage::new(m))),
            Next::Error(e) => return Some(Err(e)),
            Next::Event => continue,
            Next::Timeout => return None,
        }
    }
}

impl<C: ConsumerContext> BaseConsumer<C> {
    /// The consumer's context.
    pub fn context(&self) -> &Arc<C> {
        self.view.client.context()
    }

    /// The client under the consumer (its fatal error, the cluster's metadata).
    pub fn client(&self) -> &crate::client::Client<C> {
        &self.view.client
    }

    pub(crate) fn core(&self) -> &Arc<ConsumerCore> {
        &self.view.core
    }

    /// The next message, or `None` if none came within `timeout` (or a rebalance was served:
    /// poll again).
    pub async fn poll<T: Into<Timeout>>(&self, timeout: T) -> Option<KafkaResult<BorrowedMessage<'_>>> {
        poll(&self.view, timeout.into(), None).await
    }

    /// The messages, as rdkafka's iterator gives them (`poll` without a timeout); a stream,
    /// since each waits.
    pub fn iter(&self) -> Iter<'_, C> {
        Iter { consumer: self, next: None }
    }

    /// Routes the messages of one partition to a queue of its own, polled apart from the
    /// consumer (`None` if the partition's messages go to a queue already). The consumer's
    /// own poll must go on for rebalances and commit outcomes, as in rdkafka.
    pub fn split_partition_queue(self: &Arc<Self>, topic: &str, partition: i32) -> Option<PartitionQueue<C>> {
        let key = (topic.to_string(), partition.max(0) as u32);
        if self.core().state.lock().unwrap().split.contains(&key) {
            return None;
        }
        self.core().split(topic, partition);
        Some(PartitionQueue { consumer: self.clone(), key })
    }
}

impl<C: ConsumerContext> Drop for BaseConsumer<C> {
    fn drop(&mut self) {
        events::close(&self.view);
    }
}

type NextFuture<'a> = Pin<Box<dyn Future<Output = Option<KafkaResult<BorrowedMessage<'a>>>> + Send + 'a>>;

/// The messages of a [`BaseConsumer`] (`rdkafka::consumer::base_consumer::Iter`), as a
/// stream.
pub struct Iter<'a, C: ConsumerContext> {
    consumer: &'a BaseConsumer<C>,
    next: Option<NextFuture<'a>>,
}

impl<'a, C: ConsumerContext> Stream for Iter<'a, C> {
    type Item = KafkaResult<BorrowedMessage<'a>>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            let consumer = self.consumer;
            let next = self.next.get_or_insert_with(|| Box::pin(poll(&consumer.view, Timeout::Never, None)));
            match next.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(item) => {
                    self.next = None;
                    if let Some(item) = item {
                        return Poll::Ready(Some(item));
                    }
                }
            }
        }
    }
}

/// One partition's messages, polled apart from its consumer
/// (`rdkafka::consumer::base_consumer::PartitionQueue`).
pub struct PartitionQueue<C: ConsumerContext> {
    consumer: Arc<BaseConsumer<C>>,
    key: (String, u32),
}

impl<C: ConsumerContext> PartitionQueue<C> {
    /// The partition's next message, or `None` if none came within `timeout`.
    pub async fn poll<T: Into<Timeout>>(&self, timeout: T) -> Option<KafkaResult<BorrowedMessage<'_>>> {
        poll(&self.consumer.view, timeout.into(), Some(&self.key)).await
    }
}

impl<C: ConsumerContext> PartitionQueue<C> {
    pub(crate) fn consumer(&self) -> &BaseConsumer<C> {
        &self.consumer
    }
    pub(crate) fn key(&self) -> &(String, u32) {
        &self.key
    }
}

impl<C: ConsumerContext> Drop for PartitionQueue<C> {
    fn drop(&mut self) {
        // The partition's messages go back to the consumer's poll.
        self.consumer.core().state.lock().unwrap().split.remove(&self.key);
    }
}

super::consumer_api!(<C> BaseConsumer<C> where C: ConsumerContext);
