//! A snapshot table (Iceberg-like): data files are written first and become visible only
//! when a snapshot that lists them is committed. A commit names the snapshot it builds on
//! (optimistic concurrency) and records the checkpoint it belongs to as a property.

use super::{serve_requests, BoxFuture, ExternalSystem, OutputReader};
use crate::error::ConnectorError;
use crate::history::{CheckpointId, EventKind, History};
use crate::net::{Endpoint, Inbox};
use crate::record::{Record, RecordId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Requests the table serves.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum TableRequest {
    /// Writes (or rewrites, idempotently) a data file; invisible until a snapshot lists it.
    WriteDataFile { path: String, records: Vec<Record> },
    /// The current snapshot id and its last committed checkpoint (0, 0 when empty).
    Current,
    /// Commits a snapshot adding `files` on top of snapshot `parent`.
    Commit { parent: u64, files: Vec<String>, checkpoint: CheckpointId },
}

/// The table's answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum TableResponse {
    Ok,
    Current { snapshot: u64, checkpoint: CheckpointId },
    /// `parent` is not the current snapshot any more.
    Conflict { current: u64 },
    /// A listed data file does not exist.
    MissingFile(String),
}

#[derive(Default)]
struct State {
    files: BTreeMap<String, Vec<Record>>,
    /// Committed snapshots in order: (files added, checkpoint).
    snapshots: Vec<(Vec<String>, CheckpointId)>,
}

/// The snapshot-table model. Everything in it is durable.
#[derive(Clone)]
pub struct SnapshotTable {
    name: String,
    state: Arc<Mutex<State>>,
    history: History,
}

impl SnapshotTable {
    /// An empty table on node `name`.
    pub fn new(name: &str, history: History) -> Self {
        Self { name: name.into(), state: Arc::default(), history }
    }

    fn handle(&self, req: TableRequest) -> TableResponse {
        let mut s = self.state.lock().unwrap();
        match req {
            TableRequest::WriteDataFile { path, records } => {
                s.files.insert(path, records);
                TableResponse::Ok
            }
            TableRequest::Current => TableResponse::Current {
                snapshot: s.snapshots.len() as u64,
                checkpoint: s.snapshots.last().map_or(0, |(_, c)| *c),
            },
            TableRequest::Commit { parent, files, checkpoint } => {
                if parent != s.snapshots.len() as u64 {
                    return TableResponse::Conflict { current: s.snapshots.len() as u64 };
                }
                if let Some(missing) = files.iter().find(|f| !s.files.contains_key(*f)) {
                    return TableResponse::MissingFile(missing.clone());
                }
                let ids: Vec<RecordId> = files.iter().flat_map(|f| s.files[f].iter().map(|r| r.id)).collect();
                s.snapshots.push((files, checkpoint));
                drop(s);
                self.history.record(&self.name, EventKind::Visible { location: self.name.clone(), ids });
                TableResponse::Ok
            }
        }
    }

    /// The output reader: records of the data files of every committed snapshot, in order.
    pub fn output(&self) -> Arc<dyn OutputReader> {
        Arc::new(self.clone())
    }
}

impl ExternalSystem for SnapshotTable {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn serve(&self, inbox: Inbox) -> BoxFuture {
        let t = self.clone();
        Box::pin(serve_requests(inbox, move |req| t.handle(req)))
    }
}

impl OutputReader for SnapshotTable {
    fn location(&self) -> String {
        self.name.clone()
    }
    fn read_visible(&self) -> (Vec<RecordId>, Vec<String>) {
        let s = self.state.lock().unwrap();
        let ids = s.snapshots.iter().flat_map(|(files, _)| files.iter().flat_map(|f| s.files[f].iter().map(|r| r.id)));
        (ids.collect(), Vec::new())
    }
}

/// A connector's client for the table, over the gateway.
#[derive(Clone)]
pub struct TableClient {
    endpoint: Endpoint,
    table: String,
}

impl TableClient {
    /// A client of the table named `table`.
    pub fn new(endpoint: Endpoint, table: &str) -> Self {
        Self { endpoint, table: table.into() }
    }
    /// Sends one request; a timeout is a retriable error.
    pub async fn request(&self, req: TableRequest) -> Result<TableResponse, ConnectorError> {
        let kind = match &req {
            TableRequest::WriteDataFile { .. } => "table.write",
            TableRequest::Current => "table.current",
            TableRequest::Commit { .. } => "table.commit",
        };
        Ok(self.endpoint.call(&self.table, kind, &req, Duration::from_millis(50)).await?)
    }
}
