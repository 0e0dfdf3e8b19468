//! External-system models behave like the systems they stand for.

use connsim::history::History;
use connsim::history::{EventKind, FaultKind};
use connsim::net::{Endpoint, Gateway};
use connsim::record::Seen;
use connsim::systems::{
    read_all, Entry, ExternalSystem, FileSystem, FsClient, FsError, FsRequest, FsResponse, LogClient, LogEntry,
    LogError, LogFormat, LogHeader, LogRequest, LogResponse, OutOfRange, OutputReader, PartitionedLog, RecordLogFormat,
    Setting, SettingEnv,
};
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
    Record { id: RecordId(id), key: 0, event_time_ms: 0, payload: vec![], extras: None }
}

/// `rec(id)` as a producer serializes it.
fn ent(id: u64) -> LogEntry {
    RecordLogFormat::encode(&rec(id))
}

/// The record id of a log entry written by [`ent`] or [`PartitionedLog::append`].
fn id_of(entry: &LogEntry) -> u64 {
    RecordLogFormat::decode(entry).expect("a record").id.0
}

#[test]
fn the_file_system_loses_unsynced_bytes_on_crash_sync_reports_it_and_appends_are_idempotent() {
    sim(|gw, history| async move {
        let _ = history;
        let fs = FileSystem::new("fs", "out/");
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
        client.produce("t", 0, vec![ent(1), ent(2)], Some(old.clone()), 0).await.unwrap();
        // A retried batch (same sequence) is not appended twice.
        client.produce("t", 0, vec![ent(1), ent(2)], Some(old.clone()), 0).await.unwrap();
        assert_eq!(client.open_transactions("sink-0-").await.unwrap(), vec![old.clone()]);
        // Uncommitted data is invisible to a read-committed consumer.
        assert_eq!(client.fetch("t", 0, 0, 10).await.unwrap().0.len(), 0);
        // A new epoch fences the old producer and aborts its open transaction.
        let new = client.init_transactions("sink-0-1").await.unwrap();
        assert!(new.epoch > old.epoch);
        assert!(client.produce("t", 0, vec![ent(3)], Some(old.clone()), 1).await.is_err());
        client.produce("t", 0, vec![ent(4)], Some(new.clone()), 0).await.unwrap();
        let commit = |t| connsim::systems::LogRequest::CommitTransaction { txn: t };
        assert!(matches!(client.request(commit(old.clone())).await.unwrap(), connsim::systems::LogResponse::Error(_)));
        assert!(matches!(client.request(commit(new.clone())).await.unwrap(), connsim::systems::LogResponse::Ok));
        assert!(matches!(
            client.request(commit(new.clone())).await.unwrap(),
            connsim::systems::LogResponse::AlreadyCommitted
        ));
        let ids: Vec<u64> = log.read_committed("t").iter().map(id_of).collect();
        assert_eq!(ids, vec![4], "the aborted transaction's records never become visible");
    });
}

fn ids(output: &dyn OutputReader) -> Vec<u64> {
    read_all(output)
        .into_iter()
        .flat_map(|(_, entries)| entries)
        .filter_map(|e| match e {
            Entry::Record(s) => Some(s.id.0),
            Entry::Garbage(_) => None,
        })
        .collect()
}

