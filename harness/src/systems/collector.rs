//! The collector: the trusted probe sink's external system. A commit of a keyed batch is
//! idempotent and becomes visible at once.

use super::{serve_requests, BoxFuture, ExternalSystem, OutputReader};
use crate::error::ConnectorError;
use crate::history::{EventKind, History};
use crate::net::{Endpoint, Inbox};
use crate::record::{Record, RecordId};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Committed batches: which keys were committed, and their records in commit order.
#[derive(Default)]
struct Batches {
    keys: BTreeMap<String, usize>,
    records: Vec<Vec<RecordId>>,
}

/// Committed batches by key, in commit order.
#[derive(Clone)]
pub struct Collector {
    name: String,
    batches: Arc<Mutex<Batches>>,
    history: History,
}

impl Collector {
    /// An empty collector on node `name`.
    pub fn new(name: &str, history: History) -> Self {
        Self { name: name.into(), batches: Arc::default(), history }
    }

    /// Commits `records` under `key`; returns false if the key was committed before.
    fn commit(&self, key: String, records: Vec<Record>) -> bool {
        let mut b = self.batches.lock().unwrap();
        if b.keys.contains_key(&key) {
            return false;
        }
        let ids: Vec<RecordId> = records.iter().map(|r| r.id).collect();
        let n = b.records.len();
        b.keys.insert(key, n);
        b.records.push(ids.clone());
        drop(b);
        self.history.record(&self.name, EventKind::Visible { location: self.name.clone(), ids });
        true
    }

    /// The output reader.
    pub fn output(&self) -> Arc<dyn OutputReader> {
        Arc::new(self.clone())
    }
}

impl ExternalSystem for Collector {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn serve(&self, inbox: Inbox) -> BoxFuture {
        let c = self.clone();
        Box::pin(serve_requests(inbox, move |(key, records): (String, Vec<Record>)| c.commit(key, records)))
    }
}

impl OutputReader for Collector {
    fn location(&self) -> String {
        self.name.clone()
    }
    fn read_visible(&self) -> (Vec<RecordId>, Vec<String>) {
        (self.batches.lock().unwrap().records.concat(), Vec::new())
    }
}

/// Client of the collector: `commit` returns whether this call committed the batch.
#[derive(Clone)]
pub struct CollectorClient {
    endpoint: Endpoint,
    name: String,
}

impl CollectorClient {
    /// A client of the collector named `name`.
    pub fn new(endpoint: Endpoint, name: &str) -> Self {
        Self { endpoint, name: name.into() }
    }
    /// Commits a keyed batch; `Ok(false)` means it was committed before.
    pub async fn commit(&self, key: &str, records: &[Record]) -> Result<bool, ConnectorError> {
        let req = (key.to_string(), records.to_vec());
        Ok(self.endpoint.call(&self.name, "collector.commit", &req, Duration::from_millis(50)).await?)
    }
}
