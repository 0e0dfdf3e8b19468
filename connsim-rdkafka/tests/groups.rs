//! Consumer groups as a broker and librdkafka run them, each test naming the rule it checks
//! (a KIP, Kafka's group coordinator, librdkafka's consumer group handler) and failing if the
//! rule breaks: joins and rebalances through the rebalance callbacks, session and poll
//! timeouts, static membership, cooperative rebalancing, commits fenced by generation.
#![cfg(madsim)]

use connsim::net::{Endpoint, Gateway};
use connsim::systems::{ExternalSystem, PartitionedLog, Setting, SettingEnv, TxnProtocol};
use connsim::systems::{
    GroupRequest, GroupResponse, JoinRequest, KafkaCode, KafkaRequest, KafkaResponse, MemberIdentity,
};
use rdkafka::consumer::base_consumer::{BaseConsumer as CallbackConsumer, Consumer as _};
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::Producer;
use rdkafka::{ClientContext, Message, Offset, TopicPartitionList};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

extern crate connsim_rdkafka as rdkafka;

mod common;
use common::*;

/// What a member's rebalance callbacks saw: `(assign?, partitions, assignment lost)`.
#[derive(Default)]
struct Seen(Mutex<Vec<(bool, Vec<i32>, bool)>>);

impl ClientContext for Seen {}
impl ConsumerContext for Seen {
    fn pre_rebalance(&self, consumer: &CallbackConsumer<Self>, rebalance: &Rebalance<'_>) {
        let (assign, tpl) = match rebalance {
            Rebalance::Assign(tpl) => (true, tpl),
            Rebalance::Revoke(tpl) => (false, tpl),
            Rebalance::Error(_) => return,
        };
        let partitions = tpl.elements().iter().map(|e| e.partition()).collect();
        self.0.lock().unwrap().push((assign, partitions, consumer.assignment_lost()));
    }
}

impl Seen {
    fn take(&self) -> Vec<(bool, Vec<i32>, bool)> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

type Member = Arc<BaseConsumer<Seen>>;

/// Quick timeouts within the broker's limits (`group.min.session.timeout.ms` is 6 s).
const QUICK: &[(&str, &str)] = &[
    ("group.id", "g"),
    ("session.timeout.ms", "6000"),
    ("heartbeat.interval.ms", "500"),
    ("max.poll.interval.ms", "10000"),
    ("enable.auto.commit", "false"),
    ("auto.offset.reset", "earliest"),
];

fn member(extra: &[(&str, &str)]) -> Member {
    let mut c = config(QUICK);
    for (k, v) in extra {
        c.set(*k, *v);
    }
    Arc::new(c.create_with_context(Seen::default()).unwrap())
}

/// Polls `m` until `until` (virtual), collecting the payloads it read.
async fn poll_for(m: &Member, for_ms: u64) -> Vec<String> {
    let until = madsim::time::Instant::now() + Duration::from_millis(for_ms);
    let mut read = Vec::new();
    while madsim::time::Instant::now() < until {
        if let Some(Ok(msg)) = m.poll(Duration::from_millis(50)).await {
            read.push(msg.payload_view::<str>().unwrap().unwrap().to_string());
        }
    }
    read
}

fn partitions_of(m: &Member) -> Vec<i32> {
    m.assignment().unwrap().elements().iter().map(|e| e.partition()).collect()
}

/// Runs `f` beside a log whose topic `t` has `partitions` partitions and whose group
/// coordinator starts an empty group's rebalance at once.
fn groups<F: std::future::Future<Output = ()> + 'static>(
    partitions: u32,
    f: impl FnOnce(PartitionedLog, Endpoint, Gateway) -> F + 'static,
) {
    sim_on_network(TxnProtocol::Classic, move |log, history, client, gw| async move {
        log.create_topic("t", partitions);
        let env = SettingEnv { seed: 0, history };
        log.configure(&Setting::GroupInitialRebalanceDelayMs(0), &env).unwrap();
        f(log, client, gw).await
    })
}

async fn produce(n: usize, partitions: i32) {
    let p = transactional("up");
    p.init_transactions(T).await.unwrap();
    p.begin_transaction().unwrap();
    for i in 0..n {
        send(&p, i as i32 % partitions, &format!("m{i}")).await.unwrap();
    }
    p.commit_transaction(T).await.unwrap();
}

/// Kafka's group protocol: members subscribing to one topic split its partitions, each
/// learning its share through its rebalance callback, and together read every record once.
#[test]
fn kafka_a_group_splits_a_topics_partitions_among_its_members_through_the_rebalance_callbacks() {
    groups(4, |_log, _client, _gw| async move {
        produce(40, 4).await;
        let (a, b) = (member(&[]), member(&[]));
        a.subscribe(&["t"]).unwrap();
        b.subscribe(&["t"]).unwrap();
        let (ra, rb) = futures::join!(poll_for(&a, 5_000), poll_for(&b, 5_000));
        let (pa, pb) = (partitions_of(&a), partitions_of(&b));
        assert_eq!(pa.len() + pb.len(), 4, "{pa:?} {pb:?}");
        assert!(pa.iter().all(|p| !pb.contains(p)), "disjoint: {pa:?} {pb:?}");
        let all: BTreeSet<String> = ra.iter().chain(&rb).cloned().collect();
        assert_eq!((all.len(), ra.len() + rb.len()), (40, 40), "every record read once");
        // The last callback each saw was the assignment it holds.
        let last_a = a.context().take().into_iter().rfind(|(assign, _, _)| *assign).unwrap();
        assert_eq!(last_a.1, pa);
        assert_eq!(a.rebalance_protocol(), rdkafka::consumer::RebalanceProtocol::Eager);
    });
}

