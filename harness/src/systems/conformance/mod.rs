//! Conformance of a model of your own: the checks trust what a model's output reader shows,
//! so a model must behave as the system it stands for. A misunderstanding written into both
//! the connector and its model (writes visible before the commit, an abort that is not one)
//! passes every suite; these properties, run against your model through your connector's
//! own client, do not let it.
//!
//! [`check_transactional_store`] holds a two-phase-commit sink's store (a transactional log,
//! an object store's multipart uploads, a staging table) to:
//! - a write in an open transaction is not visible;
//! - a commit makes the transaction's writes visible, each once, with their content; a
//!   repeated commit changes nothing;
//! - an aborted transaction never becomes visible, not even when it is committed after;
//! - a crash of the store's node loses what the model documents, and nothing else: committed
//!   writes stay visible (unless [`TransactionalStore::crash_loses_committed`]), and an open
//!   transaction is either gone or still whole.
//!
//! [`check_upsert_store`] holds a key-value store (a database table with a primary key) to
//! its upsert semantics, and [`check_snapshot_table`] a table format (Iceberg-like snapshots
//! of data files) to its commit semantics; see their modules.
//!
//! Each property runs on a fresh model in a simulation of its own, the client on one node and
//! the model served on another over connsim's gateway, as a connector reaches it in a run.

mod table;
mod upsert;

pub use table::{assert_snapshot_table, check_snapshot_table, SnapshotStore};
pub use upsert::{assert_upsert_store, check_upsert_store, UpsertStore};

use super::{ExternalSystem, OutputReader};
use crate::history::History;
use crate::net::{Endpoint, Gateway};
use crate::record::{Record, RecordId, Seen};
use crate::systems::{read_all, Entry};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// A future the kit awaits.
pub type StoreFuture<'a> = Pin<Box<dyn Future<Output = Result<(), String>> + 'a>>;

/// A transactional store, driven through the connector's own client.
pub trait TransactionalStore: 'static {
    /// A fresh model (served on its own node), and how a downstream reader reads it.
    fn build(&self, history: &History) -> (Arc<dyn ExternalSystem>, Arc<dyn OutputReader>);
    /// Writes `records` into transaction `txn` (opened on first use), through the client
    /// the connector uses, from `endpoint`.
    fn write<'a>(&'a self, endpoint: &'a Endpoint, txn: &'a str, records: Vec<Record>) -> StoreFuture<'a>;
    /// Commits transaction `txn`.
    fn commit<'a>(&'a self, endpoint: &'a Endpoint, txn: &'a str) -> StoreFuture<'a>;
    /// Aborts transaction `txn`; `None` when the store has no abort (the property is skipped).
    fn abort<'a>(&'a self, endpoint: &'a Endpoint, txn: &'a str) -> Option<StoreFuture<'a>> {
        let _ = (endpoint, txn);
        None
    }
    /// Whether the model documents that a crash loses committed writes (it should not).
    fn crash_loses_committed(&self) -> bool {
        false
    }
}

/// One property and how the model did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conformance {
    /// What was checked.
    pub property: &'static str,
    /// `Err(what the model did instead)`; `Ok` also for a property skipped (see `skipped`).
    pub result: Result<(), String>,
    /// Why the property was not checked, if it was not.
    pub skipped: Option<String>,
}

/// The properties a transactional store must have, each checked on a fresh model.
pub fn check_transactional_store<S: TransactionalStore>(store: &S) -> Vec<Conformance> {
    let props: Vec<(&'static str, Property<S>)> = vec![
        ("a write in an open transaction is not visible", open_write_invisible),
        ("a commit makes its writes visible, each once; a repeated commit changes nothing", commit_visible_once),
        ("an aborted transaction never becomes visible", abort_never_visible),
        ("a crash loses what the model documents, and nothing else", crash_loses_only_documented),
    ];
    check_all(store, S::build, props)
}

/// Panics, listing every property the store breaks, unless it has them all.
pub fn assert_transactional_store<S: TransactionalStore>(store: &S) {
    assert_all(check_transactional_store(store), "a transactional store");
}

const SKIP: &str = "skipped: ";

type Property<S> = for<'a> fn(&'a S, &'a Harness) -> StoreFuture<'a>;

/// A fresh model and its output reader.
type Build<S> = fn(&S, &History) -> (Arc<dyn ExternalSystem>, Arc<dyn OutputReader>);