#[test]
fn a_read_committed_output_stops_each_partition_at_its_last_stable_offset() {
    sim(|gw, history| async move {
        let log = PartitionedLog::new("log", history);
        log.create_topic("t", 2);
        let client = LogClient::new(host(&gw, Arc::new(log.clone())).await, "log");
        let open = client.init_transactions("a").await.unwrap();
        let done = client.init_transactions("b").await.unwrap();
        client.produce("t", 0, vec![ent(1)], Some(open.clone()), 0).await.unwrap();
        client.produce("t", 0, vec![ent(2)], Some(done.clone()), 0).await.unwrap();
        client.produce("t", 1, vec![ent(3)], None, 0).await.unwrap();
        let commit = connsim::systems::LogRequest::CommitTransaction { txn: done };
        client.request(commit).await.unwrap();
        let output = log.output("t");
        // Record 2 is committed, but behind record 1's open transaction: a read-committed
        // consumer of partition 0 stops before it.
        assert_eq!(ids(&*output), vec![3]);
        assert_eq!(output.parts().iter().map(|p| p.end).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(client.fetch("t", 0, 0, 10).await.unwrap().0.len(), 0, "the connector-facing fetch agrees");
        client.init_transactions("a").await.unwrap(); // fencing aborts the open transaction
        assert_eq!(ids(&*output), vec![2, 3]);
    });
}

#[test]
fn a_file_output_shows_visible_files_with_the_bytes_they_hold_now() {
    let fs = FileSystem::new("fs", "out/");
    let line = |id| rec(id).encode_line();
    fs.put("out/a", [line(1), line(2)].concat());
    fs.put("out/.hidden", line(3));
    fs.put("tmp/b", line(4));
    fs.put("out/torn", [line(5), line(6)[..4].to_vec()].concat());
    let output = fs.output();
    assert_eq!(ids(&*output), vec![1, 2, 5], "hidden files and files outside the directory are invisible");
    let all = read_all(&*output);
    let torn: Vec<&Entry> = all.iter().filter(|(p, _)| p == "out/torn").flat_map(|(_, e)| e).collect();
    assert!(matches!(torn[1], Entry::Garbage(g) if g.contains("no newline")), "{torn:?}");
    let digests: Vec<Entry> = all[0].1.clone();
    assert_eq!(digests[0], Entry::record(RecordId(1), rec(1).digest()), "content digests, not only ids");
}

#[test]
fn a_log_with_a_transaction_timeout_aborts_and_fences_a_transaction_open_too_long() {
    sim(|gw, history| async move {
        let log = PartitionedLog::new("log", history.clone());
        log.create_topic("t", 1);
        let env = SettingEnv { seed: 0, history: history.clone() };
        log.configure(&Setting::TransactionTimeoutMs(Some(100)), &env).unwrap();
        let client = LogClient::new(host(&gw, Arc::new(log.clone())).await, "log");
        let quick = client.init_transactions("quick").await.unwrap();
        let slow = client.init_transactions("slow").await.unwrap();
        client.produce("t", 0, vec![ent(1)], Some(quick.clone()), 0).await.unwrap();
        client.produce("t", 0, vec![ent(2)], Some(slow.clone()), 0).await.unwrap();
        madsim::time::sleep(Duration::from_millis(50)).await;
        assert!(matches!(client.request(LogRequest::CommitTransaction { txn: quick }).await.unwrap(), LogResponse::Ok));
        // An empty transaction has no timer: it is not aborted however long it waits.
        let idle = client.init_transactions("idle").await.unwrap();
        madsim::time::sleep(Duration::from_millis(100)).await;
        let late = client.request(LogRequest::CommitTransaction { txn: slow.clone() }).await.unwrap();
        assert!(matches!(late, LogResponse::Error(LogError::NotCommittable)), "{late:?}");
        // The timed-out producer's epoch is fenced.
        let fenced = client.request(LogRequest::AbortTransaction { txn: slow }).await.unwrap();
        assert!(matches!(fenced, LogResponse::Error(LogError::Fenced)), "{fenced:?}");
        assert!(matches!(client.request(LogRequest::CommitTransaction { txn: idle }).await.unwrap(), LogResponse::Ok));
        let ids: Vec<u64> = log.read_committed("t").iter().map(id_of).collect();
        assert_eq!(ids, vec![1], "the timed-out transaction's record is aborted");
        let timeouts = history
            .events()
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::Fault { fault: FaultKind::TxnTimeout, .. }))
            .count();
        assert_eq!(timeouts, 1);
        // Another system's setting is refused with a message naming it.
        let refused = log.configure(&Setting::TornAppends(0.5), &env).unwrap_err();
        assert!(refused.contains("TornAppends"), "{refused}");
    });
}

#[test]
fn a_torn_append_writes_a_prefix_and_goes_unanswered_and_its_retry_is_refused() {
    sim(|gw, history| async move {
        let fs = FileSystem::new("fs", "out/");
        let env = SettingEnv { seed: 7, history: history.clone() };
        fs.configure(&Setting::TornAppends(1.0), &env).unwrap();
        let client = FsClient::new(host(&gw, Arc::new(fs.clone())).await, "fs");
        assert!(matches!(client.request(FsRequest::Create { path: "f".into() }).await, Ok(Ok(_))));
        let append = FsRequest::Append { path: "f".into(), at: 0, bytes: b"abcdef".to_vec() };
        assert!(client.request(append.clone()).await.is_err(), "a torn append is not answered");
        let torn = fs.read_file("f").unwrap();
        assert!(!torn.is_empty() && torn.len() < 6 && b"abcdef".starts_with(&torn), "a prefix: {torn:?}");
        // The retry finds a file that is neither before nor after the append.
        fs.configure(&Setting::TornAppends(0.0), &env).unwrap();
        let retry = client.request(append).await;
        assert!(matches!(retry, Ok(Err(FsError::WrongOffset { len })) if len == torn.len() as u64), "{retry:?}");
        assert!(history
            .events()
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Fault { fault: FaultKind::TornAppend, .. })));
        assert!(fs.configure(&Setting::TornAppends(1.5), &env).is_err(), "a probability above 1 is refused");
    });
}

