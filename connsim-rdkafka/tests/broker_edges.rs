//! The simulated broker's Kafka semantics at their edges: the cases where a plausible slip in
//! the model (a store that ignores the group, a window one batch short, a stable offset taken
//! from the wrong entry, a retry check before the fence) would still pass `broker.rs`. Each
//! test names the protocol rule it checks.
#![cfg(madsim)]

use connsim::history::{EventKind, FaultKind};
use connsim::systems::{Acks, KafkaCode, KafkaRequest, KafkaResponse, LogEntry, ProducerIdentity, TxnProtocol};
use rdkafka::consumer::{CommitMode, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::producer::{FutureProducer, Producer};
use rdkafka::{Message, Offset, TopicPartitionList};
use std::time::Duration;

extern crate connsim_rdkafka as rdkafka;

mod common;
use common::*;

fn init(id: Option<&str>) -> KafkaRequest {
    KafkaRequest::InitProducerId {
        transactional_id: id.map(Into::into),
        transaction_timeout_ms: 60_000,
        producer: None,
    }
}

fn produce(id: Option<&str>, producer: ProducerIdentity, partition: u32, seq: i64) -> KafkaRequest {
    KafkaRequest::Produce {
        topic: "t".into(),
        partition,
        entries: vec![LogEntry { key: None, value: Some(vec![seq as u8]), headers: vec![], timestamp_ms: 0 }],
        producer: Some(producer),
        base_sequence: seq,
        transactional_id: id.map(Into::into),
        acks: Acks::All,
    }
}

fn end(id: &str, producer: ProducerIdentity, commit: bool) -> KafkaRequest {
    KafkaRequest::EndTxn { transactional_id: id.into(), producer, commit }
}

async fn producer_of(client: &connsim::net::Endpoint, id: Option<&str>) -> ProducerIdentity {
    match raw(client, init(id)).await {
        KafkaResponse::Producer(p) => p,
        other => panic!("InitProducerId answered {other:?}"),
    }
}

/// KIP-98 (group coordinator): committed offsets are kept per group; another group of the
/// same partition has none and starts where `auto.offset.reset` says.
#[test]
fn kafka_committed_offsets_belong_to_their_group() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let plain: FutureProducer = config(&[]).create().unwrap();
        for m in ["a", "b", "c"] {
            send(&plain, 1, m).await.unwrap();
        }
        let consumer = |group: &str| {
            let pairs = [("group.id", group), ("enable.auto.commit", "false"), ("auto.offset.reset", "earliest")];
            assigned(&pairs, 1, Offset::Stored)
        };
        let g = consumer("g");
        let mut at = TopicPartitionList::new();
        at.add_partition_offset("t", 1, Offset::Offset(2)).unwrap();
        g.commit(&at, CommitMode::Sync).await.unwrap();
        let h = consumer("h");
        let none = h.committed(T).await.unwrap().find_partition("t", 1).map(|e| e.offset());
        assert_eq!(none, Some(Offset::Invalid), "group h committed nothing");
        let first = h.poll(T).await.unwrap().unwrap().detach();
        assert_eq!(first.payload(), Some(&b"a"[..]), "group h starts at the beginning");
        let m = consumer("g").poll(T).await.unwrap().unwrap().detach();
        assert_eq!(m.payload(), Some(&b"c"[..]), "group g starts at its committed offset");
    });
}

/// KIP-890 part 2: a retried `EndTxn` of the epoch the transaction just ended is answered as
/// the first was (with the new epoch); the opposite outcome for it is `INVALID_TXN_STATE`.
#[test]
fn kip890_a_retried_end_txn_of_the_ended_epoch_is_answered_as_the_first() {
    sim(TxnProtocol::Kip890, |_log, _h, client| async move {
        let p = producer_of(&client, Some("x")).await;
        assert!(matches!(raw(&client, produce(Some("x"), p, 0, 0)).await, KafkaResponse::Produced { .. }));
        let KafkaResponse::Producer(after) = raw(&client, end("x", p, true)).await else { panic!("committed") };
        assert_eq!(after.epoch, p.epoch + 1);
        assert_eq!(raw(&client, end("x", p, true)).await, KafkaResponse::Producer(after), "the retry");
        assert_eq!(raw(&client, end("x", p, false)).await, KafkaResponse::Error(KafkaCode::InvalidTxnState));
        assert_eq!(read("read_committed", 0).await.len(), 1, "committed once");
    });
}