/// Eager assignors (`range`, `roundrobin`): at every rebalance each member revokes its whole
/// assignment before it rejoins.
#[test]
fn kafka_eager_rebalances_revoke_a_members_whole_assignment_before_it_rejoins() {
    groups(4, |_log, _client, _gw| async move {
        let a = member(&[]);
        a.subscribe(&["t"]).unwrap();
        poll_for(&a, 2_000).await;
        assert_eq!(partitions_of(&a), [0, 1, 2, 3]);
        a.context().take();
        let b = member(&[]);
        b.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&a, 4_000), poll_for(&b, 4_000));
        let seen = a.context().take();
        assert_eq!(seen[0], (false, vec![0, 1, 2, 3], false), "everything revoked first: {seen:?}");
        assert_eq!(partitions_of(&a).len(), 2);
    });
}

/// KIP-429 (`cooperative-sticky`): a member joining takes partitions from the others without
/// them revoking what they keep; the moved partitions are revoked by their owner, then
/// assigned to the newcomer in a second rebalance.
#[test]
fn kip429_cooperative_sticky_revokes_only_what_moves_and_assigns_it_in_a_second_rebalance() {
    groups(4, |_log, _client, _gw| async move {
        let coop = [("partition.assignment.strategy", "cooperative-sticky")];
        let a = member(&coop);
        a.subscribe(&["t"]).unwrap();
        poll_for(&a, 2_000).await;
        assert_eq!(partitions_of(&a), [0, 1, 2, 3]);
        assert_eq!(a.rebalance_protocol(), rdkafka::consumer::RebalanceProtocol::Cooperative);
        a.context().take();
        let b = member(&coop);
        b.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&a, 5_000), poll_for(&b, 5_000));
        let seen = a.context().take();
        let revoked: Vec<&Vec<i32>> = seen.iter().filter(|(assign, _, _)| !assign).map(|(_, p, _)| p).collect();
        assert_eq!(revoked.len(), 1, "{seen:?}");
        assert_eq!(revoked[0].len(), 2, "only the two that move: {seen:?}");
        let (pa, pb) = (partitions_of(&a), partitions_of(&b));
        assert_eq!((pa.len(), pb.len()), (2, 2), "{pa:?} {pb:?}");
        assert!(pa.iter().all(|p| !pb.contains(p)));
        // Under cooperative, a whole assign is refused as librdkafka refuses it.
        let e = a.assign(&TopicPartitionList::new());
        assert!(matches!(&e, Err(KafkaError::Subscription(m)) if m == "Local: Erroneous state"), "{e:?}");
    });
}

/// KIP-62 / librdkafka: an application that does not poll within `max.poll.interval.ms`
/// makes its consumer leave the group; its partitions go to the others, and its next poll
/// sees `MaxPollExceeded`, then the revocation of its assignment as lost.
#[test]
fn kip62_a_member_that_stops_polling_leaves_the_group_and_its_next_poll_says_why() {
    groups(2, |_log, _client, _gw| async move {
        let (a, b) = (member(&[]), member(&[]));
        a.subscribe(&["t"]).unwrap();
        b.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&a, 3_000), poll_for(&b, 3_000));
        assert_eq!(partitions_of(&a).len(), 1);
        a.context().take();
        // a stops polling for longer than max.poll.interval.ms; b goes on.
        poll_for(&b, 14_000).await;
        assert_eq!(partitions_of(&b), [0, 1], "b took a's partition");
        let first = a.poll(Duration::from_millis(10)).await;
        assert!(
            matches!(&first, Some(Err(KafkaError::MessageConsumption(RDKafkaErrorCode::PollExceeded)))),
            "{first:?}"
        );
        a.poll(Duration::from_millis(10)).await;
        let seen = a.context().take();
        assert_eq!(seen.first().map(|(assign, p, lost)| (*assign, p.len(), *lost)), Some((false, 1, true)), "{seen:?}");
    });
}

/// KIP-345: a static member that closes sends no `LeaveGroup`, so its partitions stay its
/// own until its session times out; the coordinator then removes it and the group
/// rebalances (`session.timeout.ms`).
#[test]
fn kip345_a_closed_static_member_keeps_its_partitions_until_its_session_times_out() {
    groups(2, |_log, _client, _gw| async move {
        let a = member(&[("group.instance.id", "a")]);
        let b = member(&[("group.instance.id", "b")]);
        a.subscribe(&["t"]).unwrap();
        b.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&a, 3_000), poll_for(&b, 3_000));
        assert_eq!(partitions_of(&b).len(), 1);
        drop(a);
        b.context().take();
        poll_for(&b, 4_000).await;
        assert_eq!(partitions_of(&b).len(), 1, "before the session timeout, a still holds its partition");
        poll_for(&b, 6_000).await;
        assert_eq!(partitions_of(&b), [0, 1], "after it, a was removed and b got its partition");
    });
}

