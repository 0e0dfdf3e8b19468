//! The admin APIs' requests and answers, field by field what Kafka's protocol carries for
//! them (framing aside: one request per API call, results in request order, as librdkafka
//! hands them to the application).

use super::super::KafkaCode;
use serde::{Deserialize, Serialize};

/// A refusal: Kafka's error code and the broker's message (Kafka's `ApiError`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiError {
    /// The error code.
    pub code: KafkaCode,
    /// What the broker says, as Kafka's broker words it.
    pub message: String,
}

impl ApiError {
    pub(super) fn new(code: KafkaCode, message: impl Into<String>) -> ApiError {
        ApiError { code, message: message.into() }
    }
}

/// One topic of a `CreateTopics` request (Kafka's `CreatableTopic`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewTopicRequest {
    /// The topic.
    pub name: String,
    /// Its partitions; -1: the broker's `num.partitions` (KIP-464), and -1 whenever an
    /// assignment is given.
    pub num_partitions: i32,
    /// Its replication factor; -1: the broker's `default.replication.factor` (KIP-464), and
    /// -1 whenever an assignment is given.
    pub replication_factor: i32,
    /// The replicas (broker ids) of each partition, partition 0 first; empty: none given.
    pub assignment: Vec<Vec<i32>>,
    /// Topic configs, as `name=value` pairs.
    pub configs: Vec<(String, String)>,
}

/// One topic of a `CreatePartitions` request (Kafka's `CreatePartitionsTopic`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewPartitionsRequest {
    /// The topic.
    pub topic: String,
    /// Its partition count after the request.
    pub count: i32,
    /// The replicas of each new partition, if given (one list per new partition).
    pub assignment: Option<Vec<Vec<i32>>>,
}

/// A resource that has configs (Kafka's `ConfigResource`: a type and a name).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ConfigResourceKey {
    /// A topic (`TOPIC`, type 2).
    Topic(String),
    /// A consumer group (`GROUP`, type 32, KIP-848).
    Group(String),
    /// A broker by id (`BROKER`, type 4).
    Broker(i32),
}

/// Where a config's value comes from (Kafka's `ConfigSource`, KIP-226).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConfigOrigin {
    /// `DYNAMIC_TOPIC_CONFIG`: set on the topic (`CreateTopics`, `AlterConfigs`).
    DynamicTopic,
    /// `STATIC_BROKER_CONFIG`: the broker's own setting (here: a [`crate::systems::Setting`]
    /// or what the simulated broker always does).
    StaticBroker,
    /// `DEFAULT_CONFIG`: Kafka's default.
    Default,
}

/// One config of a described resource (Kafka's `DescribeConfigsResourceResult`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DescribedConfig {
    /// Its name.
    pub name: String,
    /// Its value (`None` for a sensitive one, or one without a value).
    pub value: Option<String>,
    /// Where the value comes from.
    pub origin: ConfigOrigin,
    /// It cannot be altered.
    pub read_only: bool,
    /// It has Kafka's default value.
    pub is_default: bool,
    /// It holds a secret.
    pub sensitive: bool,
}

/// A broker of the cluster (`Metadata`'s `MetadataResponseBroker`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerInfo {
    /// Its node id.
    pub id: i32,
    /// Its advertised host: the log's node name.
    pub host: String,
    /// Its advertised port.
    pub port: i32,
}

/// A partition's metadata (`MetadataResponsePartition`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionInfo {
    /// Its id.
    pub id: i32,
    /// Its leader's broker id.
    pub leader: i32,
    /// Its replicas' broker ids.
    pub replicas: Vec<i32>,
    /// Its in-sync replicas' broker ids.
    pub isr: Vec<i32>,
    /// Its error, if any.
    pub error: Option<KafkaCode>,
}

/// A topic's metadata (`MetadataResponseTopic`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicInfo {
    /// Its name.
    pub name: String,
    /// Its error (`UNKNOWN_TOPIC_OR_PARTITION` for a topic that does not exist).
    pub error: Option<KafkaCode>,
    /// Its partitions (none with an error).
    pub partitions: Vec<PartitionInfo>,
}

