//! Producer contexts (`rdkafka::producer::ProducerContext`): where a [`BaseProducer`]'s
//! delivery reports go.
//!
//! [`BaseProducer`]: super::BaseProducer

use crate::client_context::ClientContext;
use crate::error::KafkaError;
use crate::message::BorrowedMessage;
use crate::util::IntoOpaque;

/// A message's delivery report: the message where it landed, or why not with the message
/// (`rdkafka::producer::DeliveryResult`).
pub type DeliveryResult<'a> = Result<BorrowedMessage<'a>, (KafkaError, BorrowedMessage<'a>)>;

/// The callbacks of a producer (`rdkafka::producer::ProducerContext`).
pub trait ProducerContext: ClientContext {
    /// What each message carries to its delivery report.
    type DeliveryOpaque: IntoOpaque;
    /// Called once per message a [`BaseProducer`](super::BaseProducer) sent, when its
    /// delivery is known (from `poll` or `flush`), with the record's opaque.
    fn delivery(&self, delivery_result: &DeliveryResult<'_>, delivery_opaque: Self::DeliveryOpaque);
}

/// The default producer context: delivery reports are dropped
/// (`rdkafka::producer::DefaultProducerContext`).
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultProducerContext;

impl ClientContext for DefaultProducerContext {}

impl ProducerContext for DefaultProducerContext {
    type DeliveryOpaque = ();
    fn delivery(&self, _: &DeliveryResult<'_>, _: Self::DeliveryOpaque) {}
}
