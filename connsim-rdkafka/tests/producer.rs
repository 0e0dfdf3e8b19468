//! librdkafka's and rdkafka's producer rules beyond transactions, each test naming the rule
//! and failing if it breaks: the bounded queue, purges and drops, wall-clock timestamps,
//! partitioners, the threaded producer.
#![cfg(madsim)]

use connsim::systems::TxnProtocol;
use rdkafka::config::FromClientConfigAndContext;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{
    BaseProducer, BaseRecord, DeliveryResult, FutureProducer, FutureRecord, Partitioner, Producer, ProducerContext,
    PurgeConfig, ThreadedProducer,
};
use rdkafka::{ClientContext, Message, Timestamp};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

extern crate connsim_rdkafka as rdkafka;

mod common;
use common::*;

/// Delivery reports a context saw: `Ok(partition)` or the error code.
#[derive(Default)]
struct Reports(Mutex<Vec<Result<i32, RDKafkaErrorCode>>>);

impl ClientContext for Reports {}
impl ProducerContext for Reports {
    type DeliveryOpaque = ();
    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        let r = match result {
            Ok(m) => Ok(m.partition()),
            Err((e, _)) => Err(e.rdkafka_error_code().unwrap()),
        };
        self.0.lock().unwrap().push(r);
    }
}

fn record(payload: &str) -> BaseRecord<'_, str, str> {
    BaseRecord::to("t").partition(0).payload(payload)
}

/// librdkafka's `queue.buffering.max.messages` and `.kbytes`: a producer holds at most that
/// many messages (and bytes) without a delivery report; more are refused `QueueFull` until
/// its poll hands reports out.
#[test]
fn librdkafka_refuses_a_message_with_queue_full_while_the_queue_is_at_its_bound() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p: BaseProducer<Reports> =
            config(&[("queue.buffering.max.messages", "2")]).create_with_context(Reports::default()).unwrap();
        p.send(record("a")).unwrap();
        p.send(record("b")).unwrap();
        let refused = p.send(record("c")).map_err(|(e, _)| e);
        assert_eq!(refused, Err(KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull)));
        assert_eq!(p.in_flight_count(), 2);
        p.poll(T).await;
        assert_eq!(p.in_flight_count(), 0);
        p.send(record("c")).unwrap();
        let big = "x".repeat(1500);
        let small: BaseProducer = config(&[("queue.buffering.max.kbytes", "1")]).create().unwrap();
        let refused = small.send(record(&big)).map_err(|(e, _)| e);
        assert_eq!(refused, Err(KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull)), "1500 bytes > 1 KiB");
    });
}

/// rdkafka's `FutureProducer::send`: a full queue is tried again every 100 ms until the
/// queue timeout, then the message fails `QueueFull`; `send_result` refuses it at once.
#[test]
fn rdkafka_future_send_waits_for_room_until_its_queue_timeout() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        kill_log();
        let p: FutureProducer =
            config(&[("queue.buffering.max.messages", "1"), ("message.timeout.ms", "5000")]).create().unwrap();
        let _first = p.send_result(FutureRecord::<str, str>::to("t").partition(0).payload("a")).unwrap();
        let at_once = p.send_result(FutureRecord::<str, str>::to("t").partition(0).payload("b")).err().map(|(e, _)| e);
        assert_eq!(at_once, Some(KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull)));
        let started = madsim::time::Instant::now();
        let waited =
            p.send(FutureRecord::<str, str>::to("t").partition(0).payload("b"), Duration::from_millis(350)).await;
        assert!(matches!(waited, Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), _))), "{waited:?}");
        assert!(started.elapsed() >= Duration::from_millis(350), "it waited its queue timeout");
    });
}

