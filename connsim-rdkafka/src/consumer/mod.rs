//! `rdkafka::consumer`: [`StreamConsumer`], [`BaseConsumer`] and the [`Consumer`] trait.
//!
//! A consumer reads the partitions the application assigns ([`Consumer::assign`], as a
//! FLIP-27 source assigns its splits) or those its group's rebalances assign it
//! ([`Consumer::subscribe`]: the group coordinator of the simulated log, the rebalance
//! callbacks of its [`ConsumerContext`] called from `poll`, as in rdkafka). The calls that
//! block a thread in rdkafka (`committed`, `commit`, `fetch_watermarks`, `fetch_metadata`,
//! `BaseConsumer::poll`) are `async` here, as the producer's are; the consumer a rebalance
//! callback gets is [`base_consumer::BaseConsumer`], with rdkafka's synchronous calls.

pub mod base_consumer;
mod context;
pub(crate) mod core;
mod events;
pub(crate) mod group;
mod offsets;
mod polled;
mod stats;
pub mod stream_consumer;
mod subscription;
mod times;

pub use context::{ConsumerContext, DefaultConsumerContext, Rebalance, RebalanceProtocol};
pub use polled::BaseConsumer;
pub use stream_consumer::{MessageStream, StreamConsumer};

use crate::error::KafkaResult;
use crate::groups::GroupList;
use crate::message::BorrowedMessage;
use crate::metadata::Metadata;
use crate::topic_partition_list::{Offset, TopicPartitionList};
use crate::util::Timeout;

/// Whether a commit waits (`rdkafka::consumer::CommitMode`). Both wait here: the call is
/// `async`. Like rdkafka's, it cannot be compared.
#[derive(Clone, Copy, Debug)]
pub enum CommitMode {
    /// Wait for the broker.
    Sync,
    /// Do not wait (still awaited here; the difference is the caller's `.await`).
    Async,
}

/// A consumer's group, for [`crate::producer::Producer::send_offsets_to_transaction`]
/// (`rdkafka::consumer::ConsumerGroupMetadata`). Like rdkafka's, it cannot be compared.
/// It names the group and, for a member of it, the member and its generation, so a
/// transaction's offsets are refused from a generation the group left behind (KIP-447).
#[derive(Clone, Debug)]
pub struct ConsumerGroupMetadata {
    pub(crate) group: String,
    pub(crate) member: Option<connsim::systems::MemberIdentity>,
}

impl ConsumerGroupMetadata {
    pub(crate) fn group(&self) -> &str {
        &self.group
    }
    pub(crate) fn member(&self) -> Option<connsim::systems::MemberIdentity> {
        self.member.clone()
    }
}

