//! `rdkafka::producer`: [`FutureProducer`], [`BaseProducer`] and [`ThreadedProducer`] around
//! rdkafka's, and the [`Producer`] trait with the simulation's `async` calls.
//!
//! `flush`, `init_transactions`, `send_offsets_to_transaction`, `commit_transaction`,
//! `abort_transaction` and `BaseProducer::poll` wait for the broker in rdkafka: they run on
//! tokio's blocking pool. `begin_transaction`, `in_flight_count`, `purge` and the `send`s
//! are rdkafka's calls made directly; `FutureProducer::send` is async in rdkafka already.
//! The `poll` of a producer with a polling thread of its own (the future and the threaded
//! one) is synchronous, as in the simulation: rdkafka's call made without waiting.
//!
//! One difference stays: `client()` is rdkafka's [`Client`](rdkafka::client::Client), whose
//! `fetch_*` calls block the caller's thread (they are `async` in the simulation).

#[path = "base_producer.rs"]
mod base_producer_impl;
#[path = "future_producer.rs"]
mod future_producer_impl;
mod threaded;

pub use base_producer_impl::BaseProducer;
pub use future_producer_impl::FutureProducer;
pub use futures::channel::oneshot::Canceled;
pub use rdkafka::producer::future_producer::{Delivery, FutureProducerContext, OwnedDeliveryResult};
pub use rdkafka::producer::{
    BaseRecord, DefaultProducerContext, DeliveryFuture, DeliveryResult, FutureRecord, NoCustomPartitioner, Partitioner,
    ProducerContext, PurgeConfig, PARTITION_UA,
};
pub use threaded::ThreadedProducer;

/// `rdkafka::producer::base_producer`: the base producer, its records, and the threaded one
/// (the wrapped producers, under rdkafka's path).
pub mod base_producer {
    pub use super::base_producer_impl::BaseProducer;
    pub use super::threaded::ThreadedProducer;
    pub use rdkafka::producer::base_producer::{BaseRecord, DeliveryResult};
}

/// `rdkafka::producer::future_producer`: the future producer (wrapped) and its deliveries
/// (rdkafka's).
pub mod future_producer {
    pub use super::future_producer_impl::FutureProducer;
    pub use rdkafka::producer::future_producer::{
        Delivery, DeliveryFuture, FutureProducerContext, FutureRecord, OwnedDeliveryResult,
    };
}

/// The configuration a producer whose context has a partitioner of its own is created with.
/// rdkafka 0.39 registers that partitioner on librdkafka's default topic configuration,
/// which librdkafka makes only once a topic-level property is set: without one, rdkafka
/// hands `rd_kafka_topic_conf_set_opaque` a null configuration and the process crashes
/// (SIGSEGV) in `create_with_context`. So such a configuration that does not name a
/// `partitioner` (a topic-level property) is given librdkafka's default, `consistent_random`,
/// which changes nothing: the context's partitioner takes precedence over it.
fn with_topic_conf<'c, C, Part>(
    config: &'c rdkafka::ClientConfig,
    context: &C,
) -> std::borrow::Cow<'c, rdkafka::ClientConfig>
where
    C: ProducerContext<Part>,
    Part: Partitioner,
{
    if context.get_custom_partitioner().is_none() || config.get("partitioner").is_some() {
        return std::borrow::Cow::Borrowed(config);
    }
    let mut config = config.clone();
    config.set("partitioner", "consistent_random");
    std::borrow::Cow::Owned(config)
}

use crate::real::consumer::ConsumerGroupMetadata;
use rdkafka::error::KafkaResult;
use rdkafka::util::Timeout;
use rdkafka::TopicPartitionList;

