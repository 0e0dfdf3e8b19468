//! The std half against librdkafka's mock cluster (listeners on localhost): every wrapped
//! call reaches a broker and comes back through tokio's blocking pool.

use crate::config::ClientConfig;
use crate::consumer::{BaseConsumer, CommitMode, Consumer, StreamConsumer};
use crate::error::{KafkaError, RDKafkaErrorCode};
use crate::message::{DeliveryResult, Header, Headers, Message, OwnedHeaders};
use crate::mocking::MockCluster;
use crate::producer::{
    BaseProducer, BaseRecord, DefaultProducerContext, FutureProducer, FutureRecord, Partitioner, Producer,
    ProducerContext, PurgeConfig, ThreadedProducer,
};
use crate::{ClientContext, Offset, TopicPartitionList};
use futures::StreamExt;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const T: Duration = Duration::from_secs(10);

fn run<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime").block_on(f)
}

fn partition(topic: &str, p: i32, offset: Offset) -> TopicPartitionList {
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(topic, p, offset).expect("a partition");
    tpl
}

#[test]
fn a_transaction_written_and_read_back_through_the_async_calls() {
    let cluster = MockCluster::new(1).expect("a mock cluster");
    cluster.create_topic("out", 1, 1).expect("a topic");
    let bootstrap = cluster.bootstrap_servers();
    run(async {
        let producer: FutureProducer = ClientConfig::new()
            .set("bootstrap.servers", &bootstrap)
            .set("transactional.id", "connsim-test")
            .create()
            .expect("a producer");
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", &bootstrap)
            .set("group.id", "connsim-test")
            .set("enable.auto.commit", "false")
            .set("isolation.level", "read_committed")
            .create()
            .expect("a consumer");

        producer.init_transactions(T).await.expect("init_transactions");
        producer.begin_transaction().expect("begin_transaction");
        let headers = OwnedHeaders::new().insert(Header { key: "h", value: Some("v") });
        let record = FutureRecord::to("out").partition(0).key("k").payload("p").headers(headers);
        producer.send(record, T).await.expect("delivered");
        let cgm = consumer.group_metadata().expect("the consumer has a group");
        producer.send_offsets_to_transaction(&partition("out", 0, Offset::Offset(7)), &cgm, T).await.expect("offsets");
        producer.commit_transaction(T).await.expect("commit_transaction");
        producer.flush(T).await.expect("flush");

        let metadata = consumer.fetch_metadata(Some("out"), T).await.expect("metadata");
        assert_eq!(metadata.topics()[0].partitions().len(), 1);
        let (low, high) = consumer.fetch_watermarks("out", 0, T).await.expect("watermarks");
        assert_eq!(low, 0);
        assert!(high >= 1, "the message and its commit marker: {high}");
        // (The mock broker acknowledges the transaction's offsets without storing them.)
        consumer.committed_offsets(partition("out", 0, Offset::Invalid), T).await.expect("committed");

        consumer.assign(&partition("out", 0, Offset::Beginning)).expect("assign");
        let mut polled = None;
        for _ in 0..100 {
            if let Some(m) = consumer.poll(Duration::from_millis(100)).await {
                polled = Some(m.expect("a message"));
                break;
            }
        }
        let m = polled.expect("the committed message is read");
        assert_eq!((m.key(), m.payload(), m.offset()), (Some(&b"k"[..]), Some(&b"p"[..]), 0));
        let h = m.headers().expect("headers").get(0);
        assert_eq!((h.key, h.value), ("h", Some(&b"v"[..])));
        drop(m);

        consumer.commit(&partition("out", 0, Offset::Offset(1)), CommitMode::Sync).await.expect("commit");
        let committed = consumer.committed(T).await.expect("committed");
        assert_eq!(committed.find_partition("out", 0).map(|e| e.offset()), Some(Offset::Offset(1)));
        consumer.commit_consumer_state(CommitMode::Async).await.expect("commit_consumer_state");
    });
}

/// A partitioner that sends everything to partition 1.
struct One;

impl Partitioner for One {
    fn partition(&self, _: &str, _: Option<&[u8]>, _: i32, _: impl Fn(i32) -> bool) -> i32 {
        1
    }
}

/// A producer context with that partitioner, keeping the partitions its reports name.
struct ToOne(One, Mutex<Vec<i32>>);

impl ClientContext for ToOne {}

impl ProducerContext<One> for ToOne {
    type DeliveryOpaque = ();
    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        self.1.lock().unwrap().push(result.as_ref().map_or(-1, |m| m.partition()));
    }
    fn get_custom_partitioner(&self) -> Option<&One> {
        Some(&self.0)
    }
}

fn consumer_config(bootstrap: &str) -> ClientConfig {
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap).set("group.id", "connsim-split").set("enable.auto.commit", "false");
    config
}

