//! The log's Kafka protocol: the requests a Kafka client sends a broker (and its group and
//! transaction coordinators), in the subset connectors use, with Kafka's error codes.
//!
//! `connsim-rdkafka` speaks it; the broker side is in [`super::broker`]. Each request names the
//! Kafka API it stands for. Differences from the wire protocol, all of them simplifications
//! of framing and none of semantics: one partition per produce, fetch and
//! `AddPartitionsToTxn` request; `TxnOffsetCommit` adds the group (`AddOffsetsToTxn`); topics
//! are never created on first use (`allow.auto.create.topics=false`).

use super::group::{GroupRequest, GroupResponse, MemberIdentity};
use super::LogEntry;
use serde::{Deserialize, Serialize};

/// A producer id and epoch, as `InitProducerId` hands them out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ProducerIdentity {
    /// The producer id (stable for a transactional id across epochs).
    pub id: u64,
    /// The producer epoch.
    pub epoch: u64,
}

/// How many replicas acknowledge a produce before the broker answers (Kafka's `acks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Acks {
    /// `acks=0`: the producer expects no answer (connsim's client sends one-way).
    None,
    /// `acks=1`: the leader answers once it has appended; a leader crash before followers
    /// copy the entries loses them ([`crate::systems::Setting::LoseUnreplicatedOnCrash`]).
    Leader,
    /// `acks=all`: the answer comes once every in-sync replica has the entries; they survive
    /// any single crash.
    All,
}

/// Where `ListOffsets` looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OffsetSpec {
    /// The log start offset (`-2`, `OffsetSpec::Earliest`).
    Earliest,
    /// The end: the high watermark, or for a read-committed client the last stable offset
    /// (`-1`, `OffsetSpec::Latest`).
    Latest,
    /// The first offset whose message has a timestamp at or after this one (ms), if it is
    /// below the end the client may read to; else none (`offsetsForTimes`).
    Timestamp(i64),
}

/// The requests the Kafka face of the log serves.
#[allow(missing_docs)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum KafkaRequest {
    /// `Metadata`: partition counts of the named topics, or of every topic.
    Metadata { topics: Option<Vec<String>> },
    /// `InitProducerId`: a transactional id gets its producer id and a new epoch, which
    /// fences every older epoch and aborts the id's ongoing transaction; without one, an
    /// idempotent producer gets a fresh producer id. With `producer` (KIP-360), a producer
    /// asks to bump its own epoch: refused unless it is the id's current one.
    InitProducerId { transactional_id: Option<String>, transaction_timeout_ms: u64, producer: Option<ProducerIdentity> },
    /// `Produce` of one batch to one partition. `producer` and `base_sequence` are set by
    /// idempotent producers; `transactional_id` by transactional ones (the batch joins the
    /// id's ongoing transaction, opening one if none is).
    Produce {
        topic: String,
        partition: u32,
        entries: Vec<LogEntry>,
        producer: Option<ProducerIdentity>,
        base_sequence: i64,
        transactional_id: Option<String>,
        acks: Acks,
    },
    /// `TxnOffsetCommit` (with `AddOffsetsToTxn`): offsets committed for `group` when the
    /// transaction commits, dropped if it aborts.
    /// With `member` (KIP-447), the consumer's group metadata: the offsets are refused from a
    /// generation the group left behind.
    TxnOffsetCommit {
        transactional_id: String,
        producer: ProducerIdentity,
        group: String,
        member: Option<MemberIdentity>,
        offsets: Vec<(String, u32, u64)>,
    },
    /// `EndTxn`: commits or aborts the ongoing transaction of `transactional_id`.
    EndTxn { transactional_id: String, producer: ProducerIdentity, commit: bool },
    /// `Fetch` from one partition.
    Fetch { topic: String, partition: u32, offset: u64, max: usize, read_committed: bool },
    /// `ListOffsets` of one partition.
    ListOffsets { topic: String, partition: u32, spec: OffsetSpec, read_committed: bool },
    /// `OffsetCommit` for a consumer group (outside any transaction): by a member in its
    /// generation, or without `member` as a simple commit (generation -1), which only an
    /// empty group takes.
    OffsetCommit { group: String, member: Option<MemberIdentity>, offsets: Vec<(String, u32, u64)> },
    /// `OffsetFetch`: a group's committed offsets. With `require_stable` (KIP-447, what a
    /// read-committed consumer asks), a partition whose offsets an open transaction is
    /// committing is answered `UNSTABLE_OFFSET_COMMIT`.
    OffsetFetch { group: String, partitions: Vec<(String, u32)>, require_stable: bool },
    /// The group coordinator's requests.
    Group(GroupRequest),
    /// `AddPartitionsToTxn`: the partition joins the ongoing transaction of
    /// `transactional_id`, which starts if none is. A client sends it before its first
    /// produce to the partition in each transaction, so the coordinator knows the
    /// transaction (and ends it on the partition) even if that produce never arrives.
    AddPartitionsToTxn { transactional_id: String, producer: ProducerIdentity, topic: String, partition: u32 },
    /// The admin APIs (`Metadata` in full, `CreateTopics`, `DeleteTopics`, `CreatePartitions`,
    /// `DeleteRecords`, `DescribeConfigs`, `AlterConfigs`): [`super::AdminRequest`].
    Admin(super::admin::AdminRequest),
}

