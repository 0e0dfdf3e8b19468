//! A snapshot table (Iceberg-like): data files (rows of bytes the connector's serializer
//! made) are written first and become visible only
//! when a snapshot that lists them is committed. A commit names the snapshot it builds on
//! (optimistic concurrency) and records the job and checkpoint it belongs to as properties
//! (Iceberg's `flink.job-id` and `flink.max-committed-checkpoint-id`). A table may have a
//! [`Schema`] that an `ALTER TABLE` changes mid-run ([`Setting::AlterTable`]): each data file
//! is decoded with the schema current when it was written.

mod schema;

pub use schema::{Alteration, Column, ColumnType, Schema, SchemaFormat};

use super::output::{Entry, OutputReader, Part};
use super::value_format::{RecordValueFormat, ValueFormat};
use super::{serve_requests, BoxFuture, ExternalSystem, Setting, SettingEnv};
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
    /// `schema`: the schema version the rows were encoded with, refused
    /// ([`TableResponse::SchemaChanged`]) if it is not the table's current one; `None`: no
    /// check, the rows are taken as the current schema's (a `RowBinary` insert).
    WriteDataFile { path: String, rows: Vec<Vec<u8>>, schema: Option<u32> },
    /// The table's current schema (`None`: it has none).
    Schema,
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
    /// The schema a write was encoded with is not the current one, which is this.
    SchemaChanged {
        current: Schema,
    },
    /// The current schema.
    Schema(Option<Schema>),
}

#[derive(Default)]
struct State {
    /// Each data file's rows, with the schema version current when it was written.
    files: BTreeMap<String, (u32, Vec<Vec<u8>>)>,
    /// Every version of the schema, in order (empty: the table has none).
    schemas: Vec<Schema>,
    /// Committed snapshots in order: (files added, checkpoint, job).
    snapshots: Vec<(Vec<String>, CheckpointId, String)>,
    /// Changes when a data file a committed snapshot lists is rewritten.
    rewrites: u64,
}

/// How the table's reader decodes a row.
#[derive(Clone)]
enum Decoder {
    Value(Arc<dyn ValueFormat>),
    Schema(Arc<dyn SchemaFormat>),
}

/// The snapshot-table model. Everything in it is durable.
#[derive(Clone)]
pub struct SnapshotTable {
    name: String,
    state: Arc<Mutex<State>>,
    format: Decoder,
}

impl SnapshotTable {
    /// An empty table on node `name`, its rows read as [`RecordValueFormat`] lays them out.
    pub fn new(name: &str) -> Self {
        Self::with_format(name, Arc::new(RecordValueFormat))
    }

    /// An empty table on node `name`, its rows read by `format`: your serializer's layout.
    pub fn with_format(name: &str, format: Arc<dyn ValueFormat>) -> Self {
        Self { name: name.into(), state: Arc::default(), format: Decoder::Value(format) }
    }

    /// An empty table on node `name` with `schema` (its version 0), each row read by `format`
    /// with the schema current when its data file was written.
    pub fn with_schema(name: &str, schema: Schema, format: Arc<dyn SchemaFormat>) -> Self {
        let state = State { schemas: vec![Schema { version: 0, ..schema }], ..State::default() };
        Self { name: name.into(), state: Arc::new(Mutex::new(state)), format: Decoder::Schema(format) }
    }

