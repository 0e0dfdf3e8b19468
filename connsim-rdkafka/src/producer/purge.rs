//! What a purge takes back from a producer (`rdkafka::producer::PurgeConfig`): messages still
//! queued in the client, messages in flight to the broker, or both. Each purged message is
//! reported failed, `PurgeQueue` or `PurgeInflight`; an in-flight one may still have been
//! written by the broker, which the client will never learn.

/// Settings of [`Producer::purge`](super::Producer::purge); the default purges nothing.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
pub struct PurgeConfig {
    queue: bool,
    inflight: bool,
    non_blocking: bool,
}

impl PurgeConfig {
    /// Purge the messages queued in the client.
    pub fn queue(self) -> Self {
        Self { queue: true, ..self }
    }
    /// Purge the messages in flight to the broker (their outcome is never known).
    pub fn inflight(self) -> Self {
        Self { inflight: true, ..self }
    }
    /// Do not wait for the purge (nothing waits in the simulation).
    pub fn non_blocking(self) -> Self {
        Self { non_blocking: true, ..self }
    }
    /// Unsets [`PurgeConfig::queue`].
    pub fn no_queue(self) -> Self {
        Self { queue: false, ..self }
    }
    /// Unsets [`PurgeConfig::inflight`].
    pub fn no_inflight(self) -> Self {
        Self { inflight: false, ..self }
    }
    /// Unsets [`PurgeConfig::non_blocking`].
    pub fn blocking(self) -> Self {
        Self { non_blocking: false, ..self }
    }
    pub(crate) fn purges_queue(&self) -> bool {
        self.queue
    }
    pub(crate) fn purges_inflight(&self) -> bool {
        self.inflight
    }
}

impl std::fmt::Debug for PurgeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PurgeConfig")
            .field("queue", &self.queue)
            .field("inflight", &self.inflight)
            .field("non_blocking", &self.non_blocking)
            .finish()
    }
}
