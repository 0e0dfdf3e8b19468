//! `rdkafka::consumer`: [`BaseConsumer`] and [`StreamConsumer`] around rdkafka's, and the
//! [`Consumer`] trait with the simulation's `async` calls.
//!
//! `committed`, `committed_offsets`, `fetch_metadata`, `fetch_watermarks`,
//! `fetch_group_list`, `offsets_for_times` and a synchronous `commit` wait for the broker in
//! rdkafka: they run on tokio's blocking pool. `BaseConsumer::poll`, its stream
//! ([`BaseConsumer::iter`]) and its partition queues' `poll` look at librdkafka's queue
//! without waiting and sleep on tokio's timer in between. The others, an asynchronous commit
//! and `seek` among them, are rdkafka's calls made directly, without waiting.
//!
//! One difference stays: `client()` is rdkafka's [`Client`](rdkafka::client::Client), whose
//! `fetch_metadata`, `fetch_watermarks` and `fetch_group_list` block the caller's thread
//! (they are `async` in the simulation). Call the consumer's own, through [`Consumer`].

#[path = "base_consumer.rs"]
mod base;
mod group_metadata;
pub mod stream_consumer;

pub use base::BaseConsumer;

/// `rdkafka::consumer::base_consumer`: rdkafka's own base consumer, the type its
/// `ConsumerContext`'s rebalance callbacks take (a context that overrides them names it by
/// this path, which is the simulated consumer in the simulation), with rdkafka's own
/// synchronous [`Consumer`](rdkafka::consumer::Consumer) trait for the calls a callback makes
/// on it (`use rdkafka::consumer::base_consumer::Consumer as _;`).
/// [`Iter`](base_consumer::Iter) and [`PartitionQueue`](base_consumer::PartitionQueue) are
/// the wrapped [`BaseConsumer`]'s: a stream, and a queue whose `poll` is `async`, as in the
/// simulation (rdkafka's block the thread).
pub mod base_consumer {
    pub use super::base::{Iter, PartitionQueue};
    pub use rdkafka::consumer::base_consumer::*;
    pub use rdkafka::consumer::Consumer;
}
pub use group_metadata::ConsumerGroupMetadata;
pub use rdkafka::consumer::{CommitMode, ConsumerContext, DefaultConsumerContext, Rebalance, RebalanceProtocol};
pub use stream_consumer::{MessageStream, StreamConsumer};

use rdkafka::error::KafkaResult;
use rdkafka::groups::GroupList;
use rdkafka::metadata::Metadata;
use rdkafka::util::Timeout;
use rdkafka::{Offset, TopicPartitionList};