/// KIP-345: a static member restarting within its session timeout takes its old place, with
/// its old partitions, and the others see no rebalance.
#[test]
fn kip345_a_static_member_restarting_in_time_gets_its_partitions_back_without_a_rebalance() {
    groups(2, |_log, _client, _gw| async move {
        let a = member(&[("group.instance.id", "a")]);
        let b = member(&[("group.instance.id", "b")]);
        a.subscribe(&["t"]).unwrap();
        b.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&a, 3_000), poll_for(&b, 3_000));
        let before = partitions_of(&a);
        assert_eq!(before.len(), 1);
        drop(a);
        b.context().take();
        let a = member(&[("group.instance.id", "a")]);
        a.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&a, 3_000), poll_for(&b, 3_000));
        assert_eq!(partitions_of(&a), before);
        assert!(b.context().take().is_empty(), "b went through no rebalance");
    });
}

/// KIP-345: a second instance with the same `group.instance.id` fences the first, which
/// gets librdkafka's fatal `FencedInstanceId` and stops.
#[test]
fn kip345_a_newer_instance_fences_the_older_with_a_fatal_error() {
    groups(2, |_log, _client, _gw| async move {
        let old = member(&[("group.instance.id", "x")]);
        old.subscribe(&["t"]).unwrap();
        poll_for(&old, 2_000).await;
        let new = member(&[("group.instance.id", "x")]);
        new.subscribe(&["t"]).unwrap();
        poll_for(&new, 2_000).await;
        let mut fatal = None;
        for _ in 0..40 {
            if let Some(Err(e)) = old.poll(Duration::from_millis(100)).await {
                fatal = Some(e);
                break;
            }
        }
        assert!(
            matches!(&fatal, Some(KafkaError::MessageConsumptionFatal(RDKafkaErrorCode::FencedInstanceId))),
            "{fatal:?}"
        );
        assert_eq!(old.client().fatal_error().map(|(c, _)| c), Some(RDKafkaErrorCode::FencedInstanceId));
    });
}

/// Kafka's `validateOffsetCommit`: a member's commit carries its generation; once the group
/// moved on (the member was removed), the commit is refused and nothing is committed.
#[test]
fn kafka_a_commit_from_a_generation_the_group_left_behind_is_refused() {
    groups(2, |_log, _client, _gw| async move {
        produce(4, 2).await;
        let (a, b) = (member(&[]), member(&[]));
        a.subscribe(&["t"]).unwrap();
        b.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&a, 3_000), poll_for(&b, 3_000));
        let p = partitions_of(&a)[0];
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset("t", p, Offset::Offset(2)).unwrap();
        a.commit(&tpl, CommitMode::Sync).await.unwrap();
        // a stops polling past max.poll.interval.ms: it leaves, the group moves on.
        poll_for(&b, 14_000).await;
        tpl.set_partition_offset("t", p, Offset::Offset(1)).unwrap();
        let e = a.commit(&tpl, CommitMode::Sync).await;
        // a left the group: it is no member (the generation rule has a test of its own).
        assert!(matches!(&e, Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::UnknownMemberId))), "{e:?}");
        let committed = b.committed(T).await.unwrap();
        let offset = committed.find_partition("t", p).unwrap().offset();
        assert_eq!(offset, Offset::Offset(2), "the stale commit changed nothing");
        // And a commit outside the group's management (no member) is refused while it has
        // members (`UNKNOWN_MEMBER_ID`).
        let outsider: BaseConsumer = config(&[("group.id", "g")]).create().unwrap();
        let e = outsider.commit(&tpl, CommitMode::Sync).await;
        assert!(matches!(&e, Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::UnknownMemberId))), "{e:?}");
    });
}

/// librdkafka: the topics of a subscription are watched (every
/// `topic.metadata.refresh.interval.ms`): a partition added to a subscribed topic, or a new
/// topic matching a `^` pattern, starts a rebalance that assigns it.
#[test]
fn librdkafka_a_partition_added_or_a_topic_matching_a_pattern_is_assigned_after_a_refresh() {
    groups(1, |log, _client, _gw| async move {
        log.create_topic("grows", 1);
        let a = member(&[("topic.metadata.refresh.interval.ms", "1000")]);
        a.subscribe(&["grows", "^other-.*"]).unwrap();
        poll_for(&a, 2_000).await;
        assert_eq!(a.assignment().unwrap().count(), 1);
        log.create_topic("grows", 2);
        log.create_topic("other-1", 1);
        log.create_topic("unrelated", 1);
        poll_for(&a, 4_000).await;
        let topics: BTreeSet<(String, i32)> =
            a.assignment().unwrap().elements().iter().map(|e| (e.topic().to_string(), e.partition())).collect();
        let expected: BTreeSet<(String, i32)> =
            [("grows", 0), ("grows", 1), ("other-1", 0)].iter().map(|(t, p)| (t.to_string(), *p)).collect();
        assert_eq!(topics, expected);
    });
}