#[test]
fn partition_queues_streams_threaded_and_partitioned_producers_through_the_wrappers() {
    let cluster = MockCluster::new(1).expect("a mock cluster");
    cluster.create_topic("in", 2, 1).expect("a topic");
    let bootstrap = cluster.bootstrap_servers();
    run(async {
        // A threaded producer writes one message to each partition.
        let threaded: ThreadedProducer<DefaultProducerContext> =
            ClientConfig::new().set("bootstrap.servers", &bootstrap).create().expect("a threaded producer");
        for p in 0..2 {
            threaded.send(BaseRecord::to("in").partition(p).key("k").payload("p")).map_err(|(e, _)| e).expect("queued");
        }
        threaded.poll(Duration::from_secs(10)); // Does not wait.
        threaded.flush(T).await.expect("flush");
        assert_eq!(threaded.in_flight_count(), 0);
        assert!(threaded.client().fatal_error().is_none());

        // A base producer with a partitioner of its own: its message lands on partition 1.
        let partitioned: BaseProducer<ToOne, One> = ClientConfig::new()
            .set("bootstrap.servers", &bootstrap)
            .create_with_context(ToOne(One, Mutex::default()))
            .expect("a partitioned producer");
        partitioned.send(BaseRecord::to("in").key("k").payload("q")).map_err(|(e, _)| e).expect("queued");
        partitioned.flush(T).await.expect("flush");
        partitioned.poll(Duration::ZERO).await;
        assert_eq!(*partitioned.context().1.lock().unwrap(), [1]);

        // Partition 1 split off a base consumer: partition 0 comes through the stream,
        // partition 1 through its queue.
        let consumer: Arc<BaseConsumer> = Arc::new(consumer_config(&bootstrap).create().expect("a consumer"));
        let mut both = TopicPartitionList::new();
        both.add_partition_offset("in", 0, Offset::Beginning).expect("a partition");
        both.add_partition_offset("in", 1, Offset::Beginning).expect("a partition");
        consumer.assign(&both).expect("assign");
        let queue = consumer.split_partition_queue("in", 1).expect("a partition queue");
        let m = tokio::time::timeout(T, consumer.iter().next()).await.expect("in time").expect("a message");
        let m = m.expect("no error");
        assert_eq!((m.partition(), m.payload()), (0, Some(&b"p"[..])));
        drop(m);
        let mut payloads = Vec::new();
        for _ in 0..2 {
            let m = queue.poll(T).await.expect("in time").expect("a message");
            assert_eq!(m.partition(), 1);
            payloads.push(m.payload().map(<[u8]>::to_vec));
        }
        assert_eq!(payloads, [Some(b"p".to_vec()), Some(b"q".to_vec())]);
        assert!(queue.poll(Duration::from_millis(10)).await.is_none());
        assert!(consumer.client().fatal_error().is_none());
        // The mock cluster knows no ListGroups: what matters is that the call comes back.
        match consumer.fetch_group_list(None, Duration::from_secs(2)).await {
            Ok(list) => assert!(list.groups().iter().all(|g| !g.name().is_empty())),
            Err(e) => assert!(matches!(e, KafkaError::GroupListFetch(_)), "{e}"),
        }
        drop(queue);

        // The same with a stream consumer.
        let stream: Arc<StreamConsumer> =
            Arc::new(consumer_config(&bootstrap).set("group.id", "connsim-stream").create().expect("a consumer"));
        stream.assign(&both).expect("assign");
        let queue = stream.split_partition_queue("in", 1).expect("a partition queue");
        let m = tokio::time::timeout(T, stream.recv()).await.expect("in time").expect("a message");
        assert_eq!(m.partition(), 0);
        drop(m);
        let m = tokio::time::timeout(T, queue.stream().next()).await.expect("in time").expect("a message");
        assert_eq!(m.expect("no error").partition(), 1);
        let m = tokio::time::timeout(T, queue.recv()).await.expect("in time").expect("a message");
        assert_eq!(m.payload(), Some(&b"q"[..]));
        drop(m);
        assert!(stream.client().fatal_error().is_none());
    });
}

#[test]
fn a_purge_takes_back_what_waits_for_a_broker() {
    run(async {
        // No broker listens there: the message stays queued until the purge.
        let producer: FutureProducer = ClientConfig::new()
            .set("bootstrap.servers", "127.0.0.1:1")
            .set("message.timeout.ms", "60000")
            .create()
            .expect("a producer");
        let delivery = producer.send_result(FutureRecord::<str, str>::to("t").payload("p")).map_err(|(e, _)| e);
        let delivery = delivery.expect("queued");
        // (librdkafka's count has the client's own events too: the broker's connection errors.)
        assert!(producer.in_flight_count() >= 1);
        producer.purge(PurgeConfig::default().queue());
        producer.poll(Duration::from_secs(10)); // Does not wait.
        let result = tokio::time::timeout(T, delivery).await.expect("in time").expect("not canceled");
        let (e, m) = result.expect_err("purged");
        assert_eq!(e, KafkaError::MessageProduction(RDKafkaErrorCode::PurgeQueue));
        assert_eq!(m.payload(), Some(&b"p"[..]));
        let _: &Arc<crate::producer::FutureProducerContext<crate::client::DefaultClientContext>> = producer.context();
        assert!(producer.client().fatal_error().is_none());
    });
}
