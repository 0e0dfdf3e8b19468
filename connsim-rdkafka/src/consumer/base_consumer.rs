//! `rdkafka::consumer::base_consumer`: the consumer a [`ConsumerContext`]'s rebalance
//! callbacks get, with rdkafka's synchronous [`Consumer`] calls.
//!
//! In a production build this path is rdkafka's own `BaseConsumer` and its `Consumer` trait;
//! the application's consumer is `rdkafka::consumer::BaseConsumer` (or `StreamConsumer`), whose
//! blocking calls are `async`. A callback cannot wait here: the simulator runs the node on one
//! thread, and the callback runs inside the application's poll. So inside a callback the
//! local calls (`assign`, `incremental_assign`, `seek`, `store_offsets`, `position`,
//! `assignment`, `pause`, …) act at once, a commit is sent before the rebalance goes on (its
//! outcome goes to `commit_callback`; the call answers `Ok`, whatever its mode), and a call that
//! waits for an answer (`committed`, `fetch_metadata`, `offsets_for_times`, …) answers
//! `OperationTimedOut`, as with a timeout of zero.

use super::core::ConsumerCore;
use super::{CommitMode, ConsumerContext, ConsumerGroupMetadata, DefaultConsumerContext, RebalanceProtocol};
use crate::client::Client;
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::groups::GroupList;
use crate::message::BorrowedMessage;
use crate::metadata::Metadata;
use crate::topic_partition_list::{Offset, TopicPartitionList};
use crate::util::Timeout;
use std::sync::Arc;

pub use super::polled::{Iter, PartitionQueue};

/// The consumer a rebalance callback gets (`rdkafka::consumer::base_consumer::BaseConsumer`).
/// The application's consumer is [`crate::consumer::BaseConsumer`].
pub struct BaseConsumer<C: ConsumerContext = DefaultConsumerContext> {
    pub(crate) core: Arc<ConsumerCore>,
    pub(crate) client: Client<C>,
}

impl<C: ConsumerContext> BaseConsumer<C> {
    pub(crate) fn new(core: Arc<ConsumerCore>, context: Arc<C>) -> Self {
        let client = Client::new(core.wire.clone(), context).with_fatal(core.fatal.clone());
        BaseConsumer { core, client }
    }
}