/// KIP-447: a read-committed consumer asks for stable offsets; while a transaction commits
/// offsets for its group, `committed` waits (`UNSTABLE_OFFSET_COMMIT`), and sees them once
/// the transaction commits.
#[test]
fn kip447_committed_waits_while_a_transaction_commits_offsets_for_the_group() {
    groups(1, |_log, _client, _gw| async move {
        let p = transactional("offsets");
        let c: BaseConsumer = config(&[("group.id", "g"), ("isolation.level", "read_committed")]).create().unwrap();
        p.init_transactions(T).await.unwrap();
        p.begin_transaction().unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset("t", 0, Offset::Offset(5)).unwrap();
        p.send_offsets_to_transaction(&tpl, &c.group_metadata().unwrap(), T).await.unwrap();
        let mut asked = TopicPartitionList::new();
        asked.add_partition("t", 0);
        let waiting = c.committed_offsets(asked.clone(), Duration::from_millis(200)).await;
        assert!(matches!(&waiting, Err(KafkaError::MetadataFetch(RDKafkaErrorCode::OperationTimedOut))), "{waiting:?}");
        let uncommitted: BaseConsumer =
            config(&[("group.id", "g"), ("isolation.level", "read_uncommitted")]).create().unwrap();
        let now = uncommitted.committed_offsets(asked.clone(), T).await.unwrap();
        assert_eq!(now.find_partition("t", 0).unwrap().offset(), Offset::Invalid, "not committed yet");
        p.commit_transaction(T).await.unwrap();
        let after = c.committed_offsets(asked, T).await.unwrap();
        assert_eq!(after.find_partition("t", 0).unwrap().offset(), Offset::Offset(5));
    });
}

/// librdkafka (`enable.partition.eof`): a consumer at the end of a partition gets one
/// `PartitionEOF` for it, and another only after the end moved on.
#[test]
fn librdkafka_partition_eof_arrives_once_each_time_the_end_is_reached() {
    groups(2, |_log, _client, _gw| async move {
        produce(2, 1).await;
        let c = assigned(&[("enable.partition.eof", "true")], 0, Offset::Beginning);
        let mut seen = Vec::new();
        for _ in 0..6 {
            match c.poll(Duration::from_millis(50)).await {
                Some(Ok(m)) => seen.push(format!("m@{}", m.offset())),
                Some(Err(KafkaError::PartitionEOF(p))) => seen.push(format!("eof {p}")),
                Some(Err(e)) => panic!("{e}"),
                None => seen.push("none".into()),
            }
        }
        assert_eq!(seen[..3], ["m@0", "m@1", "eof 0"], "{seen:?}");
        assert!(seen[3..].iter().all(|s| s == "none"), "once: {seen:?}");
        produce(1, 1).await;
        let mut next = Vec::new();
        for _ in 0..3 {
            match c.poll(Duration::from_millis(50)).await {
                Some(Ok(m)) => next.push(format!("m@{}", m.offset())),
                Some(Err(KafkaError::PartitionEOF(p))) => next.push(format!("eof {p}")),
                _ => {}
            }
        }
        assert_eq!(next, ["m@3", "eof 0"], "the next batch, then the end again (offset 2 is a marker)");
    });
}

/// librdkafka keeps assignments in the consumer group: without `group.id` the assignment
/// calls answer `Local: Unknown group`, and `subscribe` too.
#[test]
fn librdkafka_assignment_calls_need_a_group_id() {
    groups(1, |_log, _client, _gw| async move {
        let c: BaseConsumer = config(&[]).create().unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition("t", 0);
        let e = c.assign(&tpl);
        assert!(matches!(&e, Err(KafkaError::Subscription(m)) if m == "Local: Unknown group"), "{e:?}");
        let e = c.subscribe(&["t"]);
        assert!(matches!(&e, Err(KafkaError::Subscription(m)) if m == "Local: Unknown group"), "{e:?}");
        let e = c.position();
        assert!(matches!(&e, Err(KafkaError::MetadataFetch(RDKafkaErrorCode::UnknownGroup))), "{e:?}");
        assert!(c.group_metadata().is_none());
    });
}

/// librdkafka's `rd_kafka_assignment_subtract` / `_add`: unassigning a partition not in the
/// assignment is `_INVALID_ARG`, assigning one already in it `_CONFLICT`, and a seek to an
/// offset rdkafka cannot represent is refused before librdkafka sees it.
#[test]
fn librdkafka_refuses_bad_incremental_assignments_and_unrepresentable_seeks() {
    groups(2, |_log, _client, _gw| async move {
        let c = assigned(&[], 0, Offset::Beginning);
        let mut other = TopicPartitionList::new();
        other.add_partition("t", 1);
        let e = c.incremental_unassign(&other);
        assert!(matches!(&e, Err(KafkaError::Subscription(m)) if m == "_INVALID_ARG"), "{e:?}");
        let mut same = TopicPartitionList::new();
        same.add_partition("t", 0);
        let e = c.incremental_assign(&same);
        assert!(matches!(&e, Err(KafkaError::Subscription(m)) if m == "_CONFLICT"), "{e:?}");
        let e = c.seek("t", 0, Offset::Offset(-1), T);
        assert!(matches!(&e, Err(KafkaError::Seek(m)) if m == "Local: Unrepresentable offset"), "{e:?}");
        assert_eq!(c.assignment().unwrap().count(), 1, "nothing changed");
    });
}

