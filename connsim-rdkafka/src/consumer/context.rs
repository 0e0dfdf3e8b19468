//! Consumer contexts (`rdkafka::consumer::ConsumerContext`): the callbacks a consumer makes,
//! from the application's poll, as rdkafka makes them.

use super::base_consumer::BaseConsumer;
use crate::client_context::ClientContext;
use crate::error::{KafkaError, KafkaResult, RDKafkaRespErr};
use crate::topic_partition_list::TopicPartitionList;
use crate::util::Timeout;
use std::time::Duration;

/// A group rebalance (`rdkafka::consumer::Rebalance`).
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
    /// The consumer has not joined a group.
    None,
    /// Eager rebalancing: every member gives up its whole assignment.
    Eager,
    /// Cooperative rebalancing (KIP-429): members give up only what moves.
    Cooperative,
}

/// The callbacks of a consumer (`rdkafka::consumer::ConsumerContext`), called from the
/// application's `poll`/`recv` (and from dropping a subscribed consumer, for its last
/// revocation), as rdkafka calls them.
pub trait ConsumerContext: ClientContext + Sized {
    /// Runs a rebalance the group decided: `pre_rebalance`, then the assignment change
    /// (`assign`/`unassign` under eager, `incremental_assign`/`incremental_unassign` under
    /// cooperative), then `post_rebalance`. A context that overrides it makes the change
    /// itself (rdkafka's default implementation, to the letter).
    fn rebalance(&self, base_consumer: &BaseConsumer<Self>, err: RDKafkaRespErr, tpl: &mut TopicPartitionList) {
        let rebalance = match err {
            RDKafkaRespErr::RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS => Rebalance::Assign(tpl),
            RDKafkaRespErr::RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS => Rebalance::Revoke(tpl),
            other => Rebalance::Error(KafkaError::Rebalance(other.into())),
        };
        self.pre_rebalance(base_consumer, &rebalance);
        let core = &base_consumer.core;
        let cooperative = core.rebalance_protocol() == RebalanceProtocol::Cooperative;
        match (err, cooperative) {
            (RDKafkaRespErr::RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS, true) => {
                let _ = core.reassign(tpl, true);
            }
            (RDKafkaRespErr::RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS, false) => core.set_assignment(tpl),
            (_, true) => {
                let _ = core.reassign(tpl, false);
            }
            (_, false) => core.set_assignment(&TopicPartitionList::new()),
        }
        self.post_rebalance(base_consumer, &rebalance);
    }
    /// Before a rebalance's assignment change.
    fn pre_rebalance(&self, base_consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        let _ = (base_consumer, rebalance);
    }
    /// After a rebalance's assignment change.
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
