//! Consumer contexts (`rdkafka::consumer::ConsumerContext`): the callbacks a consumer makes.

use super::BaseConsumer;
use crate::client_context::ClientContext;
use crate::error::{KafkaError, KafkaResult};
use crate::topic_partition_list::TopicPartitionList;
use crate::util::Timeout;
use std::time::Duration;

/// A group rebalance (`rdkafka::consumer::Rebalance`). Group membership is not simulated, so
/// no consumer here goes through one: partitions are assigned with `assign`.
#[derive(Clone, Debug)]
pub enum Rebalance<'a> {
    /// Partitions assigned.
    Assign(&'a TopicPartitionList),
    /// Partitions revoked.
    Revoke(&'a TopicPartitionList),
    /// The rebalance failed.
    Error(KafkaError),
}

/// The rebalance protocol of a consumer's group (`rdkafka::consumer::RebalanceProtocol`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RebalanceProtocol {
    /// The consumer has not joined a group (always, here).
    None,
    /// Eager rebalancing.
    Eager,
    /// Cooperative rebalancing.
    Cooperative,
}

/// The callbacks of a consumer (`rdkafka::consumer::ConsumerContext`). `commit_callback` is
/// called with the outcome of every `commit` and `commit_consumer_state`; the rebalance
/// callbacks never are, as no group rebalances here.
pub trait ConsumerContext: ClientContext + Sized {
    /// Before a rebalance (never called here).
    fn pre_rebalance(&self, base_consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        let _ = (base_consumer, rebalance);
    }
    /// After a rebalance (never called here).
    fn post_rebalance(&self, base_consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        let _ = (base_consumer, rebalance);
    }
    /// After a commit of `offsets`, with its outcome.
    fn commit_callback(&self, result: KafkaResult<()>, offsets: &TopicPartitionList) {
        let _ = (result, offsets);
    }
    /// How often librdkafka's main queue is served (not used here).
    fn main_queue_min_poll_interval(&self) -> Timeout {
        Timeout::After(Duration::from_secs(1))
    }
}

/// The default consumer context (`rdkafka::consumer::DefaultConsumerContext`).
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultConsumerContext;

impl ClientContext for DefaultConsumerContext {}
impl ConsumerContext for DefaultConsumerContext {}