/// KIP-98: once a newer `InitProducerId` fenced an epoch, its `EndTxn` is `PRODUCER_FENCED`
/// even after the new epoch completed a transaction of its own (a zombie committer's late
/// commit must not pass as a retry of the id's last transaction), under both protocols.
#[test]
fn kip98_a_zombie_end_txn_after_the_new_epoch_committed_is_fenced() {
    for protocol in [TxnProtocol::Classic, TxnProtocol::Kip890] {
        sim(protocol, move |_log, _h, client| async move {
            let old = producer_of(&client, Some("x")).await;
            let new = producer_of(&client, Some("x")).await;
            assert!(new.epoch > old.epoch);
            assert!(matches!(raw(&client, produce(Some("x"), new, 0, 0)).await, KafkaResponse::Produced { .. }));
            assert!(matches!(raw(&client, end("x", new, true)).await, KafkaResponse::Producer(_)));
            for commit in [true, false] {
                let late = raw(&client, end("x", old, commit)).await;
                assert_eq!(late, KafkaResponse::Error(KafkaCode::ProducerFenced), "{protocol:?}, commit {commit}");
            }
        });
    }
}

/// KIP-98: the last stable offset is the first offset of the earliest open transaction, not
/// its latest entry: entries of others after it wait for it too.
#[test]
fn kip98_the_last_stable_offset_is_the_first_entry_of_the_open_transaction() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let a = transactional("a");
        a.init_transactions(T).await.unwrap();
        a.begin_transaction().unwrap();
        send(&a, 0, "a1").await.unwrap();
        let plain: FutureProducer = config(&[]).create().unwrap();
        send(&plain, 0, "plain").await.unwrap();
        send(&a, 0, "a2").await.unwrap();
        assert!(read("read_committed", 0).await.is_empty(), "everything waits for a1's transaction");
        a.commit_transaction(T).await.unwrap();
        assert_eq!(read("read_committed", 0).await, ["a1", "plain", "a2"], "in offset order once it committed");
    });
}

/// The broker's producer state remembers exactly the last five batches per partition
/// (`ProducerStateEntry.NUM_BATCHES_TO_RETAIN`): a retry of the fifth from last is answered
/// with its offset, the sixth from last is `OUT_OF_ORDER_SEQUENCE_NUMBER`.
#[test]
fn kafka_the_idempotence_window_is_exactly_five_batches() {
    sim(TxnProtocol::Classic, |log, _h, client| async move {
        let pid = producer_of(&client, None).await;
        for seq in 0..7 {
            assert!(matches!(raw(&client, produce(None, pid, 0, seq)).await, KafkaResponse::Produced { .. }));
        }
        let end_offset = log.end_offset("t", 0);
        let KafkaResponse::Produced { base_offset } = raw(&client, produce(None, pid, 0, 2)).await else {
            panic!("the fifth batch from last is remembered")
        };
        assert_eq!(base_offset, end_offset - 5);
        let sixth = raw(&client, produce(None, pid, 0, 1)).await;
        assert_eq!(sixth, KafkaResponse::Error(KafkaCode::OutOfOrderSequenceNumber));
        assert_eq!(log.end_offset("t", 0), end_offset, "neither retry appended");
    });
}

/// KIP-98: a transaction that outlives `transaction.timeout.ms` is aborted (never
/// committed) by the coordinator and its producer fenced, under both protocols.
#[test]
fn kip98_a_timed_out_transaction_is_aborted_and_its_producer_fenced_under_both_protocols() {
    for protocol in [TxnProtocol::Classic, TxnProtocol::Kip890] {
        sim(protocol, move |_log, history, _client| async move {
            let p: FutureProducer =
                config(&[("transactional.id", "slow"), ("transaction.timeout.ms", "1000")]).create().unwrap();
            p.init_transactions(T).await.unwrap();
            p.begin_transaction().unwrap();
            send(&p, 0, "a").await.unwrap();
            madsim::time::sleep(Duration::from_millis(1_050)).await;
            let timed_out = history
                .events()
                .iter()
                .filter(|e| matches!(&e.kind, EventKind::Fault { fault: FaultKind::TxnTimeout, .. }))
                .count();
            assert_eq!(timed_out, 1, "{protocol:?}");
            assert!(read("read_committed", 0).await.is_empty(), "{protocol:?}: aborted, not committed");
            assert_eq!(read("read_uncommitted", 0).await, ["a"], "{protocol:?}: the entry is there, aborted");
            assert!(fenced(p.commit_transaction(T).await), "{protocol:?}: the producer is fenced");
        });
    }
}

