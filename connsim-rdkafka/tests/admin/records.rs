//! `DeleteRecords` (KIP-107): the log start offset moves, and what lies below it is gone for
//! every reader; librdkafka's leader lookup answers unknown partitions itself.

use super::{admin, create, opts};
use crate::common::{assigned, config, raw as raw_kafka, read, send, sim, T};
use connsim::systems::{KafkaCode, KafkaRequest, KafkaResponse, TxnProtocol};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode::*};
use rdkafka::producer::FutureProducer;
use rdkafka::{Message, Offset, TopicPartitionList};

fn list(entries: &[(&str, i32, Offset)]) -> TopicPartitionList {
    let mut tpl = TopicPartitionList::new();
    for (t, p, o) in entries {
        tpl.add_partition_offset(t, *p, *o).unwrap();
    }
    tpl
}

async fn produce(n: usize) {
    let p: FutureProducer = config(&[]).create().unwrap();
    for i in 0..n {
        send(&p, 0, &format!("m{i}")).await.unwrap();
    }
}

fn result(tpl: &TopicPartitionList, topic: &str, partition: i32) -> (Offset, Result<(), KafkaError>) {
    let e = tpl.find_partition(topic, partition).expect("in the result");
    (e.offset(), e.error())
}

#[test]
fn kip107_delete_records_moves_the_log_start_offset_and_older_offsets_are_out_of_range() {
    sim(TxnProtocol::Classic, |_log, _h, client| async move {
        produce(5).await;
        let deleted = admin().delete_records(&list(&[("t", 0, Offset::Offset(3))]), &opts()).await.unwrap();
        assert_eq!(result(&deleted, "t", 0), (Offset::Offset(3), Ok(())), "the low watermark after");
        let c: BaseConsumer = config(&[]).create().unwrap();
        assert_eq!(c.fetch_watermarks("t", 0, T).await.unwrap(), (3, 5));
        // Below the log start: out of range, for a consumer as for a raw fetch.
        let strict = assigned(&[("auto.offset.reset", "error")], 0, Offset::Offset(1));
        let polled = strict.poll(T).await.map(|r| r.map(|m| m.offset()));
        assert!(matches!(polled, Some(Err(KafkaError::MessageConsumption(AutoOffsetReset)))), "{polled:?}");
        let fetch = KafkaRequest::Fetch { topic: "t".into(), partition: 0, offset: 2, max: 10, read_committed: true };
        assert_eq!(raw_kafka(&client, fetch).await, KafkaResponse::Error(KafkaCode::OffsetOutOfRange));
        assert_eq!(read("read_committed", 0).await, ["m3", "m4"], "from the beginning: what is left");
    });
}

#[test]
fn kip107_delete_records_to_the_end_deletes_everything_below_the_high_watermark() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        produce(4).await;
        let deleted = admin().delete_records(&list(&[("t", 0, Offset::End), ("t", 1, Offset::End)]), &opts()).await;
        let deleted = deleted.unwrap();
        assert_eq!(result(&deleted, "t", 0), (Offset::Offset(4), Ok(())));
        assert_eq!(result(&deleted, "t", 1), (Offset::Offset(0), Ok(())), "an empty partition");
        assert!(read("read_committed", 0).await.is_empty());
    });
}

#[test]
fn kip107_delete_records_past_the_high_watermark_is_out_of_range_and_never_moves_the_start_back() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        produce(5).await;
        let past = admin().delete_records(&list(&[("t", 0, Offset::Offset(6))]), &opts()).await.unwrap();
        let (offset, error) = result(&past, "t", 0);
        assert_eq!((offset, error), (Offset::End, Err(KafkaError::OffsetFetch(OffsetOutOfRange))));
        admin().delete_records(&list(&[("t", 0, Offset::Offset(3))]), &opts()).await.unwrap();
        let back = admin().delete_records(&list(&[("t", 0, Offset::Offset(1))]), &opts()).await.unwrap();
        assert_eq!(result(&back, "t", 0), (Offset::Offset(3), Ok(())), "the start stays where it was");
        let negative = admin().delete_records(&list(&[("t", 0, Offset::Beginning)]), &opts()).await.unwrap();
        assert_eq!(result(&negative, "t", 0).1, Err(KafkaError::OffsetFetch(OffsetOutOfRange)), "-2 is no offset");
    });
}

#[test]
fn librdkafka_delete_records_answers_unknown_partitions_itself_and_fails_when_it_finds_none() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        produce(2).await;
        let asked = list(&[("t", 0, Offset::Offset(1)), ("t", 9, Offset::Offset(1)), ("missing", 0, Offset::End)]);
        let deleted = admin().delete_records(&asked, &opts()).await.unwrap();
        assert_eq!(result(&deleted, "t", 0), (Offset::Offset(1), Ok(())));
        assert_eq!(result(&deleted, "t", 9), (Offset::Offset(1), Err(KafkaError::OffsetFetch(UnknownPartition))));
        let missing = result(&deleted, "missing", 0);
        assert_eq!(missing, (Offset::End, Err(KafkaError::OffsetFetch(UnknownTopicOrPartition))));
        // No leader found for any partition: the call fails ("No leaders found").
        let none = admin().delete_records(&list(&[("missing", 0, Offset::End)]), &opts()).await;
        assert!(matches!(none, Err(KafkaError::AdminOp(NoEnt))), "{none:?}");
    });
}

#[test]
fn librdkafka_delete_records_refuses_a_partition_named_twice() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        produce(2).await;
        let twice = list(&[("t", 0, Offset::Offset(1)), ("t", 0, Offset::Offset(2))]);
        let refused = admin().delete_records(&twice, &opts()).await;
        assert!(matches!(refused, Err(KafkaError::AdminOp(InvalidArgument))), "{refused:?}");
        assert_eq!(read("read_committed", 0).await.len(), 2, "nothing deleted");
    });
}

#[test]
fn kafka_delete_records_is_a_policy_violation_on_a_topic_whose_cleanup_policy_lacks_delete() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        create("compacted", 1, &[("cleanup.policy", "compact")]).await;
        create("both", 1, &[("cleanup.policy", "compact,delete")]).await;
        let asked = list(&[("compacted", 0, Offset::End), ("both", 0, Offset::End)]);
        let deleted = admin().delete_records(&asked, &opts()).await.unwrap();
        assert_eq!(result(&deleted, "compacted", 0).1, Err(KafkaError::OffsetFetch(PolicyViolation)));
        assert_eq!(result(&deleted, "both", 0), (Offset::Offset(0), Ok(())));
    });
}

#[test]
fn librdkafka_sends_no_validate_only_with_delete_records() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        produce(3).await;
        let deleted = admin().delete_records(&list(&[("t", 0, Offset::End)]), &opts().validate_only(true)).await;
        assert_eq!(result(&deleted.unwrap(), "t", 0), (Offset::Offset(3), Ok(())));
        assert!(read("read_committed", 0).await.is_empty(), "deleted all the same");
    });
}
