//! The collector: the trusted probe sink's external system. A commit of a keyed batch is
//! idempotent and becomes visible at once.

use super::output::{Entry, OutputReader, Part};
use super::{serve_requests, BoxFuture, ExternalSystem};
use crate::error::ConnectorError;
use crate::net::{Endpoint, Inbox};
use crate::record::{Record, Seen};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Committed batches: which keys were committed, and their records in commit order.
#[derive(Default)]
struct Batches {
    keys: BTreeMap<String, usize>,
    records: Vec<Vec<Seen>>,
}

/// Committed batches by key, in commit order.
#[derive(Clone)]
pub struct Collector {
    name: String,
    batches: Arc<Mutex<Batches>>,
}

impl Collector {
    /// An empty collector on node `name`.
    pub fn new(name: &str) -> Self {
        Self { name: name.into(), batches: Arc::default() }
    }

    /// Commits `records` under `key`; returns false if the key was committed before.
    fn commit(&self, key: String, records: Vec<Record>) -> bool {
        let mut b = self.batches.lock().unwrap();
        if b.keys.contains_key(&key) {
            return false;
        }
        let n = b.records.len();
        b.keys.insert(key, n);
        b.records.push(records.iter().map(Seen::of).collect());
        true
    }

    /// The output reader: every committed batch, in commit order (one part, `batches`,
    /// whose positions are batches).
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
    fn version(&self) -> Option<u64> {
        Some(self.batches.lock().unwrap().records.len() as u64)
    }
    fn parts(&self) -> Vec<Part> {
        vec![Part { name: "batches".into(), version: 0, end: self.batches.lock().unwrap().records.len() as u64 }]
    }
    fn read(&self, _part: &str, from: u64) -> Vec<Entry> {
        let b = self.batches.lock().unwrap();
        b.records.iter().skip(from as usize).flatten().map(|s| Entry::Record(*s)).collect()
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
