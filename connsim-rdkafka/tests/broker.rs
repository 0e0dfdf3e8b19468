//! The simulated broker's Kafka semantics, each test naming the protocol rule it checks and
//! failing if the rule breaks. Clients are connsim-rdkafka's, as a connector uses them.
#![cfg(madsim)]

use connsim::history::{EventKind, FaultKind};
use connsim::systems::{
    ExternalSystem, KafkaCode, KafkaRequest, KafkaResponse, ProducerIdentity, Setting, SettingEnv, TxnProtocol,
};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::types::RDKafkaConfRes;
use rdkafka::{Message, Offset, TopicPartitionList};
use std::time::Duration;

extern crate connsim_rdkafka as rdkafka;

mod common;
use common::*;

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
        let init = KafkaRequest::InitProducerId {
            transactional_id: Some(id.into()),
            transaction_timeout_ms: 60_000,
            producer: None,
        };
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
        let init = KafkaRequest::InitProducerId { transactional_id: None, transaction_timeout_ms: 0, producer: None };
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
        let faults: Vec<FaultKind> = history
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Fault { fault, .. } => Some(fault.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(faults, [FaultKind::DuplicateSequence, FaultKind::StaleSequence, FaultKind::OutOfOrderSequence]);
        // A log told to remember every batch (`Setting::DeduplicationWindow(None)`, kinder
        // than a broker) recognises the older retry too.
        let env = SettingEnv { seed: 0, history: history.clone() };
        log.configure(&Setting::DeduplicationWindow(None), &env).unwrap();
        let first = log.end_offset("t", 0);
        for seq in 7..15 {
            assert!(matches!(raw(&client, produce(0, seq)).await, KafkaResponse::Produced { .. }));
        }
        let KafkaResponse::Produced { base_offset } = raw(&client, produce(0, 7)).await else {
            panic!("a retry eight batches back is recognised when every batch is remembered")
        };
        assert_eq!(base_offset, first);
    });
}

