//! A node's handle on the gateway: calls with timeouts, one-way sends, and its inbox.

use super::faults::Refusal;
use super::gateway::Gateway;
use super::mailbox::{Envelope, Mailbox, Tag};
use crate::history::{Cause, EventKind};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Why a call did not return a response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RpcError {
    /// No response within the timeout: the request may or may not have taken effect.
    Timeout {
        /// Callee.
        to: String,
        /// Message kind.
        kind: String,
    },
    /// The callee answered with an error without acting on the request (unavailable,
    /// throttled, disk full): retrying later may succeed.
    Refused {
        /// Callee.
        to: String,
        /// Message kind.
        kind: String,
        /// The error reply.
        refusal: Refusal,
    },
    /// The response did not decode as the expected type.
    Decode(String),
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RpcError::Timeout { to, kind } => write!(f, "call {kind} to {to} timed out"),
            RpcError::Refused { to, kind, refusal } => write!(f, "call {kind} to {to} refused: {refusal}"),
            RpcError::Decode(e) => write!(f, "response did not decode: {e}"),
        }
    }
}

impl std::error::Error for RpcError {}

/// What ends a pending call: the response's bytes, or an error reply.
type Answer = Result<Vec<u8>, Refusal>;

type Pending = Arc<Mutex<BTreeMap<u64, oneshot::Sender<Answer>>>>;

/// A bound address on the gateway. Cheap to clone; lives as long as its node incarnation.
#[derive(Clone)]
pub struct Endpoint {
    addr: String,
    gateway: Gateway,
    pending: Pending,
    /// The subtask attempt whose connector code sends through this endpoint, if any.
    origin: Option<(usize, u64)>,
}

/// Called with the message just handled when a system's inbox is asked for the next one.
pub(crate) type ObserveHook = Arc<dyn Fn(Cause) + Send + Sync>;

/// Requests and one-way messages addressed to an endpoint.
pub struct Inbox {
    rx: mpsc::UnboundedReceiver<Incoming>,
    /// For external systems: the harness reads the outputs after every handled message.
    pub(crate) observe: Option<ObserveHook>,
    /// The message received last, not yet observed.
    handled: Option<Cause>,
    addr: String,
}

/// One received request or one-way message.
pub struct Incoming {
    /// Sender.
    pub from: String,
    /// Message kind.
    pub kind: String,
    bytes: Vec<u8>,
    /// The call id, for requests.
    pub call: Option<u64>,
    /// Set for requests: answer through it.
    pub replier: Option<Replier>,
    /// The subtask attempt (subtask, attempt) whose connector code sent it, if any.
    pub sender: Option<(usize, u64)>,
}

/// Answers one request.
pub struct Replier {
    endpoint: Endpoint,
    to: String,
    kind: String,
    call: u64,
}

/// A message's bytes on the wire.
pub(crate) fn encode<T: Serialize>(msg: &T) -> Vec<u8> {
    bincode::serialize(msg).expect("gateway messages serialize")
}

impl Endpoint {
    pub(crate) fn start(addr: String, gateway: Gateway, mailbox: Arc<Mailbox>) -> (Endpoint, Inbox) {
        let (tx, rx) = mpsc::unbounded_channel();
        let endpoint = Endpoint { addr, gateway, pending: Pending::default(), origin: None };
        let dispatcher = endpoint.clone();
        madsim::task::spawn(async move {
            loop {
                let env = mailbox.pop().await;
                match env.tag {
                    Tag::Response(id) => {
                        if let Some(waiter) = dispatcher.pending.lock().unwrap().remove(&id) {
                            let _ = waiter.send(Ok(env.bytes));
                        }
                    }
                    Tag::Refused(id) => {
                        let waiter = dispatcher.pending.lock().unwrap().remove(&id);
                        if let (Some(waiter), Ok(refusal)) = (waiter, crate::bytes::decode::<Refusal>(&env.bytes)) {
                            let _ = waiter.send(Err(refusal));
                        }
                    }
                    Tag::Request(call) => {
                        if let (Some(origin), true) = (env.origin, env.stale) {
                            dispatcher.gateway.reached(origin, &dispatcher.addr, &env.kind, false);
                        }
                        let replier = Replier {
                            endpoint: dispatcher.clone(),
                            to: env.from.clone(),
                            kind: env.kind.clone(),
                            call,
                        };
                        let _ = tx.send(Incoming {
                            from: env.from,
                            kind: env.kind,
                            bytes: env.bytes,
                            call: Some(call),
                            replier: Some(replier),
                            sender: env.origin,
                        });
                    }
                    Tag::OneWay => {
                        if let (Some(origin), true) = (env.origin, env.stale) {
                            dispatcher.gateway.reached(origin, &dispatcher.addr, &env.kind, false);
                        }
                        let incoming = Incoming {
                            from: env.from,
                            kind: env.kind,
                            bytes: env.bytes,
                            call: None,
                            replier: None,
                            sender: env.origin,
                        };
                        let _ = tx.send(incoming);
                    }
                }
            }
        });
        let addr = endpoint.addr.clone();
        (endpoint, Inbox { rx, observe: None, handled: None, addr })
    }

