//! The admin client and metadata on the simulated broker, each test naming the rule it checks
//! (Kafka's broker, a KIP, librdkafka's or rdkafka's client-side checks) and failing if the
//! rule breaks. Clients are connsim-rdkafka's, as a connector uses them; `raw` requests show
//! what the broker answers where rdkafka 0.39 hides it.
#![cfg(madsim)]

extern crate connsim_rdkafka as rdkafka;

mod common;
#[path = "admin/configs.rs"]
mod configs;
#[path = "admin/metadata.rs"]
mod metadata;
#[path = "admin/options.rs"]
mod options;
#[path = "admin/partitions.rs"]
mod partitions;
#[path = "admin/records.rs"]
mod records;
#[path = "admin/topics.rs"]
mod topics;

use common::T;
use connsim::net::Endpoint;
use connsim::systems::{AdminRequest, AdminResponse, KafkaRequest, KafkaResponse};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::metadata::Metadata;

/// An admin client, as connector code creates one.
pub fn admin() -> AdminClient<DefaultClientContext> {
    common::config(&[]).create().unwrap()
}

/// Options with the tests' request timeout.
pub fn opts() -> AdminOptions {
    AdminOptions::new().request_timeout(Some(T))
}

/// A topic of `partitions` partitions, replication factor 1.
pub fn topic(name: &str, partitions: i32) -> NewTopic<'_> {
    NewTopic::new(name, partitions, TopicReplication::Fixed(1))
}

/// Creates `name` with `partitions` partitions and `configs`, asserting it was created.
pub async fn create(name: &str, partitions: i32, configs: &[(&str, &str)]) {
    let mut t = topic(name, partitions);
    for (k, v) in configs {
        t = t.set(k, v);
    }
    assert_eq!(admin().create_topics([&t], &opts()).await.unwrap(), [Ok(name.to_string())]);
}

/// The metadata of `topic` (every topic for `None`), as a consumer fetches it.
pub async fn metadata_of(topic: Option<&str>) -> Metadata {
    let c: BaseConsumer = common::config(&[]).create().unwrap();
    c.fetch_metadata(topic, T).await.unwrap()
}

/// Partitions of `topic` by metadata (0 for one that does not exist).
pub async fn partitions_of(topic: &str) -> usize {
    metadata_of(Some(topic)).await.topics()[0].partitions().len()
}

/// What the broker answers an admin request.
pub async fn raw(client: &Endpoint, req: AdminRequest) -> AdminResponse {
    match common::raw(client, KafkaRequest::Admin(req)).await {
        KafkaResponse::Admin(resp) => resp,
        other => panic!("not an admin answer: {other:?}"),
    }
}
