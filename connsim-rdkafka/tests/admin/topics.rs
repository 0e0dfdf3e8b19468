//! `CreateTopics` and `DeleteTopics`: the broker's rules (Kafka's controller) and the client's
//! checks (rdkafka's and librdkafka's) before anything is sent.

use super::{admin, create, metadata_of, opts, partitions_of, raw, topic};
use crate::common::{config, read, send, sim, transactional, T};
use connsim::systems::{AdminRequest, AdminResponse, KafkaCode, TxnProtocol};
use rdkafka::admin::{NewTopic, ResourceSpecifier, TopicReplication};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode::*};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};

#[test]
fn kafka_create_topics_creates_each_topic_with_its_partitions_and_configs() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let a = topic("a", 3).set("retention.ms", "1000");
        let b = NewTopic::new("b", 1, TopicReplication::Fixed(3));
        let results = admin().create_topics([&a, &b], &opts()).await.unwrap();
        assert_eq!(results, [Ok("a".to_string()), Ok("b".to_string())], "in the order asked");
        assert_eq!((partitions_of("a").await, partitions_of("b").await), (3, 1));
        let described = admin().describe_configs([&ResourceSpecifier::Topic("a")], &opts()).await.unwrap();
        let retention = described[0].as_ref().unwrap().get("retention.ms").unwrap();
        assert_eq!(retention.value.as_deref(), Some("1000"));
        // A created topic takes records.
        let p: FutureProducer = config(&[]).create().unwrap();
        let delivered = p.send(FutureRecord::<str, str>::to("a").partition(2).payload("x"), T).await;
        assert_eq!(delivered.map(|d| (d.partition, d.offset)).map_err(|(e, _)| e), Ok((2, 0)));
    });
}

#[test]
fn kafka_create_topics_refuses_an_existing_topic_with_topic_already_exists() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let results = admin().create_topics([&topic("t", 5)], &opts()).await.unwrap();
        assert_eq!(results, [Err(("t".to_string(), TopicAlreadyExists))]);
        assert_eq!(partitions_of("t").await, 2, "unchanged");
    });
}

#[test]
fn kip464_minus_one_partitions_and_replication_factor_take_the_brokers_defaults() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let d = NewTopic::new("d", -1, TopicReplication::Fixed(-1));
        assert_eq!(admin().create_topics([&d], &opts()).await.unwrap(), [Ok("d".to_string())]);
        assert_eq!(partitions_of("d").await, 1, "num.partitions=1");
    });
}

#[test]
fn kafka_create_topics_refuses_zero_partitions_and_a_zero_replication_factor() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let none = topic("none", 0);
        let zero = NewTopic::new("zero", 1, TopicReplication::Fixed(0));
        let results = admin().create_topics([&none, &zero], &opts()).await.unwrap();
        assert_eq!(results, [Err(("none".into(), InvalidPartitions)), Err(("zero".into(), InvalidReplicationFactor))]);
        assert_eq!(metadata_of(None).await.topics().len(), 1, "neither was created");
    });
}

#[test]
fn kafka_create_topics_refuses_an_illegal_topic_name_with_invalid_topic_exception() {
    sim(TxnProtocol::Classic, |_log, _h, client| async move {
        let long = "x".repeat(250);
        let names = ["", ".", "has space", "ünïcode", long.as_str()];
        let topics: Vec<NewTopic<'_>> = names.iter().map(|n| topic(n, 1)).collect();
        let results = admin().create_topics(&topics, &opts()).await.unwrap();
        for (name, result) in names.iter().zip(results) {
            assert_eq!(result, Err((name.to_string(), InvalidTopic)), "{name:?}");
        }
        let legal = "a.b_c-D9".to_string();
        assert_eq!(admin().create_topics([&topic(&legal, 1)], &opts()).await.unwrap(), [Ok(legal)]);
        // The broker says why, as Kafka's `Topic.validate` does.
        let req = AdminRequest::CreateTopics {
            topics: vec![connsim::systems::NewTopicRequest {
                name: "..".into(),
                num_partitions: 1,
                replication_factor: 1,
                assignment: vec![],
                configs: vec![],
            }],
            validate_only: false,
        };
        let AdminResponse::Topics(answer) = raw(&client, req).await else { panic!() };
        let e = answer[0].1.clone().unwrap();
        assert_eq!((e.code, e.message.as_str()), (KafkaCode::InvalidTopic, "Topic name cannot be \".\" or \"..\""));
    });
}

