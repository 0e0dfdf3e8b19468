//! The simulated broker's Kafka semantics, each test naming the protocol rule it checks and
//! failing if the rule breaks. Clients are connsim-rdkafka's, as a connector uses them.

use connsim::history::{EventKind, History};
use connsim::net::{Endpoint, Gateway};
use connsim::systems::{
    ExternalSystem, KafkaCode, KafkaRequest, KafkaResponse, PartitionedLog, ProducerIdentity, Setting, SettingEnv,
    TxnProtocol,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::types::RDKafkaConfRes;
use rdkafka::{Message, Offset, TopicPartitionList};
use std::time::Duration;

extern crate connsim_rdkafka as rdkafka;

const T: Duration = Duration::from_millis(500);

/// Runs `f` as connector code beside a log named "kafka" with topic `t` of two partitions.
fn sim<F: std::future::Future<Output = ()> + 'static>(
    protocol: TxnProtocol,
    f: impl FnOnce(PartitionedLog, History, Endpoint) -> F,
) {
    let rt = madsim::runtime::Runtime::with_seed_and_config(1, madsim::Config::default());
    let history = History::new();
    let gw = Gateway::new(ChaCha8Rng::seed_from_u64(1), history.clone(), (1, 2));
    rt.block_on(async move {
        let log = PartitionedLog::new("kafka", history.clone());
        log.create_topic("t", 2);
        let env = SettingEnv { seed: 0, history: history.clone() };
        log.configure(&Setting::TransactionProtocol(protocol), &env).unwrap();
        let (g, system) = (gw.clone(), log.clone());
        madsim::runtime::Handle::current().create_node().name("kafka").build().spawn(async move {
            let (_ep, inbox) = g.bind("kafka");
            system.serve(inbox).await
        });
        madsim::time::sleep(Duration::from_millis(1)).await;
        let client = gw.bind("client").0;
        connsim::net::ambient::scope(client.clone(), f(log, history, client)).await
    });
}

fn config(pairs: &[(&str, &str)]) -> ClientConfig {
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", "kafka:9092");
    for (k, v) in pairs {
        c.set(*k, *v);
    }
    c
}

fn transactional(id: &str) -> FutureProducer {
    config(&[("transactional.id", id)]).create().unwrap()
}

async fn send(p: &FutureProducer, partition: i32, payload: &str) -> Result<i64, KafkaError> {
    let record = FutureRecord::<str, str>::to("t").partition(partition).payload(payload);
    p.send(record, T).await.map(|d| d.offset).map_err(|(e, _)| e)
}

async fn raw(client: &Endpoint, req: KafkaRequest) -> KafkaResponse {
    client.call("kafka", req.kind(), &req, T).await.unwrap()
}

/// Payloads a consumer reads from partition `p` of `t`, from the beginning.
async fn read(isolation: &str, p: i32) -> Vec<String> {
    let c: BaseConsumer = config(&[("isolation.level", isolation)]).create().unwrap();
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset("t", p, Offset::Beginning).unwrap();
    c.assign(&tpl).unwrap();
    let mut out = Vec::new();
    while let Some(m) = c.poll(Duration::from_millis(30)).await {
        out.push(m.unwrap().payload_view::<str>().unwrap().unwrap().to_string());
    }
    out
}

fn fenced(r: Result<(), KafkaError>) -> bool {
    matches!(&r, Err(KafkaError::Transaction(e)) if e.code() == RDKafkaErrorCode::ProducerFenced && e.is_fatal())
}

