//! `rdkafka::consumer::BaseConsumer`: `poll` returns the next message or nothing in time.

use super::core::ConsumerCore;
use super::{ConsumerContext, DefaultConsumerContext};
use crate::config::{ClientConfig, FromClientConfig, FromClientConfigAndContext, Settings};
use crate::error::KafkaResult;
use crate::message::BorrowedMessage;
use crate::util::Timeout;
use std::sync::Arc;

/// A consumer polled for messages (`rdkafka::consumer::BaseConsumer`).
pub struct BaseConsumer<C: ConsumerContext = DefaultConsumerContext> {
    pub(crate) core: ConsumerCore,
    context: Arc<C>,
}

impl FromClientConfig for BaseConsumer<DefaultConsumerContext> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        BaseConsumer::from_config_and_context(config, DefaultConsumerContext)
    }
}

impl<C: ConsumerContext> FromClientConfigAndContext<C> for BaseConsumer<C> {
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self> {
        Ok(BaseConsumer { core: ConsumerCore::new(Settings::read(config)?)?, context: Arc::new(context) })
    }
}

impl<C: ConsumerContext> BaseConsumer<C> {
    /// The consumer's context.
    pub fn context(&self) -> &Arc<C> {
        &self.context
    }

    /// The next message, or `None` if none came within `timeout`.
    pub async fn poll<T: Into<Timeout>>(&self, timeout: T) -> Option<KafkaResult<BorrowedMessage<'_>>> {
        let deadline = crate::wire::deadline(timeout.into());
        let next = self.core.next(deadline).await;
        super::serve_commit_events(&self.core, &*self.context);
        next.map(|r| r.map(BorrowedMessage::new))
    }
}

super::consumer_api!(<C> BaseConsumer<C> where C: ConsumerContext);
