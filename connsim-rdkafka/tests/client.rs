//! librdkafka's client-side rules the simulated clients follow, each test naming the rule it
//! checks and failing if the rule breaks: the transactional state machine, timeouts, and
//! configuration that librdkafka adjusts or refuses.
#![cfg(madsim)]

use connsim::systems::TxnProtocol;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{FutureRecord, Producer};
use std::time::Duration;

extern crate connsim_rdkafka as rdkafka;

mod common;
use common::*;

#[test]
fn librdkafka_init_transactions_is_a_state_error_once_the_producer_has_its_id() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p = transactional("once");
        p.init_transactions(T).await.unwrap();
        let again = p.init_transactions(T).await;
        assert!(matches!(&again, Err(KafkaError::Transaction(e)) if e.code() == RDKafkaErrorCode::State), "{again:?}");
        // The producer is not harmed: its transactions go on.
        p.begin_transaction().unwrap();
        send(&p, 0, "a").await.unwrap();
        p.commit_transaction(T).await.unwrap();
        // In a transaction that must abort, it answers with that transaction's error.
        p.begin_transaction().unwrap();
        let _ = p.send(FutureRecord::<str, str>::to("no-such-topic").payload("lost"), T).await;
        let again = p.init_transactions(T).await;
        assert!(matches!(&again, Err(KafkaError::Transaction(e)) if e.txn_requires_abort()), "{again:?}");
    });
}

#[test]
fn librdkafka_a_transaction_with_a_message_that_found_no_topic_cannot_commit() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p = transactional("lost");
        p.init_transactions(T).await.unwrap();
        p.begin_transaction().unwrap();
        send(&p, 0, "kept").await.unwrap();
        let lost = p.send(FutureRecord::<str, str>::to("no-such-topic").payload("lost"), T).await;
        assert!(lost.is_err(), "a message to a topic that does not exist fails");
        let commit = p.commit_transaction(T).await;
        assert!(
            matches!(&commit, Err(KafkaError::Transaction(e)) if e.txn_requires_abort()),
            "the transaction lost a message, yet: {commit:?}"
        );
        p.abort_transaction(T).await.unwrap();
        assert!(read("read_committed", 0).await.is_empty(), "nothing of the aborted transaction is visible");
    });
}

#[test]
fn librdkafka_flush_returns_at_its_timeout_with_messages_still_queued() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        // A broker no node answers for: every request goes unanswered.
        let mut c = config(&[]);
        c.set("bootstrap.servers", "nowhere:9092");
        let p = c.create::<rdkafka::producer::FutureProducer>().unwrap();
        let pending = p.send_result(FutureRecord::<str, str>::to("t").partition(0).payload("queued")).unwrap();
        let started = madsim::time::Instant::now();
        let flushed = p.flush(Duration::from_millis(50)).await;
        assert!(
            matches!(flushed, Err(KafkaError::Flush(RDKafkaErrorCode::OperationTimedOut))),
            "{flushed:?} after {:?}",
            started.elapsed()
        );
        assert!(started.elapsed() < Duration::from_millis(100), "flush waited {:?}", started.elapsed());
        drop(pending);
    });
}

#[test]
fn librdkafka_lowers_a_transactional_producers_message_timeout_to_its_transaction_timeout() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p: rdkafka::producer::FutureProducer =
            config(&[("transactional.id", "short"), ("transaction.timeout.ms", "1000")]).create().unwrap();
        p.init_transactions(T).await.unwrap();
        p.begin_transaction().unwrap();
        kill_log();
        let started = madsim::time::Instant::now();
        let sent = p.send(FutureRecord::<str, str>::to("t").partition(0).payload("x"), Duration::from_secs(0)).await;
        let waited = started.elapsed();
        assert!(
            matches!(&sent, Err((KafkaError::MessageProduction(RDKafkaErrorCode::MessageTimedOut), _))),
            "{:?}",
            sent.map(|d| d.offset)
        );
        assert!(
            (Duration::from_millis(950)..=Duration::from_millis(1_100)).contains(&waited),
            "a message timed out after {waited:?}, not its transaction's 1 s"
        );
        // Set larger than the transaction timeout, it is refused.
        let refused =
            config(&[("transactional.id", "long"), ("transaction.timeout.ms", "1000"), ("message.timeout.ms", "5000")])
                .create::<rdkafka::producer::FutureProducer>();
        assert!(matches!(&refused, Err(KafkaError::ClientCreation(m)) if m.contains("message.timeout.ms")));
    });
}

