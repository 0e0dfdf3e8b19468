//! `rdkafka::error`: [`KafkaError`] and [`KafkaResult`], librdkafka's error codes
//! ([`RDKafkaErrorCode`], and [`RDKafkaRespErr`] that `rdkafka::types` names), and
//! [`RDKafkaError`], the rich error of the transactional API.

mod codes;
mod kafka_error;
mod rdkafka_error;

pub use codes::{RDKafkaErrorCode, RDKafkaRespErr};
pub use kafka_error::KafkaError;
pub use rdkafka_error::RDKafkaError;

/// A result of the client (`rdkafka::error::KafkaResult`).
pub type KafkaResult<T> = Result<T, KafkaError>;

/// Whether a value is an error (`rdkafka::error::IsError`): some of librdkafka's values are
/// informational.
pub trait IsError {
    /// Whether the value is an error.
    fn is_error(&self) -> bool;
}

impl IsError for RDKafkaRespErr {
    /// Anything but `RD_KAFKA_RESP_ERR_NO_ERROR`.
    fn is_error(&self) -> bool {
        *self != RDKafkaRespErr::RD_KAFKA_RESP_ERR_NO_ERROR
    }
}

impl IsError for RDKafkaConfRes {
    /// Anything but `RD_KAFKA_CONF_OK`.
    fn is_error(&self) -> bool {
        *self != RDKafkaConfRes::RD_KAFKA_CONF_OK
    }
}

impl IsError for RDKafkaError {
    /// rdkafka's error wraps a pointer that is an error when it is not null; a simulated
    /// [`RDKafkaError`] always is one.
    fn is_error(&self) -> bool {
        true
    }
}

/// Whether a configuration property was understood (`rdkafka::types::RDKafkaConfRes`,
/// librdkafka's `rd_kafka_conf_res_t`).
#[allow(non_camel_case_types)]
#[repr(i32)]
#[derive(Debug, Copy, Clone, Hash, PartialEq, Eq)]
pub enum RDKafkaConfRes {
    /// The property is unknown.
    RD_KAFKA_CONF_UNKNOWN = -2,
    /// Its value is invalid.
    RD_KAFKA_CONF_INVALID = -1,
    /// It was set.
    RD_KAFKA_CONF_OK = 0,
}

impl From<connsim::systems::KafkaCode> for RDKafkaErrorCode {
    /// The broker's code of the same name.
    fn from(code: connsim::systems::KafkaCode) -> Self {
        use connsim::systems::KafkaCode as K;
        match code {
            K::UnknownTopicOrPartition => RDKafkaErrorCode::UnknownTopicOrPartition,
            K::OffsetOutOfRange => RDKafkaErrorCode::OffsetOutOfRange,
            K::ProducerFenced => RDKafkaErrorCode::ProducerFenced,
            K::InvalidProducerEpoch => RDKafkaErrorCode::InvalidProducerEpoch,
            K::InvalidProducerIdMapping => RDKafkaErrorCode::InvalidProducerIdMapping,
            K::OutOfOrderSequenceNumber => RDKafkaErrorCode::OutOfOrderSequenceNumber,
            K::InvalidTxnState => RDKafkaErrorCode::InvalidTransactionalState,
            K::TopicAlreadyExists => RDKafkaErrorCode::TopicAlreadyExists,
            K::InvalidPartitions => RDKafkaErrorCode::InvalidPartitions,
            K::InvalidTransactionTimeout => RDKafkaErrorCode::InvalidTransactionTimeout,
            K::IllegalGeneration => RDKafkaErrorCode::IllegalGeneration,
            K::UnknownMemberId => RDKafkaErrorCode::UnknownMemberId,
            K::RebalanceInProgress => RDKafkaErrorCode::RebalanceInProgress,
            K::InvalidSessionTimeout => RDKafkaErrorCode::InvalidSessionTimeout,
            K::InconsistentGroupProtocol => RDKafkaErrorCode::InconsistentGroupProtocol,
            K::FencedInstanceId => RDKafkaErrorCode::FencedInstanceId,
            K::InvalidGroupId => RDKafkaErrorCode::InvalidGroupId,
            K::GroupIdNotFound => RDKafkaErrorCode::GroupIdNotFound,
            K::NonEmptyGroup => RDKafkaErrorCode::NonEmptyGroup,
            K::UnstableOffsetCommit => RDKafkaErrorCode::UnstableOffsetCommit,
            K::InvalidTopic => RDKafkaErrorCode::InvalidTopic,
            K::InvalidReplicationFactor => RDKafkaErrorCode::InvalidReplicationFactor,
            K::InvalidReplicaAssignment => RDKafkaErrorCode::InvalidReplicaAssignment,
            K::InvalidConfig => RDKafkaErrorCode::InvalidConfig,
            K::InvalidRequest => RDKafkaErrorCode::InvalidRequest,
            K::PolicyViolation => RDKafkaErrorCode::PolicyViolation,
        }
    }
}
