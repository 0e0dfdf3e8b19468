//! `rdkafka::producer`: [`FutureProducer`] and [`BaseProducer`] around rdkafka's, and the
//! [`Producer`] trait with the simulation's `async` calls.
//!
//! `flush`, `init_transactions`, `send_offsets_to_transaction`, `commit_transaction`,
//! `abort_transaction` and `BaseProducer::poll` wait for the broker in rdkafka: they run on
//! tokio's blocking pool. `begin_transaction` and `in_flight_count` are rdkafka's calls made
//! directly; `FutureProducer::send` is async in rdkafka already.

mod base_producer;
mod future_producer;

pub use base_producer::BaseProducer;
pub use future_producer::FutureProducer;
pub use futures::channel::oneshot::Canceled;
pub use rdkafka::producer::future_producer::{Delivery, FutureProducerContext, OwnedDeliveryResult};
pub use rdkafka::producer::{
    BaseRecord, DefaultProducerContext, DeliveryFuture, DeliveryResult, FutureRecord, NoCustomPartitioner, Partitioner,
    ProducerContext, PurgeConfig,
};

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
