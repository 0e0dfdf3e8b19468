//! `AdminOptions`: librdkafka's ranges, its wait for a broker it does not know, and timeouts.

use super::{admin, opts, topic};
use crate::common::{kill_log, sim, T};
use connsim::systems::TxnProtocol;
use rdkafka::admin::{AdminOptions, NewTopic};
use rdkafka::error::{KafkaError, RDKafkaErrorCode::*};
use rdkafka::util::Timeout;
use std::time::Duration;

#[test]
fn librdkafka_refuses_admin_options_out_of_their_ranges() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let refused = |name: &str, range: &str| {
            Err(KafkaError::AdminOpCreation(format!(
                "Invalid value type for \"{name}\": expecting integer in range {range}"
            )))
        };
        let a = admin();
        let t = [topic("x", 1)];
        let hours = Duration::from_secs(7200);
        let never = AdminOptions::new().request_timeout(Some(Timeout::Never));
        assert_eq!(a.create_topics(&t, &never).await, refused("request_timeout", "0..3600000"));
        let long = AdminOptions::new().request_timeout(Some(hours));
        assert_eq!(a.create_topics(&t, &long).await, refused("request_timeout", "0..3600000"));
        let op = opts().operation_timeout(Some(hours));
        assert_eq!(a.create_topics(&t, &op).await, refused("operation_timeout", "-1..3600000"));
        let broker = opts().broker_id(-1);
        assert_eq!(a.create_topics(&t, &broker).await, refused("broker", "0..2147483647"));
        let fine = opts().operation_timeout(Some(Timeout::Never)).broker_id(1).validate_only(false);
        assert_eq!(a.create_topics(&t, &fine).await.unwrap(), [Ok("x".into())]);
    });
}

#[test]
fn librdkafka_waits_for_a_broker_id_it_does_not_know_until_the_request_timeout() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let start = madsim::time::Instant::now();
        let r = admin().create_topics([&topic("x", 1)], &opts().broker_id(7)).await;
        assert_eq!(r, Err(KafkaError::AdminOp(OperationTimedOut)));
        assert!(start.elapsed() >= T, "after the request timeout");
        assert_eq!(super::partitions_of("x").await, 0, "never sent");
    });
}

#[test]
fn librdkafka_an_admin_call_nobody_answers_times_out_at_the_request_timeout() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        kill_log();
        let start = madsim::time::Instant::now();
        let r = admin().delete_topics(&["t"], &opts()).await;
        assert_eq!(r, Err(KafkaError::AdminOp(OperationTimedOut)));
        assert!(start.elapsed() >= T && start.elapsed() < T * 2, "{:?}", start.elapsed());
    });
}

#[test]
fn rdkafka_admin_futures_outlive_the_client_and_the_options() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        // As rdkafka's: the call is prepared when made; its future holds no borrow of the
        // client or the options (the topics' iterator is part of its type, as in rdkafka).
        let t = NewTopic::new("later", 2, rdkafka::admin::TopicReplication::Fixed(1));
        let created = {
            let a = admin();
            a.create_topics([&t], &AdminOptions::new().request_timeout(Some(T)))
        };
        assert_eq!(created.await.unwrap(), [Ok("later".into())]);
        let deleted = admin().delete_topics(&["later"], &opts());
        assert_eq!(deleted.await.unwrap(), [Ok("later".into())]);
    });
}
