//! Connector errors. A failed invariant is a verdict in the report, never an error.

use std::fmt;

/// Whether retrying the failed operation may succeed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryHint {
    /// A transient failure (a timeout, a lost response): retry the operation.
    Retry,
    /// Retrying will not help: fail the task and recover from the last checkpoint.
    FailTask,
    /// The job cannot continue (e.g. a commit failed for an unknown reason).
    FailJob,
}

/// An error raised by connector code, with a hint for the runtime.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectorError {
    /// What the runtime should do about it.
    pub hint: RetryHint,
    /// Human-readable description.
    pub message: String,
}

impl ConnectorError {
    /// A transient error: the caller may retry.
    pub fn retry(message: impl Into<String>) -> Self {
        Self { hint: RetryHint::Retry, message: message.into() }
    }
    /// An error that fails the task; the runtime recovers from the last checkpoint.
    pub fn fail_task(message: impl Into<String>) -> Self {
        Self { hint: RetryHint::FailTask, message: message.into() }
    }
    /// An error that fails the whole job.
    pub fn fail_job(message: impl Into<String>) -> Self {
        Self { hint: RetryHint::FailJob, message: message.into() }
    }
}

impl fmt::Display for ConnectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({:?})", self.message, self.hint)
    }
}

impl std::error::Error for ConnectorError {}

#[cfg(madsim)]
impl From<crate::net::RpcError> for ConnectorError {
    fn from(e: crate::net::RpcError) -> Self {
        ConnectorError::retry(e.to_string())
    }
}
