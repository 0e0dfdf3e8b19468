//! The model kit's conformance properties for key-value stores and snapshot tables: the
//! built-in models have them all, and a client that misunderstands its store fails the one
//! property its misunderstanding breaks.

use connsim::history::History;
use connsim::net::Endpoint;
use connsim::systems::conformance::{
    check_snapshot_table, check_upsert_store, Conformance, SnapshotStore, StoreFuture, UpsertStore,
};
use connsim::systems::{
    ExternalSystem, KvClient, KvStore, OutputReader, RecordValueFormat, SnapshotTable, TableClient, TableRequest,
    TableResponse,
};
use connsim::Record;
use std::sync::Arc;

/// The properties that failed, by name.
fn failed(results: &[Conformance]) -> Vec<&'static str> {
    results.iter().filter(|c| c.result.is_err()).map(|c| c.property).collect()
}

/// The built-in key-value store through `KvClient`; `insert_only`: a client that writes every
/// value under a key of its own (`<key>#<record>`), taking inserts for upserts.
struct Kv {
    insert_only: bool,
}

impl UpsertStore for Kv {
    fn build(&self, _history: &History) -> (Arc<dyn ExternalSystem>, Arc<dyn OutputReader>) {
        let kv = KvStore::new("kv");
        (Arc::new(kv.clone()), kv.output())
    }
    fn upsert<'a>(&'a self, endpoint: &'a Endpoint, entries: Vec<(String, Record)>) -> StoreFuture<'a> {
        Box::pin(async move {
            let key = |k: String, r: &Record| if self.insert_only { format!("{k}#{}", r.id) } else { k };
            let entries = entries.into_iter().map(|(k, r)| (key(k, &r), RecordValueFormat::encode(&r))).collect();
            KvClient::new(endpoint.clone(), "kv").upsert(entries).await.map_err(|e| e.to_string())
        })
    }
}

#[test]
fn the_key_value_store_holds_to_the_upsert_store_properties() {
    let results = check_upsert_store(&Kv { insert_only: false });
    assert_eq!(results.len(), 4);
    assert!(failed(&results).is_empty(), "{results:?}");
}

#[test]
fn a_client_taking_inserts_for_upserts_fails_only_the_replacing_property() {
    let results = check_upsert_store(&Kv { insert_only: true });
    assert_eq!(failed(&results), vec!["an upsert replaces its key's value"], "{results:?}");
    let why = results.iter().find_map(|c| c.result.clone().err()).expect("one failed");
    assert!(why.contains("old value r1 is still visible 1 times"), "{why}");
}

/// The built-in snapshot table through `TableClient`; `commits_each_file`: a client that
/// commits every data file as it writes it (an auto-commit taken for a staged write).
struct Table {
    commits_each_file: bool,
}

impl Table {
    async fn commit(endpoint: &Endpoint, files: Vec<String>) -> Result<(), String> {
        let client = TableClient::new(endpoint.clone(), "table");
        let current = client.request(TableRequest::Current { job: None }).await.map_err(|e| e.to_string())?;
        let TableResponse::Current { snapshot, checkpoint } = current else { return Err(format!("{current:?}")) };
        let commit = TableRequest::Commit { parent: snapshot, files, checkpoint: checkpoint + 1, job: "j".into() };
        match client.request(commit).await.map_err(|e| e.to_string())? {
            TableResponse::Ok => Ok(()),
            other => Err(format!("commit refused: {other:?}")),
        }
    }
}

impl SnapshotStore for Table {
    fn build(&self, _history: &History) -> (Arc<dyn ExternalSystem>, Arc<dyn OutputReader>) {
        let table = SnapshotTable::new("table");
        (Arc::new(table.clone()), table.output())
    }
    fn write_file<'a>(&'a self, endpoint: &'a Endpoint, path: &'a str, records: Vec<Record>) -> StoreFuture<'a> {
        Box::pin(async move {
            let rows = records.iter().map(RecordValueFormat::encode).collect();
            let write = TableRequest::WriteDataFile { path: path.into(), rows, schema: None };
            let client = TableClient::new(endpoint.clone(), "table");
            client.request(write).await.map_err(|e| e.to_string())?;
            match self.commits_each_file {
                true => Self::commit(endpoint, vec![path.into()]).await,
                false => Ok(()),
            }
        })
    }
    fn commit<'a>(&'a self, endpoint: &'a Endpoint, files: Vec<String>) -> StoreFuture<'a> {
        Box::pin(async move {
            match self.commits_each_file {
                true => Ok(()), // already committed, file by file
                false => Self::commit(endpoint, files).await,
            }
        })
    }
}

#[test]
fn the_snapshot_table_holds_to_the_snapshot_table_properties() {
    let results = check_snapshot_table(&Table { commits_each_file: false });
    assert_eq!(results.len(), 4);
    assert!(failed(&results).is_empty(), "{results:?}");
}

#[test]
fn a_client_committing_every_file_as_it_writes_it_fails_the_invisibility_properties() {
    let results = check_snapshot_table(&Table { commits_each_file: true });
    let expected = vec![
        "a data file is invisible until a committed snapshot lists it",
        "a commit makes the files it lists visible, each record once, and no other",
        "a crash keeps committed snapshots and shows no unlisted file",
    ];
    assert_eq!(failed(&results), expected, "{results:?}");
}
