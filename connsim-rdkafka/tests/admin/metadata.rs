//! Metadata: one broker, leader and only replica of every partition; a topic that does not
//! exist is in the answer with its error, as librdkafka answers a one-topic request.

use super::{admin, create, metadata_of};
use crate::common::sim;
use crate::common::T;
use connsim::systems::TxnProtocol;
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::types::RDKafkaRespErr;

#[test]
fn librdkafka_metadata_names_the_one_broker_as_leader_replica_and_isr_of_every_partition() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        create("u", 3, &[]).await;
        let m = metadata_of(None).await;
        assert_eq!((m.orig_broker_id(), m.orig_broker_name()), (1, "kafka:9092/1"));
        let brokers: Vec<(i32, &str, i32)> = m.brokers().iter().map(|b| (b.id(), b.host(), b.port())).collect();
        assert_eq!(brokers, [(1, "kafka", 9092)], "the log's node name, as bootstrap.servers names it");
        let topics: Vec<(&str, usize)> = m.topics().iter().map(|t| (t.name(), t.partitions().len())).collect();
        assert_eq!(topics, [("t", 2), ("u", 3)], "every topic, by name");
        for t in m.topics() {
            assert_eq!(t.error(), None);
            for (i, p) in t.partitions().iter().enumerate() {
                assert_eq!(
                    (p.id(), p.leader(), p.replicas(), p.isr(), p.error()),
                    (i as i32, 1, &[1][..], &[1][..], None)
                );
            }
        }
    });
}

#[test]
fn librdkafka_metadata_of_a_topic_that_does_not_exist_answers_it_with_unknown_topic_or_part() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        // `rd_kafka_metadata` succeeds; the topic's entry carries the broker's error
        // (`allow.auto.create.topics=false`: nothing is created).
        let m = metadata_of(Some("missing")).await;
        let [t] = m.topics() else { panic!("one topic: {m:?}") };
        assert_eq!((t.name(), t.partitions().len()), ("missing", 0));
        assert_eq!(t.error(), Some(RDKafkaRespErr::RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART));
        assert_eq!(t.error().map(RDKafkaErrorCode::from), Some(RDKafkaErrorCode::UnknownTopicOrPartition));
        assert_eq!(metadata_of(None).await.topics().len(), 1, "still only t");
        let named = metadata_of(Some("t")).await;
        assert_eq!((named.topics().len(), named.topics()[0].partitions().len()), (1, 2), "a named topic alone");
    });
}

#[test]
fn rdkafka_an_admin_clients_inner_client_fetches_metadata_and_watermarks() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let a = admin();
        let m = a.inner().fetch_metadata(Some("t"), T).await.unwrap();
        assert_eq!((m.topics()[0].name(), m.topics()[0].partitions().len()), ("t", 2));
        assert_eq!(a.inner().fetch_watermarks("t", 0, T).await.unwrap(), (0, 0));
    });
}