/// librdkafka's configuration checks: an integer outside its range is refused when it is
/// set (its own text), and a consumer whose `max.poll.interval.ms` is below its
/// `session.timeout.ms` is refused at creation.
#[test]
fn librdkafka_refuses_group_settings_out_of_range() {
    groups(1, |_log, _client, _gw| async move {
        let e = config(&[("group.id", "g"), ("max.poll.interval.ms", "-1")]).create::<BaseConsumer>().err().unwrap();
        assert!(
            matches!(&e, KafkaError::ClientConfig(_, m, k, v)
                if m == "Configuration property \"max.poll.interval.ms\" value -1 is outside allowed range 1..86400000\n"
                    && k == "max.poll.interval.ms" && v == "-1"),
            "{e:?}"
        );
        let e = config(&[("group.id", "g"), ("session.timeout.ms", "60000"), ("max.poll.interval.ms", "30000")])
            .create::<BaseConsumer>()
            .err()
            .unwrap();
        assert!(
            matches!(&e, KafkaError::ClientCreation(m) if m == "`max.poll.interval.ms`must be >= `session.timeout.ms`"),
            "{e:?}"
        );
        let e = config(&[("group.id", "g"), ("partition.assignment.strategy", "range,cooperative-sticky")])
            .create::<BaseConsumer>()
            .err()
            .unwrap();
        assert!(matches!(&e, KafkaError::ClientCreation(m) if m.contains("must have the same protocol type")), "{e:?}");
    });
}

/// Kafka's `DeleteGroups`: only an empty group can be deleted (`NON_EMPTY_GROUP`), with its
/// committed offsets; an unknown one is `GROUP_ID_NOT_FOUND`. `fetch_group_list` lists the
/// groups and their members as `DescribeGroups` answers.
#[test]
fn kafka_delete_groups_takes_only_an_empty_group_and_its_offsets() {
    use rdkafka::admin::{AdminClient, AdminOptions};
    groups(2, |_log, _client, _gw| async move {
        let a = member(&[]);
        a.subscribe(&["t"]).unwrap();
        poll_for(&a, 2_000).await;
        let listed = a.fetch_group_list(Some("g"), T).await.unwrap();
        let g = &listed.groups()[0];
        assert_eq!((g.name(), g.state(), g.protocol_type(), g.protocol()), ("g", "Stable", "consumer", "range"));
        assert_eq!(g.members().len(), 1);
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset("t", 0, Offset::Offset(1)).unwrap();
        a.commit(&tpl, CommitMode::Sync).await.unwrap();
        let admin: AdminClient<rdkafka::client::DefaultClientContext> = config(&[]).create().unwrap();
        let opts = AdminOptions::new();
        let busy = admin.delete_groups(&["g", "nope"], &opts).await.unwrap();
        assert_eq!(
            busy,
            [
                Err(("g".to_string(), RDKafkaErrorCode::NonEmptyGroup)),
                Err(("nope".to_string(), RDKafkaErrorCode::GroupIdNotFound))
            ]
        );
        a.unsubscribe();
        poll_for(&a, 500).await;
        assert_eq!(admin.delete_groups(&["g"], &opts).await.unwrap(), [Ok("g".to_string())]);
        let reader: BaseConsumer = config(&[("group.id", "g")]).create().unwrap();
        let mut asked = TopicPartitionList::new();
        asked.add_partition("t", 0);
        let left = reader.committed_offsets(asked, T).await.unwrap();
        assert_eq!(left.find_partition("t", 0).unwrap().offset(), Offset::Invalid, "its offsets went with it");
    });
}