#[test]
fn kip98_a_commit_of_an_epoch_a_later_init_producer_id_fenced_is_producer_fenced() {
    sim(TxnProtocol::Classic, |_log, _h, client| async move {
        let old = transactional("sink-0");
        old.init_transactions(T).await.unwrap();
        old.begin_transaction().unwrap();
        send(&old, 0, "a").await.unwrap();
        // A newer producer of the id fences the old one and aborts its transaction.
        let new = transactional("sink-0");
        new.init_transactions(T).await.unwrap();
        assert!(fenced(old.commit_transaction(T).await), "the fenced producer's commit");
        assert!(read("read_committed", 0).await.is_empty(), "its transaction was aborted");
        // At the broker: EndTxn of a committed epoch after a later InitProducerId.
        let id = "sink-1";
        let init = KafkaRequest::InitProducerId { transactional_id: Some(id.into()), transaction_timeout_ms: 60_000 };
        let KafkaResponse::Producer(p) = raw(&client, init.clone()).await else { panic!() };
        let entry =
            connsim::systems::LogEntry { key: None, value: Some(b"x".to_vec()), headers: vec![], timestamp_ms: 0 };
        let produce = KafkaRequest::Produce {
            topic: "t".into(),
            partition: 1,
            entries: vec![entry],
            producer: Some(p),
            base_sequence: 0,
            transactional_id: Some(id.into()),
            acks: connsim::systems::Acks::All,
        };
        assert!(matches!(raw(&client, produce).await, KafkaResponse::Produced { .. }));
        let end = KafkaRequest::EndTxn { transactional_id: id.into(), producer: p, commit: true };
        assert_eq!(raw(&client, end.clone()).await, KafkaResponse::Producer(p));
        assert_eq!(raw(&client, end.clone()).await, KafkaResponse::Producer(p), "a retried EndTxn is answered");
        raw(&client, init).await;
        assert_eq!(raw(&client, end).await, KafkaResponse::Error(KafkaCode::ProducerFenced), "after a fence");
    });
}

#[test]
fn kip98_idempotence_sequences_are_counted_per_partition_with_a_five_batch_window() {
    sim(TxnProtocol::Classic, |log, history, client| async move {
        // The idempotent client numbers each partition from 0: interleaving partitions works.
        let p: FutureProducer = config(&[("enable.idempotence", "true")]).create().unwrap();
        for (i, part) in [0, 1, 0, 1, 1].into_iter().enumerate() {
            send(&p, part, &format!("m{i}")).await.unwrap();
        }
        assert_eq!(log.end_offset("t", 0) + log.end_offset("t", 1), 5);
        // At the broker: a producer id's sequences are per partition.
        let init = KafkaRequest::InitProducerId { transactional_id: None, transaction_timeout_ms: 0 };
        let KafkaResponse::Producer(pid) = raw(&client, init).await else { panic!() };
        let produce = |partition, seq: i64| KafkaRequest::Produce {
            topic: "t".into(),
            partition,
            entries: vec![connsim::systems::LogEntry {
                key: None,
                value: Some(vec![seq as u8]),
                headers: vec![],
                timestamp_ms: 0,
            }],
            producer: Some(pid),
            base_sequence: seq,
            transactional_id: None,
            acks: connsim::systems::Acks::All,
        };
        for seq in 0..7 {
            assert!(matches!(raw(&client, produce(0, seq)).await, KafkaResponse::Produced { .. }));
        }
        assert!(matches!(raw(&client, produce(1, 0)).await, KafkaResponse::Produced { .. }), "partition 1 starts at 0");
        let end = log.end_offset("t", 0);
        // A retry of one of the last five batches is answered with its offset, not appended.
        let KafkaResponse::Produced { base_offset } = raw(&client, produce(0, 3)).await else { panic!() };
        assert_eq!(base_offset, end - 4);
        assert_eq!(log.end_offset("t", 0), end);
        // Older than five batches, or a gap: OUT_OF_ORDER_SEQUENCE_NUMBER.
        assert_eq!(raw(&client, produce(0, 1)).await, KafkaResponse::Error(KafkaCode::OutOfOrderSequenceNumber));
        assert_eq!(raw(&client, produce(1, 2)).await, KafkaResponse::Error(KafkaCode::OutOfOrderSequenceNumber));
        let faults: Vec<String> = history
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Fault { fault, .. } => Some(fault.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(faults, ["duplicate-sequence", "stale-sequence", "out-of-order-sequence"]);
    });
}

#[test]
fn kip98_the_coordinator_aborts_a_transaction_at_its_timeout_without_any_request() {
    sim(TxnProtocol::Classic, |log, history, _client| async move {
        let p: FutureProducer =
            config(&[("transactional.id", "slow"), ("transaction.timeout.ms", "100")]).create().unwrap();
        p.init_transactions(T).await.unwrap();
        p.begin_transaction().unwrap();
        send(&p, 0, "a").await.unwrap();
        let opened = connsim::net::now();
        let output = log.output("t");
        assert_eq!(output.parts()[0].end, 0, "an open transaction pins the last stable offset");
        // Nobody calls the broker: its own timer aborts the transaction at the deadline.
        madsim::time::sleep(Duration::from_millis(150)).await;
        let timeouts: Vec<_> = history
            .events()
            .into_iter()
            .filter(|e| matches!(&e.kind, EventKind::Fault { fault, .. } if fault == "txn-timeout"))
            .collect();
        assert_eq!(timeouts.len(), 1);
        let at = timeouts[0].t_us / 1000;
        let due = opened.as_millis() as u64 + 100;
        assert!((due.saturating_sub(2)..=due + 2).contains(&at), "aborted at {at} ms, due at {due} ms");
        assert_eq!(output.parts()[0].end, 1, "the last stable offset moved past the aborted entry");
        assert!(fenced(p.commit_transaction(T).await), "the coordinator bumped the epoch");
    });
}

#[test]
fn kip98_read_committed_stops_at_the_last_stable_offset_and_skips_aborted_entries() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let a = transactional("a");
        a.init_transactions(T).await.unwrap();
        a.begin_transaction().unwrap();
        send(&a, 0, "open").await.unwrap();
        let plain: FutureProducer = config(&[]).create().unwrap();
        send(&plain, 0, "after").await.unwrap();
        assert!(read("read_committed", 0).await.is_empty(), "stops at the open transaction");
        assert_eq!(read("read_uncommitted", 0).await, ["open", "after"]);
        a.abort_transaction(T).await.unwrap();
        assert_eq!(read("read_committed", 0).await, ["after"], "the aborted entry is skipped");
        assert_eq!(read("read_uncommitted", 0).await, ["open", "after"], "read_uncommitted sees it");
        a.begin_transaction().unwrap();
        send(&a, 0, "again").await.unwrap();
        a.commit_transaction(T).await.unwrap();
        assert_eq!(read("read_committed", 0).await, ["after", "again"]);
    });
}