/// rdkafka's drop of a producer purges it: a base producer's queued messages are reported
/// `PurgeQueue`; a future producer's queued ones resolve `PurgeQueue` and those in flight
/// `PurgeInflight` (their fate at the broker unknown).
#[test]
fn rdkafka_dropping_a_producer_purges_its_queue_and_what_is_in_flight() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let reports = Arc::new(Reports::default());
        struct Shared(Arc<Reports>);
        impl ClientContext for Shared {}
        impl ProducerContext for Shared {
            type DeliveryOpaque = ();
            fn delivery(&self, r: &DeliveryResult<'_>, o: ()) {
                self.0.delivery(r, o)
            }
        }
        let p: BaseProducer<Shared> = config(&[]).create_with_context(Shared(reports.clone())).unwrap();
        p.send(record("a")).unwrap();
        p.send(record("b")).unwrap();
        drop(p);
        let purge_queue = Err(RDKafkaErrorCode::PurgeQueue);
        assert_eq!(*reports.0.lock().unwrap(), [purge_queue, purge_queue]);

        kill_log();
        let p: FutureProducer = config(&[("message.timeout.ms", "1000")]).create().unwrap();
        let in_flight = p.send_result(FutureRecord::<str, str>::to("t").partition(0).payload("a")).unwrap();
        madsim::time::sleep(Duration::from_millis(5)).await;
        let queued = p.send_result(FutureRecord::<str, str>::to("t").partition(0).payload("b")).unwrap();
        drop(p);
        let code = |r: Result<rdkafka::producer::OwnedDeliveryResult, _>| match r {
            Ok(Err((e, _))) => e.rdkafka_error_code(),
            _ => None,
        };
        assert_eq!(code(queued.await), Some(RDKafkaErrorCode::PurgeQueue));
        assert_eq!(code(in_flight.await), Some(RDKafkaErrorCode::PurgeInflight));
    });
}

/// `Producer::purge`: only what the flags name is purged.
#[test]
fn rdkafka_purge_takes_back_only_what_its_flags_name() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p: BaseProducer<Reports> = config(&[]).create_with_context(Reports::default()).unwrap();
        p.send(record("a")).unwrap();
        p.purge(PurgeConfig::default().inflight());
        assert!(p.context().0.lock().unwrap().is_empty(), "nothing in flight, the queue kept");
        p.purge(PurgeConfig::default().queue());
        assert_eq!(*p.context().0.lock().unwrap(), [Err(RDKafkaErrorCode::PurgeQueue)]);
        assert_eq!(p.in_flight_count(), 0);
    });
}

/// librdkafka stamps a message without a timestamp with the wall clock, in milliseconds
/// since the Unix epoch (`CreateTime`): code comparing it with `SystemTime::now()` works.
#[test]
fn librdkafka_stamps_messages_with_the_wall_clock_since_the_epoch() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p: FutureProducer = config(&[]).create().unwrap();
        let d = p.send(FutureRecord::<str, str>::to("t").partition(0).payload("a"), T).await.unwrap();
        let Timestamp::CreateTime(ms) = d.timestamp else { panic!("{:?}", d.timestamp) };
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64;
        assert!((now - 50..=now).contains(&ms), "{ms} vs the wall clock {now}");
        assert!(ms > 1_600_000_000_000, "a date after 2020, not the simulation's start: {ms}");
        let c = assigned(&[], 0, rdkafka::Offset::Beginning);
        let m = c.poll(T).await.unwrap().unwrap();
        assert_eq!(m.timestamp(), Timestamp::CreateTime(ms), "the consumer sees the same");
        assert!((Timestamp::now().to_millis().unwrap() - ms) < 1_000);
    });
}

/// librdkafka's `partitioner` property: `murmur2` puts a key where Java's producer does
/// (`Utils.murmur2`), `consistent` where CRC-32 says; a context's own partitioner wins, and
/// its `PARTITION_UA` fails the message `UnknownPartition`.
#[test]
fn librdkafka_partitions_by_the_partitioner_property_or_the_contexts_own() {
    sim(TxnProtocol::Classic, |log, _h, _client| async move {
        log.create_topic("t", 5);
        let on = |partitioner: &str| config(&[("partitioner", partitioner)]).create::<FutureProducer>().unwrap();
        let keyed = || FutureRecord::<str, str>::to("t").key("kafka").payload("v");
        // Java's murmur2("kafka") = 0xd067cf64, positive: 0x5067cf64.
        assert_eq!(on("murmur2").send(keyed(), T).await.unwrap().partition, (0x5067_cf64u32 % 5) as i32);
        let crc = on("consistent").send(keyed(), T).await.unwrap().partition;
        assert_eq!(crc, (0x5bbc_7517u32 % 5) as i32, "crc32(kafka)");
        let bad = config(&[("partitioner", "no_such")]).create::<FutureProducer>().err().unwrap();
        assert!(matches!(bad, KafkaError::ClientConfig(..)), "{bad:?}");

        struct Fixed(i32);
        impl Partitioner for Fixed {
            fn partition(&self, _: &str, _: Option<&[u8]>, _: i32, _: impl Fn(i32) -> bool) -> i32 {
                self.0
            }
        }
        struct Own(Fixed, Reports);
        impl ClientContext for Own {}
        impl ProducerContext<Fixed> for Own {
            type DeliveryOpaque = ();
            fn delivery(&self, r: &DeliveryResult<'_>, o: ()) {
                self.1.delivery(r, o)
            }
            fn get_custom_partitioner(&self) -> Option<&Fixed> {
                Some(&self.0)
            }
        }
        for (choice, expected) in
            [(3, Ok(3)), (rdkafka::producer::PARTITION_UA, Err(RDKafkaErrorCode::UnknownPartition))]
        {
            let p = BaseProducer::<Own, Fixed>::from_config_and_context(
                &config(&[]),
                Own(Fixed(choice), Reports::default()),
            )
            .unwrap();
            p.send(BaseRecord::to("t").key("k").payload("v")).unwrap();
            p.flush(T).await.ok();
            assert_eq!(*p.context().1 .0.lock().unwrap(), [expected]);
        }
    });
}

