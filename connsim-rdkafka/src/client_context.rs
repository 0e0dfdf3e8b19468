//! `rdkafka::client`: the default client context.

/// The default client context (`rdkafka::client::DefaultClientContext`).
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultClientContext;