#[test]
fn librdkafka_aborts_a_transaction_the_broker_never_heard_of_without_an_end_txn() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p = transactional("unheard");
        p.init_transactions(T).await.unwrap();
        p.begin_transaction().unwrap();
        send(&p, 0, "a").await.unwrap();
        p.commit_transaction(T).await.unwrap();
        // Its only message never found a partition: nothing reached the broker.
        p.begin_transaction().unwrap();
        let lost = p.send(FutureRecord::<str, str>::to("no-such-topic").payload("lost"), T).await;
        assert!(lost.is_err());
        // An EndTxn would be refused (the broker's last transaction of the id committed).
        p.abort_transaction(T).await.unwrap();
        p.begin_transaction().unwrap();
        send(&p, 0, "b").await.unwrap();
        p.commit_transaction(T).await.unwrap();
        assert_eq!(read("read_committed", 0).await, ["a", "b"]);
    });
}

#[test]
fn kafka_a_transaction_timeout_above_the_brokers_maximum_is_refused_and_fatal() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let too_long = connsim::systems::TRANSACTION_MAX_TIMEOUT_MS + 1;
        let p: rdkafka::producer::FutureProducer =
            config(&[("transactional.id", "long"), ("transaction.timeout.ms", &too_long.to_string())])
                .create()
                .unwrap();
        let refused = p.init_transactions(T).await;
        assert!(
            matches!(&refused, Err(KafkaError::Transaction(e))
                if e.code() == RDKafkaErrorCode::InvalidTransactionTimeout && e.is_fatal()),
            "{refused:?}"
        );
        // At the maximum it is accepted.
        let at_max = connsim::systems::TRANSACTION_MAX_TIMEOUT_MS.to_string();
        let p: rdkafka::producer::FutureProducer =
            config(&[("transactional.id", "max"), ("transaction.timeout.ms", &at_max)]).create().unwrap();
        p.init_transactions(T).await.unwrap();
    });
}

#[test]
fn librdkafka_resumes_a_commit_that_timed_out_and_refuses_an_abort_meanwhile() {
    use connsim::net::FaultRule;
    for protocol in [TxnProtocol::Classic, TxnProtocol::Kip890] {
        sim_on_network(protocol, |_log, _h, _client, gw| async move {
            let p = transactional("unsure");
            p.init_transactions(T).await.unwrap();
            p.begin_transaction().unwrap();
            send(&p, 0, "a").await.unwrap();
            // The EndTxn takes effect; no answer to it comes back.
            let lost = gw.add_rule(FaultRule::lose_response(1.0).kind("kafka.end_txn"));
            let commit = p.commit_transaction(Duration::from_millis(200)).await;
            assert!(
                matches!(&commit, Err(KafkaError::Transaction(e))
                    if e.code() == RDKafkaErrorCode::OperationTimedOut && e.is_retriable() && !e.txn_requires_abort()),
                "{protocol:?}: a commit that timed out goes on, to be resumed: {commit:?}"
            );
            gw.remove_rule(lost);
            // Meanwhile an abort conflicts with it, and nothing else starts.
            let abort = p.abort_transaction(T).await;
            assert!(
                matches!(&abort, Err(KafkaError::Transaction(e)) if e.code() == RDKafkaErrorCode::Conflict && e.is_retriable()),
                "{protocol:?}: {abort:?}"
            );
            let begin = p.begin_transaction();
            assert!(
                matches!(&begin, Err(KafkaError::Transaction(e)) if e.code() == RDKafkaErrorCode::Conflict && e.is_retriable()),
                "{protocol:?}: the commit is still under way: {begin:?}"
            );
            // Called again, the commit resumes: the broker answers the retried EndTxn as done.
            p.commit_transaction(T).await.unwrap_or_else(|e| panic!("{protocol:?}: {e}"));
            p.begin_transaction().unwrap();
            send(&p, 0, "b").await.unwrap();
            p.commit_transaction(T).await.unwrap();
            assert_eq!(read("read_committed", 0).await, ["a", "b"], "{protocol:?}");
        });
    }
}

