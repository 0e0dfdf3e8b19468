//! [`KafkaError`]: every error of rdkafka 0.39's clients, with rdkafka's texts.

use super::{RDKafkaConfRes, RDKafkaError, RDKafkaErrorCode};
use std::error::Error;
use std::ffi::NulError;
use std::fmt;

/// The client's errors (`rdkafka::error::KafkaError`), variant by variant rdkafka 0.39's.
/// Where one holds a code, [`KafkaError::rdkafka_error_code`] returns it, as rdkafka's does
/// (but for [`KafkaError::AdminOp`]'s, which rdkafka does not return either).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KafkaError {
    /// Creating an admin operation failed.
    AdminOpCreation(String),
    /// An admin operation failed.
    AdminOp(RDKafkaErrorCode),
    /// The client was dropped before the operation finished.
    Canceled,
    /// A configuration property is unknown or has an invalid value: the result, a
    /// description, the key and the value.
    ClientConfig(RDKafkaConfRes, String, String, String),
    /// The client could not be created.
    ClientCreation(String),
    /// A consumer's offset commit failed.
    ConsumerCommit(RDKafkaErrorCode),
    /// Closing a consumer's queue failed.
    ConsumerQueueClose(RDKafkaErrorCode),
    /// A flush did not finish.
    Flush(RDKafkaErrorCode),
    /// An error not tied to one operation.
    Global(RDKafkaErrorCode),
    /// Fetching the list of groups failed.
    GroupListFetch(RDKafkaErrorCode),
    /// Consuming a message failed.
    MessageConsumption(RDKafkaErrorCode),
    /// Consuming a message failed with a fatal error.
    MessageConsumptionFatal(RDKafkaErrorCode),
    /// Producing a message failed.
    MessageProduction(RDKafkaErrorCode),
    /// Fetching metadata or watermarks failed.
    MetadataFetch(RDKafkaErrorCode),
    /// No message arrived within the poll's interval.
    NoMessageReceived,
    /// A string handed to librdkafka held a NUL byte (std's own [`NulError`], as in rdkafka).
    Nul(NulError),
    /// Fetching offsets failed (also each failed entry of a returned partition list).
    OffsetFetch(RDKafkaErrorCode),
    /// The end of a partition was reached (`enable.partition.eof`): the partition.
    PartitionEOF(i32),
    /// Pausing or resuming failed.
    PauseResume(String),
    /// A rebalance failed.
    Rebalance(RDKafkaErrorCode),
    /// Seeking failed.
    Seek(String),
    /// Setting an offset in a partition list failed.
    SetPartitionOffset(RDKafkaErrorCode),
    /// Storing an offset for the next commit failed.
    StoreOffset(RDKafkaErrorCode),
    /// Subscribing failed.
    Subscription(String),
    /// A transactional call failed.
    Transaction(RDKafkaError),
    /// A mock cluster failed.
    MockCluster(RDKafkaErrorCode),
}

impl KafkaError {
    /// The librdkafka code underneath, if any. As in rdkafka, an [`KafkaError::AdminOp`]'s
    /// code is not returned, and a transactional error's is.
    pub fn rdkafka_error_code(&self) -> Option<RDKafkaErrorCode> {
        match self {
            KafkaError::Transaction(e) => Some(e.code()),
            KafkaError::AdminOp(_) => None,
            other => other.held_code().copied(),
        }
    }

    /// The code a variant holds.
    fn held_code(&self) -> Option<&RDKafkaErrorCode> {
        match self {
            KafkaError::AdminOp(c)
            | KafkaError::ConsumerCommit(c)
            | KafkaError::ConsumerQueueClose(c)
            | KafkaError::Flush(c)
            | KafkaError::Global(c)
            | KafkaError::GroupListFetch(c)
            | KafkaError::MessageConsumption(c)
            | KafkaError::MessageConsumptionFatal(c)
            | KafkaError::MessageProduction(c)
            | KafkaError::MetadataFetch(c)
            | KafkaError::OffsetFetch(c)
            | KafkaError::Rebalance(c)
            | KafkaError::SetPartitionOffset(c)
            | KafkaError::StoreOffset(c)
            | KafkaError::MockCluster(c) => Some(c),
            KafkaError::AdminOpCreation(_)
            | KafkaError::Canceled
            | KafkaError::ClientConfig(..)
            | KafkaError::ClientCreation(_)
            | KafkaError::NoMessageReceived
            | KafkaError::Nul(_)
            | KafkaError::PartitionEOF(_)
            | KafkaError::PauseResume(_)
            | KafkaError::Seek(_)
            | KafkaError::Subscription(_)
            | KafkaError::Transaction(_) => None,
        }
    }
}