#[test]
fn a_log_with_retention_deletes_old_input_and_answers_a_fetch_below_its_start_out_of_range() {
    sim(|gw, history| async move {
        let log = PartitionedLog::new("log", history.clone());
        log.create_topic("in", 1);
        log.create_topic("out", 1);
        let _output = log.output("out");
        log.append("in", 0, vec![rec(1), rec(2)]);
        log.append("out", 0, vec![rec(10)]);
        let env = SettingEnv { seed: 0, history: history.clone() };
        log.configure(&Setting::RetentionMs(Some(100)), &env).unwrap();
        let client = LogClient::new(host(&gw, Arc::new(log.clone())).await, "log");
        madsim::time::sleep(Duration::from_millis(60)).await;
        log.append("in", 0, vec![rec(3)]);
        // Nothing is older than the retention yet.
        assert_eq!(client.fetch_retained("in", 0, 0, 0).await.unwrap().unwrap().1, 0);
        madsim::time::sleep(Duration::from_millis(60)).await;
        // The first two entries are past the retention; the third is not.
        let gone = client.fetch_retained("in", 0, 1, 10).await.unwrap();
        assert_eq!(gone, Err(OutOfRange { log_start: 2 }), "below the log start");
        let kept = client.fetch_retained("in", 0, 2, 10).await.unwrap().unwrap();
        assert_eq!(kept.0.iter().map(|(o, e)| (*o, id_of(e))).collect::<Vec<_>>(), vec![(2, 3)]);
        let plain = client.fetch("in", 0, 0, 10).await.unwrap_err();
        assert!(plain.message.contains("seek to the log start 2"), "says what to do: {plain}");
        let lost: Vec<_> = history
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::OutOfRange { split, offset, start, .. } => Some((split.clone(), *offset, *start)),
                _ => None,
            })
            .collect();
        assert_eq!(lost, vec![("in-0".to_string(), 1, 2), ("in-0".to_string(), 0, 2)]);
        // A topic read as output keeps everything.
        assert_eq!(log.read_committed("out").len(), 1);
        assert_eq!(log.read_committed("in").iter().map(id_of).collect::<Vec<_>>(), vec![3]);
    });
}