#[test]
fn kafka_groups_keep_committed_offsets_and_transactions_commit_them_atomically() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let plain: FutureProducer = config(&[]).create().unwrap();
        for m in ["a", "b", "c"] {
            send(&plain, 1, m).await.unwrap();
        }
        let consumer = |reset: &str| -> BaseConsumer {
            let c: BaseConsumer =
                config(&[("group.id", "g"), ("enable.auto.commit", "false"), ("auto.offset.reset", reset)])
                    .create()
                    .unwrap();
            let mut tpl = TopicPartitionList::new();
            tpl.add_partition_offset("t", 1, Offset::Stored).unwrap();
            c.assign(&tpl).unwrap();
            c
        };
        // No committed offset: auto.offset.reset decides, `error` raising.
        let latest = consumer("latest");
        assert!(latest.poll(Duration::from_millis(30)).await.is_none());
        let first = consumer("earliest").poll(T).await.unwrap().unwrap().detach();
        assert_eq!(first.payload(), Some(&b"a"[..]));
        let strict = consumer("error");
        let strict = strict.poll(T).await.unwrap().map(|m| m.detach());
        assert!(matches!(strict, Err(KafkaError::MessageConsumption(RDKafkaErrorCode::OffsetOutOfRange))));
        // A committed offset is where a consumer of the group starts.
        let c = consumer("earliest");
        let mut at = TopicPartitionList::new();
        at.add_partition_offset("t", 1, Offset::Offset(2)).unwrap();
        c.commit(&at, CommitMode::Sync).await.unwrap();
        assert_eq!(c.committed(T).await.unwrap().find_partition("t", 1).unwrap().offset(), Offset::Offset(2));
        let m = consumer("earliest").poll(T).await.unwrap().unwrap().detach();
        assert_eq!(m.payload(), Some(&b"c"[..]));
        // send_offsets_to_transaction: the offsets commit with the transaction, or not at all.
        let cgm = c.group_metadata().unwrap();
        let p = transactional("offsets");
        p.init_transactions(T).await.unwrap();
        for (offset, commit) in [(1, false), (3, true)] {
            p.begin_transaction().unwrap();
            let mut tpl = TopicPartitionList::new();
            tpl.add_partition_offset("t", 1, Offset::Offset(offset)).unwrap();
            p.send_offsets_to_transaction(&tpl, &cgm, T).await.unwrap();
            match commit {
                true => p.commit_transaction(T).await.unwrap(),
                false => p.abort_transaction(T).await.unwrap(),
            }
            let expected = if commit { 3 } else { 2 };
            assert_eq!(
                c.committed(T).await.unwrap().find_partition("t", 1).unwrap().offset(),
                Offset::Offset(expected)
            );
        }
    });
}