/// rdkafka's synchronous consumer calls (`rdkafka::consumer::Consumer`), on the consumer a
/// callback gets. See the module's note for what a call that waits answers here.
pub trait Consumer<C: ConsumerContext = DefaultConsumerContext> {
    /// The client under the consumer.
    fn client(&self) -> &Client<C>;
    /// The consumer's context.
    fn context(&self) -> &Arc<C> {
        self.client().context()
    }
    /// The group metadata, if `group.id` is set.
    fn group_metadata(&self) -> Option<ConsumerGroupMetadata>;
    /// Subscribes to topics (`^…` entries are patterns).
    fn subscribe(&self, topics: &[&str]) -> KafkaResult<()>;
    /// Leaves the subscription.
    fn unsubscribe(&self);
    /// Sets the assignment.
    fn assign(&self, assignment: &TopicPartitionList) -> KafkaResult<()>;
    /// Drops the assignment.
    fn unassign(&self) -> KafkaResult<()>;
    /// Adds partitions to the assignment.
    fn incremental_assign(&self, assignment: &TopicPartitionList) -> KafkaResult<()>;
    /// Takes partitions out of the assignment.
    fn incremental_unassign(&self, assignment: &TopicPartitionList) -> KafkaResult<()>;
    /// Moves an assigned partition's position.
    fn seek<T: Into<Timeout>>(&self, topic: &str, partition: i32, offset: Offset, timeout: T) -> KafkaResult<()>;
    /// Moves several assigned partitions' positions.
    fn seek_partitions<T: Into<Timeout>>(&self, tpl: TopicPartitionList, timeout: T)
        -> KafkaResult<TopicPartitionList>;
    /// Commits offsets (sent before the rebalance goes on).
    fn commit(&self, topic_partition_list: &TopicPartitionList, mode: CommitMode) -> KafkaResult<()>;
    /// Commits the stored offsets.
    fn commit_consumer_state(&self, mode: CommitMode) -> KafkaResult<()>;
    /// Commits the offset past `message`.
    fn commit_message(&self, message: &BorrowedMessage<'_>, mode: CommitMode) -> KafkaResult<()>;
    /// Stores the offset past `offset` for the next commit.
    fn store_offset(&self, topic: &str, partition: i32, offset: i64) -> KafkaResult<()>;
    /// Stores the offset past `message` for the next commit.
    fn store_offset_from_message(&self, message: &BorrowedMessage<'_>) -> KafkaResult<()>;
    /// Stores the offsets of `tpl` for the next commit.
    fn store_offsets(&self, tpl: &TopicPartitionList) -> KafkaResult<()>;
    /// The subscription.
    fn subscription(&self) -> KafkaResult<TopicPartitionList>;
    /// The assignment.
    fn assignment(&self) -> KafkaResult<TopicPartitionList>;
    /// Whether the group took the assignment away.
    fn assignment_lost(&self) -> bool;
    /// The group's committed offsets of the assignment (waits: `OperationTimedOut` here).
    fn committed<T: Into<Timeout>>(&self, timeout: T) -> KafkaResult<TopicPartitionList>;
    /// The group's committed offsets of `tpl` (waits: `OperationTimedOut` here).
    fn committed_offsets<T: Into<Timeout>>(
        &self,
        tpl: TopicPartitionList,
        timeout: T,
    ) -> KafkaResult<TopicPartitionList>;
    /// Offsets by time of the assignment (waits: `OperationTimedOut` here).
    fn offsets_for_timestamp<T: Into<Timeout>>(&self, timestamp: i64, timeout: T) -> KafkaResult<TopicPartitionList>;
    /// Offsets by time (waits: `OperationTimedOut` here).
    fn offsets_for_times<T: Into<Timeout>>(
        &self,
        timestamps: TopicPartitionList,
        timeout: T,
    ) -> KafkaResult<TopicPartitionList>;
    /// The positions of the assignment.
    fn position(&self) -> KafkaResult<TopicPartitionList>;
    /// Topics and their partitions (waits: `OperationTimedOut` here).
    fn fetch_metadata<T: Into<Timeout>>(&self, topic: Option<&str>, timeout: T) -> KafkaResult<Metadata>;
    /// A partition's watermarks (waits: `OperationTimedOut` here).
    fn fetch_watermarks<T: Into<Timeout>>(&self, topic: &str, partition: i32, timeout: T) -> KafkaResult<(i64, i64)>;
    /// The cluster's groups (waits: `OperationTimedOut` here).
    fn fetch_group_list<T: Into<Timeout>>(&self, group: Option<&str>, timeout: T) -> KafkaResult<GroupList>;
    /// Stops returning messages of these partitions.
    fn pause(&self, partitions: &TopicPartitionList) -> KafkaResult<()>;
    /// Returns messages of these partitions again.
    fn resume(&self, partitions: &TopicPartitionList) -> KafkaResult<()>;
    /// The group's rebalance protocol.
    fn rebalance_protocol(&self) -> RebalanceProtocol;
}

/// A call inside a callback that would wait for the broker.
fn cannot_wait<T>() -> KafkaResult<T> {
    Err(KafkaError::MetadataFetch(RDKafkaErrorCode::OperationTimedOut))
}

impl<C: ConsumerContext> Consumer<C> for BaseConsumer<C> {
    fn client(&self) -> &Client<C> {
        &self.client
    }
    fn group_metadata(&self) -> Option<ConsumerGroupMetadata> {
        self.core.group_metadata()
    }
    fn subscribe(&self, topics: &[&str]) -> KafkaResult<()> {
        self.core.subscribe(topics)
    }
    fn unsubscribe(&self) {
        self.core.unsubscribe()
    }
    fn assign(&self, assignment: &TopicPartitionList) -> KafkaResult<()> {
        self.core.assign(assignment)
    }
    fn unassign(&self) -> KafkaResult<()> {
        self.core.assign(&TopicPartitionList::new())
    }
    fn incremental_assign(&self, assignment: &TopicPartitionList) -> KafkaResult<()> {
        self.core.reassign(assignment, true)
    }
    fn incremental_unassign(&self, assignment: &TopicPartitionList) -> KafkaResult<()> {
        self.core.reassign(assignment, false)
    }
    fn seek<T: Into<Timeout>>(&self, topic: &str, partition: i32, offset: Offset, _timeout: T) -> KafkaResult<()> {
        self.core.seek(topic, partition, offset)
    }
    fn seek_partitions<T: Into<Timeout>>(
        &self,
        tpl: TopicPartitionList,
        _timeout: T,
    ) -> KafkaResult<TopicPartitionList> {
        self.core.seek_partitions(tpl)
    }
    fn commit(&self, tpl: &TopicPartitionList, _mode: CommitMode) -> KafkaResult<()> {
        self.core.commit_later(crate::producer::offsets_of(tpl))
    }
    fn commit_consumer_state(&self, _mode: CommitMode) -> KafkaResult<()> {
        self.core.commit_later(self.core.to_commit())
    }
    fn commit_message(&self, message: &BorrowedMessage<'_>, _mode: CommitMode) -> KafkaResult<()> {
        use crate::Message;
        self.core.commit_later(vec![(
            message.topic().to_string(),
            message.partition().max(0) as u32,
            (message.offset() + 1) as u64,
        )])
    }
    fn store_offset(&self, topic: &str, partition: i32, offset: i64) -> KafkaResult<()> {
        self.core.store(topic, partition, offset + 1)
    }
    fn store_offset_from_message(&self, message: &BorrowedMessage<'_>) -> KafkaResult<()> {
        use crate::Message;
        self.core.store(message.topic(), message.partition(), message.offset() + 1)
    }
    fn store_offsets(&self, tpl: &TopicPartitionList) -> KafkaResult<()> {
        self.core.store_list(tpl)
    }
    fn subscription(&self) -> KafkaResult<TopicPartitionList> {
        self.core.subscription()
    }
    fn assignment(&self) -> KafkaResult<TopicPartitionList> {
        self.core.assignment()
    }
    fn assignment_lost(&self) -> bool {
        self.core.group.inner.lock().unwrap().lost
    }
    fn committed<T: Into<Timeout>>(&self, _timeout: T) -> KafkaResult<TopicPartitionList> {
        cannot_wait()
    }
    fn committed_offsets<T: Into<Timeout>>(
        &self,
        _tpl: TopicPartitionList,
        _timeout: T,
    ) -> KafkaResult<TopicPartitionList> {
        cannot_wait()
    }
    fn offsets_for_timestamp<T: Into<Timeout>>(&self, _timestamp: i64, _timeout: T) -> KafkaResult<TopicPartitionList> {
        cannot_wait()
    }
    fn offsets_for_times<T: Into<Timeout>>(
        &self,
        _timestamps: TopicPartitionList,
        _timeout: T,
    ) -> KafkaResult<TopicPartitionList> {
        cannot_wait()
    }
    fn position(&self) -> KafkaResult<TopicPartitionList> {
        self.core.position()
    }
    fn fetch_metadata<T: Into<Timeout>>(&self, _topic: Option<&str>, _timeout: T) -> KafkaResult<Metadata> {
        cannot_wait()
    }
    fn fetch_watermarks<T: Into<Timeout>>(
        &self,
        _topic: &str,
        _partition: i32,
        _timeout: T,
    ) -> KafkaResult<(i64, i64)> {
        cannot_wait()
    }
    fn fetch_group_list<T: Into<Timeout>>(&self, _group: Option<&str>, _timeout: T) -> KafkaResult<GroupList> {
        Err(KafkaError::GroupListFetch(RDKafkaErrorCode::OperationTimedOut))
    }
    fn pause(&self, partitions: &TopicPartitionList) -> KafkaResult<()> {
        self.core.pause(partitions, true);
        Ok(())
    }
    fn resume(&self, partitions: &TopicPartitionList) -> KafkaResult<()> {
        self.core.pause(partitions, false);
        Ok(())
    }
    fn rebalance_protocol(&self) -> RebalanceProtocol {
        self.core.rebalance_protocol()
    }
}
