//! The staging store's model. Its durable state lives outside the node (in an `Arc`), so a
//! crash of its node loses nothing but requests in flight; it is served over the gateway, so
//! network faults reach the connector's calls to it.

use connsim::net::Inbox;
use connsim::record::Seen;
use connsim::systems::{serve_model, BoxFuture, Entry, ExternalSystem, ModelRequest, OutputReader, Part};
use connsim::Record;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// A request to the store.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum StoreRequest {
    /// Adds records to a transaction (created on first use); a transaction that was
    /// committed takes no more.
    Stage {
        /// Transaction name.
        txn: String,
        /// Records to add.
        records: Vec<Record>,
    },
    /// Makes a transaction visible.
    Commit {
        /// Transaction name.
        txn: String,
    },
}

impl ModelRequest for StoreRequest {
    type Response = StoreResponse;
    fn kind(&self) -> &'static str {
        match self {
            StoreRequest::Stage { .. } => "store.stage",
            StoreRequest::Commit { .. } => "store.commit",
        }
    }
}

/// The store's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum StoreResponse {
    /// Done.
    Ok,
    /// The transaction was committed before; nothing changed.
    AlreadyCommitted,
    /// No such transaction.
    Unknown,
}

#[derive(Default)]
struct State {
    staged: BTreeMap<String, Vec<Seen>>,
    committed: BTreeMap<String, usize>,
    visible: Vec<Seen>,
}

/// The store.
#[derive(Clone)]
pub struct Store {
    name: String,
    state: Arc<Mutex<State>>,
}

impl Store {
    /// An empty store on node `name`.
    pub fn new(name: &str) -> Self {
        Self { name: name.to_string(), state: Arc::default() }
    }

    fn handle(&self, req: StoreRequest) -> StoreResponse {
        let mut s = self.state.lock().unwrap();
        match req {
            StoreRequest::Stage { txn, .. } if s.committed.contains_key(&txn) => StoreResponse::AlreadyCommitted,
            StoreRequest::Stage { txn, records } => {
                s.staged.entry(txn).or_default().extend(records.iter().map(Seen::of));
                StoreResponse::Ok
            }
            StoreRequest::Commit { txn } if s.committed.contains_key(&txn) => StoreResponse::AlreadyCommitted,
            StoreRequest::Commit { txn } => {
                let Some(records) = s.staged.remove(&txn) else { return StoreResponse::Unknown };
                let at = s.visible.len();
                s.visible.extend(records);
                s.committed.insert(txn, at);
                StoreResponse::Ok
            }
        }
    }

    /// What a downstream reader sees: every committed transaction's records, in commit
    /// order. The harness reads it after every request the store serves.
    pub fn output(&self) -> Arc<dyn OutputReader> {
        Arc::new(self.clone())
    }
}

impl ExternalSystem for Store {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn serve(&self, inbox: Inbox) -> BoxFuture {
        let store = self.clone();
        Box::pin(serve_model(inbox, move |_caller, req| store.handle(req)))
    }
}

impl OutputReader for Store {
    fn location(&self) -> String {
        self.name.clone()
    }
    /// Only commits change what a reader sees, and they only append.
    fn parts(&self) -> Vec<Part> {
        vec![Part { name: "committed".into(), version: 0, end: self.state.lock().unwrap().visible.len() as u64 }]
    }
    fn read(&self, _part: &str, from: u64) -> Vec<Entry> {
        let s = self.state.lock().unwrap();
        s.visible.iter().skip(from as usize).map(|seen| Entry::Record(*seen)).collect()
    }
}
