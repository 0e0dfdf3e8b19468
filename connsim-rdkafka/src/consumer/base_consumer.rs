//! `rdkafka::consumer::BaseConsumer`: `poll` returns the next message or nothing in time.

use super::core::ConsumerCore;
use crate::config::{ClientConfig, FromClientConfig, Settings};
use crate::error::KafkaResult;
use crate::message::BorrowedMessage;
use crate::util::Timeout;
use std::marker::PhantomData;

/// A consumer polled for messages (`rdkafka::consumer::BaseConsumer`).
pub struct BaseConsumer<C = super::DefaultConsumerContext> {
    pub(crate) core: ConsumerCore,
    context: PhantomData<fn() -> C>,
}

impl FromClientConfig for BaseConsumer<super::DefaultConsumerContext> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        Ok(BaseConsumer { core: ConsumerCore::new(Settings::read(config)?)?, context: PhantomData })
    }
}

impl<C> BaseConsumer<C> {
    /// The next message, or `None` if none came within `timeout`.
    pub async fn poll<T: Into<Timeout>>(&self, timeout: T) -> Option<KafkaResult<BorrowedMessage<'_>>> {
        let deadline = crate::wire::deadline(timeout.into());
        self.core.next(deadline).await.map(|r| r.map(BorrowedMessage::new))
    }
}

super::consumer_api!(<C> BaseConsumer<C>);
