//! How the store retries: object_store's `RetryConfig` and `BackoffConfig`, with the same
//! field names, and defaults scaled from a real network's seconds to the simulated
//! network's milliseconds.

use std::time::Duration;

/// Exponential backoff between retries (object_store's `BackoffConfig`, without jitter: the
/// simulation's timing is the run's seed's already).
#[derive(Clone, Debug, PartialEq)]
pub struct BackoffConfig {
    /// The first wait (object_store: 100 ms; here 10 ms).
    pub init_backoff: Duration,
    /// The longest wait (object_store: 15 s; here 500 ms).
    pub max_backoff: Duration,
    /// Each wait is the last one times this (object_store: 2).
    pub base: f64,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        Self { init_backoff: Duration::from_millis(10), max_backoff: Duration::from_millis(500), base: 2.0 }
    }
}

/// When a request is retried, and for how long (object_store's `RetryConfig`, with the
/// request timeout of its `ClientOptions`).
#[derive(Clone, Debug, PartialEq)]
pub struct RetryConfig {
    /// The waits between retries.
    pub backoff: BackoffConfig,
    /// At most this many retries (object_store: 10).
    pub max_retries: usize,
    /// No retry once this long has passed since the first attempt (object_store: 3 min;
    /// here 3 s).
    pub retry_timeout: Duration,
    /// How long one attempt waits for its answer (object_store's `ClientOptions` timeout,
    /// 30 s; here 100 ms).
    pub request_timeout: Duration,
}

impl Default for RetryConfig {
    fn default() -> Self {
        Self {
            backoff: BackoffConfig::default(),
            max_retries: 10,
            retry_timeout: Duration::from_secs(3),
            request_timeout: Duration::from_millis(100),
        }
    }
}