#[test]
fn kip98_the_coordinator_aborts_a_transaction_at_its_timeout_without_any_request() {
    sim(TxnProtocol::Classic, |log, history, _client| async move {
        let p: FutureProducer =
            config(&[("transactional.id", "slow"), ("transaction.timeout.ms", "1000")]).create().unwrap();
        p.init_transactions(T).await.unwrap();
        p.begin_transaction().unwrap();
        // The transaction starts when its first partition joins it, a network hop after now.
        let opened = connsim::net::now();
        send(&p, 0, "a").await.unwrap();
        let output = log.output("t");
        assert_eq!(output.parts()[0].end, 0, "an open transaction pins the last stable offset");
        // Nobody calls the broker: its own timer aborts the transaction at the deadline.
        madsim::time::sleep(Duration::from_millis(1_050)).await;
        let timeouts: Vec<_> = history
            .events()
            .into_iter()
            .filter(|e| matches!(&e.kind, EventKind::Fault { fault: FaultKind::TxnTimeout, .. }))
            .collect();
        assert_eq!(timeouts.len(), 1);
        let at = timeouts[0].t_us / 1000;
        let due = opened.as_millis() as u64 + 1_000;
        assert!((due..=due + 4).contains(&at), "aborted at {at} ms, due a hop after {due} ms");
        assert_eq!(output.parts()[0].end, 2, "the last stable offset moved past the aborted entry and its marker");
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
        // librdkafka's `rd_kafka_offset_reset`: told once, then the partition stops fetching.
        let strict = consumer("error");
        let told = strict.poll(T).await.unwrap().map(|m| m.detach());
        assert!(matches!(told, Err(KafkaError::MessageConsumption(RDKafkaErrorCode::AutoOffsetReset))), "{told:?}");
        assert!(strict.poll(Duration::from_millis(30)).await.is_none(), "once");
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
fn kafka_a_fetch_above_the_high_watermark_is_empty_until_the_log_end_and_out_of_range_past_it() {
    sim(TxnProtocol::Classic, |_log, _h, client| async move {
        let entry = connsim::systems::LogEntry { key: None, value: Some(vec![1]), headers: vec![], timestamp_ms: 0 };
        let produce = KafkaRequest::Produce {
            topic: "t".into(),
            partition: 0,
            entries: vec![entry],
            producer: None,
            base_sequence: -1,
            transactional_id: None,
            acks: connsim::systems::Acks::Leader,
        };
        assert_eq!(raw(&client, produce).await, KafkaResponse::Produced { base_offset: 0 });
        let fetch =
            |offset| KafkaRequest::Fetch { topic: "t".into(), partition: 0, offset, max: 10, read_committed: false };
        // Offset 1 is the log end, above the high watermark (the entry is not replicated yet).
        match raw(&client, fetch(1)).await {
            KafkaResponse::Fetched(f) => assert!(f.entries.is_empty() && f.high_watermark == 0, "{f:?}"),
            other => panic!("a fetch at the log end is answered, not {other:?}"),
        }
        // Once followers copied it, the entry is readable.
        madsim::time::sleep(Duration::from_millis(10)).await;
        let KafkaResponse::Fetched(f) = raw(&client, fetch(0)).await else { panic!("answered") };
        assert_eq!(f.entries.len(), 1, "{f:?}");
        assert_eq!(raw(&client, fetch(2)).await, KafkaResponse::Error(KafkaCode::OffsetOutOfRange));
    });
}

#[test]
fn kip98_a_transaction_ends_with_a_marker_in_each_of_its_partitions_that_no_consumer_returns() {
    sim(TxnProtocol::Classic, |log, _h, _client| async move {
        let p = transactional("marked");
        p.init_transactions(T).await.unwrap();
        for (payload, commit) in [("a", true), ("b", false), ("c", true)] {
            p.begin_transaction().unwrap();
            assert_eq!(send(&p, 0, payload).await.unwrap() % 2, 0, "each message follows a marker");
            match commit {
                true => p.commit_transaction(T).await.unwrap(),
                false => p.abort_transaction(T).await.unwrap(),
            }
        }
        // a@0, commit@1, b@2, abort@3, c@4, commit@5; partition 1 untouched.
        assert_eq!((log.end_offset("t", 0), log.end_offset("t", 1)), (6, 0));
        assert_eq!(read("read_committed", 0).await, ["a", "c"]);
        assert_eq!(read("read_uncommitted", 0).await, ["a", "b", "c"], "markers are never messages");
        // A consumer that read everything stands past the last marker.
        let c: BaseConsumer = config(&[("group.id", "reader")]).create().unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset("t", 0, Offset::Offset(4)).unwrap();
        c.assign(&tpl).unwrap();
        let m = c.poll(T).await.expect("c").unwrap();
        assert_eq!(m.offset(), 4);
        while c.poll(Duration::from_millis(20)).await.is_some() {}
        let at = c.position().unwrap().find_partition("t", 0).map(|e| e.offset());
        assert_eq!(at, Some(Offset::Offset(6)), "the position passed the trailing marker");
    });
}

/// librdkafka's `rd_kafka_toppar_pause_resume`: a pause drops what was fetched and sets the
/// next fetch to the application's position, so a marker fetched behind the last message
/// returned is fetched again after the resume and the position passes it (a bounded reader
/// waiting for its stop offset would otherwise wait forever).
#[test]
fn librdkafka_a_pause_fetches_again_from_the_application_position_and_passes_the_trailing_marker() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p = transactional("paused");
        p.init_transactions(T).await.unwrap();
        p.begin_transaction().unwrap();
        send(&p, 0, "a").await.unwrap();
        p.commit_transaction(T).await.unwrap();
        // a@0, commit@1.
        let c: BaseConsumer =
            config(&[("group.id", "reader"), ("isolation.level", "read_committed")]).create().unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset("t", 0, Offset::Offset(0)).unwrap();
        c.assign(&tpl).unwrap();
        assert_eq!(c.poll(T).await.expect("a").unwrap().offset(), 0);
        // Paused right after the message: the marker fetched with it is dropped unread.
        c.pause(&tpl).unwrap();
        let at = c.position().unwrap().find_partition("t", 0).map(|e| e.offset());
        assert_eq!(at, Some(Offset::Offset(1)), "the position stays past the last message returned");
        c.resume(&tpl).unwrap();
        while c.poll(Duration::from_millis(20)).await.is_some() {}
        let at = c.position().unwrap().find_partition("t", 0).map(|e| e.offset());
        assert_eq!(at, Some(Offset::Offset(2)), "fetched again after the resume, the marker is passed");
        // Assigned at the marker, paused before the application polled it: with no
        // application position, fetching restarts where the assignment put it.
        let c: BaseConsumer =
            config(&[("group.id", "reader"), ("isolation.level", "read_committed")]).create().unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset("t", 0, Offset::Offset(1)).unwrap();
        c.assign(&tpl).unwrap();
        // A poll that must not wait: the fetch brought the marker alone, which the poll
        // did not reach before its deadline.
        assert!(c.poll(Duration::ZERO).await.is_none(), "a marker is never a message");
        let at = c.position().unwrap().find_partition("t", 0).map(|e| e.offset());
        assert_eq!(at, Some(Offset::Invalid), "nothing returned since the assignment");
        c.pause(&tpl).unwrap();
        c.resume(&tpl).unwrap();
        while c.poll(Duration::from_millis(20)).await.is_some() {}
        let at = c.position().unwrap().find_partition("t", 0).map(|e| e.offset());
        assert_eq!(at, Some(Offset::Offset(2)), "fetched again from the assigned offset, the marker is passed");
    });
}

