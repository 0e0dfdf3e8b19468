//! The std half: the real rdkafka 0.39 (librdkafka), for a connector's production build.
//!
//! Everything whose API is the same in the simulation is rdkafka's own, re-exported: the
//! configuration, errors, messages, [`TopicPartitionList`] and [`Offset`], metadata, the
//! admin client, timeouts and contexts. What differs is wrapped: the producers and
//! consumers, whose calls that block a thread in rdkafka are `async` here as in the
//! simulation. Each of those runs rdkafka's blocking call on tokio's blocking pool
//! (`spawn_blocking`, so a tokio runtime must run the caller), but `BaseConsumer::poll`,
//! which looks at librdkafka's queue without waiting and sleeps on tokio's timer in between
//! (dropping it loses no message); a call that does not block (`begin_transaction`,
//! `assign`, `seek`, `pause`, an asynchronous commit, …) is made directly. The
//! [`producer::Producer`] and [`consumer::Consumer`] traits have the simulation's methods
//! and signatures, so one connector source builds against both halves.

mod blocking;
pub mod consumer;
pub mod producer;

pub use rdkafka::{
    admin, client, config, error, groups, message, metadata, mocking, statistics, topic_partition_list, util,
};
pub use rdkafka::{bindings, helpers};
pub use rdkafka::{
    types, ClientConfig, ClientContext, IntoOpaque, Message, Offset, Statistics, Timestamp, TopicPartitionList,
};

#[cfg(test)]
mod tests;