/// rdkafka's `ThreadedProducer`: its own task sends and serves delivery reports; the
/// application never polls.
#[test]
fn rdkafka_a_threaded_producer_delivers_without_the_application_polling() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p: ThreadedProducer<Reports> = config(&[]).create_with_context(Reports::default()).unwrap();
        p.send(record("a")).unwrap();
        p.send(record("b")).unwrap();
        madsim::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(*p.context().0.lock().unwrap(), [Ok(0), Ok(0)]);
    });
}

/// Queues `n` one-message batches for partition 0 (`batch.num.messages=1`) and sends them in
/// one flush, under `rule` on produce requests for the flush's first `for_ms` (when the
/// batches first go out; their retries come a request timeout later); the payloads a
/// read-uncommitted consumer then reads, and how long the flush took.
async fn burst(
    gw: &connsim::net::Gateway,
    extra: &[(&str, &str)],
    n: usize,
    rule: Option<(connsim::net::FaultRule, u64)>,
) -> (Vec<String>, Duration) {
    let mut pairs = vec![("batch.num.messages", "1")];
    pairs.extend_from_slice(extra);
    let p: BaseProducer = config(&pairs).create().unwrap();
    let payloads: Vec<String> = (0..n).map(|i| format!("m{i}")).collect();
    for payload in &payloads {
        p.send(record(payload)).unwrap();
    }
    if let Some((rule, for_ms)) = rule {
        let now = connsim::net::now().as_millis() as u64;
        gw.add_rule(rule.kind("kafka.produce").window(now, now.saturating_add(for_ms)));
    }
    let started = madsim::time::Instant::now();
    p.flush(Duration::from_secs(10)).await.unwrap();
    let took = started.elapsed();
    gw.heal();
    (read("read_uncommitted", 0).await, took)
}

/// librdkafka pipelines produce requests: up to `max.in.flight.requests.per.connection` are
/// outstanding on a connection at once, so ten batches under a slow link take about two round
/// trips with five in flight, and ten with one.
#[test]
fn librdkafka_pipelines_up_to_max_in_flight_produce_requests() {
    use connsim::net::FaultRule;
    sim_on_network(TxnProtocol::Classic, |_log, _h, _client, gw| async move {
        let slow = || Some((FaultRule::delay(20), u64::MAX));
        let (_, five) = burst(&gw, &[("enable.idempotence", "true")], 10, slow()).await;
        let (_, one) = burst(&gw, &[("enable.idempotence", "true"), ("max.in.flight", "1")], 10, slow()).await;
        assert!(five < Duration::from_millis(100), "five in flight: {five:?}");
        assert!(one > Duration::from_millis(190), "one at a time: {one:?}");
    });
}