#[test]
fn librdkafka_commits_stored_offsets_and_without_auto_store_only_what_the_application_stored() {
    use rdkafka::consumer::{CommitMode, Consumer};
    use rdkafka::{Offset, TopicPartitionList};
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let plain: rdkafka::producer::FutureProducer = config(&[]).create().unwrap();
        for v in ["a", "b", "c"] {
            send(&plain, 0, v).await.unwrap();
        }
        async fn committed(c: &rdkafka::consumer::BaseConsumer) -> Option<Offset> {
            let mut tpl = TopicPartitionList::new();
            tpl.add_partition("t", 0);
            let got = c.committed_offsets(tpl, T).await.unwrap();
            got.find_partition("t", 0).map(|e| e.offset())
        }
        // By default a message's offset is stored when it is returned; a list of offsets may
        // not be stored then.
        let auto = assigned(&[("group.id", "auto"), ("enable.auto.commit", "false")], 0, Offset::Beginning);
        let nothing = auto.commit_consumer_state(CommitMode::Sync).await;
        assert!(matches!(nothing, Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::NoOffset))), "{nothing:?}");
        let mut list = TopicPartitionList::new();
        list.add_partition_offset("t", 0, Offset::Offset(1)).unwrap();
        let refused = auto.store_offsets(&list);
        assert!(matches!(refused, Err(KafkaError::StoreOffset(RDKafkaErrorCode::InvalidArgument))), "{refused:?}");
        auto.poll(T).await.unwrap().unwrap();
        auto.commit_consumer_state(CommitMode::Sync).await.unwrap();
        assert_eq!(committed(&auto).await, Some(Offset::Offset(1)), "past the one message returned");
        // Without it, a commit (asked for or automatic) commits only what was stored, and
        // `store_offset` stores past the offset it is given, as librdkafka's.
        let pairs = [
            ("group.id", "manual"),
            ("enable.auto.offset.store", "false"),
            ("enable.auto.commit", "true"),
            ("auto.commit.interval.ms", "10"),
        ];
        let manual = assigned(&pairs, 0, Offset::Beginning);
        let a = manual.poll(T).await.unwrap().unwrap();
        let a_offset = rdkafka::Message::offset(&a);
        drop(a);
        manual.poll(T).await.unwrap().unwrap();
        manual.store_offset("t", 0, a_offset).unwrap();
        manual.poll(T).await.unwrap().unwrap();
        madsim::time::sleep(Duration::from_millis(20)).await;
        let _ = manual.poll(Duration::from_millis(20)).await;
        madsim::time::sleep(Duration::from_millis(5)).await;
        let stored = manual.store_offset("t", 1, 0);
        assert!(matches!(stored, Err(KafkaError::StoreOffset(RDKafkaErrorCode::State))), "not assigned: {stored:?}");
        // A list stores what it can; it fails only when nothing could be stored.
        let mut none = TopicPartitionList::new();
        none.add_partition_offset("t", 1, Offset::Offset(0)).unwrap();
        assert!(manual.store_offsets(&none).is_err(), "no partition of it is assigned");
        assert_eq!(committed(&manual).await, Some(Offset::Offset(1)), "the auto-commit committed what was stored");
        let mut some = TopicPartitionList::new();
        some.add_partition_offset("t", 1, Offset::Offset(0)).unwrap();
        some.add_partition_offset("t", 0, Offset::Offset(2)).unwrap();
        manual.store_offsets(&some).unwrap();
        manual.commit_consumer_state(CommitMode::Sync).await.unwrap();
        // Nothing stored past what it committed: nothing to commit.
        let again = manual.commit_consumer_state(CommitMode::Sync).await;
        assert!(matches!(again, Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::NoOffset))), "{again:?}");
        assert_eq!(committed(&manual).await, Some(Offset::Offset(2)), "stored as given in the list");
    });
}

