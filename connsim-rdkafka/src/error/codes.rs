//! librdkafka 2.12.1's error codes in their two Rust spellings: [`RDKafkaErrorCode`]
//! (`rdkafka::error::RDKafkaErrorCode`) and [`RDKafkaRespErr`] (`rdkafka::types::RDKafkaRespErr`,
//! librdkafka's `rd_kafka_resp_err_t`), with librdkafka's numbers, names and descriptions.
//!
//! One table below is the source of both: a row is the code's `RDKafkaErrorCode` name, its
//! number, its `rd_kafka_resp_err_t` name, and its description from librdkafka's
//! `rd_kafka_err_descs[]` (src/rdkafka.c), which `rd_kafka_err2str` returns. Negative codes are
//! the client's own, the others the broker's. The three rows without a description are
//! librdkafka's sentinels, hidden in `RDKafkaErrorCode` as rdkafka-sys hides them.

use std::borrow::Cow;
use std::fmt;

/// What `rd_kafka_err2str` answers for a code without a description (`Err-%i?`).
fn unknown(code: i32) -> Cow<'static, str> {
    Cow::Owned(format!("Err-{code}?"))
}

/// A row's description, if it has one.
macro_rules! described {
    () => {
        None::<&'static str>
    };
    ($desc:literal) => {
        Some($desc)
    };
}

macro_rules! error_codes {
    ($( $(#[$attr:meta])* $code:ident = $value:literal, $resp:ident $(, $desc:literal)?; )*) => {
        /// A librdkafka error code (`rdkafka::error::RDKafkaErrorCode`, rdkafka-sys 4.10's
        /// `types::RDKafkaErrorCode`): each variant documented with librdkafka's description.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum RDKafkaErrorCode {
            $( $(#[$attr])* $(#[doc = $desc])? $code = $value, )*
        }

        /// librdkafka's `rd_kafka_resp_err_t` (`rdkafka::types::RDKafkaRespErr`): the same codes
        /// under their C names, as a rebalance callback receives them.
        #[allow(non_camel_case_types)]
        #[repr(i32)]
        #[derive(Debug, Copy, Clone, Hash, PartialEq, Eq)]
        pub enum RDKafkaRespErr {
            $( #[doc = concat!("`", stringify!($code), "`", $(": ", $desc)?)] $resp = $value, )*
        }

        impl From<RDKafkaRespErr> for RDKafkaErrorCode {
            fn from(err: RDKafkaRespErr) -> RDKafkaErrorCode {
                match err {
                    $( RDKafkaRespErr::$resp => RDKafkaErrorCode::$code, )*
                }
            }
        }

        impl TryFrom<i32> for RDKafkaRespErr {
            type Error = TryFromPrimitiveError;
            fn try_from(number: i32) -> Result<RDKafkaRespErr, TryFromPrimitiveError> {
                match number {
                    $( $value => Ok(RDKafkaRespErr::$resp), )*
                    _ => Err(TryFromPrimitiveError { number }),
                }
            }
        }

        /// librdkafka's description of a code, `None` for a code without one.
        fn description(code: i32) -> Option<&'static str> {
            match code {
                $( $value => described!($($desc)?), )*
                _ => None,
            }
        }

        impl RDKafkaRespErr {
            /// `rd_kafka_err2name`'s table: the C name without its `RD_KAFKA_RESP_ERR_`
            /// prefix, for a code with a description.
            fn table_name(self) -> Option<&'static str> {
                match self {
                    $( RDKafkaRespErr::$resp => described!($($desc)?)
                        .map(|_| &stringify!($resp)["RD_KAFKA_RESP_ERR_".len()..]), )*
                }
            }
        }
    };
}

/// `rd_kafka_err2str`: librdkafka's description of a code, `Err-<code>?` for one without.
pub(crate) fn err2str(code: i32) -> Cow<'static, str> {
    description(code).map_or_else(|| unknown(code), Cow::Borrowed)
}

/// `rd_kafka_err2name`: the code's C name without its `RD_KAFKA_RESP_ERR_` prefix
/// (`_STATE`, `NO_ERROR`), `ERR_<code>?` for a code without a description.
pub(crate) fn err2name(code: i32) -> Cow<'static, str> {
    RDKafkaRespErr::try_from(code)
        .ok()
        .and_then(RDKafkaRespErr::table_name)
        .map_or_else(|| Cow::Owned(format!("ERR_{code}?")), Cow::Borrowed)
}