    fn handle(&self, req: TableRequest) -> TableResponse {
        let mut s = self.state.lock().unwrap();
        match req {
            TableRequest::WriteDataFile { path, rows, schema } => {
                let current = s.schemas.last().cloned();
                if let (Some(claimed), Some(current)) = (schema, &current) {
                    if claimed != current.version {
                        return TableResponse::SchemaChanged { current: current.clone() };
                    }
                }
                if s.snapshots.iter().any(|(files, ..)| files.contains(&path)) {
                    s.rewrites += 1; // a committed file changes under the readers' feet
                }
                s.files.insert(path, (current.map_or(0, |c| c.version), rows));
                TableResponse::Ok
            }
            TableRequest::Schema => TableResponse::Schema(s.schemas.last().cloned()),
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
    fn configure(&self, setting: &Setting, env: &SettingEnv) -> Result<(), String> {
        let Setting::AlterTable(change) = setting else {
            return Err(format!("{} has no setting {setting:?}", self.name));
        };
        let mut s = self.state.lock().unwrap();
        let Some(current) = s.schemas.last() else {
            return Err(format!("{} has no schema to alter (build it with SnapshotTable::with_schema)", self.name));
        };
        if *change == Alteration::Nothing {
            return Ok(());
        }
        let next = current.altered(change)?;
        let version = next.version;
        s.schemas.push(next);
        drop(s);
        let event =
            crate::history::EventKind::SchemaAltered { table: self.name.clone(), version, change: change.to_string() };
        env.history.record(&self.name, event);
        Ok(())
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
        let files = &s.files;
        let rows: Vec<(String, usize, u32, Vec<u8>)> = snapshots
            .flat_map(|(names, ..)| {
                names.iter().flat_map(|f| {
                    let (version, rows) = &files[f];
                    rows.iter().enumerate().map(move |(r, v)| (f, r, *version, v))
                })
            })
            .map(|(f, r, version, v)| (f.clone(), r, version, v.clone()))
            .collect();
        let schemas = s.schemas.clone();
        drop(s); // the user's decoder runs with the table unlocked: a panic poisons nothing
        let decode = |(file, row, version, value): (String, usize, u32, Vec<u8>)| {
            let seen = match &self.format {
                Decoder::Value(format) => format.seen(&value),
                Decoder::Schema(format) => format.seen(&schemas[version as usize], &value),
            };
            match seen {
                Ok(seen) => Entry::Record(seen),
                Err(why) => Entry::Garbage(format!("{}: {file} row {row}: {why}", self.name)),
            }
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
            TableRequest::Schema => "table.schema",
            TableRequest::Current { .. } => "table.current",
            TableRequest::Commit { .. } => "table.commit",
        };
        Ok(self.endpoint.call(&self.table, kind, &req, Duration::from_millis(50)).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::History;
    use crate::record::{RecordId, Seen};

    /// Reads a row as its first byte: the id, and the schema version in the digest.
    struct VersionFormat;

    impl SchemaFormat for VersionFormat {
        fn seen(&self, schema: &Schema, row: &[u8]) -> Result<Seen, String> {
            Ok(Seen { id: RecordId(row[0] as u64), digest: schema.version as u64 })
        }
    }

    /// A write naming a stale version is refused with the current schema; an unchecked one is
    /// taken as the current schema's; each file reads with the schema current at its write.
    #[test]
    fn an_alter_changes_the_schema_later_writes_are_read_with() {
        let history = History::new();
        let env = SettingEnv { seed: 0, history: history.clone() };
        let schema = Schema::new(vec![Column::new("id", ColumnType::Int { bytes: 1 }, false)]);
        let table = SnapshotTable::with_schema("t", schema, Arc::new(VersionFormat));
        let write = |path: &str, schema| TableRequest::WriteDataFile { path: path.into(), rows: vec![vec![1]], schema };
        assert_eq!(table.handle(write("a", Some(0))), TableResponse::Ok);
        let add = Alteration::AddColumn(Column::new("x", ColumnType::Int { bytes: 2 }, true));
        table.configure(&Setting::AlterTable(add), &env).unwrap();
        assert!(
            matches!(table.handle(write("b", Some(0))), TableResponse::SchemaChanged { current } if current.version == 1)
        );
        assert_eq!(table.handle(write("b", None)), TableResponse::Ok);
        let commit =
            TableRequest::Commit { parent: 0, files: vec!["a".into(), "b".into()], checkpoint: 1, job: "j".into() };
        assert_eq!(table.handle(commit), TableResponse::Ok);
        let versions: Vec<u64> = table
            .read("snapshots", 0)
            .into_iter()
            .map(|e| match e {
                Entry::Record(seen) => seen.digest,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(versions, [0, 1]);
        assert!(history
            .events()
            .iter()
            .any(|e| matches!(&e.kind, crate::history::EventKind::SchemaAltered { version: 1, .. })));
        let plain = SnapshotTable::new("p");
        let nothing = Setting::AlterTable(Alteration::Nothing);
        assert!(plain.configure(&nothing, &env).unwrap_err().contains("has no schema"));
    }
}