/// librdkafka: a transactional producer is idempotent whether or not `enable.idempotence` is
/// set, so more than five requests in flight are refused at creation for it too.
#[test]
fn a_transactional_producer_without_enable_idempotence_refuses_six_in_flight() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let pairs = [("transactional.id", "x"), ("max.in.flight.requests.per.connection", "6")];
        let e = config(&pairs).create::<FutureProducer>().err().expect("refused");
        assert!(matches!(&e, KafkaError::ClientCreation(m) if m.contains("max.in.flight")), "{e}");
    });
}

/// KIP-98: `ListOffsets` for a `read_committed` consumer answers the last stable offset as
/// the end: a consumer placed at the end while a transaction is open still gets that
/// transaction's entries once it commits.
#[test]
fn kip98_a_read_committed_consumer_at_the_end_starts_at_the_last_stable_offset() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let a = transactional("a");
        a.init_transactions(T).await.unwrap();
        a.begin_transaction().unwrap();
        send(&a, 0, "open").await.unwrap();
        let c = assigned(&[("isolation.level", "read_committed")], 0, Offset::End);
        assert!(c.poll(Duration::from_millis(30)).await.is_none(), "nothing is stable yet");
        a.commit_transaction(T).await.unwrap();
        let m = c.poll(T).await.expect("the committed entry").unwrap().detach();
        assert_eq!(m.payload(), Some(&b"open"[..]));
    });
}

/// `auto.offset.reset`: `latest` places a consumer without a committed offset at the end, so
/// it gets what is produced after it started (not nothing at all).
#[test]
fn kafka_auto_offset_reset_latest_reads_what_comes_after() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let plain: FutureProducer = config(&[]).create().unwrap();
        send(&plain, 1, "before").await.unwrap();
        let c = assigned(&[("group.id", "g"), ("auto.offset.reset", "latest")], 1, Offset::Stored);
        assert!(c.poll(Duration::from_millis(30)).await.is_none());
        send(&plain, 1, "after").await.unwrap();
        let m = c.poll(T).await.expect("what came after").unwrap().detach();
        assert_eq!(m.payload(), Some(&b"after"[..]));
    });
}

/// KIP-98 with retention: a consumer whose position retention deleted is reset by its
/// `auto.offset.reset`: `earliest` to the log start, `latest` to the end, `error` raises
/// `OFFSET_OUT_OF_RANGE` to the application.
#[test]
fn kafka_auto_offset_reset_applies_when_retention_deleted_the_position() {
    for reset in ["earliest", "latest", "error"] {
        sim(TxnProtocol::Classic, move |log, history, _client| async move {
            let env = connsim::systems::SettingEnv { seed: 0, history };
            use connsim::systems::ExternalSystem;
            log.configure(&connsim::systems::Setting::RetentionMs(Some(10)), &env).unwrap();
            let plain: FutureProducer = config(&[]).create().unwrap();
            for m in ["a", "b", "c"] {
                send(&plain, 0, m).await.unwrap();
            }
            madsim::time::sleep(Duration::from_millis(100)).await;
            send(&plain, 0, "d").await.unwrap(); // retention runs: a, b, c are gone
            let c = assigned(&[("auto.offset.reset", reset)], 0, Offset::Offset(0));
            let first = c.poll(T).await.map(|r| r.map(|m| m.detach()));
            match reset {
                "earliest" => assert_eq!(first.unwrap().unwrap().payload(), Some(&b"d"[..])),
                "latest" => {
                    assert!(first.is_none(), "latest: nothing until something new");
                    send(&plain, 0, "e").await.unwrap();
                    let m = c.poll(T).await.expect("e").unwrap().detach();
                    assert_eq!(m.payload(), Some(&b"e"[..]));
                }
                _ => assert!(
                    matches!(
                        first,
                        Some(Err(KafkaError::MessageConsumption(rdkafka::error::RDKafkaErrorCode::AutoOffsetReset)))
                    ),
                    "error: raised, {first:?}"
                ),
            }
        });
    }
}

