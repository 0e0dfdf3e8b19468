//! External-system models: pure in-memory systems whose durable state lives outside the
//! simulated nodes, served over the gateway so that faults apply to connector traffic too.
//!
//! A model is hosted on its own node (named after the system). Crashing that node loses
//! only what the model says is volatile ([`ExternalSystem::crash`]); its durable data
//! survives, as on disk. Each model has an [`OutputReader`] with the semantics of its real
//! downstream reader; the harness reads it after every request the model serves
//! ([`serve_requests`]), so a model never announces what became visible.

mod collector;
mod fs;
mod kv;
mod log;
mod log_client;
mod output;
mod table;

pub use collector::{Collector, CollectorClient};
pub use fs::{FileSystem, FsClient, FsError, FsRequest, FsResponse};
pub use kv::{KvClient, KvRequest, KvResponse, KvStore};
pub use log::{LogError, LogRequest, LogResponse, PartitionedLog, TxnHandle};
pub use log_client::LogClient;
pub use output::{read_all, Entry, OutputReader, Part};
pub use table::{SnapshotTable, TableClient, TableRequest, TableResponse};

use crate::net::Inbox;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::future::Future;
use std::pin::Pin;

/// A future the harness can spawn on a node.
pub type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A model of an external system that a connector reads from or writes to.
pub trait ExternalSystem: Send + Sync + 'static {
    /// The system's node and gateway name.
    fn name(&self) -> String;
    /// Serves requests from `inbox` until the node is crashed.
    fn serve(&self, inbox: Inbox) -> BoxFuture;
    /// The node crashed: drop whatever the system does not keep durably. Default: nothing is lost.
    fn crash(&self) {}
    /// Changes a server-side setting while the run goes on. Default: the system has none, and
    /// says so.
    fn configure(&self, setting: &Setting) -> Result<(), String> {
        Err(format!("{} has no setting {setting:?}", self.name()))
    }
}

/// A server-side setting of an external system, changed by a scenario
/// ([`Control::configure`](crate::run::Control::configure)).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Setting {
    /// Kafka's `transaction.timeout.ms`: the log aborts (and fences) a transaction that has
    /// been open longer, counted from its first write; `None`: no timeout (the default).
    TransactionTimeoutMs(Option<u64>),
}

/// The serve loop of a model: answers every request in `inbox` with `handle`. Undecodable
/// requests get no answer (the caller times out), as a real server would drop a garbled
/// frame. The harness reads the run's output after each request `handle` returns from.
pub async fn serve_requests<Req, Resp>(mut inbox: Inbox, mut handle: impl FnMut(Req) -> Resp)
where
    Req: DeserializeOwned,
    Resp: Serialize,
{
    while let Some(msg) = inbox.recv().await {
        let Ok(req) = msg.decode::<Req>() else { continue };
        let resp = handle(req);
        if let Some(replier) = msg.replier {
            replier.reply(&resp);
        }
    }
}