#[test]
fn the_log_recognises_a_retry_of_its_last_five_batches_only() {
    sim(|gw, history| async move {
        let log = PartitionedLog::new("log", history.clone());
        log.create_topic("t", 1);
        let client = LogClient::new(host(&gw, Arc::new(log.clone())).await, "log");
        let txn = client.init_transactions("w").await.unwrap();
        for seq in 0..7 {
            client.produce("t", 0, vec![ent(seq)], Some(txn.clone()), seq).await.unwrap();
        }
        // Batches 2..=6 are remembered: a retry is acknowledged and not appended again.
        client.produce("t", 0, vec![ent(2)], Some(txn.clone()), 2).await.unwrap();
        client.produce("t", 0, vec![ent(6)], Some(txn.clone()), 6).await.unwrap();
        // Batch 1 is too old to be recognised, and 8 skips 7: both are out of order.
        for seq in [1, 8] {
            let refused = client.request(LogRequest::Produce {
                topic: "t".into(),
                partition: 0,
                entries: vec![ent(seq)],
                txn: Some(txn.clone()),
                sequence: seq,
            });
            let refused = refused.await.unwrap();
            assert!(matches!(refused, LogResponse::Error(LogError::OutOfOrderSequence)), "{seq}: {refused:?}");
        }
        assert!(matches!(client.request(LogRequest::CommitTransaction { txn }).await.unwrap(), LogResponse::Ok));
        let ids: Vec<u64> = log.read_committed("t").iter().map(id_of).collect();
        assert_eq!(ids, (0..7).collect::<Vec<_>>(), "each batch once");
        let faults: Vec<FaultKind> = history
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Fault { fault, .. } => Some(fault.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(
            faults,
            [
                FaultKind::DuplicateSequence,
                FaultKind::DuplicateSequence,
                FaultKind::StaleSequence,
                FaultKind::OutOfOrderSequence
            ]
        );
    });
}

#[test]
fn a_produce_to_a_partition_that_does_not_exist_is_refused_before_its_sequence_counts() {
    sim(|gw, history| async move {
        let log = PartitionedLog::new("log", history.clone());
        log.create_topic("t", 1);
        let client = LogClient::new(host(&gw, Arc::new(log.clone())).await, "log");
        let txn = client.init_transactions("w").await.unwrap();
        let wrong = LogRequest::Produce {
            topic: "t".into(),
            partition: 3,
            entries: vec![ent(0)],
            txn: Some(txn.clone()),
            sequence: 0,
        };
        let refused = client.request(wrong).await.unwrap();
        assert!(matches!(refused, LogResponse::Error(LogError::UnknownPartition)), "{refused:?}");
        // Sequence 0 is still the next one: the refused batch did not take it.
        client.produce("t", 0, vec![ent(0)], Some(txn.clone()), 0).await.unwrap();
        assert_eq!(log.end_offset("t", 0), 1);
    });
}

#[test]
fn appending_many_records_at_once_is_appending_them_one_by_one() {
    // Partitions in an interleaved order, with records already there in one of them; 7 ms
    // into a run, so the events carry a time.
    let order = [2u32, 0, 2, 1, 2, 0, 1];
    let build = |at_once: bool| {
        let rt = madsim::runtime::Runtime::with_seed_and_config(1, madsim::Config::default());
        rt.block_on(async move {
            let history = History::new();
            let log = PartitionedLog::new("log", history.clone());
            log.create_topic("t", 3);
            log.append("t", 1, vec![rec(100)]);
            madsim::time::sleep(Duration::from_millis(7)).await;
            let records: Vec<(u32, Record)> = order.iter().enumerate().map(|(i, p)| (*p, rec(i as u64))).collect();
            match at_once {
                true => log.append_each("t", records),
                false => records.into_iter().for_each(|(p, r)| log.append("t", p, vec![r])),
            }
            let ids: Vec<u64> = log.read_committed("t").iter().map(id_of).collect();
            let ends: Vec<u64> = (0..3).map(|p| log.end_offset("t", p)).collect();
            (history.events(), (ids, ends), log.output("t").version(), history.produced())
        })
    };
    let (one_by_one, at_once) = (build(false), build(true));
    assert_eq!(connsim::history::hash(&at_once.0), connsim::history::hash(&one_by_one.0));
    assert_eq!(at_once.0.len(), 1 + order.len());
    assert!(at_once.0[1..].iter().all(|e| e.t_us >= 7_000), "stamped with the run's time: {:?}", at_once.0);
    assert_eq!(at_once.1, one_by_one.1);
    assert_eq!(at_once.1 .0, vec![1, 5, 100, 3, 6, 0, 2, 4], "partition by partition, in order");
    assert_eq!(at_once.1 .1, vec![2, 3, 3]);
    assert_eq!(at_once.2, one_by_one.2, "the same number of changes");
    assert_eq!((at_once.3, one_by_one.3), (1 + order.len(), 1 + order.len()), "every record counted as produced");
}

#[test]
fn appending_to_a_partition_that_does_not_exist_says_so_and_leaves_the_history_usable() {
    let history = History::new();
    let log = PartitionedLog::new("log", history.clone());
    log.create_topic("t", 2);
    let attempt = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        log.append_each("t", vec![(0, rec(1)), (5, rec(2))]);
    }));
    let message = attempt.expect_err("partition 5 of 2").downcast::<String>().expect("a formatted message");
    assert!(message.contains("topic t has 2 partitions, no partition 5"), "{message}");
    assert_eq!(history.take().len(), 0, "nothing recorded, and the history is not poisoned");
    assert_eq!(log.end_offset("t", 0), 0, "nothing appended");
}

/// The transactional log, driven as a transactional sink drives it: a transaction per name,
/// its producer initialised on the first write.
struct TxnLog {
    producers: std::sync::Mutex<std::collections::BTreeMap<String, (connsim::systems::TxnHandle, u64)>>,
}

impl connsim::systems::conformance::TransactionalStore for TxnLog {
    fn build(&self, history: &History) -> (Arc<dyn ExternalSystem>, Arc<dyn OutputReader>) {
        self.producers.lock().unwrap().clear(); // a fresh log knows no producer
        let log = PartitionedLog::new("log", history.clone());
        log.create_topic("out", 1);
        let output = log.output("out");
        (Arc::new(log), output)
    }
    fn write<'a>(
        &'a self,
        endpoint: &'a Endpoint,
        txn: &'a str,
        records: Vec<Record>,
    ) -> connsim::systems::conformance::StoreFuture<'a> {
        Box::pin(async move {
            let client = LogClient::new(endpoint.clone(), "log");
            let known = self.producers.lock().unwrap().get(txn).cloned();
            let (handle, seq) = match known {
                Some(p) => p,
                None => (client.init_transactions(txn).await.map_err(|e| e.to_string())?, 0),
            };
            client
                .produce("out", 0, records.iter().map(RecordLogFormat::encode).collect(), Some(handle.clone()), seq)
                .await
                .map_err(|e| e.to_string())?;
            self.producers.lock().unwrap().insert(txn.to_string(), (handle, seq + 1));
            Ok(())
        })
    }
    fn commit<'a>(&'a self, endpoint: &'a Endpoint, txn: &'a str) -> connsim::systems::conformance::StoreFuture<'a> {
        self.end(endpoint, txn, true)
    }
    fn abort<'a>(
        &'a self,
        endpoint: &'a Endpoint,
        txn: &'a str,
    ) -> Option<connsim::systems::conformance::StoreFuture<'a>> {
        Some(self.end(endpoint, txn, false))
    }
}

