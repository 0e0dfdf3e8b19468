//! Producer contexts (`rdkafka::producer::ProducerContext`): where a [`BaseProducer`]'s
//! delivery reports go, and the partitioner of one's own a producer uses.
//!
//! [`BaseProducer`]: super::BaseProducer

use super::partitioner::{NoCustomPartitioner, Partitioner};
use crate::client_context::ClientContext;
use crate::util::IntoOpaque;

pub use crate::message::DeliveryResult;

/// The callbacks of a producer (`rdkafka::producer::ProducerContext`).
pub trait ProducerContext<Part: Partitioner = NoCustomPartitioner>: ClientContext {
    /// What each message carries to its delivery report.
    type DeliveryOpaque: IntoOpaque;
    /// Called once per message a [`BaseProducer`](super::BaseProducer) sent, when its
    /// delivery is known (from `poll` or `flush`), with the record's opaque.
    fn delivery(&self, delivery_result: &DeliveryResult<'_>, delivery_opaque: Self::DeliveryOpaque);
    /// A partitioner of one's own for messages that name no partition; `None` (the default):
    /// the `partitioner` property's.
    fn get_custom_partitioner(&self) -> Option<&Part> {
        None
    }
}

/// The default producer context: delivery reports are dropped
/// (`rdkafka::producer::DefaultProducerContext`).
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultProducerContext;

impl ClientContext for DefaultProducerContext {}

impl ProducerContext<NoCustomPartitioner> for DefaultProducerContext {
    type DeliveryOpaque = ();
    fn delivery(&self, _: &DeliveryResult<'_>, _: Self::DeliveryOpaque) {}
}
