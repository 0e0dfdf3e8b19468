//! External-system models behave like the systems they stand for.

use connsim::history::History;
use connsim::net::{Endpoint, Gateway};
use connsim::systems::{ExternalSystem, FileSystem, FsClient, FsError, FsRequest, FsResponse, LogClient, PartitionedLog};
use connsim::{Record, RecordId};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use std::time::Duration;

fn sim<F: std::future::Future<Output = ()> + 'static>(f: impl FnOnce(Gateway, History) -> F) {
    let rt = madsim::runtime::Runtime::with_seed_and_config(1, madsim::Config::default());
    let history = History::new();
    let gateway = Gateway::new(ChaCha8Rng::seed_from_u64(1), history.clone(), (1, 2));
    rt.block_on(f(gateway, history));
}

async fn host(gw: &Gateway, system: Arc<dyn ExternalSystem>) -> Endpoint {
    let g = gw.clone();
    let name = system.name();
    madsim::runtime::Handle::current().create_node().name(name.clone()).build().spawn(async move {
        let (_ep, inbox) = g.bind(&name);
        system.serve(inbox).await
    });
    madsim::time::sleep(Duration::from_millis(1)).await;
    gw.bind("client").0
}

fn rec(id: u64) -> Record {
    Record { id: RecordId(id), key: 0, event_time_ms: 0, payload: vec![] }
}

#[test]
fn the_file_system_loses_unsynced_bytes_on_crash_sync_reports_it_and_appends_are_idempotent() {
    sim(|gw, history| async move {
        let fs = FileSystem::new("fs", "out/", history);
        let client = FsClient::new(host(&gw, Arc::new(fs.clone())).await, "fs");
        let ok = |r: Result<Result<FsResponse, FsError>, _>| assert!(matches!(r, Ok(Ok(_))), "{r:?}");
        ok(client.request(FsRequest::Create { path: "f".into() }).await);
        ok(client.request(FsRequest::Append { path: "f".into(), at: 0, bytes: b"abc".to_vec() }).await);
        // A retry of the same append succeeds without writing twice; a wrong offset is refused.
        ok(client.request(FsRequest::Append { path: "f".into(), at: 0, bytes: b"abc".to_vec() }).await);
        let wrong = client.request(FsRequest::Append { path: "f".into(), at: 1, bytes: b"x".to_vec() }).await;
        assert!(matches!(wrong, Ok(Err(FsError::WrongOffset { len: 3 }))), "{wrong:?}");
        ok(client.request(FsRequest::Sync { path: "f".into(), len: 3 }).await);
        ok(client.request(FsRequest::Append { path: "f".into(), at: 3, bytes: b"def".to_vec() }).await);
        fs.crash();
        let read = client.request(FsRequest::Read { path: "f".into() }).await;
        assert!(matches!(&read, Ok(Ok(FsResponse::Data(d))) if d == b"abc"), "{read:?}");
        // A writer that syncs what it believes it wrote learns the crash lost bytes.
        let lost = client.request(FsRequest::Sync { path: "f".into(), len: 6 }).await;
        assert!(matches!(lost, Ok(Err(FsError::WrongOffset { len: 3 }))), "{lost:?}");
        // Rename is atomic and refuses an existing target.
        ok(client.request(FsRequest::Create { path: "g".into() }).await);
        let clash = client.request(FsRequest::Rename { from: "g".into(), to: "f".into() }).await;
        assert!(matches!(clash, Ok(Err(FsError::AlreadyExists(_)))), "{clash:?}");
    });
}

#[test]
fn log_transactions_fence_old_epochs_and_read_committed_stops_at_open_transactions() {
    sim(|gw, history| async move {
        let log = PartitionedLog::new("log", history);
        log.create_topic("t", 1);
        let client = LogClient::new(host(&gw, Arc::new(log.clone())).await, "log");
        let old = client.init_transactions("sink-0-1").await.unwrap();
        client.produce("t", 0, vec![rec(1), rec(2)], Some(old.clone()), 0).await.unwrap();
        // A retried batch (same sequence) is not appended twice.
        client.produce("t", 0, vec![rec(1), rec(2)], Some(old.clone()), 0).await.unwrap();
        assert_eq!(client.open_transactions("sink-0-").await.unwrap(), vec![old.clone()]);
        // Uncommitted data is invisible to a read-committed consumer.
        assert_eq!(client.fetch("t", 0, 0, 10).await.unwrap().0.len(), 0);
        // A new epoch fences the old producer and aborts its open transaction.
        let new = client.init_transactions("sink-0-1").await.unwrap();
        assert!(new.epoch > old.epoch);
        assert!(client.produce("t", 0, vec![rec(3)], Some(old.clone()), 1).await.is_err());
        client.produce("t", 0, vec![rec(4)], Some(new.clone()), 0).await.unwrap();
        let commit = |t| connsim::systems::LogRequest::CommitTransaction { txn: t };
        assert!(matches!(client.request(commit(old.clone())).await.unwrap(), connsim::systems::LogResponse::Error(_)));
        assert!(matches!(client.request(commit(new.clone())).await.unwrap(), connsim::systems::LogResponse::Ok));
        assert!(matches!(
            client.request(commit(new.clone())).await.unwrap(),
            connsim::systems::LogResponse::AlreadyCommitted
        ));
        let ids: Vec<u64> = log.read_committed("t").iter().map(|r| r.id.0).collect();
        assert_eq!(ids, vec![4], "the aborted transaction's records never become visible");
    });
}
