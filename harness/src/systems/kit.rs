//! The kit for a model of your own external system: name its requests once
//! ([`ModelRequest`]: the message kind fault rules match, the response type), serve them
//! with [`serve_model`], call them from a connector with a typed [`ModelClient`].
//!
//! ```
//! use connsim::systems::{ModelClient, ModelRequest};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize)]
//! enum KvRequest { Get(String), Put(String, u64) }
//!
//! impl ModelRequest for KvRequest {
//!     type Response = Option<u64>;
//!     fn kind(&self) -> &'static str {
//!         match self { KvRequest::Get(_) => "kv.get", KvRequest::Put(..) => "kv.put" }
//!     }
//! }
//!
//! // In the model: Box::pin(serve_model(inbox, move |_caller, req: KvRequest| state.handle(req)))
//! // In the connector: ModelClient::<KvRequest>::new(ctx.endpoint().clone(), "kv").call(&req).await
//! ```
//!
//! Records a model holds for a source to read are produced into the history with
//! [`crate::history::History::record_produced`]: `split` is the id the source's
//! [`crate::api::Split::id`] gives the split that holds the record, and `pos` the position a
//! reader of that split reads it at (an offset, a line number), counting from 0 in reading
//! order, so a declared start position means the same to the source and to the checks.

use super::Caller;
use crate::net::{Endpoint, Inbox, RpcError};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::marker::PhantomData;
use std::time::Duration;

/// A model's request type: what each request is called on the wire and what it answers.
pub trait ModelRequest: Serialize + DeserializeOwned + Send + 'static {
    /// The response.
    type Response: Serialize + DeserializeOwned + Send + 'static;
    /// The message kind (`"store.stage"`): fault rules, lost responses and the history name
    /// calls by it. A prefix names a family (`"store."`).
    fn kind(&self) -> &'static str;
}

/// A connector's client of the model on node `node`: one call per request, each with a
/// timeout (a lost request or response ends in [`RpcError::Timeout`]; the request may still
/// have taken effect).
pub struct ModelClient<R> {
    endpoint: Endpoint,
    node: String,
    timeout: Duration,
    request: PhantomData<fn() -> R>,
}

impl<R> Clone for ModelClient<R> {
    fn clone(&self) -> Self {
        Self { endpoint: self.endpoint.clone(), node: self.node.clone(), timeout: self.timeout, request: PhantomData }
    }
}

impl<R: ModelRequest> ModelClient<R> {
    /// A client of the model on `node`, with a 50 ms call timeout.
    pub fn new(endpoint: Endpoint, node: &str) -> Self {
        Self { endpoint, node: node.to_string(), timeout: Duration::from_millis(50), request: PhantomData }
    }

    /// The same client with another call timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The model's node.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// Sends `req` and waits for its response.
    pub async fn call(&self, req: &R) -> Result<R::Response, RpcError> {
        self.endpoint.call(&self.node, req.kind(), req, self.timeout).await
    }
}

/// The serve loop of a model with a typed request: answers every request in `inbox` with
/// `handle` (told who called). Undecodable requests get no answer, as a real server drops a
/// garbled frame; the harness reads the run's output after every request served.
pub async fn serve_model<R: ModelRequest>(inbox: Inbox, mut handle: impl FnMut(&Caller, R) -> R::Response) {
    super::serve_calls(inbox, move |caller, req: R| Some(handle(caller, req))).await
}