/// Without idempotence, a lost produce request is retried after the batches already in
/// flight, which the broker wrote meanwhile: the partition's order is not the producer's
/// (the class of cockroachdb #122326). With idempotence the broker refuses the overtaking
/// batches (`OUT_OF_ORDER_SEQUENCE_NUMBER`) and the client resends them in order.
#[test]
fn kafka_a_lost_produce_request_reorders_a_partition_only_without_idempotence() {
    use connsim::net::FaultRule;
    sim_on_network(TxnProtocol::Classic, |_log, _h, _client, gw| async move {
        let sent: Vec<String> = (0..20).map(|i| format!("m{i}")).collect();
        let (read_plain, _) = burst(&gw, &[], 20, Some((FaultRule::drop(0.5).from("client"), 10))).await;
        assert_ne!(read_plain, sent, "reordered without idempotence");
        let mut kept = read_plain.clone();
        kept.sort_by_key(|s| s[1..].parse::<u32>().unwrap());
        kept.dedup();
        assert_eq!(kept, sent, "nothing lost (a dropped answer may have written one twice)");
        // The idempotent run appends to the same partition, after the first run's.
        let (read_all, took) =
            burst(&gw, &[("enable.idempotence", "true")], 20, Some((FaultRule::drop(0.5), 10))).await;
        assert!(took >= Duration::from_millis(50), "a request was lost and retried: {took:?}");
        assert_eq!(read_all[read_plain.len()..], sent[..], "in order and once each with idempotence");
    });
}

/// Without idempotence, a produce whose answer was lost is retried and written twice; with
/// idempotence the broker recognises the retry (one of the producer's last five batches) and
/// answers it without writing it again.
#[test]
fn kafka_a_lost_produce_answer_duplicates_only_without_idempotence() {
    use connsim::net::FaultRule;
    sim_on_network(TxnProtocol::Classic, |_log, _h, _client, gw| async move {
        let (plain, _) = burst(&gw, &[], 5, Some((FaultRule::lose_response(0.5), 10))).await;
        assert!(plain.len() > 5, "a retry of a written batch is written again: {plain:?}");
        let (all, _) =
            burst(&gw, &[("enable.idempotence", "true")], 5, Some((FaultRule::lose_response(0.5), 10))).await;
        let idempotent = &all[plain.len()..];
        assert_eq!(idempotent, ["m0", "m1", "m2", "m3", "m4"]);
    });
}

/// librdkafka's `rd_kafka_curr_msgs_sub` runs when a message is destroyed, after its delivery
/// report was served: a message in flight still counts against
/// `queue.buffering.max.messages`, so a send meanwhile is refused `QueueFull`.
#[test]
fn librdkafka_a_message_counts_against_the_queue_until_its_report_is_served() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        kill_log();
        let p: BaseProducer<Reports> = config(&[("queue.buffering.max.messages", "1"), ("message.timeout.ms", "1000")])
            .create_with_context(Reports::default())
            .unwrap();
        p.send(record("a")).unwrap();
        let meanwhile = async {
            madsim::time::sleep(Duration::from_millis(100)).await; // a is in flight now
            (p.send(record("b")).map_err(|(e, _)| e), p.in_flight_count())
        };
        let ((), (refused, counted)) = futures::join!(p.poll(Duration::from_secs(2)), meanwhile);
        assert_eq!(refused, Err(KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull)), "a is unreported");
        assert_eq!(counted, 1);
        assert_eq!(*p.context().0.lock().unwrap(), [Err(RDKafkaErrorCode::MessageTimedOut)]);
        p.send(record("b")).unwrap();
    });
}

fn code(r: Result<rdkafka::producer::OwnedDeliveryResult, rdkafka::producer::Canceled>) -> Option<RDKafkaErrorCode> {
    match r {
        Ok(Err((e, _))) => e.rdkafka_error_code(),
        _ => None,
    }
}

/// `Producer::purge` on a future producer: `queue()` fails only what is queued, leaving the
/// request in flight to its own fate; `inflight()` only what is in flight, leaving the queue.
#[test]
fn rdkafka_a_future_producers_purge_takes_back_only_what_its_flags_name() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        kill_log();
        let rec = |payload| FutureRecord::<str, str>::to("t").partition(0).payload(payload);
        let p: FutureProducer = config(&[("message.timeout.ms", "1000")]).create().unwrap();
        let in_flight = p.send_result(rec("a")).unwrap();
        madsim::time::sleep(Duration::from_millis(5)).await;
        let queued = p.send_result(rec("b")).unwrap();
        p.purge(PurgeConfig::default().queue());
        assert_eq!(code(queued.await), Some(RDKafkaErrorCode::PurgeQueue));
        assert_eq!(code(in_flight.await), Some(RDKafkaErrorCode::MessageTimedOut), "not purged");

        let in_flight = p.send_result(rec("c")).unwrap();
        madsim::time::sleep(Duration::from_millis(5)).await;
        let queued = p.send_result(rec("d")).unwrap();
        p.purge(PurgeConfig::default().inflight());
        assert_eq!(code(in_flight.await), Some(RDKafkaErrorCode::PurgeInflight));
        assert_eq!(code(queued.await), Some(RDKafkaErrorCode::MessageTimedOut), "sent after, not purged");
    });
}