/// A `Metadata` answer: the brokers and the topics asked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterMetadata {
    /// Every broker.
    pub brokers: Vec<BrokerInfo>,
    /// The controller's broker id.
    pub controller_id: i32,
    /// The topics.
    pub topics: Vec<TopicInfo>,
}

/// The admin requests the log's Kafka face serves, each named after the Kafka API it stands
/// for. Each is answered per item (topic, partition, resource), in the request's order.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum AdminRequest {
    /// `Metadata` (API 3): the brokers, and the named topics with each partition's leader,
    /// replicas and in-sync replicas. A named topic that does not exist is answered with
    /// `UNKNOWN_TOPIC_OR_PARTITION` in its entry, not by failing the request (the broker
    /// never creates topics on a metadata request here: `auto.create.topics.enable=false`);
    /// an illegal name with `INVALID_TOPIC_EXCEPTION`.
    Metadata {
        /// The topics; `None`: every topic.
        topics: Option<Vec<String>>,
    },
    /// `CreateTopics` (API 19, KIP-4; the -1 defaults of KIP-464).
    CreateTopics {
        /// The topics to create.
        topics: Vec<NewTopicRequest>,
        /// Every check runs and nothing is created.
        validate_only: bool,
    },
    /// `DeleteTopics` (API 20): the topics, their partitions and configs are gone.
    DeleteTopics {
        /// The topics to delete.
        topics: Vec<String>,
    },
    /// `CreatePartitions` (API 37, KIP-195): grows each topic to its count.
    CreatePartitions {
        /// The topics to grow.
        topics: Vec<NewPartitionsRequest>,
        /// Every check runs and nothing grows.
        validate_only: bool,
    },
    /// `DeleteRecords` (API 21, KIP-107): each partition's log start offset moves up to the
    /// offset given; records below it are gone.
    DeleteRecords {
        /// `(topic, partition, offset)`; offset -1: the high watermark.
        partitions: Vec<(String, u32, i64)>,
    },
    /// `DescribeConfigs` (API 32, KIP-133): every config of each resource.
    DescribeConfigs {
        /// The resources.
        resources: Vec<ConfigResourceKey>,
    },
    /// `AlterConfigs` (API 33, KIP-133): replaces each resource's whole set of dynamic configs
    /// (one not named returns to its default).
    AlterConfigs {
        /// Each resource with its configs, as `name=value` pairs.
        resources: Vec<(ConfigResourceKey, Vec<(String, String)>)>,
        /// Every check runs and nothing changes.
        validate_only: bool,
    },
}

impl AdminRequest {
    /// The message kind fault rules and the history name the request by (`kafka.<api>`).
    pub fn kind(&self) -> &'static str {
        match self {
            AdminRequest::Metadata { .. } => "kafka.metadata",
            AdminRequest::CreateTopics { .. } => "kafka.create_topics",
            AdminRequest::DeleteTopics { .. } => "kafka.delete_topics",
            AdminRequest::CreatePartitions { .. } => "kafka.create_partitions",
            AdminRequest::DeleteRecords { .. } => "kafka.delete_records",
            AdminRequest::DescribeConfigs { .. } => "kafka.describe_configs",
            AdminRequest::AlterConfigs { .. } => "kafka.alter_configs",
        }
    }
}

/// The admin requests' answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum AdminResponse {
    /// `Metadata`.
    Metadata(ClusterMetadata),
    /// `CreateTopics`, `DeleteTopics`, `CreatePartitions`: per topic, its refusal if any.
    Topics(Vec<(String, Option<ApiError>)>),
    /// `DeleteRecords`: per partition, the log start offset after (the low watermark), or
    /// the refusal.
    Records(Vec<(String, u32, Result<u64, ApiError>)>),
    /// `DescribeConfigs`: per resource, its configs by name, or the refusal.
    Configs(Vec<(ConfigResourceKey, Result<Vec<DescribedConfig>, ApiError>)>),
    /// `AlterConfigs`: per resource, its refusal if any.
    Altered(Vec<(ConfigResourceKey, Option<ApiError>)>),
}