/// librdkafka's `statistics.interval.ms`: the context's `stats` gets the client's
/// statistics at that interval, from its polls: a consumer's partitions with the offsets it
/// returned up to and its group's assignment; a producer's acknowledged messages and its
/// idempotent producer id.
#[test]
fn librdkafka_hands_statistics_to_the_context_every_interval() {
    use rdkafka::statistics::Statistics;
    #[derive(Default)]
    struct Stats(Mutex<Vec<Statistics>>);
    impl ClientContext for Stats {
        fn stats(&self, statistics: Statistics) {
            self.0.lock().unwrap().push(statistics);
        }
    }
    impl ConsumerContext for Stats {}
    impl rdkafka::producer::ProducerContext for Stats {
        type DeliveryOpaque = ();
        fn delivery(&self, _: &rdkafka::producer::DeliveryResult<'_>, _: ()) {}
    }
    groups(1, |_log, _client, _gw| async move {
        let p: rdkafka::producer::BaseProducer<Stats> =
            config(&[("statistics.interval.ms", "1000"), ("enable.idempotence", "true")])
                .create_with_context(Stats::default())
                .unwrap();
        for i in 0..3 {
            let payload = format!("m{i}");
            p.send(rdkafka::producer::BaseRecord::<(), str>::to("t").partition(0).payload(&payload)).unwrap();
        }
        p.flush(T).await.unwrap();
        madsim::time::sleep(Duration::from_millis(1_000)).await;
        p.poll(Duration::ZERO).await;
        let stats = std::mem::take(&mut *p.context().0.lock().unwrap());
        assert_eq!(stats.len(), 1, "once per interval");
        let s = &stats[0];
        assert_eq!(s.client_type, "producer");
        assert_eq!(s.topics["t"].partitions[&0].txmsgs, 3);
        assert!(s.eos.as_ref().is_some_and(|e| e.idemp_state == "Assigned"));

        let c: BaseConsumer<Stats> = config(&[("group.id", "g"), ("statistics.interval.ms", "1000")])
            .create_with_context(Stats::default())
            .unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset("t", 0, Offset::Beginning).unwrap();
        c.assign(&tpl).unwrap();
        let until = madsim::time::Instant::now() + Duration::from_millis(2_500);
        while madsim::time::Instant::now() < until {
            c.poll(Duration::from_millis(100)).await;
        }
        let stats = std::mem::take(&mut *c.context().0.lock().unwrap());
        assert_eq!(stats.len(), 2, "at 1 s and 2 s");
        let last = stats.last().unwrap();
        let part = &last.topics["t"].partitions[&0];
        assert_eq!((part.app_offset, part.rxmsgs), (3, 3), "past the three messages it returned");
        assert_eq!(last.cgrp.as_ref().map(|g| g.assignment_size), Some(1));
    });
}

/// One timeline of every member's rebalance callbacks, in the order they ran.
type Timeline = Arc<Mutex<Vec<(&'static str, bool, Vec<i32>)>>>;

struct Logged(&'static str, Timeline);

impl ClientContext for Logged {}
impl ConsumerContext for Logged {
    fn pre_rebalance(&self, _: &CallbackConsumer<Self>, rebalance: &Rebalance<'_>) {
        // An assignment counts from before it is applied...
        if let Rebalance::Assign(tpl) = rebalance {
            self.1.lock().unwrap().push((self.0, true, tpl.elements().iter().map(|e| e.partition()).collect()));
        }
    }
    fn post_rebalance(&self, _: &CallbackConsumer<Self>, rebalance: &Rebalance<'_>) {
        // ...a revocation only once it was applied.
        if let Rebalance::Revoke(tpl) = rebalance {
            self.1.lock().unwrap().push((self.0, false, tpl.elements().iter().map(|e| e.partition()).collect()));
        }
    }
}

fn logged(name: &'static str, timeline: &Timeline, extra: &[(&str, &str)]) -> Arc<BaseConsumer<Logged>> {
    let mut c = config(QUICK);
    for (k, v) in extra {
        c.set(*k, *v);
    }
    Arc::new(c.create_with_context(Logged(name, timeline.clone())).unwrap())
}

async fn poll_logged(m: &BaseConsumer<Logged>, for_ms: u64) {
    let until = madsim::time::Instant::now() + Duration::from_millis(for_ms);
    while madsim::time::Instant::now() < until {
        let _ = m.poll(Duration::from_millis(50)).await;
    }
}

/// Replays a timeline: no partition is assigned to a member while another still holds it.
fn assert_one_owner_at_a_time(timeline: &[(&'static str, bool, Vec<i32>)]) {
    let mut owner: std::collections::BTreeMap<i32, &'static str> = Default::default();
    for (who, assign, parts) in timeline {
        for p in parts {
            if *assign {
                if let Some(other) = owner.insert(*p, who) {
                    assert_eq!(other, *who, "partition {p} assigned to {who} while {other} holds it: {timeline:?}");
                }
            } else {
                owner.remove(p);
            }
        }
    }
}

/// KIP-429's safety rule: a partition that moves is revoked by its owner before the
/// newcomer gets it, even when the owner's application is slow to serve the revocation.
#[test]
fn kip429_a_moving_partition_is_never_assigned_while_its_old_owner_holds_it() {
    groups(4, |_log, _client, _gw| async move {
        let coop = [("partition.assignment.strategy", "cooperative-sticky")];
        let timeline: Timeline = Arc::default();
        let a = logged("a", &timeline, &coop);
        a.subscribe(&["t"]).unwrap();
        poll_logged(&a, 2_000).await;
        let b = logged("b", &timeline, &coop);
        b.subscribe(&["t"]).unwrap();
        // a's application does not poll for a while: its revocation waits.
        poll_logged(&b, 2_000).await;
        futures::join!(poll_logged(&a, 4_000), poll_logged(&b, 4_000));
        let seen = timeline.lock().unwrap().clone();
        assert_one_owner_at_a_time(&seen);
        let b_assigns: Vec<&Vec<i32>> =
            seen.iter().filter(|(w, assign, _)| *w == "b" && *assign).map(|(_, _, p)| p).collect();
        assert_eq!(
            b_assigns.first().map(|p| p.len()),
            Some(0),
            "b's first (incremental) assignment is empty: {seen:?}"
        );
        assert_eq!(b_assigns.iter().map(|p| p.len()).sum::<usize>(), 2, "the two arrive in the second: {seen:?}");
    });
}

/// KIP-429 / `cooperative-sticky`: when a third member joins, only as many partitions move as
/// the balance needs (one of four here); every other partition stays with its owner.
#[test]
fn kip429_cooperative_sticky_moves_only_what_the_balance_needs() {
    groups(4, |_log, _client, _gw| async move {
        let coop = [("partition.assignment.strategy", "cooperative-sticky")];
        let timeline: Timeline = Arc::default();
        let (a, b) = (logged("a", &timeline, &coop), logged("b", &timeline, &coop));
        a.subscribe(&["t"]).unwrap();
        b.subscribe(&["t"]).unwrap();
        futures::join!(poll_logged(&a, 4_000), poll_logged(&b, 4_000));
        let owned = |m: &BaseConsumer<Logged>| -> BTreeSet<i32> {
            m.assignment().unwrap().elements().iter().map(|e| e.partition()).collect()
        };
        let (ba, bb) = (owned(&a), owned(&b));
        assert_eq!((ba.len(), bb.len()), (2, 2));
        timeline.lock().unwrap().clear();
        let c = logged("c", &timeline, &coop);
        c.subscribe(&["t"]).unwrap();
        futures::join!(poll_logged(&a, 5_000), poll_logged(&b, 5_000), poll_logged(&c, 5_000));
        let seen = timeline.lock().unwrap().clone();
        let revoked: usize = seen.iter().filter(|(_, assign, _)| !assign).map(|(_, _, p)| p.len()).sum();
        assert_eq!(revoked, 1, "one partition moves to c, nothing else: {seen:?}");
        let (aa, ab) = (owned(&a), owned(&b));
        assert!(aa.is_subset(&ba) && ab.is_subset(&bb), "a and b keep what they keep: {aa:?} {ab:?}");
        assert_eq!(c.assignment().unwrap().count(), 1);
    });
}

/// Kafka's `onCompleteJoin`: a dynamic member that has not rejoined when the rebalance
/// timeout ends the join phase is removed, and the rebalance completes without it (here a's
/// application stopped polling, so its revocation is never served and it never rejoins).
#[test]
fn kafka_a_dynamic_member_that_does_not_rejoin_in_time_is_removed_when_the_join_phase_ends() {
    groups(2, |_log, _client, _gw| async move {
        let (a, b) = (member(&[]), member(&[]));
        a.subscribe(&["t"]).unwrap();
        b.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&a, 3_000), poll_for(&b, 3_000));
        let c = member(&[]);
        c.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&b, 12_000), poll_for(&c, 12_000));
        let (pb, pc) = (partitions_of(&b), partitions_of(&c));
        assert_eq!(pb.len() + pc.len(), 2, "b and c share both partitions: {pb:?} {pc:?}");
        let listed = b.fetch_group_list(Some("g"), T).await.unwrap();
        assert_eq!(listed.groups()[0].members().len(), 2, "a was removed");
        drop(a);
    });
}

/// KIP-345 / Kafka's `onCompleteJoin`: a static member that has not rejoined when the join
/// phase ends keeps its place (and its share of the assignment) until its session expires.
#[test]
fn kip345_a_static_member_that_does_not_rejoin_in_time_keeps_its_place() {
    groups(2, |_log, _client, _gw| async move {
        let a = member(&[("group.instance.id", "a")]);
        let b = member(&[]);
        a.subscribe(&["t"]).unwrap();
        b.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&a, 3_000), poll_for(&b, 3_000));
        let c = member(&[]);
        c.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&b, 12_000), poll_for(&c, 12_000));
        let listed = b.fetch_group_list(Some("g"), T).await.unwrap();
        assert_eq!(listed.groups()[0].members().len(), 3, "a is still a member");
        let (pb, pc) = (partitions_of(&b), partitions_of(&c));
        assert_eq!(pb.len() + pc.len(), 1, "a's share is kept for it: {pb:?} {pc:?}");
        drop(a);
    });
}

