//! A consumer's subscription: `subscribe`, `unsubscribe`, what it subscribes to, its group
//! metadata and rebalance protocol, and closing it.

use super::core::{ConsumerCore, UNKNOWN_GROUP};
use super::group::{task, GroupEvent};
use super::{ConsumerGroupMetadata, RebalanceProtocol};
use crate::error::{KafkaError, KafkaResult};
use crate::topic_partition_list::{Offset, TopicPartitionList};
use std::sync::Arc;

impl ConsumerCore {
    /// `subscribe`: the group's rebalances assign the partitions of these topics (a `^…`
    /// entry is a regular expression over topic names, as librdkafka's). A new subscription
    /// replaces the last; the member rejoins with it.
    pub(crate) fn subscribe(self: &Arc<Self>, topics: &[&str]) -> KafkaResult<()> {
        if !self.has_group() {
            return Err(KafkaError::Subscription(UNKNOWN_GROUP.into()));
        }
        let invalid = topics.iter().any(|t| t.is_empty() || (t.starts_with('^') && regex::Regex::new(t).is_err()));
        if invalid {
            return Err(KafkaError::Subscription("Local: Invalid argument or configuration".into()));
        }
        let mut s = self.group.inner.lock().unwrap();
        let running = !s.subscription.is_empty() && !s.closed;
        s.subscription = topics.iter().map(|t| t.to_string()).collect();
        if running {
            // The running handler rejoins with the new subscription.
            s.known_topics.clear();
            drop(s);
            self.group.wake.notify_one();
            return Ok(());
        }
        s.epoch += 1;
        let epoch = s.epoch;
        drop(s);
        task::start(self, epoch);
        Ok(())
    }

    /// `unsubscribe`: the assignment is revoked (at the next poll, through the rebalance
    /// callback) and the member leaves the group.
    pub(crate) fn unsubscribe(&self) {
        let mut s = self.group.inner.lock().unwrap();
        if s.subscription.is_empty() {
            return;
        }
        s.subscription.clear();
        s.epoch += 1;
        let owned = std::mem::take(&mut s.owned);
        drop(s);
        if !owned.is_empty() {
            let mut tpl = TopicPartitionList::new();
            for (t, p) in owned {
                let _ = tpl.add_partition_offset(&t, p as i32, Offset::Invalid);
            }
            self.group.queue(GroupEvent::Revoke(tpl, false));
        }
        self.group.wake.notify_one();
    }

    /// The subscribed topics (`UnknownGroup` without `group.id`).
    pub(crate) fn subscription(&self) -> KafkaResult<TopicPartitionList> {
        if !self.has_group() {
            return Err(KafkaError::MetadataFetch(crate::error::RDKafkaErrorCode::UnknownGroup));
        }
        let mut tpl = TopicPartitionList::new();
        for t in &self.group.inner.lock().unwrap().subscription {
            tpl.add_topic_unassigned(t);
        }
        Ok(tpl)
    }

    /// librdkafka's `rd_kafka_rebalance_protocol`: none until the consumer joined a group.
    pub(crate) fn rebalance_protocol(&self) -> RebalanceProtocol {
        match self.group.inner.lock().unwrap().protocol {
            None => RebalanceProtocol::None,
            Some(a) if a.cooperative() => RebalanceProtocol::Cooperative,
            Some(_) => RebalanceProtocol::Eager,
        }
    }

    /// The group metadata a transaction commits offsets with: the group and, while the
    /// consumer is a member, its generation and member id (KIP-447).
    pub(crate) fn group_metadata(&self) -> Option<ConsumerGroupMetadata> {
        let group = self.settings.group_id.clone()?;
        let member = self.group.identity(self.settings.group_instance_id.as_ref());
        Some(ConsumerGroupMetadata { group, member })
    }

    /// The consumer closes (it was dropped): the group handler stops, and what closing needs
    /// the network for (the commits an unassignment makes, `LeaveGroup`) goes on in a task of
    /// its own. The revocation's callback ran already.
    pub(crate) fn close(self: &Arc<Self>) {
        let mut s = self.group.inner.lock().unwrap();
        if s.closed {
            return;
        }
        s.closed = true;
        let subscribed = !s.subscription.is_empty();
        drop(s);
        self.group.wake.notify_one();
        let core = self.clone();
        madsim::task::spawn(async move {
            if subscribed {
                task::leave(&core).await;
            } else {
                core.flush_commits().await;
            }
        });
    }
}