/// KAFKA-14402 (a classic broker without KIP-890 part 1's partition verification): a
/// transactional produce the ongoing transaction never added, or one after it ended, is
/// written but unknown to the coordinator: no marker ends it, no timeout aborts it, and the
/// partition's last stable offset stays behind it. On a verifying classic broker the same
/// produce joins the transaction, which ends it.
#[test]
fn kafka14402_an_unverified_late_produce_hangs_and_holds_the_last_stable_offset() {
    use connsim::history::{EventKind, FaultKind};
    for (protocol, hangs) in [(TxnProtocol::ClassicUnverified, true), (TxnProtocol::Classic, false)] {
        sim(protocol, move |log, history, client| async move {
            let env = connsim::systems::SettingEnv { seed: 0, history: history.clone() };
            connsim::systems::ExternalSystem::configure(
                &log,
                &connsim::systems::Setting::TransactionTimeoutMs(Some(1_000)),
                &env,
            )
            .unwrap();
            let p = producer_of(&client, Some("late")).await;
            let add = KafkaRequest::AddPartitionsToTxn {
                transactional_id: "late".into(),
                producer: p,
                topic: "t".into(),
                partition: 0,
            };
            assert_eq!(raw(&client, add).await, KafkaResponse::Ok);
            assert!(matches!(raw(&client, produce(Some("late"), p, 0, 0)).await, KafkaResponse::Produced { .. }));
            assert!(matches!(raw(&client, end("late", p, true)).await, KafkaResponse::Producer(_)));
            let stable = log.output("t").parts()[0].end;
            assert_eq!(stable, 2, "the record and its commit marker");
            // A late produce of the same epoch, its partition never added again.
            assert!(matches!(raw(&client, produce(Some("late"), p, 0, 1)).await, KafkaResponse::Produced { .. }));
            madsim::time::sleep(Duration::from_millis(3_000)).await;
            let hanging = history
                .events()
                .iter()
                .filter(|e| matches!(&e.kind, EventKind::Fault { fault: FaultKind::HangingTransaction, .. }))
                .count();
            let stuck = log.output("t").parts()[0].end;
            if hangs {
                assert_eq!(
                    (hanging, stuck),
                    (1, 2),
                    "{protocol:?}: the late entry holds the stable offset, past its timeout"
                );
            } else {
                assert_eq!(hanging, 0, "{protocol:?}");
                assert_eq!(stuck, 4, "{protocol:?}: the coordinator aborted the transaction it joined at its timeout");
            }
        });
    }
}

/// The straggle fault: a request that waited on an abandoned connection arrives after the
/// link's later messages (order per connection holds, across connections it does not); a
/// delay keeps the link's order.
#[test]
fn net_a_straggling_request_is_overtaken_by_the_links_later_messages() {
    use connsim::net::FaultRule;
    sim_on_network(TxnProtocol::Classic, |log, _history, client, gw| async move {
        let p = producer_of(&client, None).await;
        let now = connsim::net::now().as_millis() as u64;
        gw.add_rule(FaultRule::straggle(30).kind("kafka.produce").window(now, now + 1));
        let first = produce(None, p, 0, 0);
        client.send("kafka", first.kind(), &first);
        madsim::time::sleep(Duration::from_millis(2)).await;
        let second = produce(None, p, 1, 0);
        assert!(matches!(raw(&client, second).await, KafkaResponse::Produced { base_offset: 0 }));
        // The first (partition 0) has not arrived yet though it was sent first.
        assert_eq!(log.end_offset("t", 0), 0);
        madsim::time::sleep(Duration::from_millis(40)).await;
        assert_eq!(log.end_offset("t", 0), 1, "it arrives, late");
    });
}
