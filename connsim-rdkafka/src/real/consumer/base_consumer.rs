//! `rdkafka::consumer::BaseConsumer`: `poll` waits with tokio's timer, never blocking.

use super::DefaultConsumerContext;
use rdkafka::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext};
use rdkafka::consumer::ConsumerContext;
use rdkafka::error::KafkaResult;
use rdkafka::message::BorrowedMessage;
use rdkafka::util::Timeout;
use std::sync::Arc;
use std::time::Duration;

/// A consumer polled for messages: rdkafka's `BaseConsumer`, with an `async` [`poll`].
///
/// [`poll`]: BaseConsumer::poll
pub struct BaseConsumer<C = DefaultConsumerContext>
where
    C: ConsumerContext + 'static,
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

/// How long `poll` sleeps between looks at librdkafka's queue while nothing is there.
const POLL_BACKOFF: Duration = Duration::from_millis(1);

impl<C: ConsumerContext + 'static> BaseConsumer<C> {
    /// The consumer's context (rdkafka's call).
    pub fn context(&self) -> &std::sync::Arc<C> {
        rdkafka::consumer::Consumer::context(&*self.inner)
    }

    /// The next message, or `None` if none came within `timeout`. librdkafka is asked
    /// without waiting (`poll(0)` never blocks) on the caller's thread, with an async sleep
    /// between looks: dropping this future loses no message, since a message is taken from
    /// librdkafka only when it is returned.
    pub async fn poll<T: Into<Timeout>>(&self, timeout: T) -> Option<KafkaResult<BorrowedMessage<'_>>> {
        let deadline = match timeout.into() {
            Timeout::After(d) => Some(tokio::time::Instant::now() + d),
            Timeout::Never => None,
        };
        loop {
            if let Some(polled) = self.inner.poll(Duration::ZERO) {
                return Some(polled);
            }
            if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
                return None;
            }
            tokio::time::sleep(POLL_BACKOFF).await;
        }
    }
}

super::consumer_api!(impl<C> for BaseConsumer<C> where C: ConsumerContext + 'static);
