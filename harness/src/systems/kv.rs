//! A key-value store (a database table with a primary key): upserts replace a key's value,
//! and values are bytes the connector's serializer made. Every acknowledged write is durable. What a downstream reader sees is the current value of
//! every key, at once: an upsert sink writing here is visible before any checkpoint.

use super::output::{Entry, OutputReader, Part};
use super::value_format::{RecordValueFormat, ValueFormat};
use super::{serve_requests, BoxFuture, ExternalSystem};
use crate::error::ConnectorError;
use crate::net::{Endpoint, Inbox};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Requests the store serves.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum KvRequest {
    /// Sets each key to its value (insert or replace), atomically.
    Upsert {
        /// Keys and values.
        entries: Vec<(String, Vec<u8>)>,
    },
    /// The value of a key.
    Get {
        /// The key.
        key: String,
    },
}

/// The store's answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum KvResponse {
    /// Written.
    Ok,
    /// A key's value, if it has one.
    Value(Option<Vec<u8>>),
}

/// Keys are spread over this many parts, so a write rereads only its part.
const BUCKETS: u64 = 256;

fn bucket(key: &str) -> u64 {
    crate::record::fnv1a(crate::record::FNV_OFFSET, key.as_bytes()) % BUCKETS
}

#[derive(Default)]
struct State {
    rows: BTreeMap<u64, BTreeMap<String, Vec<u8>>>,
    /// Per bucket: changes with every write into it.
    versions: BTreeMap<u64, u64>,
    writes: u64,
}

/// The key-value model. Everything in it is durable.
#[derive(Clone)]
pub struct KvStore {
    name: String,
    state: Arc<Mutex<State>>,
    format: Arc<dyn ValueFormat>,
}

impl KvStore {
    /// An empty store on node `name`, its values read as [`RecordValueFormat`] lays them out.
    pub fn new(name: &str) -> Self {
        Self::with_format(name, Arc::new(RecordValueFormat))
    }

    /// An empty store on node `name`, its values read by `format`: your serializer's layout.
    pub fn with_format(name: &str, format: Arc<dyn ValueFormat>) -> Self {
        Self { name: name.to_string(), state: Arc::default(), format }
    }

    fn handle(&self, req: KvRequest) -> KvResponse {
        let mut s = self.state.lock().unwrap();
        match req {
            KvRequest::Upsert { entries } => {
                for (key, value) in entries {
                    let b = bucket(&key);
                    s.rows.entry(b).or_default().insert(key, value);
                    *s.versions.entry(b).or_default() += 1;
                    s.writes += 1;
                }
                KvResponse::Ok
            }
            KvRequest::Get { key } => KvResponse::Value(s.rows.get(&bucket(&key)).and_then(|r| r.get(&key)).cloned()),
        }
    }

    /// The output reader: every key's current value, bucket by bucket, keys in order within
    /// a bucket (a reader of the table sees all rows at once; order carries no meaning),
    /// decoded by the store's format (a value it cannot decode is garbage named by its key).
    pub fn output(&self) -> Arc<dyn OutputReader> {
        Arc::new(self.clone())
    }
}

impl ExternalSystem for KvStore {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn serve(&self, inbox: Inbox) -> BoxFuture {
        let kv = self.clone();
        Box::pin(serve_requests(inbox, move |req| kv.handle(req)))
    }
}

impl OutputReader for KvStore {
    fn location(&self) -> String {
        self.name.clone()
    }
    fn version(&self) -> Option<u64> {
        Some(self.state.lock().unwrap().writes)
    }
    fn parts(&self) -> Vec<Part> {
        let s = self.state.lock().unwrap();
        let part = |(b, rows): (&u64, &BTreeMap<String, Vec<u8>>)| Part {
            name: format!("bucket-{b:03}"),
            version: s.versions.get(b).copied().unwrap_or(0),
            end: rows.len() as u64,
        };
        s.rows.iter().map(part).collect()
    }
    fn read(&self, part: &str, from: u64) -> Vec<Entry> {
        let s = self.state.lock().unwrap();
        let b = part.strip_prefix("bucket-").and_then(|b| b.parse::<u64>().ok());
        let Some(rows) = b.and_then(|b| s.rows.get(&b)) else { return Vec::new() };
        let rows: Vec<(String, Vec<u8>)> =
            rows.iter().skip(from as usize).map(|(k, v)| (k.clone(), v.clone())).collect();
        drop(s); // the user's decoder runs with the store unlocked: a panic poisons nothing
        let decode = |(key, value): (String, Vec<u8>)| match self.format.seen(&value) {
            Ok(seen) => Entry::Record(seen),
            Err(why) => Entry::Garbage(format!("{}/{part} key {key}: {why}", self.name)),
        };
        rows.into_iter().map(decode).collect()
    }
}

/// A connector's client for the store, over the gateway.
#[derive(Clone)]
pub struct KvClient {
    endpoint: Endpoint,
    store: String,
}

impl KvClient {
    /// A client of the store named `store`, with a 50 ms call timeout.
    pub fn new(endpoint: Endpoint, store: &str) -> Self {
        Self { endpoint, store: store.to_string() }
    }

    /// Upserts `entries` (keys and serialized values); a timeout is a retriable error (the
    /// write may have happened).
    pub async fn upsert(&self, entries: Vec<(String, Vec<u8>)>) -> Result<(), ConnectorError> {
        let req = KvRequest::Upsert { entries };
        match self.endpoint.call(&self.store, "kv.upsert", &req, Duration::from_millis(50)).await? {
            KvResponse::Ok => Ok(()),
            other => Err(ConnectorError::fail_task(format!("unexpected kv response {other:?}"))),
        }
    }
}
