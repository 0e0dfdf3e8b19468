//! A key-value store's upsert semantics, as a database table with a primary key has them:
//! - an acknowledged upsert is visible at once, with its content;
//! - an upsert replaces its key's value: the old one is no longer visible;
//! - an upsert repeated changes nothing (what makes an at-least-once upsert sink idempotent);
//! - a crash of the store's node keeps every acknowledged upsert.

use super::{assert_all, check_all, rec, Conformance, Harness, Property, StoreFuture};
use crate::history::History;
use crate::net::Endpoint;
use crate::record::Record;
use crate::systems::{ExternalSystem, OutputReader};
use std::sync::Arc;

/// A key-value store, driven through the connector's own client.
pub trait UpsertStore: 'static {
    /// A fresh model (served on its own node), and how a downstream reader reads it.
    fn build(&self, history: &History) -> (Arc<dyn ExternalSystem>, Arc<dyn OutputReader>);
    /// Sets each key to its record (insert or replace), through the client the connector
    /// uses, from `endpoint`; `Ok` once the store acknowledged it.
    fn upsert<'a>(&'a self, endpoint: &'a Endpoint, entries: Vec<(String, Record)>) -> StoreFuture<'a>;
}

/// The properties a key-value store must have, each checked on a fresh model.
pub fn check_upsert_store<S: UpsertStore>(store: &S) -> Vec<Conformance> {
    let props: Vec<(&'static str, Property<S>)> = vec![
        ("an acknowledged upsert is visible at once", visible_at_once),
        ("an upsert replaces its key's value", replaces),
        ("an upsert repeated changes nothing", repeat_changes_nothing),
        ("a crash keeps every acknowledged upsert", crash_keeps_acknowledged),
    ];
    check_all(store, S::build, props)
}

/// Panics, listing every property the store breaks, unless it has them all.
pub fn assert_upsert_store<S: UpsertStore>(store: &S) {
    assert_all(check_upsert_store(store), "a key-value store");
}

fn at(key: &str, id: u64) -> (String, Record) {
    (key.to_string(), rec(id))
}

fn visible_at_once<'a, S: UpsertStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.upsert(&h.endpoint, vec![at("k1", 1), at("k2", 2)]).await?;
        h.each_once(&[rec(1), rec(2)], "after an acknowledged upsert")
    })
}

fn replaces<'a, S: UpsertStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.upsert(&h.endpoint, vec![at("k1", 1), at("k2", 2)]).await?;
        store.upsert(&h.endpoint, vec![at("k1", 3)]).await?;
        match h.count(1)? {
            0 => h.each_once(&[rec(2), rec(3)], "after k1 was replaced"),
            n => Err(format!("k1's old value r1 is still visible {n} times after k1 was set to r3")),
        }
    })
}

fn repeat_changes_nothing<'a, S: UpsertStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.upsert(&h.endpoint, vec![at("k1", 1)]).await?;
        store.upsert(&h.endpoint, vec![at("k1", 1)]).await?;
        h.each_once(&[rec(1)], "after the same upsert twice")
    })
}

fn crash_keeps_acknowledged<'a, S: UpsertStore>(store: &'a S, h: &'a Harness) -> StoreFuture<'a> {
    Box::pin(async move {
        store.upsert(&h.endpoint, vec![at("k1", 1), at("k2", 2)]).await?;
        h.system.crash();
        h.each_once(&[rec(1), rec(2)], "after a crash of the store")
    })
}
