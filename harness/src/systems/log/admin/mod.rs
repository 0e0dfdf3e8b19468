//! The log's admin face: Kafka's admin APIs ([`AdminRequest`]) on the log's topics —
//! metadata, creating and deleting topics, adding partitions, deleting records (KIP-107) and
//! topic configs — each rule named after the Kafka behaviour it follows.
//!
//! The log is one broker, [`BROKER_ID`], advertised as the log's node name and
//! [`BROKER_PORT`]: the controller, and leader and only in-sync replica of every partition.
//! Group configs and deleting groups are the group coordinator's.

mod configs;
mod metadata;
mod records;
mod topics;
mod wire;

pub use wire::{
    AdminRequest, AdminResponse, ApiError, BrokerInfo, ClusterMetadata, ConfigOrigin, ConfigResourceKey,
    DescribedConfig, NewPartitionsRequest, NewTopicRequest, PartitionInfo, TopicInfo,
};

use super::kafka::KafkaResponse;
use super::state::State;
use super::PartitionedLog;
use std::collections::BTreeMap;

/// The node id of the log's one broker (a single-node KRaft cluster's usual `node.id`).
pub const BROKER_ID: i32 = 1;

/// The port the log's broker advertises (Kafka's default listener).
pub const BROKER_PORT: i32 = 9092;

/// What the admin APIs keep beside the partitions.
#[derive(Default)]
pub(crate) struct AdminState {
    /// Each topic's dynamic configs (`CreateTopics`, `AlterConfigs`), by name.
    pub(super) configs: BTreeMap<String, BTreeMap<String, String>>,
    /// Each topic's replication factor as created (1 for a topic the harness created), which
    /// its new partitions' assignments must match.
    pub(super) replication: BTreeMap<String, usize>,
}

impl PartitionedLog {
    /// Serves one [`AdminRequest`]; the broker's timers have run already.
    pub(super) fn handle_admin(&self, s: &mut State, _now_ms: u64, req: AdminRequest) -> KafkaResponse {
        let answer = match req {
            AdminRequest::Metadata { topics } => AdminResponse::Metadata(metadata::metadata(s, &self.name, topics)),
            AdminRequest::CreateTopics { topics, validate_only } => {
                AdminResponse::Topics(topics::create_topics(s, topics, validate_only))
            }
            AdminRequest::DeleteTopics { topics } => AdminResponse::Topics(topics::delete_topics(s, topics)),
            AdminRequest::CreatePartitions { topics, validate_only } => {
                AdminResponse::Topics(topics::create_partitions(s, topics, validate_only))
            }
            AdminRequest::DeleteRecords { partitions } => AdminResponse::Records(
                partitions.into_iter().map(|(t, p, o)| (t.clone(), p, records::delete_records(s, &t, p, o))).collect(),
            ),
            AdminRequest::DescribeConfigs { resources } => {
                AdminResponse::Configs(resources.into_iter().map(|r| (r.clone(), configs::describe(s, &r))).collect())
            }
            AdminRequest::AlterConfigs { resources, validate_only } => AdminResponse::Altered(
                resources
                    .into_iter()
                    .map(|(r, entries)| (r.clone(), configs::alter(s, &r, entries, validate_only).err()))
                    .collect(),
            ),
        };
        KafkaResponse::Admin(answer)
    }
}