impl fmt::Display for RDKafkaErrorCode {
    /// rdkafka-sys's form: the variant's name, then librdkafka's description in parentheses
    /// (`PartitionEOF (Broker: No more messages)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?} ({})", err2str(*self as i32))
    }
}

impl std::error::Error for RDKafkaErrorCode {}

/// A number that is no [`RDKafkaRespErr`] (what `RDKafkaRespErr::try_from` returns for it,
/// num_enum's `TryFromPrimitiveError` in rdkafka-sys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TryFromPrimitiveError {
    /// The number.
    pub number: i32,
}

impl fmt::Display for TryFromPrimitiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "No discriminant in enum `rd_kafka_resp_err_t` matches the value `{}`", self.number)
    }
}

impl std::error::Error for TryFromPrimitiveError {}

error_codes! {
    #[doc(hidden)] Begin = -200, RD_KAFKA_RESP_ERR__BEGIN;
    BadMessage = -199, RD_KAFKA_RESP_ERR__BAD_MSG, "Local: Bad message format";
    BadCompression = -198, RD_KAFKA_RESP_ERR__BAD_COMPRESSION, "Local: Invalid compressed data";
    BrokerDestroy = -197, RD_KAFKA_RESP_ERR__DESTROY, "Local: Broker handle destroyed for termination";
    Fail = -196, RD_KAFKA_RESP_ERR__FAIL, "Local: Communication failure with broker";
    BrokerTransportFailure = -195, RD_KAFKA_RESP_ERR__TRANSPORT, "Local: Broker transport failure";
    CriticalSystemResource = -194, RD_KAFKA_RESP_ERR__CRIT_SYS_RESOURCE, "Local: Critical system resource failure";
    Resolve = -193, RD_KAFKA_RESP_ERR__RESOLVE, "Local: Host resolution failure";
    MessageTimedOut = -192, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, "Local: Message timed out";
    PartitionEOF = -191, RD_KAFKA_RESP_ERR__PARTITION_EOF, "Broker: No more messages";
    UnknownPartition = -190, RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION, "Local: Unknown partition";
    FileSystem = -189, RD_KAFKA_RESP_ERR__FS, "Local: File or filesystem error";
    UnknownTopic = -188, RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC, "Local: Unknown topic";
    AllBrokersDown = -187, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, "Local: All broker connections are down";
    InvalidArgument = -186, RD_KAFKA_RESP_ERR__INVALID_ARG, "Local: Invalid argument or configuration";
    OperationTimedOut = -185, RD_KAFKA_RESP_ERR__TIMED_OUT, "Local: Timed out";
    QueueFull = -184, RD_KAFKA_RESP_ERR__QUEUE_FULL, "Local: Queue full";
    ISRInsufficient = -183, RD_KAFKA_RESP_ERR__ISR_INSUFF, "Local: ISR count insufficient";
    NodeUpdate = -182, RD_KAFKA_RESP_ERR__NODE_UPDATE, "Local: Broker node update";
    SSL = -181, RD_KAFKA_RESP_ERR__SSL, "Local: SSL error";
    WaitingForCoordinator = -180, RD_KAFKA_RESP_ERR__WAIT_COORD, "Local: Waiting for coordinator";
    UnknownGroup = -179, RD_KAFKA_RESP_ERR__UNKNOWN_GROUP, "Local: Unknown group";
    InProgress = -178, RD_KAFKA_RESP_ERR__IN_PROGRESS, "Local: Operation in progress";
    PreviousInProgress = -177, RD_KAFKA_RESP_ERR__PREV_IN_PROGRESS, "Local: Previous operation in progress";
    ExistingSubscription = -176, RD_KAFKA_RESP_ERR__EXISTING_SUBSCRIPTION, "Local: Existing subscription";
    AssignPartitions = -175, RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS, "Local: Assign partitions";
    RevokePartitions = -174, RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS, "Local: Revoke partitions";
    Conflict = -173, RD_KAFKA_RESP_ERR__CONFLICT, "Local: Conflicting use";
    State = -172, RD_KAFKA_RESP_ERR__STATE, "Local: Erroneous state";
    UnknownProtocol = -171, RD_KAFKA_RESP_ERR__UNKNOWN_PROTOCOL, "Local: Unknown protocol";
    NotImplemented = -170, RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED, "Local: Not implemented";
    Authentication = -169, RD_KAFKA_RESP_ERR__AUTHENTICATION, "Local: Authentication failure";
    NoOffset = -168, RD_KAFKA_RESP_ERR__NO_OFFSET, "Local: No offset stored";
    Outdated = -167, RD_KAFKA_RESP_ERR__OUTDATED, "Local: Outdated";
    TimedOutQueue = -166, RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE, "Local: Timed out in queue";
    UnsupportedFeature = -165, RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE,
        "Local: Required feature not supported by broker";
    WaitCache = -164, RD_KAFKA_RESP_ERR__WAIT_CACHE, "Local: Awaiting cache update";
    Interrupted = -163, RD_KAFKA_RESP_ERR__INTR, "Local: Operation interrupted";
    KeySerialization = -162, RD_KAFKA_RESP_ERR__KEY_SERIALIZATION, "Local: Key serialization error";
    ValueSerialization = -161, RD_KAFKA_RESP_ERR__VALUE_SERIALIZATION, "Local: Value serialization error";
    KeyDeserialization = -160, RD_KAFKA_RESP_ERR__KEY_DESERIALIZATION, "Local: Key deserialization error";
    ValueDeserialization = -159, RD_KAFKA_RESP_ERR__VALUE_DESERIALIZATION, "Local: Value deserialization error";
    Partial = -158, RD_KAFKA_RESP_ERR__PARTIAL, "Local: Partial response";
    ReadOnly = -157, RD_KAFKA_RESP_ERR__READ_ONLY, "Local: Read-only object";
    NoEnt = -156, RD_KAFKA_RESP_ERR__NOENT, "Local: No such entry";
    Underflow = -155, RD_KAFKA_RESP_ERR__UNDERFLOW, "Local: Read underflow";
    InvalidType = -154, RD_KAFKA_RESP_ERR__INVALID_TYPE, "Local: Invalid type";
    Retry = -153, RD_KAFKA_RESP_ERR__RETRY, "Local: Retry operation";
    PurgeQueue = -152, RD_KAFKA_RESP_ERR__PURGE_QUEUE, "Local: Purged in queue";
    PurgeInflight = -151, RD_KAFKA_RESP_ERR__PURGE_INFLIGHT, "Local: Purged in flight";
    Fatal = -150, RD_KAFKA_RESP_ERR__FATAL, "Local: Fatal error";
    Inconsistent = -149, RD_KAFKA_RESP_ERR__INCONSISTENT, "Local: Inconsistent state";
    GaplessGuarantee = -148, RD_KAFKA_RESP_ERR__GAPLESS_GUARANTEE,
        "Local: Gap-less ordering would not be guaranteed if proceeding";
    PollExceeded = -147, RD_KAFKA_RESP_ERR__MAX_POLL_EXCEEDED,
        "Local: Maximum application poll interval (max.poll.interval.ms) exceeded";
    UnknownBroker = -146, RD_KAFKA_RESP_ERR__UNKNOWN_BROKER, "Local: Unknown broker";
    NotConfigured = -145, RD_KAFKA_RESP_ERR__NOT_CONFIGURED, "Local: Functionality not configured";
    Fenced = -144, RD_KAFKA_RESP_ERR__FENCED, "Local: This instance has been fenced by a newer instance";
    Application = -143, RD_KAFKA_RESP_ERR__APPLICATION, "Local: Application generated error";
    AssignmentLost = -142, RD_KAFKA_RESP_ERR__ASSIGNMENT_LOST, "Local: Group partition assignment lost";
    Noop = -141, RD_KAFKA_RESP_ERR__NOOP, "Local: No operation performed";
    AutoOffsetReset = -140, RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET, "Local: No offset to automatically reset to";
    LogTruncation = -139, RD_KAFKA_RESP_ERR__LOG_TRUNCATION, "Local: Partition log truncation detected";
    InvalidDifferentRecord = -138, RD_KAFKA_RESP_ERR__INVALID_DIFFERENT_RECORD,
        "Local: an invalid record in the same batch caused the failure of this message too";
    DestroyBroker = -137, RD_KAFKA_RESP_ERR__DESTROY_BROKER, "Local: Broker handle destroyed without termination";
    #[doc(hidden)] End = -100, RD_KAFKA_RESP_ERR__END;
    Unknown = -1, RD_KAFKA_RESP_ERR_UNKNOWN, "Unknown broker error";
    NoError = 0, RD_KAFKA_RESP_ERR_NO_ERROR, "Success";
    OffsetOutOfRange = 1, RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE, "Broker: Offset out of range";
    InvalidMessage = 2, RD_KAFKA_RESP_ERR_INVALID_MSG, "Broker: Invalid message";
    UnknownTopicOrPartition = 3, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, "Broker: Unknown topic or partition";
    InvalidMessageSize = 4, RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE, "Broker: Invalid message size";
    LeaderNotAvailable = 5, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, "Broker: Leader not available";
    NotLeaderForPartition = 6, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, "Broker: Not leader for partition";
    RequestTimedOut = 7, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, "Broker: Request timed out";
    BrokerNotAvailable = 8, RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE, "Broker: Broker not available";
    ReplicaNotAvailable = 9, RD_KAFKA_RESP_ERR_REPLICA_NOT_AVAILABLE, "Broker: Replica not available";
    MessageSizeTooLarge = 10, RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, "Broker: Message size too large";
    StaleControllerEpoch = 11, RD_KAFKA_RESP_ERR_STALE_CTRL_EPOCH, "Broker: StaleControllerEpochCode";
    OffsetMetadataTooLarge = 12, RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE,
        "Broker: Offset metadata string too large";
    NetworkException = 13, RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION, "Broker: Broker disconnected before response received";
    CoordinatorLoadInProgress = 14, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS,
        "Broker: Coordinator load in progress";
    CoordinatorNotAvailable = 15, RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE, "Broker: Coordinator not available";
    NotCoordinator = 16, RD_KAFKA_RESP_ERR_NOT_COORDINATOR, "Broker: Not coordinator";
    InvalidTopic = 17, RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION, "Broker: Invalid topic";
    MessageBatchTooLarge = 18, RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE,
        "Broker: Message batch larger than configured server segment size";
    NotEnoughReplicas = 19, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS, "Broker: Not enough in-sync replicas";
    NotEnoughReplicasAfterAppend = 20, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        "Broker: Message(s) written to insufficient number of in-sync replicas";
    InvalidRequiredAcks = 21, RD_KAFKA_RESP_ERR_INVALID_REQUIRED_ACKS, "Broker: Invalid required acks value";
    IllegalGeneration = 22, RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION, "Broker: Specified group generation id is not valid";
    InconsistentGroupProtocol = 23, RD_KAFKA_RESP_ERR_INCONSISTENT_GROUP_PROTOCOL,
        "Broker: Inconsistent group protocol";
    InvalidGroupId = 24, RD_KAFKA_RESP_ERR_INVALID_GROUP_ID, "Broker: Invalid group.id";
    UnknownMemberId = 25, RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID, "Broker: Unknown member";
    InvalidSessionTimeout = 26, RD_KAFKA_RESP_ERR_INVALID_SESSION_TIMEOUT, "Broker: Invalid session timeout";
    RebalanceInProgress = 27, RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS, "Broker: Group rebalance in progress";
    InvalidCommitOffsetSize = 28, RD_KAFKA_RESP_ERR_INVALID_COMMIT_OFFSET_SIZE,
        "Broker: Commit offset data size is not valid";
    TopicAuthorizationFailed = 29, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, "Broker: Topic authorization failed";
    GroupAuthorizationFailed = 30, RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED, "Broker: Group authorization failed";
    ClusterAuthorizationFailed = 31, RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED,
        "Broker: Cluster authorization failed";
    InvalidTimestamp = 32, RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP, "Broker: Invalid timestamp";
    UnsupportedSASLMechanism = 33, RD_KAFKA_RESP_ERR_UNSUPPORTED_SASL_MECHANISM, "Broker: Unsupported SASL mechanism";
    IllegalSASLState = 34, RD_KAFKA_RESP_ERR_ILLEGAL_SASL_STATE, "Broker: Request not valid in current SASL state";
    UnsupportedVersion = 35, RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION, "Broker: API version not supported";
    TopicAlreadyExists = 36, RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS, "Broker: Topic already exists";
    InvalidPartitions = 37, RD_KAFKA_RESP_ERR_INVALID_PARTITIONS, "Broker: Invalid number of partitions";
    InvalidReplicationFactor = 38, RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR, "Broker: Invalid replication factor";
    InvalidReplicaAssignment = 39, RD_KAFKA_RESP_ERR_INVALID_REPLICA_ASSIGNMENT, "Broker: Invalid replica assignment";
    InvalidConfig = 40, RD_KAFKA_RESP_ERR_INVALID_CONFIG, "Broker: Configuration is invalid";
    NotController = 41, RD_KAFKA_RESP_ERR_NOT_CONTROLLER, "Broker: Not controller for cluster";
    InvalidRequest = 42, RD_KAFKA_RESP_ERR_INVALID_REQUEST, "Broker: Invalid request";
    UnsupportedForMessageFormat = 43, RD_KAFKA_RESP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT,
        "Broker: Message format on broker does not support request";
    PolicyViolation = 44, RD_KAFKA_RESP_ERR_POLICY_VIOLATION, "Broker: Policy violation";
    OutOfOrderSequenceNumber = 45, RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER,
        "Broker: Broker received an out of order sequence number";
    DuplicateSequenceNumber = 46, RD_KAFKA_RESP_ERR_DUPLICATE_SEQUENCE_NUMBER,
        "Broker: Broker received a duplicate sequence number";
    InvalidProducerEpoch = 47, RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH,
        "Broker: Producer attempted an operation with an old epoch";
    InvalidTransactionalState = 48, RD_KAFKA_RESP_ERR_INVALID_TXN_STATE,
        "Broker: Producer attempted a transactional operation in an invalid state";
    InvalidProducerIdMapping = 49, RD_KAFKA_RESP_ERR_INVALID_PRODUCER_ID_MAPPING,
        "Broker: Producer attempted to use a producer id which is not currently assigned to its transactional id";
    InvalidTransactionTimeout = 50, RD_KAFKA_RESP_ERR_INVALID_TRANSACTION_TIMEOUT,
        "Broker: Transaction timeout is larger than the maximum value allowed by the broker's \
         max.transaction.timeout.ms";
    ConcurrentTransactions = 51, RD_KAFKA_RESP_ERR_CONCURRENT_TRANSACTIONS,
        "Broker: Producer attempted to update a transaction while another concurrent operation on the same transaction \
         was ongoing";
    TransactionCoordinatorFenced = 52, RD_KAFKA_RESP_ERR_TRANSACTION_COORDINATOR_FENCED,
        "Broker: Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current \
         coordinator for a given producer";
    TransactionalIdAuthorizationFailed = 53, RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
        "Broker: Transactional Id authorization failed";
    SecurityDisabled = 54, RD_KAFKA_RESP_ERR_SECURITY_DISABLED, "Broker: Security features are disabled";
    OperationNotAttempted = 55, RD_KAFKA_RESP_ERR_OPERATION_NOT_ATTEMPTED, "Broker: Operation not attempted";
    KafkaStorageError = 56, RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR,
        "Broker: Disk error when trying to access log file on disk";
    LogDirNotFound = 57, RD_KAFKA_RESP_ERR_LOG_DIR_NOT_FOUND,
        "Broker: The user-specified log directory is not found in the broker config";
    SaslAuthenticationFailed = 58, RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED, "Broker: SASL Authentication failed";
    UnknownProducerId = 59, RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID, "Broker: Unknown Producer Id";
    ReassignmentInProgress = 60, RD_KAFKA_RESP_ERR_REASSIGNMENT_IN_PROGRESS,
        "Broker: Partition reassignment is in progress";
    DelegationTokenAuthDisabled = 61, RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_AUTH_DISABLED,
        "Broker: Delegation Token feature is not enabled";
    DelegationTokenNotFound = 62, RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_NOT_FOUND,
        "Broker: Delegation Token is not found on server";
    DelegationTokenOwnerMismatch = 63, RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_OWNER_MISMATCH,
        "Broker: Specified Principal is not valid Owner/Renewer";
    DelegationTokenRequestNotAllowed = 64, RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_REQUEST_NOT_ALLOWED,
        "Broker: Delegation Token requests are not allowed on this connection";
    DelegationTokenAuthorizationFailed = 65, RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_AUTHORIZATION_FAILED,
        "Broker: Delegation Token authorization failed";
    DelegationTokenExpired = 66, RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_EXPIRED, "Broker: Delegation Token is expired";
    InvalidPrincipalType = 67, RD_KAFKA_RESP_ERR_INVALID_PRINCIPAL_TYPE,
        "Broker: Supplied principalType is not supported";
    NonEmptyGroup = 68, RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP, "Broker: The group is not empty";
    GroupIdNotFound = 69, RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND, "Broker: The group id does not exist";
    FetchSessionIdNotFound = 70, RD_KAFKA_RESP_ERR_FETCH_SESSION_ID_NOT_FOUND,
        "Broker: The fetch session ID was not found";
    InvalidFetchSessionEpoch = 71, RD_KAFKA_RESP_ERR_INVALID_FETCH_SESSION_EPOCH,
        "Broker: The fetch session epoch is invalid";
    ListenerNotFound = 72, RD_KAFKA_RESP_ERR_LISTENER_NOT_FOUND, "Broker: No matching listener";
    TopicDeletionDisabled = 73, RD_KAFKA_RESP_ERR_TOPIC_DELETION_DISABLED, "Broker: Topic deletion is disabled";
    FencedLeaderEpoch = 74, RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH, "Broker: Leader epoch is older than broker epoch";
    UnknownLeaderEpoch = 75, RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH, "Broker: Leader epoch is newer than broker epoch";
    UnsupportedCompressionType = 76, RD_KAFKA_RESP_ERR_UNSUPPORTED_COMPRESSION_TYPE,
        "Broker: Unsupported compression type";
    StaleBrokerEpoch = 77, RD_KAFKA_RESP_ERR_STALE_BROKER_EPOCH, "Broker: Broker epoch has changed";
    OffsetNotAvailable = 78, RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE, "Broker: Leader high watermark is not caught up";
    MemberIdRequired = 79, RD_KAFKA_RESP_ERR_MEMBER_ID_REQUIRED, "Broker: Group member needs a valid member ID";
    PreferredLeaderNotAvailable = 80, RD_KAFKA_RESP_ERR_PREFERRED_LEADER_NOT_AVAILABLE,
        "Broker: Preferred leader was not available";
    GroupMaxSizeReached = 81, RD_KAFKA_RESP_ERR_GROUP_MAX_SIZE_REACHED,
        "Broker: Consumer group has reached maximum size";
    FencedInstanceId = 82, RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID,
        "Broker: Static consumer fenced by other consumer with same group.instance.id";
    EligibleLeadersNotAvailable = 83, RD_KAFKA_RESP_ERR_ELIGIBLE_LEADERS_NOT_AVAILABLE,
        "Broker: Eligible partition leaders are not available";
    ElectionNotNeeded = 84, RD_KAFKA_RESP_ERR_ELECTION_NOT_NEEDED,
        "Broker: Leader election not needed for topic partition";
    NoReassignmentInProgress = 85, RD_KAFKA_RESP_ERR_NO_REASSIGNMENT_IN_PROGRESS,
        "Broker: No partition reassignment is in progress";
    GroupSubscribedToTopic = 86, RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC,
        "Broker: Deleting offsets of a topic while the consumer group is subscribed to it";
    InvalidRecord = 87, RD_KAFKA_RESP_ERR_INVALID_RECORD, "Broker: Broker failed to validate record";
    UnstableOffsetCommit = 88, RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT,
        "Broker: There are unstable offsets that need to be cleared";
    ThrottlingQuotaExceeded = 89, RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED,
        "Broker: Throttling quota has been exceeded";
    ProducerFenced = 90, RD_KAFKA_RESP_ERR_PRODUCER_FENCED,
        "Broker: There is a newer producer with the same transactionalId which fences the current one";
    ResourceNotFound = 91, RD_KAFKA_RESP_ERR_RESOURCE_NOT_FOUND,
        "Broker: Request illegally referred to resource that does not exist";
    DuplicateResource = 92, RD_KAFKA_RESP_ERR_DUPLICATE_RESOURCE,
        "Broker: Request illegally referred to the same resource twice";
    UnacceptableCredential = 93, RD_KAFKA_RESP_ERR_UNACCEPTABLE_CREDENTIAL,
        "Broker: Requested credential would not meet criteria for acceptability";
    InconsistentVoterSet = 94, RD_KAFKA_RESP_ERR_INCONSISTENT_VOTER_SET,
        "Broker: Indicates that the either the sender or recipient of a voter-only request is not one of the expected \
         voters";
    InvalidUpdateVersion = 95, RD_KAFKA_RESP_ERR_INVALID_UPDATE_VERSION, "Broker: Invalid update version";
    FeatureUpdateFailed = 96, RD_KAFKA_RESP_ERR_FEATURE_UPDATE_FAILED,
        "Broker: Unable to update finalized features due to server error";
    PrincipalDeserializationFailure = 97, RD_KAFKA_RESP_ERR_PRINCIPAL_DESERIALIZATION_FAILURE,
        "Broker: Request principal deserialization failed during forwarding";
    UnknownTopicId = 100, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_ID, "Broker: Unknown topic id";
    FencedMemberEpoch = 110, RD_KAFKA_RESP_ERR_FENCED_MEMBER_EPOCH,
        "Broker: The member epoch is fenced by the group coordinator";
    UnreleasedInstanceId = 111, RD_KAFKA_RESP_ERR_UNRELEASED_INSTANCE_ID,
        "Broker: The instance ID is still used by another member in the consumer group";
    UnsupportedAssignor = 112, RD_KAFKA_RESP_ERR_UNSUPPORTED_ASSIGNOR,
        "Broker: The assignor or its version range is not supported by the consumer group";
    StaleMemberEpoch = 113, RD_KAFKA_RESP_ERR_STALE_MEMBER_EPOCH, "Broker: The member epoch is stale";
    UnknownSubscriptionId = 117, RD_KAFKA_RESP_ERR_UNKNOWN_SUBSCRIPTION_ID,
        "Broker: Client sent a push telemetry request with an invalid or outdated subscription ID";
    TelemetryTooLarge = 118, RD_KAFKA_RESP_ERR_TELEMETRY_TOO_LARGE,
        "Broker: Client sent a push telemetry request larger than the maximum size the broker will accept";
    RebootstrapRequired = 129, RD_KAFKA_RESP_ERR_REBOOTSTRAP_REQUIRED,
        "Broker: Client metadata is stale, client should rebootstrap to obtain new metadata";
    #[doc(hidden)] EndAll = 130, RD_KAFKA_RESP_ERR_END_ALL;
}
