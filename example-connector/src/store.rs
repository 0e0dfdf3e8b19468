//! The staging store's model. Its durable state lives outside the node (in an `Arc`), so a
//! crash of its node loses nothing but requests in flight; it is served over the gateway, so
//! network faults reach the connector's calls to it.
//!
//! It holds bytes, as a real store does: each staged entry is what the sink's serializer
//! wrote. A downstream reader lists the transactions committed (each knows its commit's
//! sequence number) and decodes their entries with the format's decoder
//! ([`crate::event::decode_stored`]): what it sees follows from the stored data alone, not
//! from a list the commit path keeps for it; bytes that do not decode are shown as such.

use crate::event::{decode_stored, EventCodec};
use connsim::api::ElementCodec;
use connsim::net::Inbox;
use connsim::systems::{serve_model, BoxFuture, Entry, ExternalSystem, ModelRequest, OutputReader, Part};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// A request to the store.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum StoreRequest {
    /// Adds entries (serialized events) to a transaction (created on first use); a
    /// transaction that was committed takes no more.
    Stage {
        /// Transaction name.
        txn: String,
        /// Entries to add, as the sink serialized them.
        entries: Vec<Vec<u8>>,
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

/// A transaction: its entries, and its commit's sequence number once committed.
#[derive(Default)]
struct Txn {
    entries: Vec<Vec<u8>>,
    committed: Option<u64>,
}

#[derive(Default)]
struct State {
    txns: BTreeMap<String, Txn>,
    commits: u64,
}

impl State {
    /// The committed transactions' entries, in commit order.
    fn visible(&self) -> impl Iterator<Item = &Vec<u8>> {
        let mut committed: Vec<(u64, &Txn)> = self.txns.values().filter_map(|t| Some((t.committed?, t))).collect();
        committed.sort_unstable_by_key(|(seq, _)| *seq);
        committed.into_iter().flat_map(|(_, t)| &t.entries)
    }
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
        let s = &mut *s;
        match req {
            StoreRequest::Stage { txn, entries } => {
                let t = s.txns.entry(txn).or_default();
                if t.committed.is_some() {
                    return StoreResponse::AlreadyCommitted;
                }
                t.entries.extend(entries);
                StoreResponse::Ok
            }
            StoreRequest::Commit { txn } => match s.txns.get_mut(&txn) {
                None => StoreResponse::Unknown,
                Some(t) if t.committed.is_some() => StoreResponse::AlreadyCommitted,
                Some(t) => {
                    s.commits += 1;
                    t.committed = Some(s.commits);
                    StoreResponse::Ok
                }
            },
        }
    }

    /// Every entry the store holds, staged or committed, in transaction-name order (for a
    /// test's misreading reader; a downstream reader sees only what [`Store::output`] shows).
    pub fn staged_for_tests(&self) -> Vec<Vec<u8>> {
        self.state.lock().unwrap().txns.values().flat_map(|t| t.entries.iter().cloned()).collect()
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
        vec![Part { name: "committed".into(), version: 0, end: self.state.lock().unwrap().visible().count() as u64 }]
    }
    /// Decodes each visible entry as a downstream reader does; one that does not decode is
    /// garbage, named by its offset.
    fn read(&self, part: &str, from: u64) -> Vec<Entry> {
        let s = self.state.lock().unwrap();
        let decoded = s.visible().enumerate().skip(from as usize).map(|(at, bytes)| {
            match decode_stored(bytes).and_then(|event| EventCodec::record(&event)) {
                Ok(record) => Entry::record(record.id, record.digest()),
                Err(why) => Entry::Garbage(format!("{}/{part} offset {at}: {why}", self.name)),
            }
        });
        decoded.collect()
    }
}
