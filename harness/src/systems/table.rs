//! A snapshot table (Iceberg-like): data files (rows of bytes the connector's serializer
//! made) are written first and become visible only
//! when a snapshot that lists them is committed. A commit names the snapshot it builds on
//! (optimistic concurrency) and records the job and checkpoint it belongs to as properties
//! (Iceberg's `flink.job-id` and `flink.max-committed-checkpoint-id`).

use super::output::{Entry, OutputReader, Part};
use super::value_format::{RecordValueFormat, ValueFormat};
use super::{serve_requests, BoxFuture, ExternalSystem};
use crate::error::ConnectorError;
use crate::history::CheckpointId;
use crate::net::{Endpoint, Inbox};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Requests the table serves.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum TableRequest {
    /// Writes (or rewrites, idempotently) a data file; invisible until a snapshot lists it.
    WriteDataFile { path: String, rows: Vec<Vec<u8>> },
    /// The current snapshot id, and the checkpoint property of the latest snapshot job
    /// `job` committed (0 when none): walking the snapshot log back to the job's last commit,
    /// as Iceberg's Flink committer does. Without a job: the latest snapshot's.
    Current { job: Option<String> },
    /// Commits a snapshot adding `files` on top of snapshot `parent`, with the job and
    /// checkpoint it belongs to as properties.
    Commit { parent: u64, files: Vec<String>, checkpoint: CheckpointId, job: String },
}

/// The table's answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum TableResponse {
    Ok,
    Current {
        snapshot: u64,
        checkpoint: CheckpointId,
    },
    /// `parent` is not the current snapshot any more.
    Conflict {
        current: u64,
    },
    /// A listed data file does not exist.
    MissingFile(String),
}

#[derive(Default)]
struct State {
    files: BTreeMap<String, Vec<Vec<u8>>>,
    /// Committed snapshots in order: (files added, checkpoint, job).
    snapshots: Vec<(Vec<String>, CheckpointId, String)>,
    /// Changes when a data file a committed snapshot lists is rewritten.
    rewrites: u64,
}

/// The snapshot-table model. Everything in it is durable.
#[derive(Clone)]
pub struct SnapshotTable {
    name: String,
    state: Arc<Mutex<State>>,
    format: Arc<dyn ValueFormat>,
}

impl SnapshotTable {
    /// An empty table on node `name`, its rows read as [`RecordValueFormat`] lays them out.
    pub fn new(name: &str) -> Self {
        Self::with_format(name, Arc::new(RecordValueFormat))
    }

    /// An empty table on node `name`, its rows read by `format`: your serializer's layout.
    pub fn with_format(name: &str, format: Arc<dyn ValueFormat>) -> Self {
        Self { name: name.into(), state: Arc::default(), format }
    }

    fn handle(&self, req: TableRequest) -> TableResponse {
        let mut s = self.state.lock().unwrap();
        match req {
            TableRequest::WriteDataFile { path, rows } => {
                if s.snapshots.iter().any(|(files, ..)| files.contains(&path)) {
                    s.rewrites += 1; // a committed file changes under the readers' feet
                }
                s.files.insert(path, rows);
                TableResponse::Ok
            }
            TableRequest::Current { job } => TableResponse::Current {
                snapshot: s.snapshots.len() as u64,
                checkpoint: s
                    .snapshots
                    .iter()
                    .rev()
                    .find(|(.., j)| job.as_ref().is_none_or(|job| j == job))
                    .map_or(0, |(_, c, _)| *c),
            },
            TableRequest::Commit { parent, files, checkpoint, job } => {
                if parent != s.snapshots.len() as u64 {
                    return TableResponse::Conflict { current: s.snapshots.len() as u64 };
                }
                if let Some(missing) = files.iter().find(|f| !s.files.contains_key(*f)) {
                    return TableResponse::MissingFile(missing.clone());
                }
                s.snapshots.push((files, checkpoint, job));
                TableResponse::Ok
            }
        }
    }

    /// The output reader: the current snapshot, that is the records of the data files every
    /// committed snapshot added, in commit order (one part, `snapshots`, whose positions are
    /// snapshots), decoded by the table's format (a row it cannot decode is garbage named by
    /// its file and row). Data files no snapshot lists are invisible.
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
    fn version(&self) -> Option<u64> {
        let s = self.state.lock().unwrap();
        Some(s.snapshots.len() as u64 + (s.rewrites << 32))
    }
    fn parts(&self) -> Vec<Part> {
        let s = self.state.lock().unwrap();
        vec![Part { name: "snapshots".into(), version: s.rewrites, end: s.snapshots.len() as u64 }]
    }
    fn read(&self, _part: &str, from: u64) -> Vec<Entry> {
        let s = self.state.lock().unwrap();
        let snapshots = s.snapshots.iter().skip(from as usize);
        let rows: Vec<(String, usize, Vec<u8>)> = snapshots
            .flat_map(|(files, ..)| {
                files.iter().flat_map(|f| s.files[f].iter().enumerate().map(move |(r, v)| (f, r, v)))
            })
            .map(|(f, r, v)| (f.clone(), r, v.clone()))
            .collect();
        drop(s); // the user's decoder runs with the table unlocked: a panic poisons nothing
        let decode = |(file, row, value): (String, usize, Vec<u8>)| match self.format.seen(&value) {
            Ok(seen) => Entry::Record(seen),
            Err(why) => Entry::Garbage(format!("{}: {file} row {row}: {why}", self.name)),
        };
        rows.into_iter().map(decode).collect()
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
            TableRequest::Current { .. } => "table.current",
            TableRequest::Commit { .. } => "table.commit",
        };
        Ok(self.endpoint.call(&self.table, kind, &req, Duration::from_millis(50)).await?)
    }
}
