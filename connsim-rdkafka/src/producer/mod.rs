//! `rdkafka::producer`: [`FutureProducer`], [`BaseProducer`] and the [`Producer`] trait with
//! the transactional API.
//!
//! The calls that block a thread in rdkafka (`flush`, `init_transactions`,
//! `send_offsets_to_transaction`, `commit_transaction`, `abort_transaction`, `poll`) are
//! `async` here: the simulator runs every node on one thread, where a blocking call would
//! stop the network it waits on. `begin_transaction`, which librdkafka does locally, stays
//! synchronous.

#[path = "base_producer.rs"]
mod base_producer_impl;
mod context;
mod core;
#[path = "future_producer.rs"]
mod future_producer_impl;
mod partitioner;
mod pipeline;
mod purge;
mod stats;
mod threaded;
mod txn;

pub use base_producer_impl::{BaseProducer, BaseRecord};
pub use context::{DefaultProducerContext, DeliveryResult, ProducerContext};
pub use future_producer_impl::{
    Canceled, Delivery, DeliveryFuture, FutureProducer, FutureProducerContext, FutureRecord, OwnedDeliveryResult,
};
pub use partitioner::{NoCustomPartitioner, Partitioner, PARTITION_UA};
pub use purge::PurgeConfig;
pub use threaded::ThreadedProducer;

/// `rdkafka::producer::base_producer`: the base producer, its records, and the threaded one.
pub mod base_producer {
    pub use super::base_producer_impl::{BaseProducer, BaseRecord};
    pub use super::context::DeliveryResult;
    pub use super::threaded::ThreadedProducer;
}

/// `rdkafka::producer::future_producer`: the future producer and its deliveries.
pub mod future_producer {
    pub use super::future_producer_impl::{
        Delivery, DeliveryFuture, FutureProducer, FutureProducerContext, FutureRecord, OwnedDeliveryResult,
    };
}

use crate::consumer::ConsumerGroupMetadata;
use crate::error::KafkaResult;
use crate::topic_partition_list::{Offset, TopicPartitionList};
use crate::util::Timeout;

/// What both producers do (`rdkafka::producer::Producer`).
#[allow(async_fn_in_trait)]
pub trait Producer {
    /// Waits until every message handed over is delivered or failed.
    async fn flush<T: Into<Timeout>>(&self, timeout: T) -> KafkaResult<()>;
    /// Messages handed over whose delivery report was not handed out yet (librdkafka's
    /// `rd_kafka_outq_len`).
    fn in_flight_count(&self) -> i32;
    /// Takes back queued or in-flight messages: each is reported failed, `PurgeQueue` or
    /// `PurgeInflight` (an in-flight one may have been written all the same).
    fn purge(&self, flags: PurgeConfig);
    /// Registers the transactional id with the broker: a new epoch that fences every older
    /// producer of the id and aborts its ongoing transaction.
    async fn init_transactions<T: Into<Timeout>>(&self, timeout: T) -> KafkaResult<()>;
    /// Starts a transaction (locally; the broker learns of it with its first message).
    fn begin_transaction(&self) -> KafkaResult<()>;
    /// Commits consumer offsets with the transaction.
    async fn send_offsets_to_transaction<T: Into<Timeout>>(
        &self,
        offsets: &TopicPartitionList,
        cgm: &ConsumerGroupMetadata,
        timeout: T,
    ) -> KafkaResult<()>;
    /// Commits the transaction.
    async fn commit_transaction<T: Into<Timeout>>(&self, timeout: T) -> KafkaResult<()>;
    /// Aborts the transaction.
    async fn abort_transaction<T: Into<Timeout>>(&self, timeout: T) -> KafkaResult<()>;
}

/// The offsets of a list, for `TxnOffsetCommit` and `OffsetCommit`.
pub(crate) fn offsets_of(tpl: &TopicPartitionList) -> Vec<(String, u32, u64)> {
    tpl.elements()
        .iter()
        .filter_map(|e| match e.offset() {
            Offset::Offset(o) if o >= 0 && e.partition() >= 0 => {
                Some((e.topic().to_string(), e.partition() as u32, o as u64))
            }
            _ => None,
        })
        .collect()
}

/// Implements [`Producer`] for a type with a `core` field.
macro_rules! producer_api {
    (<$($g:ident),*> $ty:ty $(where $($bounds:tt)*)?) => {
        impl<$($g),*> $crate::producer::Producer for $ty $(where $($bounds)*)? {
            async fn flush<T: Into<$crate::util::Timeout>>(&self, timeout: T) -> $crate::error::KafkaResult<()> {
                self.flush_queue(timeout.into()).await
            }
            fn in_flight_count(&self) -> i32 {
                self.in_flight() as i32
            }
            fn purge(&self, flags: $crate::producer::PurgeConfig) {
                self.purge_queue(flags)
            }
            async fn init_transactions<T: Into<$crate::util::Timeout>>(&self, timeout: T) -> $crate::error::KafkaResult<()> {
                self.core.init_transactions(timeout.into()).await
            }
            fn begin_transaction(&self) -> $crate::error::KafkaResult<()> {
                self.core.begin_transaction()
            }
            async fn send_offsets_to_transaction<T: Into<$crate::util::Timeout>>(
                &self,
                offsets: &$crate::topic_partition_list::TopicPartitionList,
                cgm: &$crate::consumer::ConsumerGroupMetadata,
                timeout: T,
            ) -> $crate::error::KafkaResult<()> {
                let offsets = $crate::producer::offsets_of(offsets);
                self.core.send_offsets(offsets, cgm.group().to_string(), cgm.member(), timeout.into()).await
            }
            async fn commit_transaction<T: Into<$crate::util::Timeout>>(&self, timeout: T) -> $crate::error::KafkaResult<()> {
                let timeout = timeout.into();
                let deadline = $crate::wire::deadline(timeout);
                // librdkafka: outstanding messages not delivered in time fail the commit
                // retriably; what is queued stays queued.
                if let Err($crate::error::KafkaError::Flush(code)) = self.flush_queue(timeout).await {
                    self.core.commit_under_way();
                    let why = "commit_transaction: outstanding messages were not delivered in time";
                    return Err($crate::error::KafkaError::Transaction(
                        $crate::error::RDKafkaError::new(code, why).retriable(),
                    ));
                }
                // One deadline for the whole call: the EndTxn gets what the flush left.
                let left = deadline.map_or($crate::util::Timeout::Never, |d| {
                    $crate::util::Timeout::After(d.saturating_duration_since(madsim::time::Instant::now()))
                });
                self.core.end(true, left).await
            }
            async fn abort_transaction<T: Into<$crate::util::Timeout>>(&self, timeout: T) -> $crate::error::KafkaResult<()> {
                self.core.end(false, timeout.into()).await
            }
        }
    };
}
pub(crate) use producer_api;
