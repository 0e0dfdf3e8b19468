//! `rdkafka::error`: [`KafkaError`], [`RDKafkaErrorCode`] (the codes a connector handles, with
//! librdkafka's numbers) and [`RDKafkaError`], the rich error of the transactional API.

use std::fmt;

/// A result of the client (`rdkafka::error::KafkaResult`).
pub type KafkaResult<T> = Result<T, KafkaError>;

/// librdkafka's error codes (the subset the simulated broker and client answer with). Negative
/// codes are the client's own, positive ones the broker's.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RDKafkaErrorCode {
    MessageTimedOut = -192,
    PartitionEOF = -191,
    UnknownPartition = -190,
    UnknownTopic = -188,
    UnknownGroup = -179,
    InvalidArgument = -186,
    OperationTimedOut = -185,
    QueueFull = -184,
    Conflict = -173,
    State = -172,
    NoOffset = -168,
    NotImplemented = -170,
    Fatal = -150,
    Fenced = -144,
    NoError = 0,
    OffsetOutOfRange = 1,
    UnknownTopicOrPartition = 3,
    RequestTimedOut = 7,
    CoordinatorNotAvailable = 15,
    NotCoordinator = 16,
    NotEnoughReplicas = 19,
    TopicAlreadyExists = 36,
    InvalidPartitions = 37,
    InvalidConfig = 40,
    OutOfOrderSequenceNumber = 45,
    DuplicateSequenceNumber = 46,
    InvalidProducerEpoch = 47,
    InvalidTransactionalState = 48,
    InvalidProducerIdMapping = 49,
    InvalidTransactionTimeout = 50,
    ConcurrentTransactions = 51,
    UnknownProducerId = 59,
    ProducerFenced = 90,
}

impl fmt::Display for RDKafkaErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?} ({})", *self as i32)
    }
}

impl From<connsim::systems::KafkaCode> for RDKafkaErrorCode {
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
        }
    }
}

/// The error of the transactional API (`rdkafka::error::RDKafkaError`): a code, whether the
/// producer is finished (fatal), whether the call may be retried, and whether the transaction
/// must be aborted before the producer goes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RDKafkaError {
    code: RDKafkaErrorCode,
    message: String,
    fatal: bool,
    retriable: bool,
    abortable: bool,
}

impl RDKafkaError {
    pub(crate) fn new(code: RDKafkaErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), fatal: false, retriable: false, abortable: false }
    }
    pub(crate) fn fatal(mut self) -> Self {
        self.fatal = true;
        self
    }
    pub(crate) fn retriable(mut self) -> Self {
        self.retriable = true;
        self
    }
    pub(crate) fn abortable(mut self) -> Self {
        self.abortable = true;
        self
    }
    /// The error code.
    pub fn code(&self) -> RDKafkaErrorCode {
        self.code
    }
    /// Its description.
    pub fn string(&self) -> String {
        self.message.clone()
    }
    /// The producer cannot go on (fenced, or a broken idempotence guarantee): drop it.
    pub fn is_fatal(&self) -> bool {
        self.fatal
    }
    /// The same call may succeed if retried.
    pub fn is_retriable(&self) -> bool {
        self.retriable
    }
    /// The transaction cannot commit: abort it, then go on.
    pub fn txn_requires_abort(&self) -> bool {
        self.abortable
    }
}

impl fmt::Display for RDKafkaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RDKafkaError {}

/// Whether a configuration property was understood (`rdkafka::types::RDKafkaConfRes`).
#[allow(non_camel_case_types, missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RDKafkaConfRes {
    RD_KAFKA_CONF_UNKNOWN = -2,
    RD_KAFKA_CONF_INVALID = -1,
    RD_KAFKA_CONF_OK = 0,
}

