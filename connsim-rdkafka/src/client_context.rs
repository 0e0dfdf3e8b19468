//! `rdkafka::client`: client contexts, the callbacks librdkafka makes into the application.

use crate::config::RDKafkaLogLevel;
use crate::error::KafkaError;

/// Callbacks every client makes (`rdkafka::client::ClientContext`). connsim's clients write
/// no log lines and report each error through the call that failed, so neither method is
/// called here; a context's own callbacks are (a producer's delivery reports).
pub trait ClientContext: Send + Sync + Sized {
    /// A log line of librdkafka (never called here).
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        let _ = (level, fac, log_message);
    }
    /// An error not tied to one call (never called here).
    fn error(&self, error: KafkaError, reason: &str) {
        let _ = (error, reason);
    }
}

/// The default client context (`rdkafka::client::DefaultClientContext`).
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultClientContext;

impl ClientContext for DefaultClientContext {}
