//! The std half against librdkafka's mock cluster (listeners on localhost): every wrapped
//! call reaches a broker and comes back through tokio's blocking pool.

use crate::config::ClientConfig;
use crate::consumer::{BaseConsumer, CommitMode, Consumer};
use crate::message::{Header, Headers, Message, OwnedHeaders};
use crate::mocking::MockCluster;
use crate::producer::{FutureProducer, FutureRecord, Producer};
use crate::{Offset, TopicPartitionList};
use std::future::Future;
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