/// Kafka's `validateOffsetCommit`: a member still in the group but committing with an older
/// generation is refused `ILLEGAL_GENERATION`; during `CompletingRebalance` a member's commit
/// is `REBALANCE_IN_PROGRESS`. (Raw requests, so the client's own bookkeeping plays no part.)
#[test]
fn kafka_a_members_commit_is_checked_against_the_groups_generation() {
    groups(1, |_log, client, _gw| async move {
        let join = JoinRequest {
            group: "raw".into(),
            member_id: String::new(),
            instance_id: None,
            client_id: "raw".into(),
            protocol_type: "consumer".into(),
            protocols: vec![("range".into(), Vec::new())],
            session_timeout_ms: 6_000,
            rebalance_timeout_ms: 10_000,
        };
        let KafkaResponse::Group(GroupResponse::Joined(j)) =
            raw(&client, KafkaRequest::Group(GroupRequest::Join(join))).await
        else {
            panic!("no join")
        };
        let me = |generation| MemberIdentity { generation, member_id: j.member_id.clone(), instance_id: None };
        let commit = |generation| KafkaRequest::OffsetCommit {
            group: "raw".into(),
            member: Some(me(generation)),
            offsets: vec![("t".into(), 0, 1)],
        };
        // Joined, not synced: the group awaits the leader's assignment.
        assert_eq!(raw(&client, commit(j.generation)).await, KafkaResponse::Error(KafkaCode::RebalanceInProgress));
        let sync = GroupRequest::Sync { group: "raw".into(), member: me(j.generation), assignments: vec![] };
        let synced = raw(&client, KafkaRequest::Group(sync)).await;
        assert!(matches!(synced, KafkaResponse::Group(GroupResponse::Synced { .. })));
        assert_eq!(raw(&client, commit(j.generation - 1)).await, KafkaResponse::Error(KafkaCode::IllegalGeneration));
        assert_eq!(raw(&client, commit(j.generation)).await, KafkaResponse::Ok);
    });
}

