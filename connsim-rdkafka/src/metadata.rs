//! `rdkafka::metadata`: topics and partitions, and partition watermarks.

use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::util::Timeout;
use crate::wire::{deadline, Wire};
use connsim::systems::{KafkaRequest, KafkaResponse, OffsetSpec};

/// The cluster's topics (`rdkafka::metadata::Metadata`).
#[derive(Debug)]
pub struct Metadata {
    topics: Vec<MetadataTopic>,
}

impl Metadata {
    /// The topics.
    pub fn topics(&self) -> &[MetadataTopic] {
        &self.topics
    }
}

/// One topic (`rdkafka::metadata::MetadataTopic`).
#[derive(Debug)]
pub struct MetadataTopic {
    name: String,
    partitions: Vec<MetadataPartition>,
}

impl MetadataTopic {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Its partitions.
    pub fn partitions(&self) -> &[MetadataPartition] {
        &self.partitions
    }
}

/// One partition (`rdkafka::metadata::MetadataPartition`).
#[derive(Debug)]
pub struct MetadataPartition {
    id: i32,
}

impl MetadataPartition {
    /// Its id.
    pub fn id(&self) -> i32 {
        self.id
    }
}

pub(crate) async fn fetch(wire: &Wire, topic: Option<&str>, timeout: Timeout) -> KafkaResult<Metadata> {
    let req = KafkaRequest::Metadata { topics: topic.map(|t| vec![t.to_string()]) };
    match wire.call_until(&req, deadline(timeout)).await {
        Some(KafkaResponse::Metadata(found)) => Ok(Metadata {
            topics: found
                .into_iter()
                .map(|(name, n)| MetadataTopic {
                    name,
                    partitions: (0..n as i32).map(|id| MetadataPartition { id }).collect(),
                })
                .collect(),
        }),
        Some(KafkaResponse::Error(code)) => Err(KafkaError::MetadataFetch(code.into())),
        _ => Err(KafkaError::MetadataFetch(RDKafkaErrorCode::OperationTimedOut)),
    }
}

pub(crate) async fn watermarks(
    wire: &Wire,
    topic: &str,
    partition: i32,
    read_committed: bool,
    timeout: Timeout,
) -> KafkaResult<(i64, i64)> {
    let until = deadline(timeout);
    let mut ends = [0i64; 2];
    for (i, spec) in [OffsetSpec::Earliest, OffsetSpec::Latest].into_iter().enumerate() {
        let req = KafkaRequest::ListOffsets {
            topic: topic.to_string(),
            partition: partition.max(0) as u32,
            spec,
            read_committed,
        };
        ends[i] = match wire.call_until(&req, until).await {
            Some(KafkaResponse::Offset(o)) => o as i64,
            Some(KafkaResponse::Error(code)) => return Err(KafkaError::MetadataFetch(code.into())),
            _ => return Err(KafkaError::MetadataFetch(RDKafkaErrorCode::OperationTimedOut)),
        };
    }
    Ok((ends[0], ends[1]))
}
