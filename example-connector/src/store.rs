//! The staging store's model. Its durable state lives outside the node (in an `Arc`), so a
//! crash of its node loses nothing but requests in flight; it is served over the gateway, so
//! network faults reach the connector's calls to it.

use connsim::history::{EventKind, History};
use connsim::net::Inbox;
use connsim::systems::{BoxFuture, ExternalSystem, OutputReader};
use connsim::{Record, RecordId};
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
    staged: BTreeMap<String, Vec<RecordId>>,
    committed: BTreeMap<String, usize>,
    visible: Vec<RecordId>,
}

/// The store.
#[derive(Clone)]
pub struct Store {
    name: String,
    state: Arc<Mutex<State>>,
    history: History,
}

impl Store {
    /// An empty store on node `name`; it records visibility changes in `history`.
    pub fn new(name: &str, history: History) -> Self {
        Self { name: name.to_string(), state: Arc::default(), history }
    }

    fn handle(&self, req: StoreRequest) -> StoreResponse {
        let mut s = self.state.lock().unwrap();
        match req {
            StoreRequest::Stage { txn, .. } if s.committed.contains_key(&txn) => StoreResponse::AlreadyCommitted,
            StoreRequest::Stage { txn, records } => {
                s.staged.entry(txn).or_default().extend(records.iter().map(|r| r.id));
                StoreResponse::Ok
            }
            StoreRequest::Commit { txn } if s.committed.contains_key(&txn) => StoreResponse::AlreadyCommitted,
            StoreRequest::Commit { txn } => {
                let Some(ids) = s.staged.remove(&txn) else { return StoreResponse::Unknown };
                let at = s.visible.len();
                s.visible.extend(ids.iter().copied());
                s.committed.insert(txn, at);
                drop(s);
                // The checks read visibility from the history: record what became visible.
                self.history.record(&self.name, EventKind::Visible { location: self.name.clone(), ids });
                StoreResponse::Ok
            }
        }
    }

    /// What a downstream reader sees.
    pub fn output(&self) -> Arc<dyn OutputReader> {
        Arc::new(self.clone())
    }
}

impl ExternalSystem for Store {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn serve(&self, mut inbox: Inbox) -> BoxFuture {
        let store = self.clone();
        Box::pin(async move {
            while let Some(msg) = inbox.recv().await {
                let Ok(req) = msg.decode::<StoreRequest>() else { continue }; // a garbled frame gets no answer
                let resp = store.handle(req);
                if let Some(replier) = msg.replier {
                    replier.reply(&resp);
                }
            }
        })
    }
}

impl OutputReader for Store {
    fn location(&self) -> String {
        self.name.clone()
    }
    fn read_visible(&self) -> (Vec<RecordId>, Vec<String>) {
        (self.state.lock().unwrap().visible.clone(), Vec::new())
    }
}
