//! `CreatePartitions` (KIP-195): the controller's rules, and rdkafka's and librdkafka's checks
//! of [`NewPartitions`].

use super::{admin, opts, partitions_of, topic};
use crate::common::sim;
use connsim::systems::TxnProtocol;
use rdkafka::admin::{NewPartitions, NewTopic, TopicReplication};
use rdkafka::error::{KafkaError, RDKafkaErrorCode::*};

#[test]
fn kip195_create_partitions_grows_a_topic_and_refuses_a_count_that_is_no_increase() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let grow = NewPartitions::new("t", 4);
        assert_eq!(admin().create_partitions([&grow], &opts()).await.unwrap(), [Ok("t".into())]);
        assert_eq!(partitions_of("t").await, 4);
        let refusals =
            [("t", 4, InvalidPartitions), ("t", 3, InvalidPartitions), ("missing", 3, UnknownTopicOrPartition)];
        for (topic, count, code) in refusals {
            let p = NewPartitions::new(topic, count);
            assert_eq!(admin().create_partitions([&p], &opts()).await.unwrap(), [Err((topic.into(), code))]);
        }
        assert_eq!(partitions_of("t").await, 4, "unchanged");
    });
}

#[test]
fn kafka_a_topic_named_twice_in_one_create_partitions_is_refused_invalid_request() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let (a, b) = (NewPartitions::new("t", 3), NewPartitions::new("t", 4));
        let results = admin().create_partitions([&a, &b], &opts()).await.unwrap();
        assert_eq!(results, [Err(("t".into(), InvalidRequest)), Err(("t".into(), InvalidRequest))]);
        assert_eq!(partitions_of("t").await, 2);
    });
}

#[test]
fn kafka_validate_only_checks_create_partitions_without_growing_the_topic() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let grow = NewPartitions::new("t", 5);
        let results = admin().create_partitions([&grow], &opts().validate_only(true)).await.unwrap();
        assert_eq!(results, [Ok("t".into())]);
        assert_eq!(partitions_of("t").await, 2);
    });
}

#[test]
fn kafka_refuses_new_partitions_whose_assignment_count_is_not_the_number_added() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let one: &[&[i32]] = &[&[1]];
        let short = NewPartitions::new("t", 4).assign(one);
        let results = admin().create_partitions([&short], &opts()).await.unwrap();
        assert_eq!(results, [Err(("t".into(), InvalidReplicaAssignment))], "two added, one assignment");
        let two: &[&[i32]] = &[&[1], &[1]];
        let exact = NewPartitions::new("t", 4).assign(two);
        assert_eq!(admin().create_partitions([&exact], &opts()).await.unwrap(), [Ok("t".into())]);
        assert_eq!(partitions_of("t").await, 4);
    });
}

#[test]
fn kafka_new_partitions_replicas_must_be_as_many_as_the_topics_replication_factor() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let three = NewTopic::new("r3", 1, TopicReplication::Fixed(3));
        admin().create_topics([&three, &topic("r1", 1)], &opts()).await.unwrap();
        let replicas: &[&[i32]] = &[&[1, 2, 3]];
        let to_r1 = NewPartitions::new("r1", 2).assign(replicas);
        let to_r3 = NewPartitions::new("r3", 2).assign(replicas);
        let results = admin().create_partitions([&to_r1, &to_r3], &opts()).await.unwrap();
        assert_eq!(results, [Err(("r1".into(), InvalidReplicaAssignment)), Ok("r3".into())]);
    });
}

#[test]
fn rdkafka_refuses_a_partition_assignment_longer_than_the_new_partition_count() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let three: &[&[i32]] = &[&[1], &[1], &[1]];
        let p = NewPartitions::new("t", 2).assign(three);
        let why = "partition assignment for topic 't' assigns 3 partition(s), which is more than the requested total \
                   number of partitions (2)";
        assert_eq!(admin().create_partitions([&p], &opts()).await, Err(KafkaError::AdminOpCreation(why.into())));
    });
}

#[test]
fn librdkafka_refuses_a_new_partition_count_outside_1_to_100000() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let why = Err(KafkaError::AdminOpCreation("new_total_cnt out of expected range 1..100000".into()));
        assert_eq!(admin().create_partitions([&NewPartitions::new("t", 0)], &opts()).await, why);
        assert_eq!(admin().create_partitions([&NewPartitions::new("t", 100_001)], &opts()).await, why);
    });
}
