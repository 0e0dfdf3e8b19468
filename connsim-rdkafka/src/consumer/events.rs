//! What the application's poll serves besides messages, as rdkafka's poll serves librdkafka's
//! queue: the group's rebalances (through the context's `rebalance`), its errors, and the
//! outcomes of commits for the context's `commit_callback`.

use super::base_consumer::BaseConsumer;
use super::group::GroupEvent;
use super::ConsumerContext;
use crate::error::{KafkaError, RDKafkaRespErr};
use crate::topic_partition_list::{Offset, TopicPartitionList};

/// What serving the group's next event did.
pub(crate) enum Served {
    /// No event waited.
    Nothing,
    /// A rebalance ran through the context.
    Rebalance,
    /// An error for the application.
    Error(KafkaError),
}

/// Serves the group's next event, if any.
pub(crate) fn next_event<C: ConsumerContext>(view: &BaseConsumer<C>) -> Served {
    let group = &view.core.group;
    let Some(event) = group.take_event() else { return Served::Nothing };
    let served = match event {
        GroupEvent::Assign(mut tpl) => {
            // A new assignment: what was lost is behind (librdkafka clears the flag).
            group.inner.lock().unwrap().lost = false;
            view.client.context().rebalance(view, RDKafkaRespErr::RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS, &mut tpl);
            Served::Rebalance
        }
        GroupEvent::Revoke(mut tpl, lost) => {
            group.inner.lock().unwrap().lost = lost;
            view.client.context().rebalance(view, RDKafkaRespErr::RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS, &mut tpl);
            group.inner.lock().unwrap().lost = false;
            Served::Rebalance
        }
        GroupEvent::Error(e) => Served::Error(e),
    };
    if let Served::Rebalance = served {
        let mut s = group.inner.lock().unwrap();
        s.rebalances = (s.rebalances.0 + 1, connsim::net::now().as_millis() as u64);
    }
    group.served();
    served
}

/// Hands the commits' outcomes to the context's commit callback, as rdkafka does when the
/// consumer is polled.
pub(crate) fn commit_events<C: ConsumerContext>(view: &BaseConsumer<C>) {
    for (result, offsets) in view.core.commit_events() {
        let mut list = TopicPartitionList::new();
        for (topic, partition, offset) in &offsets {
            let _ = list.add_partition_offset(topic, *partition as i32, Offset::Offset(*offset as i64));
        }
        view.client.context().commit_callback(result, &list);
    }
}

/// A subscribed consumer is dropped: rdkafka's drop closes it, serving the revocation of
/// its assignment through the context before it leaves the group.
pub(crate) fn close<C: ConsumerContext>(view: &BaseConsumer<C>) {
    while let Served::Rebalance | Served::Error(_) = next_event(view) {}
    let owned = std::mem::take(&mut view.core.group.inner.lock().unwrap().owned);
    if !owned.is_empty() {
        let mut tpl = TopicPartitionList::new();
        for (t, p) in owned {
            let _ = tpl.add_partition_offset(&t, p as i32, Offset::Invalid);
        }
        view.client.context().rebalance(view, RDKafkaRespErr::RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS, &mut tpl);
    }
    view.core.close();
}