    /// The same address, for the connector code of `subtask`'s attempt `attempt`: what it
    /// sends is known to come from that attempt, so a request an older, replaced attempt
    /// sends to an external system is recorded when it arrives
    /// ([`EventKind::ZombieRequest`](crate::history::EventKind::ZombieRequest)).
    pub(crate) fn for_attempt(&self, subtask: usize, attempt: u64) -> Endpoint {
        self.gateway.attempt_started(subtask, attempt);
        Endpoint { origin: Some((subtask, attempt)), ..self.clone() }
    }

    /// This endpoint's address.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Sends a one-way message; it may be lost.
    pub fn send<M: Serialize>(&self, to: &str, kind: &str, msg: &M) {
        self.gateway.route(Envelope {
            from: self.addr.clone(),
            to: to.to_string(),
            kind: kind.to_string(),
            tag: Tag::OneWay,
            bytes: encode(msg),
            origin: self.origin,
            stale: false,
        });
    }

    /// Calls `to` and waits at most `timeout` for its response.
    pub async fn call<Req: Serialize, Resp: DeserializeOwned>(
        &self,
        to: &str,
        kind: &str,
        req: &Req,
        timeout: Duration,
    ) -> Result<Resp, RpcError> {
        let id = self.gateway.next_call_id();
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        // Whatever ends the call without its response (the timeout, or the caller giving up
        // on the call, or a crash dropping it) is recorded: the request may have taken effect.
        let mut unanswered = Unanswered { endpoint: self, to, kind, id, answered: false };
        self.gateway.route(Envelope {
            from: self.addr.clone(),
            to: to.to_string(),
            kind: kind.to_string(),
            tag: Tag::Request(id),
            bytes: encode(req),
            origin: self.origin,
            stale: false,
        });
        let timed_out = || RpcError::Timeout { to: to.to_string(), kind: kind.to_string() };
        match madsim::time::timeout(timeout, rx).await {
            Ok(Ok(Ok(bytes))) => {
                unanswered.answered = true;
                crate::bytes::decode(&bytes).map_err(|e| RpcError::Decode(e.to_string()))
            }
            Ok(Ok(Err(refusal))) => {
                unanswered.answered = true;
                Err(RpcError::Refused { to: to.to_string(), kind: kind.to_string(), refusal })
            }
            Ok(Err(_)) | Err(_) => Err(timed_out()),
        }
    }
}

/// A call in flight; when it is dropped without its response, the call counts as timed out.
struct Unanswered<'a> {
    endpoint: &'a Endpoint,
    to: &'a str,
    kind: &'a str,
    id: u64,
    answered: bool,
}

impl Drop for Unanswered<'_> {
    fn drop(&mut self) {
        if self.answered {
            return;
        }
        self.endpoint.pending.lock().unwrap().remove(&self.id);
        let event = EventKind::CallTimedOut { to: self.to.to_string(), kind: self.kind.to_string(), call: self.id };
        self.endpoint.gateway.history().record(&self.endpoint.addr, event);
    }
}

impl Inbox {
    /// The next request or message; `None` once the endpoint is gone.
    pub async fn recv(&mut self) -> Option<Incoming> {
        self.observe_handled();
        let msg = self.rx.recv().await;
        self.note(msg.as_ref());
        msg
    }

    /// The next request or message if one is queued now.
    pub fn try_recv(&mut self) -> Option<Incoming> {
        self.observe_handled();
        let msg = self.rx.try_recv().ok();
        self.note(msg.as_ref());
        msg
    }

    /// The system changed by itself (a timer fired): let the harness read the outputs now,
    /// as after a message of kind `kind` the system sent itself.
    pub(crate) fn observe_internal(&mut self, kind: &str) {
        self.observe_handled();
        if self.observe.is_some() {
            let node = self.addr.clone();
            self.handled = Some(Cause::Request { node: node.clone(), from: node, kind: kind.into(), call: None });
            self.observe_handled();
        }
    }

    /// The previous message has been handled: let the harness read the outputs now.
    fn observe_handled(&mut self) {
        if let (Some(observe), Some(cause)) = (&self.observe, self.handled.take()) {
            observe(cause);
        }
    }

    fn note(&mut self, msg: Option<&Incoming>) {
        if self.observe.is_some() {
            self.handled = msg.map(|m| Cause::Request {
                node: self.addr.clone(),
                from: m.from.clone(),
                kind: m.kind.clone(),
                call: m.call,
            });
        }
    }
}

impl Incoming {
    /// Decodes the message body.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, RpcError> {
        crate::bytes::decode(&self.bytes).map_err(|e| RpcError::Decode(format!("{}: {e}", self.kind)))
    }
}

impl Replier {
    /// Sends the response; it may be lost.
    pub fn reply<T: Serialize>(self, resp: &T) {
        self.reply_encoded(encode(resp));
    }

    /// Sends a response serialized already (by a system that writes it while its state is
    /// locked, then lets go before it is routed); it may be lost.
    pub(crate) fn reply_encoded(self, bytes: Vec<u8>) {
        self.endpoint.gateway.route(Envelope {
            from: self.endpoint.addr.clone(),
            to: self.to,
            kind: self.kind,
            tag: Tag::Response(self.call),
            bytes,
            origin: None,
            stale: false,
        });
    }
}
