//! Requests to the bucket over connsim's gateway, retried as object_store's S3 client
//! retries them, and S3's answers turned into `object_store::Error` as its S3 client turns
//! HTTP responses into errors.
//!
//! The retry rules are object_store's (`client/retry.rs`):
//! - an answer `5xx`, `429` or `408` is retried whatever the request (the request may have
//!   been applied: a retried conditional write can then find its own write and fail);
//! - no answer at all (a timeout) is retried only for a request object_store marks
//!   idempotent: unconditional puts, reads, copies, and every multipart request; a
//!   conditional put and a delete are not retried, and their caller gets the timeout;
//! - a request never delivered (the connection refused) is retried;
//! - retrying stops after `max_retries` retries or `retry_timeout`, whichever comes first.

use crate::config::RetryConfig;
use connsim::net::{Endpoint, RpcError};
use connsim::systems::{ModelRequest, S3Error, S3Request, S3Response};
use object_store::Error;
use std::time::Duration;

/// The store name object_store's errors carry.
pub(crate) const STORE: &str = "S3";

/// Why a request failed, before it becomes an `object_store::Error`.
#[derive(Debug)]
pub(crate) enum Failure {
    /// S3 answered with an error.
    Status(S3Error, usize),
    /// No answer (or none that decoded): the request may have been applied.
    Transport(RpcError, usize),
    /// No connsim node runs the calling code.
    NoNode,
}

/// The error object_store's errors carry as their source.
#[derive(Debug)]
pub struct S3RequestError {
    message: String,
    status: Option<u16>,
}

impl S3RequestError {
    /// The HTTP status S3 answered with; `None`: no answer came.
    pub fn status(&self) -> Option<u16> {
        self.status
    }
}

impl std::fmt::Display for S3RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for S3RequestError {}

impl Failure {
    /// The HTTP status, if S3 answered.
    pub(crate) fn status(&self) -> Option<u16> {
        match self {
            Failure::Status(e, _) => Some(e.status),
            _ => None,
        }
    }

    fn source(&self) -> Box<S3RequestError> {
        let message = match self {
            Failure::Status(e, retries) => format!("{e} (after {retries} retries)"),
            Failure::Transport(e, retries) => format!("no answer: {e:?} (after {retries} retries)"),
            Failure::NoNode => "no connsim node runs this code: call the store from connector code (a reader, \
                                writer, committer, enumerator or global committer), not from a task of your \
                                own or outside the simulation"
                .into(),
        };
        Box::new(S3RequestError { message, status: self.status() })
    }

    /// The error object_store's S3 client returns for this failure at `path`: by status
    /// (`404` not found, `304` not modified, `412` precondition, `409` already exists), else
    /// generic.
    pub(crate) fn into_error(self, path: &str) -> Error {
        let path = path.to_string();
        let source = self.source();
        match self.status() {
            Some(404) => Error::NotFound { path, source },
            Some(304) => Error::NotModified { path, source },
            Some(412) => Error::Precondition { path, source },
            Some(409) => Error::AlreadyExists { path, source },
            _ => Error::Generic { store: STORE, source },
        }
    }
}

/// The endpoint of the connector code running now.
pub(crate) fn endpoint() -> Result<Endpoint, Failure> {
    connsim::net::ambient::current().ok_or(Failure::NoNode)
}

/// A connection to the bucket on `node`.
#[derive(Clone, Debug)]
pub(crate) struct Wire {
    pub(crate) node: String,
    pub(crate) retry: RetryConfig,
}

fn retried_status(status: u16) -> bool {
    status >= 500 || status == 429 || status == 408
}

impl Wire {
    /// Sends `req` from `endpoint`, retrying as object_store does; `idempotent`: a timeout
    /// is retried too.
    pub(crate) async fn call(
        &self,
        endpoint: &Endpoint,
        req: &S3Request,
        idempotent: bool,
    ) -> Result<S3Response, Failure> {
        let start = madsim::time::Instant::now();
        let mut retries = 0;
        let mut backoff = self.retry.backoff.init_backoff;
        loop {
            let answer = endpoint.call(&self.node, req.kind(), req, self.retry.request_timeout).await;
            let exhausted = retries >= self.retry.max_retries || start.elapsed() > self.retry.retry_timeout;
            let retry = match answer {
                Ok(S3Response::Error(e)) if !exhausted && retried_status(e.status) => true,
                Ok(S3Response::Error(e)) => return Err(Failure::Status(e, retries)),
                Ok(ok) => return Ok(ok),
                // An error reply from the gateway: the request was not applied.
                Err(RpcError::Refused { .. }) if !exhausted => true,
                Err(RpcError::Timeout { .. }) if !exhausted && idempotent => true,
                Err(e) => return Err(Failure::Transport(e, retries)),
            };
            debug_assert!(retry);
            madsim::time::sleep(backoff).await;
            retries += 1;
            backoff = next_backoff(backoff, &self.retry);
        }
    }
}

fn next_backoff(now: Duration, retry: &RetryConfig) -> Duration {
    now.mul_f64(retry.backoff.base).min(retry.backoff.max_backoff)
}
