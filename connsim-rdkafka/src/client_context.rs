//! `rdkafka::client`: client contexts, the callbacks librdkafka makes into the application.

use crate::config::RDKafkaLogLevel;
use crate::error::KafkaError;
use crate::statistics::Statistics;

/// Callbacks every client makes (`rdkafka::client::ClientContext`). connsim's clients write
/// no log lines and report each error through the call that failed, so `log` and `error` are
/// never called here; `stats_raw` is (with `statistics.interval.ms`), and a context's own
/// callbacks are (a producer's delivery reports).
pub trait ClientContext: Send + Sync + Sized {
    /// A log line of librdkafka (never called here).
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        let _ = (level, fac, log_message);
    }
    /// The client's statistics, parsed, every `statistics.interval.ms`. The default does
    /// nothing (rdkafka's logs them; connsim writes no logs).
    fn stats(&self, statistics: Statistics) {
        let _ = statistics;
    }
    /// The client's statistics as librdkafka's JSON, every `statistics.interval.ms`. The
    /// default parses them and calls [`ClientContext::stats`], as rdkafka's does; JSON that
    /// does not parse is dropped (rdkafka's logs an error).
    fn stats_raw(&self, statistics: &[u8]) {
        if let Ok(stats) = serde_json::from_slice(statistics) {
            self.stats(stats);
        }
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
