//! [`RDKafkaError`]: librdkafka's `rd_kafka_error_t`, the error of the transactional API.

use super::codes::{err2name, err2str};
use super::RDKafkaErrorCode;
use std::fmt;
use std::sync::Arc;

/// The error of the transactional API (`rdkafka::error::RDKafkaError`): a code, a message,
/// whether the producer is finished (fatal), whether the call may be retried, and whether the
/// transaction must be aborted before the producer goes on.
///
/// rdkafka's wraps a shared pointer to librdkafka's `rd_kafka_error_t`, which may be null (no
/// error); a simulated one holds the same fields behind an [`Arc`] and is never null, as
/// rdkafka never hands out a null one.
#[derive(Clone)]
pub struct RDKafkaError(Arc<Inner>);

#[derive(Clone)]
struct Inner {
    code: RDKafkaErrorCode,
    /// librdkafka's `errstr`; empty for none.
    message: String,
    fatal: bool,
    retriable: bool,
    txn_requires_abort: bool,
}

impl RDKafkaError {
    /// An error with a code and a message (`rd_kafka_error_new`); an empty message stands for
    /// none, and the code's description is shown instead.
    pub(crate) fn new(code: RDKafkaErrorCode, message: impl Into<String>) -> Self {
        let message = message.into();
        RDKafkaError(Arc::new(Inner { code, message, fatal: false, retriable: false, txn_requires_abort: false }))
    }
    /// Marks it fatal (`rd_kafka_error_set_fatal`).
    pub(crate) fn fatal(mut self) -> Self {
        Arc::make_mut(&mut self.0).fatal = true;
        self
    }
    /// Marks it retriable (`rd_kafka_error_set_retriable`).
    pub(crate) fn retriable(mut self) -> Self {
        Arc::make_mut(&mut self.0).retriable = true;
        self
    }
    /// Marks it as requiring an abort (`rd_kafka_error_set_txn_requires_abort`).
    pub(crate) fn abortable(mut self) -> Self {
        Arc::make_mut(&mut self.0).txn_requires_abort = true;
        self
    }

    /// The error code.
    pub fn code(&self) -> RDKafkaErrorCode {
        self.0.code
    }

    /// The code's name as librdkafka spells it (`rd_kafka_error_name`): `_STATE`,
    /// `PRODUCER_FENCED`.
    pub fn name(&self) -> String {
        err2name(self.0.code as i32).into_owned()
    }

    /// The message (`rd_kafka_error_string`): the one the error was made with, or else the
    /// code's description.
    pub fn string(&self) -> String {
        match self.0.message.as_str() {
            "" => err2str(self.0.code as i32).into_owned(),
            message => message.to_owned(),
        }
    }

    /// The client cannot go on (fenced, or a broken idempotence guarantee): drop it.
    pub fn is_fatal(&self) -> bool {
        self.0.fatal
    }

    /// The same call may succeed if retried.
    pub fn is_retriable(&self) -> bool {
        self.0.retriable
    }

    /// The transaction cannot commit: abort it, then go on.
    pub fn txn_requires_abort(&self) -> bool {
        self.0.txn_requires_abort
    }
}

impl PartialEq for RDKafkaError {
    /// Errors are equal when their codes are, as in rdkafka.
    fn eq(&self, other: &RDKafkaError) -> bool {
        self.code() == other.code()
    }
}

impl Eq for RDKafkaError {}

impl fmt::Debug for RDKafkaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RDKafkaError({self})")
    }
}

impl fmt::Display for RDKafkaError {
    /// The message ([`RDKafkaError::string`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.string())
    }
}

impl std::error::Error for RDKafkaError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rd_kafka_error_string` falls back to `rd_kafka_err2str` for an error made without a
    /// message; `rd_kafka_error_name` is `rd_kafka_err2name`.
    #[test]
    fn librdkafka_an_error_without_a_message_shows_its_codes_description() {
        let e = RDKafkaError::new(RDKafkaErrorCode::State, "");
        assert_eq!(e.string(), "Local: Erroneous state");
        assert_eq!(format!("{e:?}"), "RDKafkaError(Local: Erroneous state)");
        assert_eq!(e.name(), "_STATE");
        let e = RDKafkaError::new(RDKafkaErrorCode::ProducerFenced, "fenced by epoch 3").fatal();
        assert_eq!(
            (e.to_string(), e.name(), e.is_fatal()),
            ("fenced by epoch 3".into(), "PRODUCER_FENCED".into(), true)
        );
        assert_eq!(e, RDKafkaError::new(RDKafkaErrorCode::ProducerFenced, "another message"));
    }
}