/// What both consumers do (`rdkafka::consumer::Consumer`, with the simulation's `async`
/// calls).
#[allow(async_fn_in_trait)]
pub trait Consumer {
    /// The group metadata, if `group.id` is set.
    fn group_metadata(&self) -> Option<ConsumerGroupMetadata>;
    /// Subscribes to topics (the group's rebalancing assigns partitions).
    fn subscribe(&self, topics: &[&str]) -> KafkaResult<()>;
    /// Sets the assignment; each partition starts at its offset in the list.
    fn assign(&self, assignment: &TopicPartitionList) -> KafkaResult<()>;
    /// Drops the assignment.
    fn unassign(&self) -> KafkaResult<()>;
    /// The assignment.
    fn assignment(&self) -> KafkaResult<TopicPartitionList>;
    /// Moves an assigned partition's position.
    fn seek<T: Into<Timeout>>(&self, topic: &str, partition: i32, offset: Offset, timeout: T) -> KafkaResult<()>;
    /// Commits offsets for the group (`CommitMode::Sync` waits for the broker).
    async fn commit(&self, topic_partition_list: &TopicPartitionList, mode: CommitMode) -> KafkaResult<()>;
    /// Commits the current positions.
    async fn commit_consumer_state(&self, mode: CommitMode) -> KafkaResult<()>;
    /// Stores `offset` of an assigned partition for the next commit; needs
    /// `enable.auto.offset.store=false`.
    fn store_offset(&self, topic: &str, partition: i32, offset: i64) -> KafkaResult<()>;
    /// Stores the offset past `message` for the next commit; needs
    /// `enable.auto.offset.store=false`.
    fn store_offset_from_message(&self, message: &rdkafka::message::BorrowedMessage<'_>) -> KafkaResult<()>;
    /// Stores the offsets of `tpl` for the next commit; needs `enable.auto.offset.store=false`.
    fn store_offsets(&self, tpl: &TopicPartitionList) -> KafkaResult<()>;
    /// The group's committed offsets of the assignment.
    async fn committed<T: Into<Timeout>>(&self, timeout: T) -> KafkaResult<TopicPartitionList>;
    /// The group's committed offsets of `tpl`'s partitions.
    async fn committed_offsets<T: Into<Timeout>>(
        &self,
        tpl: TopicPartitionList,
        timeout: T,
    ) -> KafkaResult<TopicPartitionList>;
    /// The position of every assigned partition: the offset of the next message returned.
    fn position(&self) -> KafkaResult<TopicPartitionList>;
    /// Topics and their partitions.
    async fn fetch_metadata<T: Into<Timeout>>(&self, topic: Option<&str>, timeout: T) -> KafkaResult<Metadata>;
    /// A partition's low and high watermarks.
    async fn fetch_watermarks<T: Into<Timeout>>(
        &self,
        topic: &str,
        partition: i32,
        timeout: T,
    ) -> KafkaResult<(i64, i64)>;
    /// Adds partitions to the assignment, each at its offset.
    fn incremental_assign(&self, assignment: &TopicPartitionList) -> KafkaResult<()>;
    /// Takes partitions out of the assignment.
    fn incremental_unassign(&self, assignment: &TopicPartitionList) -> KafkaResult<()>;
    /// Leaves the group's subscription.
    fn unsubscribe(&self);
    /// The subscribed topics.
    fn subscription(&self) -> KafkaResult<TopicPartitionList>;
    /// Whether the group took the assignment away.
    fn assignment_lost(&self) -> bool;
    /// The group's rebalance protocol.
    fn rebalance_protocol(&self) -> RebalanceProtocol;
    /// The cluster's consumer groups, or one of them.
    async fn fetch_group_list<T: Into<Timeout>>(&self, group: Option<&str>, timeout: T) -> KafkaResult<GroupList>;
    /// Moves several assigned partitions' positions (without waiting).
    fn seek_partitions<T: Into<Timeout>>(
        &self,
        topic_partition_list: TopicPartitionList,
        timeout: T,
    ) -> KafkaResult<TopicPartitionList>;
    /// Commits the offset past `message`.
    async fn commit_message(
        &self,
        message: &rdkafka::message::BorrowedMessage<'_>,
        mode: CommitMode,
    ) -> KafkaResult<()>;
    /// Per partition of `timestamps`, the first offset at or after it.
    async fn offsets_for_times<T: Into<Timeout>>(
        &self,
        timestamps: TopicPartitionList,
        timeout: T,
    ) -> KafkaResult<TopicPartitionList>;
    /// [`Consumer::offsets_for_times`] of `timestamp` for every assigned partition.
    async fn offsets_for_timestamp<T: Into<Timeout>>(
        &self,
        timestamp: i64,
        timeout: T,
    ) -> KafkaResult<TopicPartitionList>;
    /// Stops returning messages of these partitions.
    fn pause(&self, partitions: &TopicPartitionList) -> KafkaResult<()>;
    /// Returns messages of these partitions again.
    fn resume(&self, partitions: &TopicPartitionList) -> KafkaResult<()>;
}

/// Implements [`Consumer`] for a wrapper whose `inner` is an `Arc` of an rdkafka consumer.
macro_rules! consumer_api {
    (impl<$($g:ident),*> for $ty:ty where $($bounds:tt)*) => {
        impl<$($g),*> $crate::real::consumer::Consumer for $ty
        where
            $($bounds)*
        {
            fn group_metadata(&self) -> Option<$crate::real::consumer::ConsumerGroupMetadata> {
                rdkafka::consumer::Consumer::group_metadata(&*self.inner)
                    .map($crate::real::consumer::ConsumerGroupMetadata::new)
            }
            fn subscribe(&self, topics: &[&str]) -> rdkafka::error::KafkaResult<()> {
                rdkafka::consumer::Consumer::subscribe(&*self.inner, topics)
            }
            fn assign(&self, assignment: &rdkafka::TopicPartitionList) -> rdkafka::error::KafkaResult<()> {
                rdkafka::consumer::Consumer::assign(&*self.inner, assignment)
            }
            fn unassign(&self) -> rdkafka::error::KafkaResult<()> {
                rdkafka::consumer::Consumer::unassign(&*self.inner)
            }
            fn assignment(&self) -> rdkafka::error::KafkaResult<rdkafka::TopicPartitionList> {
                rdkafka::consumer::Consumer::assignment(&*self.inner)
            }
            fn seek<T: Into<rdkafka::util::Timeout>>(
                &self,
                topic: &str,
                partition: i32,
                offset: rdkafka::Offset,
                _timeout: T,
            ) -> rdkafka::error::KafkaResult<()> {
                // Without waiting: librdkafka then seeks in the background, and the caller's
                // thread (an async runtime's) is never blocked.
                let now = rdkafka::util::Timeout::After(std::time::Duration::ZERO);
                rdkafka::consumer::Consumer::seek(&*self.inner, topic, partition, offset, now)
            }
            async fn commit(
                &self,
                tpl: &rdkafka::TopicPartitionList,
                mode: rdkafka::consumer::CommitMode,
            ) -> rdkafka::error::KafkaResult<()> {
                match mode {
                    // Queued for librdkafka's background thread: nothing waits.
                    rdkafka::consumer::CommitMode::Async => rdkafka::consumer::Consumer::commit(&*self.inner, tpl, mode),
                    rdkafka::consumer::CommitMode::Sync => {
                        let (inner, tpl) = (self.inner.clone(), tpl.clone());
                        $crate::real::blocking::blocking(move || rdkafka::consumer::Consumer::commit(&*inner, &tpl, mode))
                            .await
                    }
                }
            }
            async fn commit_consumer_state(
                &self,
                mode: rdkafka::consumer::CommitMode,
            ) -> rdkafka::error::KafkaResult<()> {
                match mode {
                    rdkafka::consumer::CommitMode::Async => {
                        rdkafka::consumer::Consumer::commit_consumer_state(&*self.inner, mode)
                    }
                    rdkafka::consumer::CommitMode::Sync => {
                        let inner = self.inner.clone();
                        $crate::real::blocking::blocking(move || {
                            rdkafka::consumer::Consumer::commit_consumer_state(&*inner, mode)
                        })
                        .await
                    }
                }
            }
            fn store_offset(&self, topic: &str, partition: i32, offset: i64) -> rdkafka::error::KafkaResult<()> {
                rdkafka::consumer::Consumer::store_offset(&*self.inner, topic, partition, offset)
            }
            fn store_offset_from_message(
                &self,
                message: &rdkafka::message::BorrowedMessage<'_>,
            ) -> rdkafka::error::KafkaResult<()> {
                rdkafka::consumer::Consumer::store_offset_from_message(&*self.inner, message)
            }
            fn store_offsets(&self, tpl: &rdkafka::TopicPartitionList) -> rdkafka::error::KafkaResult<()> {
                rdkafka::consumer::Consumer::store_offsets(&*self.inner, tpl)
            }
            async fn committed<T: Into<rdkafka::util::Timeout>>(
                &self,
                timeout: T,
            ) -> rdkafka::error::KafkaResult<rdkafka::TopicPartitionList> {
                let (inner, timeout) = (self.inner.clone(), timeout.into());
                $crate::real::blocking::blocking(move || rdkafka::consumer::Consumer::committed(&*inner, timeout)).await
            }
            async fn committed_offsets<T: Into<rdkafka::util::Timeout>>(
                &self,
                tpl: rdkafka::TopicPartitionList,
                timeout: T,
            ) -> rdkafka::error::KafkaResult<rdkafka::TopicPartitionList> {
                let (inner, timeout) = (self.inner.clone(), timeout.into());
                $crate::real::blocking::blocking(move || {
                    rdkafka::consumer::Consumer::committed_offsets(&*inner, tpl, timeout)
                })
                .await
            }
            fn position(&self) -> rdkafka::error::KafkaResult<rdkafka::TopicPartitionList> {
                rdkafka::consumer::Consumer::position(&*self.inner)
            }
            async fn fetch_metadata<T: Into<rdkafka::util::Timeout>>(
                &self,
                topic: Option<&str>,
                timeout: T,
            ) -> rdkafka::error::KafkaResult<rdkafka::metadata::Metadata> {
                let (inner, topic, timeout) = (self.inner.clone(), topic.map(str::to_string), timeout.into());
                $crate::real::blocking::blocking(move || {
                    rdkafka::consumer::Consumer::fetch_metadata(&*inner, topic.as_deref(), timeout)
                })
                .await
            }
            async fn fetch_watermarks<T: Into<rdkafka::util::Timeout>>(
                &self,
                topic: &str,
                partition: i32,
                timeout: T,
            ) -> rdkafka::error::KafkaResult<(i64, i64)> {
                let (inner, topic, timeout) = (self.inner.clone(), topic.to_string(), timeout.into());
                $crate::real::blocking::blocking(move || {
                    rdkafka::consumer::Consumer::fetch_watermarks(&*inner, &topic, partition, timeout)
                })
                .await
            }
            fn incremental_assign(&self, assignment: &rdkafka::TopicPartitionList) -> rdkafka::error::KafkaResult<()> {
                rdkafka::consumer::Consumer::incremental_assign(&*self.inner, assignment)
            }
            fn incremental_unassign(&self, assignment: &rdkafka::TopicPartitionList) -> rdkafka::error::KafkaResult<()> {
                rdkafka::consumer::Consumer::incremental_unassign(&*self.inner, assignment)
            }
            fn unsubscribe(&self) {
                rdkafka::consumer::Consumer::unsubscribe(&*self.inner)
            }
            fn subscription(&self) -> rdkafka::error::KafkaResult<rdkafka::TopicPartitionList> {
                rdkafka::consumer::Consumer::subscription(&*self.inner)
            }
            fn assignment_lost(&self) -> bool {
                rdkafka::consumer::Consumer::assignment_lost(&*self.inner)
            }
            fn rebalance_protocol(&self) -> rdkafka::consumer::RebalanceProtocol {
                rdkafka::consumer::Consumer::rebalance_protocol(&*self.inner)
            }
            async fn fetch_group_list<T: Into<rdkafka::util::Timeout>>(
                &self,
                group: Option<&str>,
                timeout: T,
            ) -> rdkafka::error::KafkaResult<rdkafka::groups::GroupList> {
                let (inner, group, timeout) = (self.inner.clone(), group.map(str::to_string), timeout.into());
                let listed = $crate::real::blocking::blocking(move || {
                    rdkafka::consumer::Consumer::fetch_group_list(&*inner, group.as_deref(), timeout)
                        .map($crate::real::blocking::SentGroupList)
                })
                .await;
                listed.map(|sent| sent.0)
            }
            fn seek_partitions<T: Into<rdkafka::util::Timeout>>(
                &self,
                topic_partition_list: rdkafka::TopicPartitionList,
                _timeout: T,
            ) -> rdkafka::error::KafkaResult<rdkafka::TopicPartitionList> {
                // Without waiting, as `seek`.
                let now = rdkafka::util::Timeout::After(std::time::Duration::ZERO);
                rdkafka::consumer::Consumer::seek_partitions(&*self.inner, topic_partition_list, now)
            }
            async fn commit_message(
                &self,
                message: &rdkafka::message::BorrowedMessage<'_>,
                mode: rdkafka::consumer::CommitMode,
            ) -> rdkafka::error::KafkaResult<()> {
                use rdkafka::Message;
                let mut tpl = rdkafka::TopicPartitionList::new();
                tpl.add_partition_offset(message.topic(), message.partition(), rdkafka::Offset::Offset(message.offset() + 1))?;
                $crate::real::consumer::Consumer::commit(self, &tpl, mode).await
            }
            async fn offsets_for_times<T: Into<rdkafka::util::Timeout>>(
                &self,
                timestamps: rdkafka::TopicPartitionList,
                timeout: T,
            ) -> rdkafka::error::KafkaResult<rdkafka::TopicPartitionList> {
                let (inner, timeout) = (self.inner.clone(), timeout.into());
                $crate::real::blocking::blocking(move || {
                    rdkafka::consumer::Consumer::offsets_for_times(&*inner, timestamps, timeout)
                })
                .await
            }
            async fn offsets_for_timestamp<T: Into<rdkafka::util::Timeout>>(
                &self,
                timestamp: i64,
                timeout: T,
            ) -> rdkafka::error::KafkaResult<rdkafka::TopicPartitionList> {
                let (inner, timeout) = (self.inner.clone(), timeout.into());
                $crate::real::blocking::blocking(move || {
                    rdkafka::consumer::Consumer::offsets_for_timestamp(&*inner, timestamp, timeout)
                })
                .await
            }
            fn pause(&self, partitions: &rdkafka::TopicPartitionList) -> rdkafka::error::KafkaResult<()> {
                rdkafka::consumer::Consumer::pause(&*self.inner, partitions)
            }
            fn resume(&self, partitions: &rdkafka::TopicPartitionList) -> rdkafka::error::KafkaResult<()> {
                rdkafka::consumer::Consumer::resume(&*self.inner, partitions)
            }
        }
    };
}
use consumer_api;
