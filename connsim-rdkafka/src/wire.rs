//! The wire to the simulated broker: every request goes through connsim's gateway (so RPC
//! faults, crashes and partitions apply), from the endpoint of the connector code that built
//! the client.

use crate::config::Settings;
use crate::error::{KafkaError, KafkaResult};
use connsim::net::{Endpoint, RpcError};
use connsim::systems::{KafkaRequest, KafkaResponse};
use std::time::Duration;

/// A client's connection to the log node.
#[derive(Clone)]
pub(crate) struct Wire {
    endpoint: Endpoint,
    broker: String,
    request_timeout: Duration,
}

/// Waits between retries of a request that got no answer (librdkafka's `retry.backoff.ms`,
/// scaled to the simulated network).
const BACKOFF: Duration = Duration::from_millis(5);

impl Wire {
    /// The wire of a client created now, by connector code.
    pub(crate) fn new(settings: &Settings) -> KafkaResult<Wire> {
        let Some(endpoint) = connsim::net::ambient::current() else {
            return Err(KafkaError::ClientCreation(
                "no connsim node runs this code: create Kafka clients inside connector code (a \
                 reader, writer, committer, enumerator or global committer), not in a task of \
                 your own or outside the simulation"
                    .into(),
            ));
        };
        Ok(Wire { endpoint, broker: settings.broker.clone(), request_timeout: settings.request_timeout })
    }

    /// One request, one answer or none (`RpcError::Timeout`: it may have taken effect).
    pub(crate) async fn call(&self, req: &KafkaRequest) -> Result<KafkaResponse, RpcError> {
        self.endpoint.call(&self.broker, req.kind(), req, self.request_timeout).await
    }

    /// One request with a timeout of its own (a `JoinGroup` waits for a whole rebalance).
    pub(crate) async fn call_for(&self, req: &KafkaRequest, timeout: Duration) -> Result<KafkaResponse, RpcError> {
        self.endpoint.call(&self.broker, req.kind(), req, timeout).await
    }

    /// One-way (`acks=0`).
    pub(crate) fn send(&self, req: &KafkaRequest) {
        self.endpoint.send(&self.broker, req.kind(), req)
    }

    /// Retries `req` until it is answered or `deadline` (virtual) passes; `None` if it never
    /// was.
    pub(crate) async fn call_until(
        &self,
        req: &KafkaRequest,
        deadline: Option<madsim::time::Instant>,
    ) -> Option<KafkaResponse> {
        loop {
            if let Ok(resp) = self.call(req).await {
                return Some(resp);
            }
            if deadline.is_some_and(|d| madsim::time::Instant::now() >= d) {
                return None;
            }
            madsim::time::sleep(BACKOFF).await;
        }
    }
}

/// The deadline `timeout` from now.
pub(crate) fn deadline(timeout: crate::util::Timeout) -> Option<madsim::time::Instant> {
    timeout.duration().map(|d| madsim::time::Instant::now() + d)
}