/// What both consumers do (`rdkafka::consumer::Consumer`).
#[allow(async_fn_in_trait)]
pub trait Consumer {
    /// The group metadata, if `group.id` is set.
    fn group_metadata(&self) -> Option<ConsumerGroupMetadata>;
    /// Subscribes to topics (a `^…` entry is a regular expression over topic names): the
    /// group's rebalances assign their partitions, through the context's `rebalance`.
    fn subscribe(&self, topics: &[&str]) -> KafkaResult<()>;
    /// Sets the assignment; each partition starts at its offset in the list (`Invalid` or
    /// `Stored`: the group's committed offset, else `auto.offset.reset`).
    fn assign(&self, assignment: &TopicPartitionList) -> KafkaResult<()>;
    /// Drops the assignment.
    fn unassign(&self) -> KafkaResult<()>;
    /// The assignment.
    fn assignment(&self) -> KafkaResult<TopicPartitionList>;
    /// Moves an assigned partition's position.
    fn seek<T: Into<Timeout>>(&self, topic: &str, partition: i32, offset: Offset, timeout: T) -> KafkaResult<()>;
    /// Commits offsets for the group.
    async fn commit(&self, topic_partition_list: &TopicPartitionList, mode: CommitMode) -> KafkaResult<()>;
    /// Commits the stored offsets (with `enable.auto.offset.store`, the default: past the
    /// messages returned).
    async fn commit_consumer_state(&self, mode: CommitMode) -> KafkaResult<()>;
    /// Stores the offset past `offset` (the next message to read) of an assigned partition
    /// for the next commit, as librdkafka's `rd_kafka_offset_store` (which adds one).
    fn store_offset(&self, topic: &str, partition: i32, offset: i64) -> KafkaResult<()>;
    /// Stores the offset past `message` for the next commit.
    fn store_offset_from_message(&self, message: &BorrowedMessage<'_>) -> KafkaResult<()>;
    /// Stores the offsets of `tpl` as they are for the next commit; refused while
    /// `enable.auto.offset.store` stores them itself, and only if none could be stored.
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
    /// A partition's low and high watermarks (the high one is the last stable offset for a
    /// read-committed consumer).
    async fn fetch_watermarks<T: Into<Timeout>>(
        &self,
        topic: &str,
        partition: i32,
        timeout: T,
    ) -> KafkaResult<(i64, i64)>;
    /// Adds partitions to the assignment, each at its offset; one already assigned is
    /// refused.
    fn incremental_assign(&self, assignment: &TopicPartitionList) -> KafkaResult<()>;
    /// Takes partitions out of the assignment; one not assigned is refused.
    fn incremental_unassign(&self, assignment: &TopicPartitionList) -> KafkaResult<()>;
    /// Leaves the subscription: the assignment is revoked at the next poll and the member
    /// leaves its group.
    fn unsubscribe(&self);
    /// The subscribed topics.
    fn subscription(&self) -> KafkaResult<TopicPartitionList>;
    /// Whether the group took the assignment away (true while a lost assignment is revoked).
    fn assignment_lost(&self) -> bool;
    /// The group's rebalance protocol (`None` until the consumer joined a group).
    fn rebalance_protocol(&self) -> RebalanceProtocol;
    /// The cluster's consumer groups, or one of them.
    async fn fetch_group_list<T: Into<Timeout>>(&self, group: Option<&str>, timeout: T) -> KafkaResult<GroupList>;
    /// Moves several assigned partitions' positions.
    fn seek_partitions<T: Into<Timeout>>(
        &self,
        topic_partition_list: TopicPartitionList,
        timeout: T,
    ) -> KafkaResult<TopicPartitionList>;
    /// Commits the offset past `message`.
    async fn commit_message(&self, message: &BorrowedMessage<'_>, mode: CommitMode) -> KafkaResult<()>;
    /// Per partition of `timestamps` (offsets that are timestamps in ms), the first offset at
    /// or after it, or `Offset::End` if there is none below the end the consumer may read to.
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

/// Implements [`Consumer`] for a type with a `core()` of its consumer.
macro_rules! consumer_api {
    (<$($g:ident),*> $ty:ty where $($bounds:tt)*) => {
        impl<$($g),*> $crate::consumer::Consumer for $ty where $($bounds)* {
            fn group_metadata(&self) -> Option<$crate::consumer::ConsumerGroupMetadata> {
                self.core().group_metadata()
            }
            fn subscribe(&self, topics: &[&str]) -> $crate::error::KafkaResult<()> {
                self.core().subscribe(topics)
            }
            fn assign(&self, assignment: &$crate::TopicPartitionList) -> $crate::error::KafkaResult<()> {
                self.core().assign(assignment)
            }
            fn unassign(&self) -> $crate::error::KafkaResult<()> {
                self.core().assign(&$crate::TopicPartitionList::new())
            }
            fn assignment(&self) -> $crate::error::KafkaResult<$crate::TopicPartitionList> {
                self.core().assignment()
            }
            fn seek<T: Into<$crate::util::Timeout>>(
                &self,
                topic: &str,
                partition: i32,
                offset: $crate::Offset,
                _timeout: T,
            ) -> $crate::error::KafkaResult<()> {
                self.core().seek(topic, partition, offset)
            }
            async fn commit(
                &self,
                tpl: &$crate::TopicPartitionList,
                _mode: $crate::consumer::CommitMode,
            ) -> $crate::error::KafkaResult<()> {
                // rdkafka hands the context's commit callback only automatic commits.
                self.core().commit($crate::producer::offsets_of(tpl), None).await
            }
            async fn commit_consumer_state(&self, _mode: $crate::consumer::CommitMode) -> $crate::error::KafkaResult<()> {
                // What is stored past what was committed; nothing is `NoOffset`.
                self.core().commit(self.core().to_commit(), None).await
            }
            fn store_offset(&self, topic: &str, partition: i32, offset: i64) -> $crate::error::KafkaResult<()> {
                self.core().store(topic, partition, offset + 1)
            }
            fn store_offset_from_message(
                &self,
                message: &$crate::message::BorrowedMessage<'_>,
            ) -> $crate::error::KafkaResult<()> {
                use $crate::Message;
                self.core().store(message.topic(), message.partition(), message.offset() + 1)
            }
            fn store_offsets(&self, tpl: &$crate::TopicPartitionList) -> $crate::error::KafkaResult<()> {
                self.core().store_list(tpl)
            }
            async fn committed<T: Into<$crate::util::Timeout>>(&self, timeout: T) -> $crate::error::KafkaResult<$crate::TopicPartitionList> {
                let assignment = self.core().assignment()?;
                self.core().committed(&assignment, $crate::wire::deadline(timeout.into())).await
            }
            async fn committed_offsets<T: Into<$crate::util::Timeout>>(
                &self,
                tpl: $crate::TopicPartitionList,
                timeout: T,
            ) -> $crate::error::KafkaResult<$crate::TopicPartitionList> {
                self.core().committed(&tpl, $crate::wire::deadline(timeout.into())).await
            }
            fn position(&self) -> $crate::error::KafkaResult<$crate::TopicPartitionList> {
                self.core().position()
            }
            async fn fetch_metadata<T: Into<$crate::util::Timeout>>(
                &self,
                topic: Option<&str>,
                timeout: T,
            ) -> $crate::error::KafkaResult<$crate::metadata::Metadata> {
                $crate::metadata::fetch(&self.core().wire, topic, timeout.into()).await
            }
            async fn fetch_watermarks<T: Into<$crate::util::Timeout>>(
                &self,
                topic: &str,
                partition: i32,
                timeout: T,
            ) -> $crate::error::KafkaResult<(i64, i64)> {
                let rc = self.core().settings.read_committed;
                $crate::metadata::watermarks(&self.core().wire, topic, partition, rc, timeout.into()).await
            }
            async fn fetch_group_list<T: Into<$crate::util::Timeout>>(
                &self,
                group: Option<&str>,
                timeout: T,
            ) -> $crate::error::KafkaResult<$crate::groups::GroupList> {
                $crate::groups::fetch(&self.core().wire, group, timeout.into()).await
            }
            fn incremental_assign(&self, assignment: &$crate::TopicPartitionList) -> $crate::error::KafkaResult<()> {
                self.core().reassign(assignment, true)
            }
            fn incremental_unassign(&self, assignment: &$crate::TopicPartitionList) -> $crate::error::KafkaResult<()> {
                self.core().reassign(assignment, false)
            }
            fn unsubscribe(&self) {
                self.core().unsubscribe()
            }
            fn subscription(&self) -> $crate::error::KafkaResult<$crate::TopicPartitionList> {
                self.core().subscription()
            }
            fn assignment_lost(&self) -> bool {
                self.core().group.inner.lock().unwrap().lost
            }
            fn rebalance_protocol(&self) -> $crate::consumer::RebalanceProtocol {
                self.core().rebalance_protocol()
            }
            fn seek_partitions<T: Into<$crate::util::Timeout>>(
                &self,
                topic_partition_list: $crate::TopicPartitionList,
                _timeout: T,
            ) -> $crate::error::KafkaResult<$crate::TopicPartitionList> {
                self.core().seek_partitions(topic_partition_list)
            }
            async fn commit_message(
                &self,
                message: &$crate::message::BorrowedMessage<'_>,
                mode: $crate::consumer::CommitMode,
            ) -> $crate::error::KafkaResult<()> {
                use $crate::Message;
                let mut tpl = $crate::TopicPartitionList::new();
                tpl.add_partition_offset(message.topic(), message.partition(), $crate::Offset::Offset(message.offset() + 1))?;
                $crate::consumer::Consumer::commit(self, &tpl, mode).await
            }
            async fn offsets_for_times<T: Into<$crate::util::Timeout>>(
                &self,
                timestamps: $crate::TopicPartitionList,
                timeout: T,
            ) -> $crate::error::KafkaResult<$crate::TopicPartitionList> {
                self.core().offsets_for_times(&timestamps, $crate::wire::deadline(timeout.into())).await
            }
            async fn offsets_for_timestamp<T: Into<$crate::util::Timeout>>(
                &self,
                timestamp: i64,
                timeout: T,
            ) -> $crate::error::KafkaResult<$crate::TopicPartitionList> {
                let mut timestamps = self.core().assignment()?;
                timestamps.set_all_offsets($crate::Offset::Offset(timestamp))?;
                self.core().offsets_for_times(&timestamps, $crate::wire::deadline(timeout.into())).await
            }
            fn pause(&self, partitions: &$crate::TopicPartitionList) -> $crate::error::KafkaResult<()> {
                self.core().pause(partitions, true);
                Ok(())
            }
            fn resume(&self, partitions: &$crate::TopicPartitionList) -> $crate::error::KafkaResult<()> {
                self.core().pause(partitions, false);
                Ok(())
            }
        }
    };
}
pub(crate) use consumer_api;
