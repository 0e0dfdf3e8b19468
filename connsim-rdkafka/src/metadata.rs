//! `rdkafka::metadata`: the cluster's brokers and topics, and partition watermarks.
//!
//! The simulated log is one broker, [`connsim::systems::BROKER_ID`], advertised as the log's
//! node name (the host in `bootstrap.servers`) and port 9092: it leads every partition and is
//! its only replica and in-sync replica. As librdkafka answers a metadata request for one
//! topic, a topic that does not exist is in the answer with the error
//! `RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART` and no partitions, and the call succeeds (the
//! broker never creates topics on a metadata request here).

use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode, RDKafkaRespErr};
use crate::util::Timeout;
use crate::wire::{deadline, Wire};
use connsim::systems::{
    AdminRequest, AdminResponse, ClusterMetadata, KafkaCode, KafkaRequest, KafkaResponse, OffsetSpec,
};

/// A broker's error as metadata carries it: librdkafka's number of the code.
fn resp_err(code: Option<KafkaCode>) -> Option<RDKafkaRespErr> {
    let number = |code| RDKafkaErrorCode::from(code) as i32;
    code.map(|code| RDKafkaRespErr::try_from(number(code)).unwrap_or(RDKafkaRespErr::RD_KAFKA_RESP_ERR_UNKNOWN))
}

/// A broker (`rdkafka::metadata::MetadataBroker`).
#[derive(Debug)]
pub struct MetadataBroker {
    id: i32,
    host: String,
    port: i32,
}

impl MetadataBroker {
    /// Its id.
    pub fn id(&self) -> i32 {
        self.id
    }
    /// Its host.
    pub fn host(&self) -> &str {
        &self.host
    }
    /// Its port.
    pub fn port(&self) -> i32 {
        self.port
    }
}

/// A partition (`rdkafka::metadata::MetadataPartition`).
#[derive(Debug)]
pub struct MetadataPartition {
    id: i32,
    leader: i32,
    replicas: Vec<i32>,
    isr: Vec<i32>,
    error: Option<RDKafkaRespErr>,
}

impl MetadataPartition {
    /// Its id.
    pub fn id(&self) -> i32 {
        self.id
    }
    /// Its leader's broker id.
    pub fn leader(&self) -> i32 {
        self.leader
    }
    /// Its error, if any.
    pub fn error(&self) -> Option<RDKafkaRespErr> {
        self.error
    }
    /// Its replicas' broker ids.
    pub fn replicas(&self) -> &[i32] {
        &self.replicas
    }
    /// Its in-sync replicas' broker ids.
    pub fn isr(&self) -> &[i32] {
        &self.isr
    }
}

/// A topic (`rdkafka::metadata::MetadataTopic`).
#[derive(Debug)]
pub struct MetadataTopic {
    name: String,
    partitions: Vec<MetadataPartition>,
    error: Option<RDKafkaRespErr>,
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
    /// Its error, if any (`RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART` for a topic that does
    /// not exist).
    pub fn error(&self) -> Option<RDKafkaRespErr> {
        self.error
    }
}

/// The cluster's brokers and topics (`rdkafka::metadata::Metadata`).
#[derive(Debug)]
pub struct Metadata {
    orig_broker_id: i32,
    orig_broker_name: String,
    brokers: Vec<MetadataBroker>,
    topics: Vec<MetadataTopic>,
}

impl Metadata {
    /// The id of the broker that answered.
    pub fn orig_broker_id(&self) -> i32 {
        self.orig_broker_id
    }
    /// The name of the broker that answered, as librdkafka names brokers: `host:port/id`.
    pub fn orig_broker_name(&self) -> &str {
        &self.orig_broker_name
    }
    /// Every broker.
    pub fn brokers(&self) -> &[MetadataBroker] {
        &self.brokers
    }
    /// The topics asked for (every topic, for `None`).
    pub fn topics(&self) -> &[MetadataTopic] {
        &self.topics
    }

    fn from_wire(m: ClusterMetadata) -> Metadata {
        let orig = m.brokers.iter().find(|b| b.id == m.controller_id).or(m.brokers.first());
        let (orig_broker_id, orig_broker_name) =
            orig.map_or((-1, String::new()), |b| (b.id, format!("{}:{}/{}", b.host, b.port, b.id)));
        let brokers = m.brokers.into_iter().map(|b| MetadataBroker { id: b.id, host: b.host, port: b.port }).collect();
        let partition = |p: connsim::systems::PartitionInfo| MetadataPartition {
            id: p.id,
            leader: p.leader,
            replicas: p.replicas,
            isr: p.isr,
            error: resp_err(p.error),
        };
        let topic = |t: connsim::systems::TopicInfo| MetadataTopic {
            name: t.name,
            partitions: t.partitions.into_iter().map(partition).collect(),
            error: resp_err(t.error),
        };
        Metadata { orig_broker_id, orig_broker_name, brokers, topics: m.topics.into_iter().map(topic).collect() }
    }
}

/// `fetch_metadata`: the metadata of `topic`, or of every topic for `None`.
pub(crate) async fn fetch(wire: &Wire, topic: Option<&str>, timeout: Timeout) -> KafkaResult<Metadata> {
    let req = KafkaRequest::Admin(AdminRequest::Metadata { topics: topic.map(|t| vec![t.to_string()]) });
    match wire.call_until(&req, deadline(timeout)).await {
        Some(KafkaResponse::Admin(AdminResponse::Metadata(m))) => Ok(Metadata::from_wire(m)),
        Some(KafkaResponse::Error(code)) => Err(KafkaError::MetadataFetch(code.into())),
        _ => Err(KafkaError::MetadataFetch(RDKafkaErrorCode::OperationTimedOut)),
    }
}

/// `fetch_watermarks`: a partition's log start offset and end (the last stable offset for a
/// read-committed client).
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
            // librdkafka looks the partition's leader up first
            // (`rd_kafka_topic_partition_list_query_leaders`): a partition or topic it cannot
            // find is `UnknownPartition`, before any request.
            Some(KafkaResponse::Error(connsim::systems::KafkaCode::UnknownTopicOrPartition)) => {
                return Err(KafkaError::MetadataFetch(RDKafkaErrorCode::UnknownPartition))
            }
            Some(KafkaResponse::Error(code)) => return Err(KafkaError::MetadataFetch(code.into())),
            _ => return Err(KafkaError::MetadataFetch(RDKafkaErrorCode::OperationTimedOut)),
        };
    }
    Ok((ends[0], ends[1]))
}
