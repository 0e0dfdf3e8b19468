//! The staging store's model holds to what a transactional store does, driven through the
//! sink's own client: connsim's conformance properties for transactional stores. A model
//! whose reader shows staged entries (the store misread as read-uncommitted, a mistake the
//! sink and the model could share and every suite would pass) breaks them.

use connsim::history::History;
use connsim::net::Endpoint;
use connsim::systems::conformance::{check_transactional_store, StoreFuture, TransactionalStore};
use connsim::systems::{Entry, ExternalSystem, ModelClient, OutputReader, Part};
use connsim::Record;
use example_connector::event::EventCodec;
use example_connector::sink::encode_event;
use example_connector::store::{Store, StoreRequest, StoreResponse};
use std::sync::Arc;

/// The staging store, driven as the staging sink drives it.
struct Staging {
    /// Its reader shows what is staged too (the misreading).
    reads_staged: bool,
}

async fn call(endpoint: &Endpoint, req: StoreRequest) -> Result<(), String> {
    match ModelClient::new(endpoint.clone(), "store").call(&req).await {
        Ok(StoreResponse::Ok) | Ok(StoreResponse::AlreadyCommitted) => Ok(()),
        other => Err(format!("{req:?}: {other:?}")),
    }
}

impl TransactionalStore for Staging {
    fn build(&self, _history: &History) -> (Arc<dyn ExternalSystem>, Arc<dyn OutputReader>) {
        let store = Store::new("store");
        let output = store.output();
        let output: Arc<dyn OutputReader> =
            if self.reads_staged { Arc::new(ReadsStaged { store: store.clone(), committed: output }) } else { output };
        (Arc::new(store), output)
    }
    fn write<'a>(&'a self, endpoint: &'a Endpoint, txn: &'a str, records: Vec<Record>) -> StoreFuture<'a> {
        let entries = records.iter().map(|r| encode_event(&<EventCodec as connsim::api::ElementCodec>::element(r)));
        Box::pin(call(endpoint, StoreRequest::Stage { txn: txn.into(), entries: entries.collect() }))
    }
    fn commit<'a>(&'a self, endpoint: &'a Endpoint, txn: &'a str) -> StoreFuture<'a> {
        Box::pin(call(endpoint, StoreRequest::Commit { txn: txn.into() }))
    }
}

/// A reader that also lists staged entries: everything the store holds.
struct ReadsStaged {
    store: Store,
    committed: Arc<dyn OutputReader>,
}

impl OutputReader for ReadsStaged {
    fn location(&self) -> String {
        self.committed.location()
    }
    fn parts(&self) -> Vec<Part> {
        vec![Part { name: "everything".into(), version: 0, end: self.store.staged_for_tests().len() as u64 }]
    }
    fn read(&self, _part: &str, from: u64) -> Vec<Entry> {
        let decode = |bytes: &Vec<u8>| {
            let event = example_connector::event::decode_stored(bytes).expect("the sink's own bytes");
            let record = <EventCodec as connsim::api::ElementCodec>::record(&event).expect("an event");
            Entry::record(record.id, record.digest())
        };
        self.store.staged_for_tests().iter().skip(from as usize).map(decode).collect()
    }
}

#[test]
fn the_staging_store_behaves_as_a_transactional_store() {
    let results = check_transactional_store(&Staging { reads_staged: false });
    for c in &results {
        println!(
            "{}: {:?}{}",
            c.property,
            c.result,
            c.skipped.as_deref().map(|s| format!(" ({s})")).unwrap_or_default()
        );
        assert!(c.result.is_ok(), "{}: {:?}", c.property, c.result);
    }
    let skipped: Vec<_> = results.iter().filter_map(|c| c.skipped.as_deref()).collect();
    assert_eq!(skipped, ["the store has no abort"]);
}

#[test]
fn a_store_whose_reader_shows_staged_entries_fails_conformance() {
    let results = check_transactional_store(&Staging { reads_staged: true });
    let open = results.iter().find(|c| c.property.starts_with("a write in an open transaction")).expect("checked");
    assert_eq!(open.result, Err("2 records are visible while their transaction is open".into()));
}