#[test]
fn librdkafka_reports_each_base_producer_delivery_to_the_context_with_its_opaque() {
    use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, ProducerContext};
    use rdkafka::{ClientContext, Message};
    use std::sync::{Arc, Mutex};

    /// A report's opaque, partition, offset and error.
    type Report = (usize, i32, i64, Option<RDKafkaErrorCode>);
    #[derive(Default)]
    struct Reports(Mutex<Vec<Report>>);
    impl ClientContext for Reports {}
    impl ProducerContext for Reports {
        type DeliveryOpaque = Box<usize>;
        fn delivery(&self, result: &DeliveryResult<'_>, opaque: Box<usize>) {
            let report = match result {
                Ok(m) => (*opaque, m.partition(), m.offset(), None),
                Err((e, m)) => (*opaque, m.partition(), m.offset(), e.rdkafka_error_code()),
            };
            self.0.lock().unwrap().push(report);
        }
    }
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p: BaseProducer<Reports> =
            config(&[("message.timeout.ms", "200")]).create_with_context(Reports::default()).unwrap();
        p.send(BaseRecord::<str, str, Box<usize>>::with_opaque_to("t", Box::new(7)).partition(1).payload("a"))
            .map_err(|(e, _)| e)
            .unwrap();
        p.send(BaseRecord::<str, str, Box<usize>>::with_opaque_to("no-such-topic", Box::new(8)).payload("lost"))
            .map_err(|(e, _)| e)
            .unwrap();
        p.send(BaseRecord::<str, str, Box<usize>>::with_opaque_to("t", Box::new(9)).partition(1).payload("b"))
            .map_err(|(e, _)| e)
            .unwrap();
        assert!(p.context().0.lock().unwrap().is_empty(), "nothing is reported before poll or flush");
        p.flush(T).await.unwrap();
        let reports: Vec<_> = p.context().0.lock().unwrap().clone();
        assert_eq!(reports.len(), 3, "one report per message: {reports:?}");
        assert_eq!(reports[0], (7, 1, 0, None));
        assert!(matches!(reports[1], (8, -1, -1, Some(_))), "{reports:?}");
        assert_eq!(reports[2], (9, 1, 1, None), "{reports:?}");
        let _: Arc<Reports> = p.context().clone();
    });
}

#[test]
fn rdkafka_calls_the_commit_callback_for_automatic_commits_at_the_next_poll_only() {
    use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, ConsumerContext};
    use rdkafka::error::KafkaResult;
    use rdkafka::{ClientContext, Offset, TopicPartitionList};
    use std::sync::Mutex;

    #[derive(Default)]
    struct Commits(Mutex<Vec<(bool, Vec<i64>)>>);
    impl ClientContext for Commits {}
    impl ConsumerContext for Commits {
        fn commit_callback(&self, result: KafkaResult<()>, offsets: &TopicPartitionList) {
            let at = offsets.elements().iter().map(|e| e.offset().to_raw().unwrap_or(-1)).collect();
            self.0.lock().unwrap().push((result.is_ok(), at));
        }
    }
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let plain = config(&[]).create().unwrap();
        send(&plain, 0, "a").await.unwrap();
        let pairs = [("group.id", "g"), ("enable.auto.commit", "true"), ("auto.commit.interval.ms", "10")];
        let c: BaseConsumer<Commits> = config(&pairs).create_with_context(Commits::default()).unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset("t", 0, Offset::Beginning).unwrap();
        c.assign(&tpl).unwrap();
        c.poll(T).await.unwrap().unwrap();
        // A commit the application makes is not reported to the context.
        let mut at = TopicPartitionList::new();
        at.add_partition_offset("t", 0, Offset::Offset(1)).unwrap();
        c.commit(&at, CommitMode::Sync).await.unwrap();
        assert!(c.context().0.lock().unwrap().is_empty(), "no callback for a commit the application made");
        // The automatic commit of what is stored past it: nothing new, no commit, no callback.
        madsim::time::sleep(Duration::from_millis(20)).await;
        let _ = c.poll(Duration::from_millis(20)).await;
        assert!(c.context().0.lock().unwrap().is_empty(), "nothing to commit automatically yet");
        send(&plain, 0, "b").await.unwrap();
        c.poll(T).await.unwrap().unwrap();
        madsim::time::sleep(Duration::from_millis(20)).await;
        let _ = c.poll(Duration::from_millis(20)).await;
        assert_eq!(*c.context().0.lock().unwrap(), [(true, vec![2])], "the automatic commit past \"b\"");
    });
}