impl TxnLog {
    fn end<'a>(
        &'a self,
        endpoint: &'a Endpoint,
        txn: &'a str,
        commit: bool,
    ) -> connsim::systems::conformance::StoreFuture<'a> {
        Box::pin(async move {
            let Some((handle, _)) = self.producers.lock().unwrap().get(txn).cloned() else {
                return Err(format!("no transaction {txn}"));
            };
            let req = match commit {
                true => LogRequest::CommitTransaction { txn: handle },
                false => LogRequest::AbortTransaction { txn: handle },
            };
            match LogClient::new(endpoint.clone(), "log").request(req).await {
                Ok(LogResponse::Ok | LogResponse::AlreadyCommitted) => Ok(()),
                other => Err(format!("{other:?}")),
            }
        })
    }
}

#[test]
fn the_transactional_log_holds_to_the_transactional_store_conformance_properties() {
    let log = TxnLog { producers: Default::default() };
    for c in connsim::systems::conformance::check_transactional_store(&log) {
        assert!(c.result.is_ok() && c.skipped.is_none(), "{}: {:?} {:?}", c.property, c.result, c.skipped);
    }
}

/// A log layout of its own: the key as decimal text, the payload as the value, the record id
/// in a `record-id` header.
struct HeaderLayout;

impl LogFormat for HeaderLayout {
    fn entry(&self, r: &Record) -> LogEntry {
        let id = LogHeader { key: "record-id".into(), value: Some(r.id.0.to_string().into_bytes()) };
        LogEntry {
            key: Some(r.key.to_string().into_bytes()),
            value: Some(r.payload.clone()),
            headers: vec![id],
            timestamp_ms: r.event_time_ms,
        }
    }
    fn seen(&self, e: &LogEntry) -> Result<Seen, String> {
        let text = |b: &Option<Vec<u8>>| b.as_deref().and_then(|b| std::str::from_utf8(b).ok()?.parse::<u64>().ok());
        let id = e.headers.iter().find(|h| h.key == "record-id").and_then(|h| text(&h.value)).ok_or("no record-id")?;
        let r = Record {
            id: RecordId(id),
            key: text(&e.key).ok_or("no key")?,
            event_time_ms: e.timestamp_ms,
            payload: e.value.clone().unwrap_or_default(),
            extras: None,
        };
        Ok(Seen::of(&r))
    }
}

#[test]
fn a_topic_of_its_own_format_is_written_by_producers_and_read_back_in_it() {
    let log = PartitionedLog::new("log", History::new());
    // The output is taken before the topic declares its format: it decodes by the format
    // the topic has when it is read.
    let output = log.output("t");
    log.create_topic_with("t", 2, Arc::new(HeaderLayout));
    let r = |id: u64| Record {
        id: RecordId(id),
        key: id * 10,
        event_time_ms: id as i64,
        payload: vec![id as u8],
        extras: None,
    };
    log.append("t", 0, vec![r(1), r(2)]);
    log.append_each("t", vec![(1, r(3))]);
    let stored = log.read_committed("t");
    assert_eq!(stored.len(), 3);
    assert!(stored.iter().all(|e| e.headers.len() == 1 && e.headers[0].key == "record-id"), "{stored:?}");
    assert!(stored.iter().all(|e| RecordLogFormat::decode(e).is_err()), "stored in the topic's layout, not connsim's");
    let seen: Vec<Seen> = read_all(&*output)
        .into_iter()
        .flat_map(|(_, entries)| entries)
        .map(|e| match e {
            Entry::Record(s) => s,
            Entry::Garbage(g) => panic!("{g}"),
        })
        .collect();
    assert_eq!(seen, vec![Seen::of(&r(1)), Seen::of(&r(2)), Seen::of(&r(3))]);
}