#[test]
fn kafka_acks_1_loses_unreplicated_records_on_a_leader_crash_only_under_its_fault() {
    for (acks, fault, kept) in [("1", true, 0), ("1", false, 1), ("all", true, 1)] {
        sim(TxnProtocol::Classic, move |log, history, _client| async move {
            let env = SettingEnv { seed: 0, history };
            log.configure(&Setting::LoseUnreplicatedOnCrash(fault), &env).unwrap();
            let p: FutureProducer = config(&[("acks", acks)]).create().unwrap();
            assert_eq!(send(&p, 0, "acked").await.unwrap(), 0, "acknowledged at offset 0");
            log.crash(); // before followers copied it
            madsim::time::sleep(Duration::from_millis(20)).await;
            assert_eq!(log.end_offset("t", 0), kept, "acks={acks}, fault {fault}");
        });
    }
}

#[test]
fn kip890_ends_the_epoch_with_the_transaction_and_classic_brokers_do_not() {
    for protocol in [TxnProtocol::Classic, TxnProtocol::Kip890] {
        sim(protocol, move |_log, _h, client| async move {
            let init =
                KafkaRequest::InitProducerId { transactional_id: Some("x".into()), transaction_timeout_ms: 60_000 };
            let KafkaResponse::Producer(p) = raw(&client, init).await else { panic!() };
            let produce = |seq: i64, producer: ProducerIdentity| KafkaRequest::Produce {
                topic: "t".into(),
                partition: 0,
                entries: vec![connsim::systems::LogEntry {
                    key: None,
                    value: Some(vec![1]),
                    headers: vec![],
                    timestamp_ms: 0,
                }],
                producer: Some(producer),
                base_sequence: seq,
                transactional_id: Some("x".into()),
                acks: connsim::systems::Acks::All,
            };
            raw(&client, produce(0, p)).await;
            let end = KafkaRequest::EndTxn { transactional_id: "x".into(), producer: p, commit: true };
            let KafkaResponse::Producer(after) = raw(&client, end).await else { panic!() };
            // A late produce of the ended transaction's epoch.
            let late = raw(&client, produce(1, p)).await;
            match protocol {
                TxnProtocol::Kip890 => {
                    assert_eq!(after.epoch, p.epoch + 1);
                    assert_eq!(late, KafkaResponse::Error(KafkaCode::InvalidProducerEpoch));
                }
                TxnProtocol::Classic => {
                    assert_eq!(after, p);
                    // It opens the next transaction under the same (id, epoch): what a
                    // committer's retried EndTxn would then commit.
                    assert!(matches!(late, KafkaResponse::Produced { .. }));
                    let retry = KafkaRequest::EndTxn { transactional_id: "x".into(), producer: p, commit: true };
                    assert_eq!(raw(&client, retry).await, KafkaResponse::Producer(p));
                    assert_eq!(read("read_committed", 0).await.len(), 2, "the retry committed the late entry");
                }
            }
        });
    }
}