#[test]
fn kafka_create_topics_refuses_an_unknown_config_or_a_bad_value_with_invalid_config() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let unknown = topic("unknown", 1).set("no.such.config", "1");
        let bad = topic("bad", 1).set("retention.ms", "soon");
        let low = topic("low", 1).set("min.insync.replicas", "0");
        let policy = topic("policy", 1).set("cleanup.policy", "delete,forever");
        let results = admin().create_topics([&unknown, &bad, &low, &policy], &opts()).await.unwrap();
        let codes: Vec<_> = results.into_iter().map(|r| r.unwrap_err().1).collect();
        assert_eq!(codes, [InvalidConfig; 4]);
        assert_eq!(metadata_of(None).await.topics().len(), 1, "none was created");
        let good = topic("good", 1).set("cleanup.policy", "compact,delete").set("min.cleanable.dirty.ratio", "0.1");
        assert_eq!(admin().create_topics([&good], &opts()).await.unwrap(), [Ok("good".into())]);
    });
}

#[test]
fn kafka_a_topic_named_twice_in_one_create_topics_is_refused_invalid_request_and_not_created() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let results = admin().create_topics([&topic("twice", 1), &topic("twice", 2)], &opts()).await.unwrap();
        assert_eq!(results, [Err(("twice".into(), InvalidRequest)), Err(("twice".into(), InvalidRequest))]);
        assert_eq!(partitions_of("twice").await, 0);
    });
}

#[test]
fn kafka_validate_only_checks_create_topics_without_creating_anything() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let check = opts().validate_only(true);
        let results = admin().create_topics([&topic("v", 3), &topic("t", 1)], &check).await.unwrap();
        assert_eq!(results, [Ok("v".into()), Err(("t".into(), TopicAlreadyExists))], "checked as for real");
        assert_eq!(partitions_of("v").await, 0, "and not created");
    });
}

#[test]
fn rdkafka_refuses_a_replica_assignment_that_does_not_match_the_partition_count() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let assignment: &[&[i32]] = &[&[1], &[1]];
        let v = NewTopic::new("v", 3, TopicReplication::Variable(assignment));
        let refused = admin().create_topics([&topic("first", 1), &v], &opts()).await;
        let why = "replication configuration for topic 'v' assigns 2 partition(s), which does not match the \
                   specified number of partitions (3)";
        assert_eq!(refused, Err(KafkaError::AdminOpCreation(why.into())));
        assert_eq!(partitions_of("first").await, 0, "nothing was sent");
    });
}

#[test]
fn kafka_refuses_a_replica_assignment_whose_replica_lists_differ_in_length() {
    sim(TxnProtocol::Classic, |_log, _h, client| async move {
        // librdkafka sends it (it checks no lengths); Kafka's controller refuses it.
        let uneven: &[&[i32]] = &[&[1, 2], &[1]];
        let v = NewTopic::new("uneven", 2, TopicReplication::Variable(uneven));
        let results = admin().create_topics([&v], &opts()).await.unwrap();
        assert_eq!(results, [Err(("uneven".into(), InvalidReplicaAssignment))]);
        let req = AdminRequest::CreateTopics {
            topics: vec![connsim::systems::NewTopicRequest {
                name: "uneven".into(),
                num_partitions: -1,
                replication_factor: -1,
                assignment: vec![vec![1, 2], vec![1]],
                configs: vec![],
            }],
            validate_only: false,
        };
        let AdminResponse::Topics(answer) = raw(&client, req).await else { panic!() };
        let why = "The manual partition assignment includes a partition with 1 replica(s), but this is not consistent \
                   with previous partitions, which have 2 replica(s).";
        assert_eq!(answer[0].1.as_ref().map(|e| e.message.as_str()), Some(why));
        // Even lists make one partition each.
        let even: &[&[i32]] = &[&[1, 2], &[2, 1], &[1, 2]];
        let v = NewTopic::new("even", 3, TopicReplication::Variable(even));
        assert_eq!(admin().create_topics([&v], &opts()).await.unwrap(), [Ok("even".into())]);
        assert_eq!(partitions_of("even").await, 3);
    });
}

#[test]
fn kafka_refuses_a_replica_assignment_with_an_empty_list_or_a_broker_named_twice() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let empty: &[&[i32]] = &[&[]];
        let twice: &[&[i32]] = &[&[1, 1]];
        let e = NewTopic::new("e", 1, TopicReplication::Variable(empty));
        let d = NewTopic::new("d", 1, TopicReplication::Variable(twice));
        let results = admin().create_topics([&e, &d], &opts()).await.unwrap();
        assert_eq!(results, [Err(("e".into(), InvalidReplicaAssignment)), Err(("d".into(), InvalidReplicaAssignment))]);
    });
}