impl fmt::Display for KafkaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KafkaError::AdminOp(c) => write!(f, "Admin operation error: {c}"),
            KafkaError::AdminOpCreation(e) => write!(f, "Admin operation creation error: {e}"),
            KafkaError::Canceled => f.write_str("KafkaError (Client dropped)"),
            KafkaError::ClientConfig(_, desc, key, value) => write!(f, "Client config error: {desc} {key} {value}"),
            KafkaError::ClientCreation(e) => write!(f, "Client creation error: {e}"),
            KafkaError::ConsumerCommit(c) => write!(f, "Consumer commit error: {c}"),
            KafkaError::ConsumerQueueClose(c) => write!(f, "Consumer queue close error: {c}"),
            KafkaError::Flush(c) => write!(f, "Flush error: {c}"),
            KafkaError::Global(c) => write!(f, "Global error: {c}"),
            KafkaError::GroupListFetch(c) => write!(f, "Group list fetch error: {c}"),
            KafkaError::MessageConsumption(c) => write!(f, "Message consumption error: {c}"),
            KafkaError::MessageConsumptionFatal(c) => write!(f, "(Fatal) Message consumption error: {c}"),
            KafkaError::MessageProduction(c) => write!(f, "Message production error: {c}"),
            KafkaError::MetadataFetch(c) => write!(f, "Meta data fetch error: {c}"),
            KafkaError::NoMessageReceived => f.write_str("No message received within the given poll interval"),
            KafkaError::Nul(_) => f.write_str("FFI nul error"),
            KafkaError::OffsetFetch(c) => write!(f, "Offset fetch error: {c}"),
            KafkaError::PartitionEOF(p) => write!(f, "Partition EOF: {p}"),
            KafkaError::PauseResume(e) => write!(f, "Pause/resume error: {e}"),
            KafkaError::Rebalance(c) => write!(f, "Rebalance error: {c}"),
            KafkaError::Seek(e) => write!(f, "Seek error: {e}"),
            KafkaError::SetPartitionOffset(c) => write!(f, "Set partition offset error: {c}"),
            KafkaError::StoreOffset(c) => write!(f, "Store offset error: {c}"),
            KafkaError::Subscription(e) => write!(f, "Subscription error: {e}"),
            KafkaError::Transaction(e) => write!(f, "Transaction error: {e}"),
            KafkaError::MockCluster(c) => write!(f, "Mock cluster error: {c}"),
        }
    }
}

impl fmt::Debug for KafkaError {
    /// rdkafka's: `KafkaError (` and the display text `)`, but for the few whose debug text
    /// rdkafka words differently.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KafkaError::Canceled | KafkaError::NoMessageReceived => write!(f, "{self}"),
            KafkaError::MessageConsumptionFatal(c) => {
                write!(f, "(Fatal) KafkaError (Message consumption error: {c})")
            }
            KafkaError::MetadataFetch(c) => write!(f, "KafkaError (Metadata fetch error: {c})"),
            KafkaError::Nul(_) => f.write_str("FFI null error"),
            _ => write!(f, "KafkaError ({self})"),
        }
    }
}

impl Error for KafkaError {
    /// The code a variant holds, or its transactional error; as in rdkafka, none for an
    /// [`KafkaError::AdminOp`].
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            KafkaError::Transaction(e) => Some(e),
            KafkaError::AdminOp(_) => None,
            other => other.held_code().map(|c| c as &(dyn Error + 'static)),
        }
    }
}

impl From<NulError> for KafkaError {
    fn from(err: NulError) -> KafkaError {
        KafkaError::Nul(err)
    }
}
