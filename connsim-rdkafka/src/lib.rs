//! rdkafka's API on connsim's simulated Kafka log.
//!
//! Name it in place of `rdkafka`, and a Kafka connector written against rdkafka runs under
//! connsim; built without madsim, the same crate is the real rdkafka (below):
//!
//! ```toml
//! [dependencies]
//! rdkafka = { package = "connsim-rdkafka", path = "…" }
//! ```
//!
//! Module paths, type names and method names are rdkafka 0.39's: [`config::ClientConfig`],
//! [`producer`] (`FutureProducer`, `BaseProducer`, `ThreadedProducer`, records, partitioners,
//! purges, the transactional API), [`consumer`] (`StreamConsumer`, `BaseConsumer`, assigned or
//! subscribed through a consumer group, with the rebalance callbacks), [`message`],
//! [`TopicPartitionList`], [`Offset`], [`error`] (librdkafka's whole code table), [`admin`],
//! [`metadata`], [`groups`] and [`client`]. One difference is forced by the simulator: a call
//! that blocks a thread in rdkafka (`init_transactions`, `commit_transaction`, `flush`,
//! `committed`, `BaseConsumer::poll`, …) is `async` here, since every simulated node runs on
//! one thread where blocking would stop the very network the call waits on.
//! `begin_transaction`, `assign`, `subscribe`, `seek`, `pause`, `position` stay synchronous.
//!
//! Every request goes through connsim's gateway to the log node named by
//! `bootstrap.servers`, so RPC faults, crashes and partitions apply, and the broker is
//! connsim's [`connsim::systems::PartitionedLog`] with Kafka's semantics: idempotence
//! sequences per partition, transactions and fencing under either transaction protocol,
//! read-committed isolation, consumer groups (joins, rebalances, sessions, static members,
//! generation-fenced commits), admin requests and `acks`. Create clients inside connector code:
//! that is how a client finds the node it runs on. Rule by rule: `docs/kafka.md`.
//!
//! Without madsim the crate is the real rdkafka 0.39 (`src/real/`), for the connector's
//! production build: rdkafka's own types where the API is the same, and its producers and
//! consumers wrapped so that the same calls are `async`, each blocking call of librdkafka run
//! on tokio's blocking pool (a tokio runtime must run the connector). One connector source
//! builds against the simulated log and against a real broker.
#![deny(missing_docs)]

#[cfg(madsim)]
pub mod admin;
#[cfg(madsim)]
pub mod client;
#[cfg(madsim)]
mod client_context;
#[cfg(madsim)]
pub mod config;
#[cfg(madsim)]
pub mod consumer;
#[cfg(madsim)]
pub mod error;
#[cfg(madsim)]
pub mod groups;
#[cfg(madsim)]
pub mod message;
#[cfg(madsim)]
pub mod metadata;
#[cfg(madsim)]
pub mod producer;
#[cfg(madsim)]
pub mod statistics;
#[cfg(madsim)]
mod stats_clock;
#[cfg(madsim)]
pub mod topic_partition_list;
#[cfg(madsim)]
pub mod util;
#[cfg(madsim)]
mod wire;

#[cfg(not(madsim))]
mod real;
#[cfg(not(madsim))]
pub use real::*;

#[cfg(madsim)]
pub use client_context::{ClientContext, DefaultClientContext};
#[cfg(madsim)]
pub use config::ClientConfig;
#[cfg(madsim)]
pub use message::{Message, Timestamp};
#[cfg(madsim)]
pub use statistics::Statistics;
#[cfg(madsim)]
pub use topic_partition_list::{Offset, TopicPartitionList};
#[cfg(madsim)]
pub use util::IntoOpaque;

/// `rdkafka::types`: librdkafka's enums.
#[cfg(madsim)]
pub mod types {
    pub use crate::error::{RDKafkaConfRes, RDKafkaErrorCode, RDKafkaRespErr};
}