/// Runs each of `props` on a fresh model built by `build`.
fn check_all<S>(store: &S, build: Build<S>, props: Vec<(&'static str, Property<S>)>) -> Vec<Conformance> {
    props
        .into_iter()
        .map(|(property, check)| {
            let outcome = run(store, build, check);
            let skipped = outcome.as_ref().err().and_then(|e| e.strip_prefix(SKIP).map(str::to_string));
            Conformance { property, result: if skipped.is_some() { Ok(()) } else { outcome }, skipped }
        })
        .collect()
}

/// Panics, listing every property of `results` the model breaks, saying it does not behave
/// as `kind`.
fn assert_all(results: Vec<Conformance>, kind: &str) {
    let failed: Vec<String> =
        results.into_iter().filter_map(|c| c.result.err().map(|e| format!("{}: {e}", c.property))).collect();
    assert!(failed.is_empty(), "the model does not behave as {kind}:\n{}", failed.join("\n"));
}

/// What a property works with: the client's endpoint, the model and its reader.
pub struct Harness {
    endpoint: Endpoint,
    system: Arc<dyn ExternalSystem>,
    output: Arc<dyn OutputReader>,
}

impl Harness {
    /// How many copies of each record a downstream reader sees now, and the garbage.
    fn visible(&self) -> Result<Vec<Seen>, String> {
        let mut seen = Vec::new();
        for (part, entries) in read_all(&*self.output) {
            for e in entries {
                match e {
                    Entry::Record(s) => seen.push(s),
                    Entry::Garbage(g) => return Err(format!("part {part} holds content that is no record: {g}")),
                }
            }
        }
        Ok(seen)
    }
    fn count(&self, id: u64) -> Result<usize, String> {
        Ok(self.visible()?.iter().filter(|s| s.id == RecordId(id)).count())
    }
    /// Ok when each of `records` is visible exactly once with its content; else what is
    /// wrong, `after` saying what happened before.
    fn each_once(&self, records: &[Record], after: &str) -> Result<(), String> {
        let seen = self.visible()?;
        for r in records {
            let copies: Vec<&Seen> = seen.iter().filter(|s| s.id == r.id).collect();
            match copies.as_slice() {
                [one] if one.digest == r.digest() => {}
                [one] => return Err(format!("{} is visible with other content ({:?}) {after}", r.id, one.digest)),
                many => return Err(format!("{} is visible {} times {after}", r.id, many.len())),
            }
        }
        Ok(())
    }
}

fn run<S>(store: &S, build: Build<S>, check: Property<S>) -> Result<(), String> {
    let rt = madsim::runtime::Runtime::with_seed_and_config(1, madsim::Config::default());
    let history = History::new();
    let gateway = Gateway::new(ChaCha8Rng::seed_from_u64(1), history.clone(), (1, 2));
    let (system, output) = build(store, &history);
    rt.block_on(async move {
        let (g, served, name) = (gateway.clone(), system.clone(), system.name());
        let handle = madsim::runtime::Handle::current();
        let node = handle.create_node().name(name.clone()).build();
        node.spawn(async move {
            let (_ep, inbox) = g.bind(&name);
            served.serve(inbox).await
        });
        madsim::time::sleep(Duration::from_millis(1)).await;
        let h = Harness { endpoint: gateway.bind("conformance").0, system, output };
        let outcome = check(store, &h).await;
        // A dropped runtime keeps its pending tasks: the model's serve loop ends here.
        handle.kill(node.id());
        outcome
    })
}

/// The record with id `id` the properties write: every third has a null key and headers,
/// every fifth is a tombstone, so a model that drops either fails its properties.
fn rec(id: u64) -> Record {
    let plain = Record::new(RecordId(id), id % 7, id as i64, format!("conformance {id}").into_bytes());
    let extras = crate::record::Extras {
        null_key: id.is_multiple_of(3),
        null_value: id.is_multiple_of(5),
        headers: id
            .is_multiple_of(3)
            .then(|| crate::record::Header { key: "h".into(), value: Some(vec![id as u8, 0xff]) })
            .into_iter()
            .collect(),
    };
    match extras.is_empty() {
        true => plain,
        false => Record {
            payload: if extras.null_value { vec![] } else { plain.payload.clone() },
            extras: Some(Box::new(extras)),
            ..plain
        },
    }
}

fn open_write_invisible<'a, S: TransactionalStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.write(&h.endpoint, "t1", vec![rec(1), rec(2)]).await?;
        match h.visible()?.len() {
            0 => Ok(()),
            n => Err(format!("{n} records are visible while their transaction is open")),
        }
    })
}

fn commit_visible_once<'a, S: TransactionalStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.write(&h.endpoint, "t1", vec![rec(1), rec(2)]).await?;
        store.commit(&h.endpoint, "t1").await?;
        let _ = store.commit(&h.endpoint, "t1").await; // may answer "already committed"
        h.each_once(&[rec(1), rec(2)], "after a commit and a repeated one")
    })
}

fn abort_never_visible<'a, S: TransactionalStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.write(&h.endpoint, "t2", vec![rec(3)]).await?;
        let Some(abort) = store.abort(&h.endpoint, "t2") else {
            return Err(format!("{SKIP}the store has no abort"));
        };
        abort.await?;
        let _ = store.commit(&h.endpoint, "t2").await; // must not bring it back
        match h.count(3)? {
            0 => Ok(()),
            n => Err(format!("r3 of an aborted transaction is visible {n} times")),
        }
    })
}

fn crash_loses_only_documented<'a, S: TransactionalStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.write(&h.endpoint, "t1", vec![rec(1)]).await?;
        store.commit(&h.endpoint, "t1").await?;
        store.write(&h.endpoint, "t3", vec![rec(4), rec(5)]).await?;
        h.system.crash();
        if !store.crash_loses_committed() && h.count(1)? != 1 {
            return Err("a committed record is gone after a crash the model says keeps it".into());
        }
        // The open transaction is gone or whole: committed now, both or neither show.
        let _ = store.commit(&h.endpoint, "t3").await;
        match (h.count(4)?, h.count(5)?) {
            (0, 0) | (1, 1) => Ok(()),
            (a, b) => {
                Err(format!("after a crash the open transaction came back in part: r4 visible {a} times, r5 {b}"))
            }
        }
    })
}
