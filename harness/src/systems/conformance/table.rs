//! A table format's commit semantics (Iceberg-like snapshots of data files):
//! - a written data file is invisible until a committed snapshot lists it;
//! - a commit makes the files it lists visible, each record once, and no other file;
//! - a later commit keeps what earlier snapshots made visible;
//! - a crash of the table's node keeps committed snapshots and shows no unlisted file.

use super::{assert_all, check_all, rec, Conformance, Harness, Property, StoreFuture};
use crate::history::History;
use crate::net::Endpoint;
use crate::record::Record;
use crate::systems::{ExternalSystem, OutputReader};
use std::sync::Arc;

/// A snapshot table, driven through the connector's own client.
pub trait SnapshotStore: 'static {
    /// A fresh model (served on its own node), and how a downstream reader reads it.
    fn build(&self, history: &History) -> (Arc<dyn ExternalSystem>, Arc<dyn OutputReader>);
    /// Writes a data file at `path` holding `records`, through the client the connector
    /// uses, from `endpoint`.
    fn write_file<'a>(&'a self, endpoint: &'a Endpoint, path: &'a str, records: Vec<Record>) -> StoreFuture<'a>;
    /// Commits a snapshot adding `files` on top of the current one.
    fn commit<'a>(&'a self, endpoint: &'a Endpoint, files: Vec<String>) -> StoreFuture<'a>;
}

/// The properties a snapshot table must have, each checked on a fresh model.
pub fn check_snapshot_table<S: SnapshotStore>(store: &S) -> Vec<Conformance> {
    let props: Vec<(&'static str, Property<S>)> = vec![
        ("a data file is invisible until a committed snapshot lists it", unlisted_invisible),
        ("a commit makes the files it lists visible, each record once, and no other", commit_shows_listed),
        ("a later commit keeps what earlier snapshots made visible", later_commit_keeps),
        ("a crash keeps committed snapshots and shows no unlisted file", crash_keeps_snapshots),
    ];
    check_all(store, S::build, props)
}

/// Panics, listing every property the table breaks, unless it has them all.
pub fn assert_snapshot_table<S: SnapshotStore>(store: &S) {
    assert_all(check_snapshot_table(store), "a snapshot table");
}

fn unlisted_invisible<'a, S: SnapshotStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.write_file(&h.endpoint, "data/f1", vec![rec(1), rec(2)]).await?;
        match h.visible()?.len() {
            0 => Ok(()),
            n => Err(format!("{n} records of a data file no snapshot lists are visible")),
        }
    })
}

fn commit_shows_listed<'a, S: SnapshotStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.write_file(&h.endpoint, "data/f1", vec![rec(1), rec(2)]).await?;
        store.write_file(&h.endpoint, "data/f2", vec![rec(3)]).await?;
        store.write_file(&h.endpoint, "data/f3", vec![rec(4)]).await?;
        store.commit(&h.endpoint, vec!["data/f1".into(), "data/f2".into()]).await?;
        h.each_once(&[rec(1), rec(2), rec(3)], "after a commit listing its file")?;
        match h.count(4)? {
            0 => Ok(()),
            n => Err(format!("r4 of data/f3, which no snapshot lists, is visible {n} times after a commit")),
        }
    })
}

fn later_commit_keeps<'a, S: SnapshotStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.write_file(&h.endpoint, "data/f1", vec![rec(1)]).await?;
        store.commit(&h.endpoint, vec!["data/f1".into()]).await?;
        store.write_file(&h.endpoint, "data/f2", vec![rec(2)]).await?;
        store.commit(&h.endpoint, vec!["data/f2".into()]).await?;
        h.each_once(&[rec(1), rec(2)], "after two commits")
    })
}

fn crash_keeps_snapshots<'a, S: SnapshotStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.write_file(&h.endpoint, "data/f1", vec![rec(1)]).await?;
        store.commit(&h.endpoint, vec!["data/f1".into()]).await?;
        store.write_file(&h.endpoint, "data/f2", vec![rec(2)]).await?;
        h.system.crash();
        h.each_once(&[rec(1)], "after a crash of the table")?;
        match h.count(2)? {
            0 => Ok(()),
            n => Err(format!("r2 of an unlisted data file is visible {n} times after a crash")),
        }
    })
}