/// KIP-447: offsets a transaction sends with the group metadata of a generation the group
/// has left behind are refused (`ILLEGAL_GENERATION`, abortable), though the member is still
/// in the group; the application aborts and goes on.
#[test]
fn kip447_offsets_sent_with_an_older_generations_metadata_are_refused_and_the_transaction_aborts() {
    groups(2, |_log, _client, _gw| async move {
        let a = member(&[]);
        a.subscribe(&["t"]).unwrap();
        poll_for(&a, 2_000).await;
        let old = a.group_metadata().unwrap();
        let b = member(&[]);
        b.subscribe(&["t"]).unwrap();
        futures::join!(poll_for(&a, 4_000), poll_for(&b, 4_000));
        assert_eq!(partitions_of(&a).len(), 1, "a is still a member, in a newer generation");
        let p = transactional("stale");
        p.init_transactions(T).await.unwrap();
        p.begin_transaction().unwrap();
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset("t", 0, Offset::Offset(1)).unwrap();
        let e = p.send_offsets_to_transaction(&tpl, &old, T).await;
        assert!(
            matches!(&e, Err(KafkaError::Transaction(e))
                if e.code() == RDKafkaErrorCode::IllegalGeneration && e.txn_requires_abort()),
            "{e:?}"
        );
        p.abort_transaction(T).await.unwrap();
        p.begin_transaction().unwrap();
        p.send_offsets_to_transaction(&tpl, &a.group_metadata().unwrap(), T).await.unwrap();
        p.commit_transaction(T).await.unwrap();
    });
}

/// librdkafka: a partition added to a subscribed topic (nothing else changing) starts a
/// rebalance that assigns it.
#[test]
fn librdkafka_a_partition_added_alone_is_assigned_after_a_refresh() {
    groups(1, |log, _client, _gw| async move {
        log.create_topic("grows", 1);
        let a = member(&[("topic.metadata.refresh.interval.ms", "1000")]);
        a.subscribe(&["grows"]).unwrap();
        poll_for(&a, 2_000).await;
        assert_eq!(a.assignment().unwrap().count(), 1);
        log.create_topic("grows", 2);
        poll_for(&a, 4_000).await;
        let parts: Vec<i32> = a.assignment().unwrap().elements().iter().map(|e| e.partition()).collect();
        assert_eq!(parts, [0, 1]);
    });
}

/// librdkafka: a read-committed consumer's end of a partition is the last stable offset: it
/// gets `PartitionEOF` there while a transaction is open past it.
#[test]
fn librdkafka_a_read_committed_consumer_reaches_the_end_at_the_last_stable_offset() {
    groups(1, |_log, _client, _gw| async move {
        produce(2, 1).await; // m@0, m@1, a marker at 2
        let open = transactional("open");
        open.init_transactions(T).await.unwrap();
        open.begin_transaction().unwrap();
        send(&open, 0, "pending").await.unwrap(); // offset 3, open
        let c =
            assigned(&[("enable.partition.eof", "true"), ("isolation.level", "read_committed")], 0, Offset::Beginning);
        let mut seen = Vec::new();
        for _ in 0..4 {
            match c.poll(Duration::from_millis(50)).await {
                Some(Ok(m)) => seen.push(format!("m@{}", m.offset())),
                Some(Err(KafkaError::PartitionEOF(p))) => seen.push(format!("eof {p}")),
                Some(Err(e)) => panic!("{e}"),
                None => {}
            }
        }
        assert_eq!(seen, ["m@0", "m@1", "eof 0"]);
    });
}

/// librdkafka's check (rdkafka_conf.c, `rd_kafka_conf_finalize`) is `max.poll.interval.ms <
/// session.timeout.ms`: equal is allowed.
#[test]
fn librdkafka_allows_max_poll_interval_equal_to_the_session_timeout() {
    groups(1, |_log, _client, _gw| async move {
        let c = config(&[("group.id", "g"), ("session.timeout.ms", "30000"), ("max.poll.interval.ms", "30000")])
            .create::<BaseConsumer>();
        assert!(c.is_ok(), "{:?}", c.err());
    });
}
