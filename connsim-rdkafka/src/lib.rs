//! rdkafka's API on connsim's simulated Kafka log.
//!
//! Name it in place of `rdkafka` for simulated builds, and a Kafka connector written against
//! rdkafka runs under connsim:
//!
//! ```toml
//! [target.'cfg(madsim)'.dependencies]
//! rdkafka = { package = "connsim-rdkafka", path = "…" }
//! [target.'cfg(not(madsim))'.dependencies]
//! rdkafka = "0.39"
//! ```
//!
//! Module paths, type names and method names are rdkafka 0.39's, for the subset connectors
//! use: [`config::ClientConfig`], [`producer`] (`FutureProducer`, `BaseProducer`, records,
//! the transactional API), [`consumer`] (`StreamConsumer`, `BaseConsumer`), [`message`],
//! [`TopicPartitionList`], [`Offset`], [`error`] and [`admin`]. One difference is forced by
//! the simulator: a call that blocks a thread in rdkafka (`init_transactions`,
//! `commit_transaction`, `flush`, `committed`, `BaseConsumer::poll`, …) is `async` here,
//! since every simulated node runs on one thread where blocking would stop the very network
//! the call waits on. `begin_transaction`, `assign`, `seek`, `pause`, `position` stay
//! synchronous.
//!
//! Every request goes through connsim's gateway to the log node named by
//! `bootstrap.servers`, so RPC faults, crashes and partitions apply, and the broker is
//! connsim's [`connsim::systems::PartitionedLog`] with Kafka's semantics: idempotence
//! sequences per partition, transactions and fencing under either transaction protocol,
//! read-committed isolation, consumer groups' committed offsets, and `acks`. Create clients
//! inside connector code: that is how a client finds the node it runs on.
#![deny(missing_docs)]

#[cfg(not(madsim))]
compile_error!(
    "connsim-rdkafka is rdkafka on connsim's simulated log and only builds inside the madsim \
     simulator: build with `--cfg madsim` (see connsim's README), and name the real rdkafka \
     for builds without it."
);

pub mod admin;
pub mod client_context;
pub mod config;
pub mod consumer;
pub mod error;
pub mod message;
pub mod metadata;
pub mod producer;
pub mod topic_partition_list;
pub mod util;
mod wire;

pub use client_context::DefaultClientContext;
pub use config::ClientConfig;
pub use message::{Message, Timestamp};
pub use topic_partition_list::{Offset, TopicPartitionList};

/// `rdkafka::client`: contexts.
pub mod client {
    pub use crate::client_context::DefaultClientContext;
}

/// `rdkafka::types`: librdkafka's enums.
pub mod types {
    pub use crate::error::{RDKafkaConfRes, RDKafkaErrorCode};
}