#[test]
fn librdkafka_refuses_num_partitions_and_replication_factor_out_of_its_range() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let refused = |why: &str| Err(KafkaError::AdminOpCreation(why.to_string()));
        let r = admin().create_topics([&topic("p", -2)], &opts()).await;
        assert_eq!(r, refused("num_partitions out of expected range 1..100000 or -1 for broker default"));
        let r = admin().create_topics([&topic("p", 100_001)], &opts()).await;
        assert_eq!(r, refused("num_partitions out of expected range 1..100000 or -1 for broker default"));
        let r = admin().create_topics([&NewTopic::new("r", 1, TopicReplication::Fixed(-2))], &opts()).await;
        assert_eq!(r, refused("replication_factor out of expected range -1..10000"));
    });
}

#[test]
fn kafka_delete_topics_deletes_a_topic_with_its_records_and_configs_and_it_can_be_created_anew() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        create("d", 1, &[("retention.ms", "5")]).await;
        let p: FutureProducer = config(&[]).create().unwrap();
        p.send(FutureRecord::<str, str>::to("d").partition(0).payload("old"), T).await.unwrap();
        assert_eq!(admin().delete_topics(&["d"], &opts()).await.unwrap(), [Ok("d".into())]);
        assert_eq!(partitions_of("d").await, 0);
        let gone = p.send(FutureRecord::<str, str>::to("d").partition(0).payload("x"), T).await;
        assert!(matches!(gone, Err((KafkaError::MessageProduction(UnknownTopicOrPartition), _))), "{gone:?}");
        create("d", 2, &[]).await;
        let c: BaseConsumer = config(&[]).create().unwrap();
        assert_eq!(c.fetch_watermarks("d", 0, T).await.unwrap(), (0, 0), "a new topic, empty");
        let described = admin().describe_configs([&ResourceSpecifier::Topic("d")], &opts()).await.unwrap();
        let retention = described[0].as_ref().unwrap().get("retention.ms").unwrap();
        assert_ne!(retention.value.as_deref(), Some("5"), "its old configs are gone");
    });
}

#[test]
fn kafka_delete_topics_refuses_a_topic_that_does_not_exist_and_one_named_twice() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let results = admin().delete_topics(&["missing", "t", "t"], &opts()).await.unwrap();
        let refused = [("missing", UnknownTopicOrPartition), ("t", InvalidRequest), ("t", InvalidRequest)];
        assert_eq!(results, refused.map(|(t, c)| Err((t.to_string(), c))));
        assert_eq!(partitions_of("t").await, 2, "t named twice is not deleted");
    });
}

#[test]
fn kafka_a_transaction_that_wrote_to_a_deleted_topic_still_commits_its_other_partitions() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        create("d", 1, &[]).await;
        let p = transactional("txn");
        p.init_transactions(T).await.unwrap();
        p.begin_transaction().unwrap();
        p.send(FutureRecord::<str, str>::to("d").partition(0).payload("lost"), T).await.unwrap();
        send(&p, 0, "kept").await.unwrap();
        // The coordinator writes no marker to a partition that is gone (KIP-98's markers).
        assert_eq!(admin().delete_topics(&["d"], &opts()).await.unwrap(), [Ok("d".into())]);
        p.commit_transaction(T).await.unwrap();
        assert_eq!(read("read_committed", 0).await, ["kept"]);
    });
}

#[test]
fn librdkafka_sends_no_validate_only_with_delete_topics() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let results = admin().delete_topics(&["t"], &opts().validate_only(true)).await.unwrap();
        assert_eq!(results, [Ok("t".into())]);
        assert_eq!(partitions_of("t").await, 0, "deleted all the same");
    });
}

#[test]
fn librdkafka_refuses_an_admin_call_with_nothing_to_do_with_invalid_argument() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let a = admin();
        let nothing = Err(KafkaError::AdminOp(InvalidArgument));
        assert_eq!(a.create_topics(&[], &opts()).await, nothing);
        assert_eq!(a.delete_topics(&[], &opts()).await, nothing);
        assert_eq!(a.create_partitions(&[], &opts()).await, nothing);
        assert!(matches!(a.describe_configs(&[], &opts()).await, Err(KafkaError::AdminOp(InvalidArgument))));
        assert!(matches!(a.alter_configs(&[], &opts()).await, Err(KafkaError::AdminOp(InvalidArgument))));
        let empty = rdkafka::TopicPartitionList::new();
        assert!(matches!(a.delete_records(&empty, &opts()).await, Err(KafkaError::AdminOp(InvalidArgument))));
    });
}