/// The client's errors (`rdkafka::error::KafkaError`), variant by variant the ones of rdkafka
/// that this client raises.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KafkaError {
    /// Creating an admin operation failed.
    AdminOpCreation(String),
    /// An admin operation failed.
    AdminOp(RDKafkaErrorCode),
    /// A configuration property is unknown or has an invalid value: the result, a
    /// description, the key and the value.
    ClientConfig(RDKafkaConfRes, String, String, String),
    /// The client could not be created (a contradictory configuration).
    ClientCreation(String),
    /// A consumer's offset commit failed.
    ConsumerCommit(RDKafkaErrorCode),
    /// A flush did not finish in time.
    Flush(RDKafkaErrorCode),
    /// An error not tied to one operation.
    Global(RDKafkaErrorCode),
    /// Consuming a message failed.
    MessageConsumption(RDKafkaErrorCode),
    /// Producing a message failed.
    MessageProduction(RDKafkaErrorCode),
    /// Fetching metadata or watermarks failed.
    MetadataFetch(RDKafkaErrorCode),
    /// Fetching committed offsets failed.
    OffsetFetch(RDKafkaErrorCode),
    /// The end of a partition was reached (`enable.partition.eof`).
    PartitionEOF(i32),
    /// Pausing or resuming failed.
    PauseResume(String),
    /// Seeking failed.
    Seek(String),
    /// Subscribing failed.
    Subscription(String),
    /// Setting an offset in a partition list failed.
    SetPartitionOffset(RDKafkaErrorCode),
    /// Storing an offset for the next commit failed.
    StoreOffset(RDKafkaErrorCode),
    /// A transactional call failed.
    Transaction(RDKafkaError),
}

impl KafkaError {
    /// The librdkafka code of the error, if it has one.
    pub fn rdkafka_error_code(&self) -> Option<RDKafkaErrorCode> {
        match self {
            KafkaError::AdminOp(c)
            | KafkaError::ConsumerCommit(c)
            | KafkaError::Flush(c)
            | KafkaError::Global(c)
            | KafkaError::MessageConsumption(c)
            | KafkaError::MessageProduction(c)
            | KafkaError::MetadataFetch(c)
            | KafkaError::OffsetFetch(c)
            | KafkaError::SetPartitionOffset(c)
            | KafkaError::StoreOffset(c) => Some(*c),
            KafkaError::Transaction(e) => Some(e.code()),
            _ => None,
        }
    }
}

impl fmt::Debug for KafkaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KafkaError ({self})")
    }
}

impl fmt::Display for KafkaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KafkaError::AdminOpCreation(e) => write!(f, "Admin operation creation error: {e}"),
            KafkaError::AdminOp(c) => write!(f, "Admin operation error: {c}"),
            KafkaError::ClientConfig(_, desc, key, value) => {
                write!(f, "Client config error: {desc} {key} {value}")
            }
            KafkaError::ClientCreation(e) => write!(f, "Client creation error: {e}"),
            KafkaError::ConsumerCommit(c) => write!(f, "Consumer commit error: {c}"),
            KafkaError::Flush(c) => write!(f, "Flush error: {c}"),
            KafkaError::Global(c) => write!(f, "Global error: {c}"),
            KafkaError::MessageConsumption(c) => write!(f, "Message consumption error: {c}"),
            KafkaError::MessageProduction(c) => write!(f, "Message production error: {c}"),
            KafkaError::MetadataFetch(c) => write!(f, "Meta data fetch error: {c}"),
            KafkaError::OffsetFetch(c) => write!(f, "Offset fetch error: {c}"),
            KafkaError::PartitionEOF(p) => write!(f, "Partition EOF: {p}"),
            KafkaError::PauseResume(e) => write!(f, "Pause/resume error: {e}"),
            KafkaError::Seek(e) => write!(f, "Seek error: {e}"),
            KafkaError::SetPartitionOffset(c) => write!(f, "Set partition offset error: {c}"),
            KafkaError::StoreOffset(c) => write!(f, "Store offset error: {c}"),
            KafkaError::Subscription(e) => write!(f, "Subscription error: {e}"),
            KafkaError::Transaction(e) => write!(f, "Transaction error: {e}"),
        }
    }
}

impl std::error::Error for KafkaError {}
