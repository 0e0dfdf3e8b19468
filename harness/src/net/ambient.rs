//! The endpoint of the connector code running now, for clients built without one in hand.
//!
//! A client library with its own constructors (an `rdkafka` `ClientConfig::create()`) cannot
//! be handed the context's [`Endpoint`]. The harness runs every piece of connector code (a
//! subtask's reader, writer and committer, the enumerator and its calls, the global
//! committer) inside a scope that names the endpoint it sends from, so such a client finds it
//! with [`current`] and its traffic goes through the gateway like any other, attributed to
//! the right subtask attempt. Tasks the connector spawns itself are outside the scope: build
//! clients in connector code, not in a task of your own.

use super::Endpoint;
use std::future::Future;

tokio::task_local! {
    static AMBIENT: Endpoint;
}

/// The endpoint of the connector code this task runs, if it runs any.
pub fn current() -> Option<Endpoint> {
    AMBIENT.try_with(Endpoint::clone).ok()
}

/// Runs `f` as connector code that sends from `endpoint` (the harness does this for every
/// piece of connector code; a unit test of a client does it by hand).
pub async fn scope<F: Future>(endpoint: Endpoint, f: F) -> F::Output {
    AMBIENT.scope(endpoint, f).await
}