/// What both producers do (`rdkafka::producer::Producer`, with the simulation's `async`
/// calls).
#[allow(async_fn_in_trait)]
pub trait Producer {
    /// Waits until every message handed over is delivered or failed.
    async fn flush<T: Into<Timeout>>(&self, timeout: T) -> KafkaResult<()>;
    /// Messages handed over and not yet delivered.
    fn in_flight_count(&self) -> i32;
    /// Takes back queued or in-flight messages: each is reported failed, `PurgeQueue` or
    /// `PurgeInflight` (rdkafka's call, made directly: it waits for librdkafka's own threads
    /// to let go of the messages, never for the broker, and not at all with
    /// `non_blocking()`).
    fn purge(&self, flags: PurgeConfig);
    /// Registers the transactional id with the broker, fencing older producers of the id.
    async fn init_transactions<T: Into<Timeout>>(&self, timeout: T) -> KafkaResult<()>;
    /// Starts a transaction.
    fn begin_transaction(&self) -> KafkaResult<()>;
    /// Commits consumer offsets with the transaction.
    async fn send_offsets_to_transaction<T: Into<Timeout>>(
        &self,
        offsets: &TopicPartitionList,
        cgm: &ConsumerGroupMetadata,
        timeout: T,
    ) -> KafkaResult<()>;
    /// Commits the transaction (flushing first).
    async fn commit_transaction<T: Into<Timeout>>(&self, timeout: T) -> KafkaResult<()>;
    /// Aborts the transaction.
    async fn abort_transaction<T: Into<Timeout>>(&self, timeout: T) -> KafkaResult<()>;
}

/// Implements [`Producer`] for a wrapper whose `inner` is an `Arc` of an rdkafka producer.
macro_rules! producer_api {
    (impl<$($g:ident),*> for $ty:ty where $($bounds:tt)*) => {
        impl<$($g),*> $crate::real::producer::Producer for $ty
        where
            $($bounds)*
        {
            async fn flush<T: Into<rdkafka::util::Timeout>>(&self, timeout: T) -> rdkafka::error::KafkaResult<()> {
                let (inner, timeout) = (self.inner.clone(), timeout.into());
                $crate::real::blocking::blocking(move || rdkafka::producer::Producer::flush(&*inner, timeout)).await
            }
            fn in_flight_count(&self) -> i32 {
                rdkafka::producer::Producer::in_flight_count(&*self.inner)
            }
            fn purge(&self, flags: rdkafka::producer::PurgeConfig) {
                rdkafka::producer::Producer::purge(&*self.inner, flags)
            }
            async fn init_transactions<T: Into<rdkafka::util::Timeout>>(
                &self,
                timeout: T,
            ) -> rdkafka::error::KafkaResult<()> {
                let (inner, timeout) = (self.inner.clone(), timeout.into());
                $crate::real::blocking::blocking(move || {
                    rdkafka::producer::Producer::init_transactions(&*inner, timeout)
                })
                .await
            }
            fn begin_transaction(&self) -> rdkafka::error::KafkaResult<()> {
                rdkafka::producer::Producer::begin_transaction(&*self.inner)
            }
            async fn send_offsets_to_transaction<T: Into<rdkafka::util::Timeout>>(
                &self,
                offsets: &rdkafka::TopicPartitionList,
                cgm: &$crate::real::consumer::ConsumerGroupMetadata,
                timeout: T,
            ) -> rdkafka::error::KafkaResult<()> {
                let (inner, offsets, cgm, timeout) = (self.inner.clone(), offsets.clone(), cgm.0.clone(), timeout.into());
                $crate::real::blocking::blocking(move || {
                    rdkafka::producer::Producer::send_offsets_to_transaction(&*inner, &offsets, &cgm, timeout)
                })
                .await
            }
            async fn commit_transaction<T: Into<rdkafka::util::Timeout>>(
                &self,
                timeout: T,
            ) -> rdkafka::error::KafkaResult<()> {
                let (inner, timeout) = (self.inner.clone(), timeout.into());
                $crate::real::blocking::blocking(move || {
                    rdkafka::producer::Producer::commit_transaction(&*inner, timeout)
                })
                .await
            }
            async fn abort_transaction<T: Into<rdkafka::util::Timeout>>(
                &self,
                timeout: T,
            ) -> rdkafka::error::KafkaResult<()> {
                let (inner, timeout) = (self.inner.clone(), timeout.into());
                $crate::real::blocking::blocking(move || {
                    rdkafka::producer::Producer::abort_transaction(&*inner, timeout)
                })
                .await
            }
        }
    };
}
use producer_api;