#[test]
fn kip890_ends_the_epoch_with_the_transaction_and_classic_brokers_do_not() {
    for protocol in [TxnProtocol::Classic, TxnProtocol::Kip890] {
        sim(protocol, move |_log, _h, client| async move {
            let init = KafkaRequest::InitProducerId {
                transactional_id: Some("x".into()),
                transaction_timeout_ms: 60_000,
                producer: None,
            };
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
                TxnProtocol::Classic | TxnProtocol::ClassicUnverified => {
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
        // librdkafka's own text (its name for Java's `none` is `error`).
        let e = create(&[("auto.offset.reset", "none")], true);
        assert!(matches!(&e, KafkaError::ClientConfig(RDKafkaConfRes::RD_KAFKA_CONF_INVALID, m, _, _)
                if m == "Invalid value \"none\" for configuration property \"auto.offset.reset\""));
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
        assert_eq!(log.end_offset("t", 1), 11, "ten messages and the commit marker");
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

#[test]
fn kip98_a_partition_joins_the_transaction_before_its_produce_so_a_lost_produce_still_aborts() {
    use connsim::net::FaultRule;
    for protocol in [TxnProtocol::Classic, TxnProtocol::Kip890] {
        sim_on_network(protocol, |_log, _h, _client, gw| async move {
            let p: FutureProducer =
                config(&[("transactional.id", "lossy"), ("message.timeout.ms", "200")]).create().unwrap();
            p.init_transactions(T).await.unwrap();
            p.begin_transaction().unwrap();
            assert_eq!(send(&p, 0, "a").await.unwrap(), 0);
            p.commit_transaction(T).await.unwrap();
            // The next transaction's only produce never arrives.
            p.begin_transaction().unwrap();
            let lost = gw.add_rule(FaultRule::drop(1.0).kind("kafka.produce"));
            assert!(send(&p, 0, "lost").await.is_err(), "{protocol:?}: the produce timed out");
            gw.remove_rule(lost);
            // AddPartitionsToTxn went first: the coordinator has the transaction, and aborts it.
            p.abort_transaction(T).await.unwrap_or_else(|e| panic!("{protocol:?}: {e}"));
            p.begin_transaction().unwrap();
            // The abort marker took an offset on the partition (after "a" and its marker).
            assert_eq!(send(&p, 0, "b").await.unwrap(), 3, "{protocol:?}");
            p.commit_transaction(T).await.unwrap();
            assert_eq!(read("read_committed", 0).await, ["a", "b"]);
        });
    }
}

#[test]
fn kip360_a_bump_needs_the_current_epoch_and_its_retry_gets_the_same_answer() {
    sim(TxnProtocol::Classic, |_log, _h, client| async move {
        let init = |producer: Option<ProducerIdentity>| KafkaRequest::InitProducerId {
            transactional_id: Some("bumped".into()),
            transaction_timeout_ms: 60_000,
            producer,
        };
        let KafkaResponse::Producer(p0) = raw(&client, init(None)).await else { panic!("an id") };
        let KafkaResponse::Producer(p1) = raw(&client, init(Some(p0))).await else { panic!("bumped") };
        assert_eq!((p1.id, p1.epoch), (p0.id, p0.epoch + 1), "the producer keeps its id, one epoch on");
        // The bump's answer was lost: asked again, the same bump gets the same answer.
        assert_eq!(raw(&client, init(Some(p0))).await, KafkaResponse::Producer(p1));
        // A newer producer of the id fences both epochs: neither may bump now.
        let KafkaResponse::Producer(p2) = raw(&client, init(None)).await else { panic!("fenced") };
        assert_eq!(p2.epoch, p1.epoch + 1);
        assert_eq!(raw(&client, init(Some(p1))).await, KafkaResponse::Error(KafkaCode::ProducerFenced));
        assert_eq!(raw(&client, init(Some(p0))).await, KafkaResponse::Error(KafkaCode::ProducerFenced));
    });
}
#[test]
fn kip79_offsets_for_times_answers_the_first_message_at_or_after_a_time_below_the_readable_end() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let plain: FutureProducer = config(&[]).create().unwrap();
        for (ts, v) in [(10, "a"), (20, "b"), (30, "c")] {
            let record = FutureRecord::<str, str>::to("t").partition(0).payload(v).timestamp(ts);
            plain.send(record, T).await.map_err(|(e, _)| e).unwrap();
        }
        // A later message in a transaction still open: above the last stable offset.
        let open = transactional("open");
        open.init_transactions(T).await.unwrap();
        open.begin_transaction().unwrap();
        let record = FutureRecord::<str, str>::to("t").partition(0).payload("d").timestamp(40);
        open.send(record, T).await.map_err(|(e, _)| e).unwrap();
        let lookup = |isolation: &'static str, ts: i64| async move {
            let c = assigned(&[("isolation.level", isolation)], 0, Offset::Beginning);
            let mut at = TopicPartitionList::new();
            at.add_partition_offset("t", 0, Offset::Offset(ts)).unwrap();
            let found = c.offsets_for_times(at, T).await.unwrap();
            found.find_partition("t", 0).unwrap().offset()
        };
        assert_eq!(lookup("read_committed", 0).await, Offset::Offset(0));
        assert_eq!(lookup("read_committed", 15).await, Offset::Offset(1), "the first at or after 15 ms");
        assert_eq!(lookup("read_committed", 30).await, Offset::Offset(2), "at the time itself");
        assert_eq!(lookup("read_committed", 35).await, Offset::End, "the only later message is not committed");
        assert_eq!(
            lookup("read_uncommitted", 35).await,
            Offset::Offset(3),
            "read_uncommitted reads to the high watermark"
        );
        assert_eq!(lookup("read_uncommitted", 41).await, Offset::End, "nothing that late");
        let c = assigned(&[], 0, Offset::Beginning);
        let by_time = c.offsets_for_timestamp(15, T).await.unwrap();
        assert_eq!(by_time.find_partition("t", 0).unwrap().offset(), Offset::Offset(1), "every assigned partition");
        let mut unknown = TopicPartitionList::new();
        unknown.add_partition_offset("t", 7, Offset::Offset(0)).unwrap();
        assert!(c.offsets_for_times(unknown, T).await.is_err(), "a partition that does not exist");
    });
}
