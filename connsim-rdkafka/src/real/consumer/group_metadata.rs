//! `rdkafka::consumer::ConsumerGroupMetadata`, shareable with a blocking call.

use std::fmt;
use std::sync::Arc;

/// A consumer's group, for [`crate::producer::Producer::send_offsets_to_transaction`]:
/// rdkafka's, behind an `Arc` so that the blocking call it is handed to can own it.
#[derive(Clone)]
pub struct ConsumerGroupMetadata(pub(crate) Arc<rdkafka::consumer::ConsumerGroupMetadata>);

impl ConsumerGroupMetadata {
    pub(crate) fn new(metadata: rdkafka::consumer::ConsumerGroupMetadata) -> Self {
        ConsumerGroupMetadata(Arc::new(metadata))
    }
}

impl fmt::Debug for ConsumerGroupMetadata {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ConsumerGroupMetadata")
    }
}