#[test]
fn librdkafka_assigns_incrementally_refuses_conflicts_and_commits_past_a_message() {
    use rdkafka::consumer::{CommitMode, Consumer};
    use rdkafka::{Message, Offset, TopicPartitionList};
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let plain: rdkafka::producer::FutureProducer = config(&[]).create().unwrap();
        send(&plain, 0, "p0").await.unwrap();
        send(&plain, 1, "p1").await.unwrap();
        let c = assigned(&[("group.id", "g"), ("enable.auto.commit", "false")], 0, Offset::Beginning);
        let mut p1 = TopicPartitionList::new();
        p1.add_partition_offset("t", 1, Offset::Beginning).unwrap();
        c.incremental_assign(&p1).unwrap();
        assert_eq!(c.assignment().unwrap().count(), 2, "added to the assignment, not replacing it");
        let again = c.incremental_assign(&p1);
        assert!(matches!(&again, Err(KafkaError::Subscription(m)) if m.contains("_CONFLICT")), "{again:?}");
        let mut read = Vec::new();
        while let Some(m) = c.poll(Duration::from_millis(30)).await {
            let m = m.unwrap();
            read.push(m.payload_view::<str>().unwrap().unwrap().to_string());
            if m.partition() == 1 {
                c.commit_message(&m, CommitMode::Sync).await.unwrap();
            }
        }
        read.sort();
        assert_eq!(read, ["p0", "p1"]);
        let mut p0 = TopicPartitionList::new();
        p0.add_partition("t", 0);
        c.incremental_unassign(&p0).unwrap();
        assert!(c.incremental_unassign(&p0).is_err(), "p0 is no longer assigned");
        assert_eq!(c.assignment().unwrap().count(), 1);
        let mut at = TopicPartitionList::new();
        at.add_partition("t", 1);
        let committed = c.committed_offsets(at, T).await.unwrap();
        assert_eq!(committed.find_partition("t", 1).unwrap().offset(), Offset::Offset(1), "past the message");
    });
}

#[test]
fn librdkafka_resumes_an_abort_that_timed_out() {
    use connsim::net::FaultRule;
    sim_on_network(TxnProtocol::Classic, |_log, _h, _client, gw| async move {
        let p = transactional("aborting");
        p.init_transactions(T).await.unwrap();
        p.begin_transaction().unwrap();
        send(&p, 0, "a").await.unwrap();
        let lost = gw.add_rule(FaultRule::lose_response(1.0).kind("kafka.end_txn"));
        let abort = p.abort_transaction(Duration::from_millis(200)).await;
        assert!(matches!(&abort, Err(KafkaError::Transaction(e)) if e.is_retriable()), "{abort:?}");
        let commit = p.commit_transaction(T).await;
        assert!(
            matches!(&commit, Err(KafkaError::Transaction(e)) if e.code() == RDKafkaErrorCode::Conflict),
            "a commit conflicts with the abort under way: {commit:?}"
        );
        gw.remove_rule(lost);
        p.abort_transaction(T).await.unwrap();
        p.begin_transaction().unwrap();
        send(&p, 0, "b").await.unwrap();
        p.commit_transaction(T).await.unwrap();
        assert_eq!(read("read_committed", 0).await, ["b"]);
    });
}