#[test]
fn bad_configurations_get_rdkafkas_error_kinds_with_a_message() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let create = |pairs: &[(&str, &str)], with_servers: bool| {
            let mut c = if with_servers { config(&[]) } else { ClientConfig::new() };
            for (k, v) in pairs {
                c.set(*k, *v);
            }
            c.create::<FutureProducer>().err().expect("refused")
        };
        let e = create(&[], false);
        assert!(matches!(&e, KafkaError::ClientCreation(m) if m.contains("bootstrap.servers")), "{e}");
        let e = create(&[("transactional.id", "x"), ("enable.idempotence", "false")], true);
        assert!(matches!(&e, KafkaError::ClientCreation(m) if m.contains("enable.idempotence")), "{e}");
        let e = create(&[("enable.idempotence", "true"), ("max.in.flight.requests.per.connection", "6")], true);
        assert!(matches!(&e, KafkaError::ClientCreation(m) if m.contains("max.in.flight")), "{e}");
        let e = create(&[("enable.idempotence", "true"), ("acks", "1")], true);
        assert!(matches!(&e, KafkaError::ClientCreation(m) if m.contains("acks")), "{e}");
        let e = create(&[("no.such.property", "1")], true);
        assert!(
            matches!(&e, KafkaError::ClientConfig(RDKafkaConfRes::RD_KAFKA_CONF_UNKNOWN, _, k, _) if k == "no.such.property")
        );
        let e = create(&[("acks", "most")], true);
        assert!(
            matches!(&e, KafkaError::ClientConfig(RDKafkaConfRes::RD_KAFKA_CONF_INVALID, m, _, _) if m.contains("acks"))
        );
        let e = create(&[("auto.offset.reset", "none")], true);
        assert!(
            matches!(&e, KafkaError::ClientConfig(RDKafkaConfRes::RD_KAFKA_CONF_INVALID, m, _, _) if m.contains("error"))
        );
        // Outside connector code (a task of one's own) there is no node to send from.
        let outside = madsim::task::spawn(async { config(&[]).create::<FutureProducer>().err() }).await.unwrap();
        assert!(matches!(outside, Some(KafkaError::ClientCreation(m)) if m.contains("connector code")));
    });
}

#[test]
fn librdkafka_delivers_what_send_result_queued_in_order_before_the_commit() {
    sim(TxnProtocol::Classic, |log, _h, _client| async move {
        let p = transactional("batched");
        p.init_transactions(T).await.unwrap();
        p.begin_transaction().unwrap();
        let payloads: Vec<String> = (0..10).map(|i| format!("m{i}")).collect();
        let deliveries: Vec<_> = payloads
            .iter()
            .map(|m| p.send_result(FutureRecord::<str, str>::to("t").partition(1).payload(m)).map_err(|_| ()).unwrap())
            .collect();
        p.commit_transaction(T).await.unwrap(); // flushes first
        let mut offsets = Vec::new();
        for d in deliveries {
            offsets.push(d.await.unwrap().unwrap().offset);
        }
        assert_eq!(offsets, (0..10).collect::<Vec<i64>>(), "in order, in one partition");
        assert_eq!(log.end_offset("t", 1), 10);
        assert_eq!(read("read_committed", 1).await, payloads);
    });
}

#[test]
fn kip98_a_consumer_reset_after_an_out_of_range_fetch_is_told_the_log_start_again() {
    sim(TxnProtocol::Classic, |log, history, client| async move {
        let env = SettingEnv { seed: 0, history: history.clone() };
        log.configure(&Setting::RetentionMs(Some(10)), &env).unwrap();
        let plain: FutureProducer = config(&[]).create().unwrap();
        for m in ["a", "b", "c"] {
            send(&plain, 0, m).await.unwrap();
        }
        madsim::time::sleep(Duration::from_millis(100)).await;
        send(&plain, 0, "d").await.unwrap(); // retention runs: a, b, c are gone
        let fetch = KafkaRequest::Fetch { topic: "t".into(), partition: 0, offset: 0, max: 10, read_committed: true };
        assert_eq!(raw(&client, fetch).await, KafkaResponse::Error(KafkaCode::OffsetOutOfRange));
        madsim::time::sleep(Duration::from_millis(100)).await;
        send(&plain, 0, "e").await.unwrap(); // d is gone too, after the reader was told
        let earliest = KafkaRequest::ListOffsets {
            topic: "t".into(),
            partition: 0,
            spec: connsim::systems::OffsetSpec::Earliest,
            read_committed: true,
        };
        assert_eq!(raw(&client, earliest).await, KafkaResponse::Offset(4));
        let told: Vec<(u64, u64)> = history
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::OutOfRange { offset, start, .. } => Some((*offset, *start)),
                _ => None,
            })
            .collect();
        assert_eq!(told, [(0, 3), (3, 4)], "the reset's answer covers what went between");
    });
}
