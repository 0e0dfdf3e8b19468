//! `Metadata`, as the log's one broker answers it.

use super::super::state::State;
use super::super::KafkaCode::{InvalidTopic, UnknownTopicOrPartition};
use super::topics::validate_name;
use super::wire::{BrokerInfo, ClusterMetadata, PartitionInfo, TopicInfo};
use super::{BROKER_ID, BROKER_PORT};

/// `Metadata`: the one broker, leader and only replica of every partition, and the topics
/// asked for (every one, by name, for `None`).
pub(super) fn metadata(s: &State, host: &str, topics: Option<Vec<String>>) -> ClusterMetadata {
    let names = topics.unwrap_or_else(|| s.topics.keys().cloned().collect());
    let topics = names
        .into_iter()
        .map(|name| {
            let error = match (validate_name(&name), s.topics.get(&name)) {
                (Err(_), _) => Some(InvalidTopic),
                (Ok(()), None) => Some(UnknownTopicOrPartition),
                (Ok(()), Some(_)) => None,
            };
            let count = if error.is_none() { s.topics[&name].len() as i32 } else { 0 };
            let partitions = (0..count)
                .map(|id| PartitionInfo {
                    id,
                    leader: BROKER_ID,
                    replicas: vec![BROKER_ID],
                    isr: vec![BROKER_ID],
                    error: None,
                })
                .collect();
            TopicInfo { name, error, partitions }
        })
        .collect();
    let brokers = vec![BrokerInfo { id: BROKER_ID, host: host.to_string(), port: BROKER_PORT }];
    ClusterMetadata { brokers, controller_id: BROKER_ID, topics }
}