/// librdkafka purges what is in flight at once ("void any future acknowledgements"), not when
/// the request would have timed out.
#[test]
fn librdkafka_a_purge_of_in_flight_messages_fails_them_at_once() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        kill_log();
        let p: FutureProducer = config(&[("message.timeout.ms", "10000")]).create().unwrap();
        let in_flight = p.send_result(FutureRecord::<str, str>::to("t").partition(0).payload("a")).unwrap();
        madsim::time::sleep(Duration::from_millis(5)).await;
        let started = madsim::time::Instant::now();
        p.purge(PurgeConfig::default().inflight());
        assert_eq!(code(in_flight.await), Some(RDKafkaErrorCode::PurgeInflight));
        assert!(started.elapsed() < Duration::from_millis(500), "{:?}", started.elapsed());
    });
}

/// librdkafka's sticky partitioner (`rd_kafka_msg_sticky_partition`, KIP-480): messages
/// without a key go to one partition for `sticky.partitioning.linger.ms` (10 ms), then to
/// another drawn at random; a key is hashed, never sticky.
#[test]
fn librdkafka_keyless_messages_stick_to_a_partition_for_the_linger_then_move() {
    sim(TxnProtocol::Classic, |log, _h, _client| async move {
        log.create_topic("wide", 16);
        let p: FutureProducer = config(&[]).create().unwrap();
        let keyless = || FutureRecord::<str, str>::to("wide").payload("v");
        let together: Vec<_> = (0..20).map(|_| p.send_result(keyless()).unwrap()).collect();
        let mut parts = BTreeSet::new();
        for d in together {
            parts.insert(d.await.unwrap().unwrap().partition);
        }
        assert_eq!(parts.len(), 1, "one partition within the linger: {parts:?}");
        let mut apart = BTreeSet::new();
        for _ in 0..20 {
            apart.insert(p.send(keyless(), T).await.unwrap().partition);
            madsim::time::sleep(Duration::from_millis(15)).await;
        }
        assert!(apart.len() > 1, "a new partition after each linger: {apart:?}");
        let keyed = p.send(FutureRecord::<str, str>::to("wide").key("kafka").payload("v"), T).await.unwrap();
        assert_eq!(keyed.partition, (0x5bbc_7517u32 % 16) as i32, "crc32(kafka) % 16");
    });
}

/// Kafka's idempotent producer state: a retry of one of the last five batches is answered
/// with the offset it was written at, so every delivery report is a success at the message's
/// offset in the log (not just "the log has no duplicate").
#[test]
fn kafka_a_recognised_retry_is_reported_delivered_at_its_first_offset() {
    use connsim::net::FaultRule;
    #[derive(Default)]
    struct Landed(Mutex<Vec<Result<i64, RDKafkaErrorCode>>>);
    impl ClientContext for Landed {}
    impl ProducerContext for Landed {
        type DeliveryOpaque = ();
        fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
            let r = match result {
                Ok(m) => Ok(m.offset()),
                Err((e, _)) => Err(e.rdkafka_error_code().unwrap()),
            };
            self.0.lock().unwrap().push(r);
        }
    }
    sim_on_network(TxnProtocol::Classic, |_log, _h, _client, gw| async move {
        let p: BaseProducer<Landed> = config(&[("batch.num.messages", "1"), ("enable.idempotence", "true")])
            .create_with_context(Landed::default())
            .unwrap();
        let payloads: Vec<String> = (0..5).map(|i| format!("m{i}")).collect();
        for payload in &payloads {
            p.send(record(payload)).unwrap();
        }
        let now = connsim::net::now().as_millis() as u64;
        gw.add_rule(FaultRule::lose_response(0.5).kind("kafka.produce").window(now, now + 10));
        let started = madsim::time::Instant::now();
        p.flush(Duration::from_secs(10)).await.unwrap();
        assert!(started.elapsed() >= Duration::from_millis(50), "an answer was lost and the batch retried");
        gw.heal();
        assert_eq!(*p.context().0.lock().unwrap(), [Ok(0), Ok(1), Ok(2), Ok(3), Ok(4)]);
        assert_eq!(read("read_uncommitted", 0).await, payloads);
    });
}