impl KafkaRequest {
    /// The message kind fault rules and the history name the request by (`kafka.<api>`).
    pub fn kind(&self) -> &'static str {
        match self {
            KafkaRequest::Metadata { .. } => "kafka.metadata",
            KafkaRequest::InitProducerId { .. } => "kafka.init_producer_id",
            KafkaRequest::Produce { .. } => "kafka.produce",
            KafkaRequest::TxnOffsetCommit { .. } => "kafka.txn_offset_commit",
            KafkaRequest::EndTxn { .. } => "kafka.end_txn",
            KafkaRequest::Fetch { .. } => "kafka.fetch",
            KafkaRequest::ListOffsets { .. } => "kafka.list_offsets",
            KafkaRequest::OffsetCommit { .. } => "kafka.offset_commit",
            KafkaRequest::OffsetFetch { .. } => "kafka.offset_fetch",
            KafkaRequest::AddPartitionsToTxn { .. } => "kafka.add_partitions_to_txn",
            KafkaRequest::Admin(req) => req.kind(),
            KafkaRequest::Group(g) => g.kind(),
        }
    }
}

/// One partition's fetch answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fetched {
    /// Entries with their offsets (a read-committed fetch leaves aborted ones out).
    pub entries: Vec<(u64, LogEntry)>,
    /// The offsets of the transaction markers (control records) in the range: no consumer
    /// returns them, but a consumer's position passes each once it is reached, as
    /// librdkafka's does with the control messages it queues.
    pub markers: Vec<u64>,
    /// The offset to fetch next.
    pub next_offset: u64,
    /// The partition's first offset.
    pub log_start: u64,
    /// The high watermark: one past the last replicated entry.
    pub high_watermark: u64,
    /// The last stable offset: the first offset of an ongoing transaction, or the high
    /// watermark.
    pub last_stable_offset: u64,
}

/// The Kafka face's answers.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum KafkaResponse {
    /// `(topic, partitions)` per topic.
    Metadata(Vec<(String, u32)>),
    /// Done.
    Ok,
    /// A producer id and epoch (`InitProducerId`), or the epoch after an `EndTxn` (which
    /// KIP-890 bumps).
    Producer(ProducerIdentity),
    /// The batch's first offset (for a duplicate, the offset it was written at).
    Produced {
        base_offset: u64,
    },
    Fetched(Fetched),
    Offset(u64),
    /// Per requested partition, the group's committed offset if any.
    Committed(Vec<Option<u64>>),
    /// Refused with Kafka's error code.
    Error(KafkaCode),
    /// The offset a timestamp lookup found, if any.
    OffsetForTime(Option<u64>),
    /// The admin APIs' answers.
    Admin(super::admin::AdminResponse),
    /// The group coordinator's answers.
    Group(GroupResponse),
}

/// Kafka's error codes the log answers with (the `RDKafkaErrorCode` of the same name).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum KafkaCode {
    UnknownTopicOrPartition,
    /// `OFFSET_OUT_OF_RANGE`: below the log start or past the log end.
    OffsetOutOfRange,
    /// `PRODUCER_FENCED`: a coordinator request of an epoch a newer one replaced.
    ProducerFenced,
    /// `INVALID_PRODUCER_EPOCH`: a produce of a replaced epoch.
    InvalidProducerEpoch,
    /// `INVALID_PRODUCER_ID_MAPPING`: the producer id is not the transactional id's.
    InvalidProducerIdMapping,
    /// `OUT_OF_ORDER_SEQUENCE_NUMBER`: a batch neither next nor among the last five.
    OutOfOrderSequenceNumber,
    /// `INVALID_TXN_STATE`: e.g. committing a transaction that was aborted.
    InvalidTxnState,
    /// `TOPIC_ALREADY_EXISTS`.
    TopicAlreadyExists,
    /// `INVALID_PARTITIONS`: a partition count that does not grow the topic.
    InvalidPartitions,
    /// `INVALID_TRANSACTION_TIMEOUT`: a `transaction.timeout.ms` above the broker's
    /// `transaction.max.timeout.ms` ([`super::TRANSACTION_MAX_TIMEOUT_MS`]).
    InvalidTransactionTimeout,
    /// `INVALID_TOPIC_EXCEPTION`: an illegal topic name (Kafka's `Topic.validate`).
    InvalidTopic,
    /// `INVALID_REPLICATION_FACTOR`: a replication factor of 0 or below -1.
    InvalidReplicationFactor,
    /// `INVALID_REPLICA_ASSIGNMENT`: a manual replica assignment Kafka's controller refuses.
    InvalidReplicaAssignment,
    /// `INVALID_CONFIG`: an unknown config name, or a value its validator refuses.
    InvalidConfig,
    /// `INVALID_REQUEST`: e.g. a topic named twice in one admin request.
    InvalidRequest,
    /// `POLICY_VIOLATION`: e.g. `DeleteRecords` on a topic whose `cleanup.policy` lacks
    /// `delete`.
    PolicyViolation,
    /// `ILLEGAL_GENERATION`: a group request of a generation the group left behind.
    IllegalGeneration,
    /// `UNKNOWN_MEMBER_ID`: the group has no such member (it left, or its session expired).
    UnknownMemberId,
    /// `REBALANCE_IN_PROGRESS`: the group is rebalancing; rejoin.
    RebalanceInProgress,
    /// `INVALID_SESSION_TIMEOUT`: outside the broker's `group.min/max.session.timeout.ms`.
    InvalidSessionTimeout,
    /// `INCONSISTENT_GROUP_PROTOCOL`: no assignor every member supports.
    InconsistentGroupProtocol,
    /// `FENCED_INSTANCE_ID`: a newer member holds this `group.instance.id` (KIP-345).
    FencedInstanceId,
    /// `INVALID_GROUP_ID`: an empty group id.
    InvalidGroupId,
    /// `GROUP_ID_NOT_FOUND`.
    GroupIdNotFound,
    /// `NON_EMPTY_GROUP`: a group with members cannot be deleted.
    NonEmptyGroup,
    /// `UNSTABLE_OFFSET_COMMIT` (KIP-447): an open transaction commits offsets of the
    /// partition; ask again.
    UnstableOffsetCommit,
}
