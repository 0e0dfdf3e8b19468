//! The scripts: each one scenario, written only against the API both halves of the crate
//! share, run once in the simulation and once against librdkafka's mock cluster. A script
//! never branches on what it observes and never panics on an error it observes: it writes
//! every observation down, so that the two transcripts line up line by line.
//!
//! Partitions are always given (no partitioner), timestamps' values are written only where
//! the script set them, and no broker id, member id or producer id is written.

use super::transcript::{
    delivery, drain, err, list, msg, next, tag, tpl, tpl_result, unit, watermarks, Transcript, Ts, T,
};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance, RebalanceProtocol};
use rdkafka::error::KafkaResult;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord, Producer};
use rdkafka::{Message, Offset, TopicPartitionList};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What a script runs against: the bootstrap servers, a way to create a topic (the
/// simulated log's `create_topic`, the mock cluster's), and a way to have the broker answer
/// a fenced producer's next request as a real broker does ([`Fenced`]).
pub struct Ctx {
    bootstrap: String,
    create: CreateTopic,
    fenced: Box<dyn Fn(Fenced)>,
}

/// Creates a topic of so many partitions.
type CreateTopic = Box<dyn Fn(&str, i32)>;

/// The request of a producer whose transactional id a newer producer initialized, and the
/// answer a real broker gives it (the old epoch is fenced, KIP-98; KIP-588 for Produce):
/// the simulated broker gives it by itself; the mock, which does not fence
/// ([`super::transcript::tag::FENCING`]), is told to answer the next such request so.
#[derive(Clone, Copy, Debug)]
pub enum Fenced {
    /// A Produce of the old epoch: `INVALID_PRODUCER_EPOCH`.
    Produce,
    /// An EndTxn of the old epoch: `PRODUCER_FENCED`.
    EndTxn,
}

impl Ctx {
    /// A context for brokers at `bootstrap` that fence producers by themselves.
    pub fn new(bootstrap: String, create: impl Fn(&str, i32) + 'static) -> Ctx {
        Ctx { bootstrap, create: Box::new(create), fenced: Box::new(|_| {}) }
    }
    /// The same, with brokers told how to answer a fenced producer's next request.
    #[cfg_attr(madsim, allow(dead_code))]
    pub fn with_fencing(self, fenced: impl Fn(Fenced) + 'static) -> Ctx {
        Ctx { fenced: Box::new(fenced), ..self }
    }
    /// Creates a topic of `partitions` partitions.
    fn topic(&self, name: &str, partitions: i32) {
        (self.create)(name, partitions)
    }
    fn config(&self, pairs: &[(&str, &str)]) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", &self.bootstrap);
        for (k, v) in pairs {
            c.set(*k, *v);
        }
        c
    }
    fn producer(&self, pairs: &[(&str, &str)]) -> FutureProducer {
        self.config(pairs).create().unwrap_or_else(|e| panic!("the script's producer {pairs:?}: {}", err(&e)))
    }
    fn transactional(&self, id: &str) -> FutureProducer {
        self.producer(&[("transactional.id", id)])
    }
    /// A consumer of group `reader` that commits nothing itself (librdkafka assigns
    /// partitions only to a consumer with a `group.id`), then `pairs`; empty fetches come
    /// back within 50 ms (the mock waits `fetch.wait.max.ms` on an empty fetch; the
    /// simulation takes the setting and ignores it).
    fn consumer(&self, pairs: &[(&str, &str)]) -> BaseConsumer {
        self.consumer_with(pairs, rdkafka::consumer::DefaultConsumerContext)
    }
    fn consumer_with<C: ConsumerContext + 'static>(&self, pairs: &[(&str, &str)], context: C) -> BaseConsumer<C> {
        let mut all = vec![("group.id", "reader"), ("enable.auto.commit", "false")];
        all.extend_from_slice(pairs);
        self.bare_consumer_with(&all, context)
    }
    /// A consumer configured with `pairs` only (and the short empty fetches).
    fn bare_consumer_with<C: ConsumerContext + 'static>(&self, pairs: &[(&str, &str)], context: C) -> BaseConsumer<C> {
        let mut c = self.config(&[("fetch.wait.max.ms", "50")]);
        for (k, v) in pairs {
            c.set(*k, *v);
        }
        c.create_with_context(context).unwrap_or_else(|e| panic!("the script's consumer {pairs:?}: {}", err(&e)))
    }
}

/// Sends `payload` to `topic`/`partition` and describes the delivery.
async fn send(p: &FutureProducer, topic: &str, partition: i32, payload: &str) -> String {
    let record = FutureRecord::<str, str>::to(topic).partition(partition).payload(payload);
    delivery(&p.send(record, T).await, None)
}

/// Assigns `parts` (an assignment librdkafka takes without asking the broker).
fn assign<C: ConsumerContext + 'static>(c: &BaseConsumer<C>, parts: &[(&str, i32, Offset)]) {
    c.assign(&list(parts)).unwrap_or_else(|e| panic!("assign {parts:?}: {}", err(&e)));
}

/// Reads a partition from the beginning with `isolation` and writes down what it read, its
/// position after, and its watermarks; `tags` for each line.
async fn read_back(ctx: &Ctx, t: &mut Transcript, topic: &str, partition: i32, isolation: &str, tags: &[&str]) {
    let c = ctx.consumer(&[("isolation.level", isolation)]);
    assign(&c, &[(topic, partition, Offset::Beginning)]);
    let what = format!("{isolation} {topic}/{partition}");
    let read = drain(&c, Ts::Kind).await;
    let position = tpl_result(&c.position());
    let marks = watermarks(&c, topic, partition).await;
    for (line, text) in [("read", read), ("position", position), ("watermarks", marks)] {
        t.maybe(tags, format!("{what} {line}: {text}"));
    }
}

/// An idempotent producer's deliveries: offsets in order per partition, a batch delivered
/// in the order it was queued, a partition that does not exist refused.
pub async fn idempotent_produce_and_delivered_offsets(ctx: Ctx) -> Vec<String> {
    let mut t = Transcript::new();
    ctx.topic("t", 2);
    let p = ctx.producer(&[("enable.idempotence", "true")]);
    for (partition, payload) in [(0, "a"), (0, "b"), (1, "c"), (0, "d"), (1, "e")] {
        t.line(format!("send {payload} to t/{partition}: {}", send(&p, "t", partition, payload).await));
    }
    let queued: Vec<_> = ["f", "g", "h"]
        .into_iter()
        .map(|m| p.send_result(FutureRecord::<str, str>::to("t").partition(1).payload(m)).map_err(|(e, _)| e))
        .collect();
    // (Not `in_flight_count` now: librdkafka counts a delivered message until its delivery
    // report is done with, which races the awaited send before.)
    t.line(format!("flush: {}", unit(&p.flush(T).await)));
    t.line(format!("in flight after flush: {}", p.in_flight_count()));
    for (m, q) in ["f", "g", "h"].into_iter().zip(queued) {
        let outcome = match q {
            Err(e) => format!("refused {}", err(&e)),
            Ok(future) => match future.await {
                Ok(r) => delivery(&r, None),
                Err(_) => "canceled".into(),
            },
        };
        t.line(format!("queued {m} to t/1: {outcome}"));
    }
    t.line(format!("send x to t/7 (t has 2 partitions): {}", send(&p, "t", 7, "x").await));
    t.line(format!("send y to t/0 after: {}", send(&p, "t", 0, "y").await));
    for partition in [0, 1] {
        read_back(&ctx, &mut t, "t", partition, "read_uncommitted", &[]).await;
    }
    t.into_lines()
}

/// Transactions committed, aborted and left open, read back read_committed and
/// read_uncommitted: offsets take the markers' slots, read_committed skips the aborted and
/// stops at the open one.
pub async fn transactions_read_back_committed_and_uncommitted(ctx: Ctx) -> Vec<String> {
    use tag::{ISOLATION, TXN_MARKERS};
    let mut t = Transcript::new();
    ctx.topic("t", 1);
    let p = ctx.transactional("txn");
    t.line(format!("init_transactions: {}", unit(&p.init_transactions(T).await)));
    t.line(format!("begin: {}", unit(&p.begin_transaction())));
    for m in ["a1", "a2"] {
        t.line(format!("send {m}: {}", send(&p, "t", 0, m).await));
    }
    t.line(format!("commit: {}", unit(&p.commit_transaction(T).await)));
    t.line(format!("begin: {}", unit(&p.begin_transaction())));
    t.departs(&[TXN_MARKERS], format!("send b1: {}", send(&p, "t", 0, "b1").await));
    t.line(format!("abort: {}", unit(&p.abort_transaction(T).await)));
    t.line(format!("begin: {}", unit(&p.begin_transaction())));
    t.departs(&[TXN_MARKERS], format!("send c1: {}", send(&p, "t", 0, "c1").await));
    t.line(format!("commit: {}", unit(&p.commit_transaction(T).await)));
    let plain = ctx.producer(&[]);
    t.departs(&[TXN_MARKERS], format!("plain send d: {}", send(&plain, "t", 0, "d").await));
    t.line(format!("begin: {}", unit(&p.begin_transaction())));
    t.departs(&[TXN_MARKERS], format!("send e1 (left open): {}", send(&p, "t", 0, "e1").await));
    read_back(&ctx, &mut t, "t", 0, "read_committed", &[TXN_MARKERS, ISOLATION]).await;
    read_back(&ctx, &mut t, "t", 0, "read_uncommitted", &[TXN_MARKERS]).await;
    t.line(format!("commit: {}", unit(&p.commit_transaction(T).await)));
    read_back(&ctx, &mut t, "t", 0, "read_committed", &[TXN_MARKERS, ISOLATION]).await;
    read_back(&ctx, &mut t, "t", 0, "read_uncommitted", &[TXN_MARKERS]).await;
    t.into_lines()
}

/// A second producer of a transactional id fences the first: the first's send, commit,
/// abort and next transaction fail, fatally; its open transaction is aborted. Twice: a
/// fenced producer that sends next (the Produce is refused), and one that commits next (the
/// EndTxn is).
pub async fn fencing_by_a_second_producer_of_the_transactional_id(ctx: Ctx) -> Vec<String> {
    use tag::{FENCING, ISOLATION, TXN_MARKERS};
    let mut t = Transcript::new();
    ctx.topic("t", 1);
    let old = ctx.transactional("fenced");
    t.line(format!("old init_transactions: {}", unit(&old.init_transactions(T).await)));
    t.line(format!("old begin: {}", unit(&old.begin_transaction())));
    t.line(format!("old send x1: {}", send(&old, "t", 0, "x1").await));
    let new = ctx.transactional("fenced");
    t.line(format!("new init_transactions: {}", unit(&new.init_transactions(T).await)));
    (ctx.fenced)(Fenced::Produce);
    t.line(format!("old send x2: {}", send(&old, "t", 0, "x2").await));
    t.line(format!("old commit: {}", unit(&old.commit_transaction(T).await)));
    t.line(format!("old abort: {}", unit(&old.abort_transaction(T).await)));
    t.line(format!("old begin: {}", unit(&old.begin_transaction())));
    t.line(format!("old init_transactions: {}", unit(&old.init_transactions(T).await)));
    t.line(format!("new begin: {}", unit(&new.begin_transaction())));
    t.departs(&[FENCING, TXN_MARKERS], format!("new send y1: {}", send(&new, "t", 0, "y1").await));
    t.line(format!("new commit: {}", unit(&new.commit_transaction(T).await)));

    let old = ctx.transactional("fenced-at-commit");
    t.line(format!("old init_transactions: {}", unit(&old.init_transactions(T).await)));
    t.line(format!("old begin: {}", unit(&old.begin_transaction())));
    t.departs(&[FENCING, TXN_MARKERS], format!("old send z1: {}", send(&old, "t", 0, "z1").await));
    let new = ctx.transactional("fenced-at-commit");
    t.line(format!("new init_transactions: {}", unit(&new.init_transactions(T).await)));
    (ctx.fenced)(Fenced::EndTxn);
    t.line(format!("old commit: {}", unit(&old.commit_transaction(T).await)));
    t.line(format!("old abort: {}", unit(&old.abort_transaction(T).await)));
    t.line(format!("old begin: {}", unit(&old.begin_transaction())));
    read_back(&ctx, &mut t, "t", 0, "read_committed", &[FENCING, TXN_MARKERS, ISOLATION]).await;
    read_back(&ctx, &mut t, "t", 0, "read_uncommitted", &[FENCING, TXN_MARKERS]).await;
    t.into_lines()
}

/// An aborted transaction over two partitions, then new transactions of the same producer,
/// an empty one committed and an empty one aborted among them.
pub async fn abort_then_a_new_transaction(ctx: Ctx) -> Vec<String> {
    use tag::{ISOLATION, TXN_MARKERS};
    let mut t = Transcript::new();
    ctx.topic("t", 2);
    let p = ctx.transactional("again");
    t.line(format!("init_transactions: {}", unit(&p.init_transactions(T).await)));
    t.line(format!("begin: {}", unit(&p.begin_transaction())));
    t.line(format!("send a to t/0: {}", send(&p, "t", 0, "a").await));
    t.line(format!("send b to t/1: {}", send(&p, "t", 1, "b").await));
    t.line(format!("abort: {}", unit(&p.abort_transaction(T).await)));
    t.line(format!("begin: {}", unit(&p.begin_transaction())));
    t.departs(&[TXN_MARKERS], format!("send c to t/0: {}", send(&p, "t", 0, "c").await));
    t.line(format!("commit: {}", unit(&p.commit_transaction(T).await)));
    t.line(format!("begin (nothing sent): {}", unit(&p.begin_transaction())));
    t.line(format!("commit (nothing sent): {}", unit(&p.commit_transaction(T).await)));
    t.line(format!("begin (nothing sent): {}", unit(&p.begin_transaction())));
    t.line(format!("abort (nothing sent): {}", unit(&p.abort_transaction(T).await)));
    t.line(format!("begin: {}", unit(&p.begin_transaction())));
    t.departs(&[TXN_MARKERS], format!("send d to t/1: {}", send(&p, "t", 1, "d").await));
    t.line(format!("commit: {}", unit(&p.commit_transaction(T).await)));
    for partition in [0, 1] {
        read_back(&ctx, &mut t, "t", partition, "read_committed", &[TXN_MARKERS, ISOLATION]).await;
        read_back(&ctx, &mut t, "t", partition, "read_uncommitted", &[TXN_MARKERS]).await;
    }
    t.into_lines()
}

/// `send_offsets_to_transaction`: the group's committed offsets move with a committed
/// transaction, not with an aborted one; a consumer of the group starts there.
pub async fn send_offsets_to_transaction_then_committed_offsets(ctx: Ctx) -> Vec<String> {
    use tag::{TXN_MARKERS, TXN_OFFSETS};
    let mut t = Transcript::new();
    ctx.topic("in", 1);
    ctx.topic("out", 1);
    let plain = ctx.producer(&[]);
    for m in ["i0", "i1", "i2", "i3", "i4"] {
        t.line(format!("plain send {m} to in/0: {}", send(&plain, "in", 0, m).await));
    }
    let group = [("group.id", "g"), ("enable.auto.commit", "false")];
    let c = ctx.consumer(&group);
    assign(&c, &[("in", 0, Offset::Beginning)]);
    let cgm = c.group_metadata().expect("a consumer with a group.id has its group's metadata");
    t.line(format!("committed before: {}", tpl_result(&c.committed(T).await)));
    let p = ctx.transactional("offsets");
    t.line(format!("init_transactions: {}", unit(&p.init_transactions(T).await)));
    for (offset, commit, with_message) in [(2, true, true), (4, false, true), (3, true, false)] {
        t.line(format!("begin: {}", unit(&p.begin_transaction())));
        if with_message {
            let tags: &[&str] = if offset == 2 { &[] } else { &[TXN_MARKERS] };
            let sent = format!("send o{offset} to out/0: {}", send(&p, "out", 0, &format!("o{offset}")).await);
            t.maybe(tags, sent);
        }
        let offsets = list(&[("in", 0, Offset::Offset(offset))]);
        t.line(format!(
            "send_offsets_to_transaction in/0={offset}: {}",
            unit(&p.send_offsets_to_transaction(&offsets, &cgm, T).await)
        ));
        let end = match commit {
            true => format!("commit: {}", unit(&p.commit_transaction(T).await)),
            false => format!("abort: {}", unit(&p.abort_transaction(T).await)),
        };
        t.line(end);
        t.departs(&[TXN_OFFSETS], format!("committed: {}", tpl_result(&c.committed(T).await)));
    }
    let other = ctx.consumer(&group);
    let asked = list(&[("in", 0, Offset::Invalid)]);
    t.departs(
        &[TXN_OFFSETS],
        format!("committed_offsets by another consumer of g: {}", tpl_result(&other.committed_offsets(asked, T).await)),
    );
    let next_one =
        ctx.consumer(&[("group.id", "g"), ("enable.auto.commit", "false"), ("auto.offset.reset", "earliest")]);
    assign(&next_one, &[("in", 0, Offset::Stored)]);
    t.departs(
        &[TXN_OFFSETS],
        format!(
            "a consumer of g at the stored offset reads: {}",
            next(&next_one, Duration::from_secs(5), Ts::Kind).await
        ),
    );
    t.into_lines()
}

/// A consumer's own commits: `committed` of the assignment, `committed_offsets` of any
/// partitions, `commit_consumer_state` and `commit_message`, stored offsets, `position` and
/// `seek`, a consumer without a group, and what the commit callback is told.
pub async fn consumer_commit_committed_and_position(ctx: Ctx) -> Vec<String> {
    let mut t = Transcript::new();
    ctx.topic("t", 2);
    let plain = ctx.producer(&[]);
    for m in ["a", "b", "c", "d", "e"] {
        t.line(format!("send {m} to t/0: {}", send(&plain, "t", 0, m).await));
    }
    t.line(format!("send z to t/1: {}", send(&plain, "t", 1, "z").await));
    let events = Events::default();
    let c = ctx.consumer_with(&[("group.id", "g"), ("enable.auto.commit", "false")], events.clone());
    assign(&c, &[("t", 0, Offset::Beginning)]);
    t.line(format!("assignment: {}", tpl_result(&c.assignment())));
    t.line(format!("committed (nothing yet): {}", tpl_result(&c.committed(T).await)));
    t.line(format!("commit_consumer_state (nothing read): {}", unit(&c.commit_consumer_state(CommitMode::Sync).await)));
    for _ in 0..3 {
        t.line(format!("poll: {}", next(&c, Duration::from_secs(5), Ts::Kind).await));
    }
    t.line(format!("position after 3: {}", tpl_result(&c.position())));
    t.line(format!("commit_consumer_state: {}", unit(&c.commit_consumer_state(CommitMode::Sync).await)));
    t.line(format!("committed: {}", tpl_result(&c.committed(T).await)));
    t.line(format!(
        "commit_consumer_state again (nothing new): {}",
        unit(&c.commit_consumer_state(CommitMode::Sync).await)
    ));
    let both = list(&[("t", 0, Offset::Offset(1)), ("t", 1, Offset::Offset(1))]);
    t.line(format!("commit t/0=1 t/1=1 (t/1 not assigned): {}", unit(&c.commit(&both, CommitMode::Sync).await)));
    t.line(format!("committed: {}", tpl_result(&c.committed(T).await)));
    let asked = list(&[("t", 0, Offset::Invalid), ("t", 1, Offset::Invalid)]);
    t.line(format!("committed_offsets t/0 t/1: {}", tpl_result(&c.committed_offsets(asked, T).await)));
    t.line(format!("seek t/0 to 1: {}", unit(&c.seek("t", 0, Offset::Offset(1), T))));
    match c.poll(Duration::from_secs(5)).await {
        Some(Ok(m)) => {
            t.line(format!("poll after the seek: {}", msg(&m, Ts::Kind)));
            t.line(format!("commit_message: {}", unit(&c.commit_message(&m, CommitMode::Sync).await)));
        }
        Some(Err(e)) => t.line(format!("poll after the seek: error {}", err(&e))),
        None => t.line("poll after the seek: none"),
    }
    t.line(format!("position: {}", tpl_result(&c.position())));
    t.line(format!("committed: {}", tpl_result(&c.committed(T).await)));
    let async_commit = list(&[("t", 0, Offset::Offset(4))]);
    t.line(format!("commit t/0=4 Async: {}", unit(&c.commit(&async_commit, CommitMode::Async).await)));
    t.line(format!("poll (serves callbacks): {}", next(&c, Duration::from_secs(2), Ts::Kind).await));
    t.line(format!("committed: {}", tpl_result(&c.committed(T).await)));
    t.line(format!("commit callbacks: {}", events.take().join(" | ")));

    // The application stores offsets itself.
    let s = ctx.consumer(&[("group.id", "s"), ("enable.auto.commit", "false"), ("enable.auto.offset.store", "false")]);
    assign(&s, &[("t", 0, Offset::Beginning)]);
    t.line(format!("storing poll: {}", next(&s, Duration::from_secs(5), Ts::Kind).await));
    t.line(format!(
        "commit_consumer_state (nothing stored): {}",
        unit(&s.commit_consumer_state(CommitMode::Sync).await)
    ));
    t.line(format!("store_offset t/0 2: {}", unit(&s.store_offset("t", 0, 2))));
    t.line(format!("store_offset t/1 0 (not assigned): {}", unit(&s.store_offset("t", 1, 0))));
    t.line(format!("commit_consumer_state: {}", unit(&s.commit_consumer_state(CommitMode::Sync).await)));
    t.line(format!("committed: {}", tpl_result(&s.committed(T).await)));
    t.line(format!("store_offsets t/0=4: {}", unit(&s.store_offsets(&list(&[("t", 0, Offset::Offset(4))])))));
    t.line(format!("commit_consumer_state: {}", unit(&s.commit_consumer_state(CommitMode::Sync).await)));
    t.line(format!("committed: {}", tpl_result(&s.committed(T).await)));

    // No group: librdkafka assigns partitions only to a consumer with a group.id.
    let n = ctx.bare_consumer_with(&[], rdkafka::consumer::DefaultConsumerContext);
    t.line(format!("no group: group_metadata is some: {}", n.group_metadata().is_some()));
    t.line(format!("no group: assign t/0: {}", unit(&n.assign(&list(&[("t", 0, Offset::Beginning)])))));
    t.line(format!("no group: assignment: {}", tpl_result(&n.assignment())));
    t.line(format!("no group: poll: {}", next(&n, Duration::from_secs(3), Ts::Kind).await));
    t.line(format!(
        "no group: commit t/0=1: {}",
        unit(&n.commit(&list(&[("t", 0, Offset::Offset(1))]), CommitMode::Sync).await)
    ));
    t.line(format!(
        "no group: committed_offsets t/0: {}",
        tpl_result(&n.committed_offsets(list(&[("t", 0, Offset::Invalid)]), T).await)
    ));
    t.into_lines()
}

/// Where a consumer starts: `auto.offset.reset` without a committed offset, each explicit
/// offset of an assignment, and an offset out of range.
pub async fn offset_resets_and_assigned_offsets(ctx: Ctx) -> Vec<String> {
    let mut t = Transcript::new();
    ctx.topic("t", 1);
    let plain = ctx.producer(&[]);
    for m in ["a", "b", "c", "d"] {
        t.line(format!("send {m}: {}", send(&plain, "t", 0, m).await));
    }
    let wait = Duration::from_secs(3);
    for reset in ["earliest", "error", "latest"] {
        let c = ctx.consumer(&[("group.id", reset), ("enable.auto.commit", "false"), ("auto.offset.reset", reset)]);
        assign(&c, &[("t", 0, Offset::Stored)]);
        t.line(format!("reset {reset}, stored (none): {}", next(&c, wait, Ts::Kind).await));
        t.line(format!("reset {reset}, then: {}", next(&c, wait, Ts::Kind).await));
        if reset == "latest" {
            t.line(format!("send e: {}", send(&plain, "t", 0, "e").await));
            t.line(format!("reset {reset}, after e: {}", next(&c, Duration::from_secs(5), Ts::Kind).await));
        }
    }
    // librdkafka's position is the application's: past the last message returned, Invalid
    // before one.
    let starts: [(&str, Offset); 7] = [
        ("Beginning", Offset::Beginning),
        ("End", Offset::End),
        ("OffsetTail(2)", Offset::OffsetTail(2)),
        ("Offset(2)", Offset::Offset(2)),
        ("Offset(5) (the end)", Offset::Offset(5)),
        ("Invalid", Offset::Invalid),
        ("Stored", Offset::Stored),
    ];
    for (name, start) in starts {
        let c = ctx.consumer(&[]);
        assign(&c, &[("t", 0, start)]);
        let assignment = tpl_result(&c.assignment());
        t.line(format!("assign at {name}: assignment {assignment}"));
        t.line(format!("assign at {name}: position before reading {}", tpl_result(&c.position())));
        t.line(format!("assign at {name}: {}", next(&c, wait, Ts::Kind).await));
        t.line(format!("assign at {name}: position {}", tpl_result(&c.position())));
    }
    for reset in ["earliest", "latest", "error"] {
        let c = ctx.consumer(&[("auto.offset.reset", reset)]);
        assign(&c, &[("t", 0, Offset::Offset(100))]);
        t.line(format!("assign at Offset(100), reset {reset}: {}", next(&c, wait, Ts::Kind).await));
        t.line(format!("assign at Offset(100), reset {reset}, then: {}", next(&c, wait, Ts::Kind).await));
    }
    t.into_lines()
}

/// Watermarks: of an empty partition, after messages, of a partition and a topic that do
/// not exist, and under each isolation level with a transaction open.
pub async fn watermarks_of_partitions(ctx: Ctx) -> Vec<String> {
    use tag::{ISOLATION, TXN_MARKERS};
    let mut t = Transcript::new();
    ctx.topic("t", 2);
    let uncommitted = ctx.consumer(&[("isolation.level", "read_uncommitted")]);
    let committed = ctx.consumer(&[("isolation.level", "read_committed")]);
    t.line(format!("t/0 empty: {}", watermarks(&uncommitted, "t", 0).await));
    let plain = ctx.producer(&[]);
    for m in ["a", "b", "c"] {
        t.line(format!("send {m} to t/0: {}", send(&plain, "t", 0, m).await));
    }
    t.line(format!("t/0: {}", watermarks(&uncommitted, "t", 0).await));
    t.line(format!("t/1: {}", watermarks(&uncommitted, "t", 1).await));
    t.line(format!("t/2 (no such partition): {}", watermarks(&uncommitted, "t", 2).await));
    t.line(format!("missing/0 (no such topic): {}", watermarks(&uncommitted, "missing", 0).await));
    let p = ctx.transactional("open");
    t.line(format!("init_transactions: {}", unit(&p.init_transactions(T).await)));
    t.line(format!("begin: {}", unit(&p.begin_transaction())));
    t.line(format!("send open to t/1: {}", send(&p, "t", 1, "open").await));
    t.line(format!("t/1 read_uncommitted, open transaction: {}", watermarks(&uncommitted, "t", 1).await));
    t.departs(&[ISOLATION], format!("t/1 read_committed, open transaction: {}", watermarks(&committed, "t", 1).await));
    t.line(format!("commit: {}", unit(&p.commit_transaction(T).await)));
    t.departs(&[TXN_MARKERS], format!("t/1 read_uncommitted, committed: {}", watermarks(&uncommitted, "t", 1).await));
    t.departs(&[TXN_MARKERS], format!("t/1 read_committed, committed: {}", watermarks(&committed, "t", 1).await));
    t.into_lines()
}

/// Keys, payloads, headers and given timestamps round-trip: a null key and an empty one,
/// a null payload, headers with a repeated key, a null value and an empty one, no headers
/// and an empty header list, bytes that are not UTF-8.
pub async fn headers_and_keys_round_trip(ctx: Ctx) -> Vec<String> {
    let mut t = Transcript::new();
    ctx.topic("t", 1);
    let p = ctx.producer(&[]);
    let h = |pairs: &[(&str, Option<&str>)]| {
        pairs.iter().fold(OwnedHeaders::new(), |h, (key, value)| h.insert(Header { key, value: *value }))
    };
    type Described<'a> = (&'a str, FutureRecord<'a, [u8], [u8]>);
    let records: Vec<Described<'_>> = vec![
        (
            "key, payload, repeated and null headers",
            FutureRecord::to("t").partition(0).key(&b"k"[..]).payload(&b"v"[..]).timestamp(1_000).headers(h(&[
                ("h", Some("1")),
                ("h", Some("2")),
                ("null", None),
                ("empty", Some("")),
            ])),
        ),
        ("no key, no headers", FutureRecord::to("t").partition(0).payload(&b"no key"[..]).timestamp(2_000)),
        (
            "empty key, no payload, empty header list",
            FutureRecord::to("t").partition(0).key(&b""[..]).timestamp(3_000).headers(OwnedHeaders::new()),
        ),
        ("bytes", FutureRecord::to("t").partition(0).key(&[0u8, 255][..]).payload(&[0u8, 1, 2][..]).timestamp(4_000)),
        ("no timestamp", FutureRecord::to("t").partition(0).payload(&b"now"[..])),
    ];
    for (what, record) in records {
        let given = record.timestamp.is_some();
        let shown = if given { Ts::Value } else { Ts::Kind };
        t.departs(&[tag::LOG_APPEND_TIME], format!("send {what}: {}", delivery(&p.send(record, T).await, Some(shown))));
    }
    let c = ctx.consumer(&[]);
    assign(&c, &[("t", 0, Offset::Beginning)]);
    for _ in 0..4 {
        t.line(format!("read: {}", next(&c, Duration::from_secs(5), Ts::Value).await));
    }
    t.line(format!("read: {}", next(&c, Duration::from_secs(5), Ts::Kind).await));
    t.line(format!("then: {}", next(&c, Duration::from_secs(2), Ts::Kind).await));
    t.into_lines()
}

/// Metadata of a topic, of one that does not exist, and of all topics.
pub async fn fetch_metadata_of_a_missing_topic(ctx: Ctx) -> Vec<String> {
    let mut t = Transcript::new();
    ctx.topic("t", 2);
    ctx.topic("u", 1);
    let c = ctx.consumer(&[]);
    let describe = |r: KafkaResult<rdkafka::metadata::Metadata>| match r {
        Err(e) => format!("Err {}", err(&e)),
        Ok(m) => {
            let mut topics: Vec<String> = m
                .topics()
                .iter()
                .map(|topic| {
                    let ids: Vec<String> = topic.partitions().iter().map(|p| p.id().to_string()).collect();
                    format!("{} partitions [{}]", topic.name(), ids.join(","))
                })
                .collect();
            topics.sort();
            format!("Ok {} topics: {}", topics.len(), topics.join("; "))
        }
    };
    t.line(format!("fetch_metadata t: {}", describe(c.fetch_metadata(Some("t"), T).await)));
    t.line(format!("fetch_metadata missing: {}", describe(c.fetch_metadata(Some("missing"), T).await)));
    t.line(format!("fetch_metadata all: {}", describe(c.fetch_metadata(None, T).await)));
    assign(&c, &[("missing", 0, Offset::Beginning)]);
    // librdkafka allows `topic.metadata.propagation.max.ms` (30 s) for a topic to appear
    // before it tells a consumer the topic does not exist.
    let within = next(&c, Duration::from_secs(3), Ts::Kind).await;
    t.line(format!("assigned missing/0, poll within 3 s: {within}"));
    t.line(format!("assigned missing/0, poll within 40 s more: {}", next(&c, Duration::from_secs(40), Ts::Kind).await));
    t.line(format!("assigned missing/0, then: {}", next(&c, Duration::from_secs(3), Ts::Kind).await));
    t.line(format!("fetch_metadata all, after: {}", describe(c.fetch_metadata(None, T).await)));
    t.into_lines()
}

/// What a consumer context is told: rebalances and commits, in order.
#[derive(Clone, Default)]
pub struct Events(Arc<Mutex<Vec<String>>>);

impl Events {
    fn push(&self, event: String) {
        self.0.lock().unwrap().push(event);
    }
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

fn rebalance(r: &Rebalance<'_>) -> String {
    match r {
        Rebalance::Assign(l) => format!("Assign {}", tpl(l)),
        Rebalance::Revoke(l) => format!("Revoke {}", tpl(l)),
        Rebalance::Error(e) => format!("Error {}", err(e)),
    }
}

impl rdkafka::ClientContext for Events {}

impl ConsumerContext for Events {
    fn pre_rebalance(&self, _: &rdkafka::consumer::base_consumer::BaseConsumer<Self>, r: &Rebalance<'_>) {
        self.push(format!("pre_rebalance {}", rebalance(r)));
    }
    fn post_rebalance(&self, _: &rdkafka::consumer::base_consumer::BaseConsumer<Self>, r: &Rebalance<'_>) {
        self.push(format!("post_rebalance {}", rebalance(r)));
    }
    fn commit_callback(&self, result: KafkaResult<()>, offsets: &TopicPartitionList) {
        self.push(format!("commit {} {}", unit(&result), tpl(offsets)));
    }
}

/// A group consumer configured for the scripts: the group's defaults but for a short session
/// (the mock's rebalance waits most of it).
fn member(ctx: &Ctx, group: &str, events: &Events) -> BaseConsumer<Events> {
    ctx.consumer_with(
        &[
            ("group.id", group),
            ("enable.auto.commit", "false"),
            ("auto.offset.reset", "earliest"),
            ("session.timeout.ms", "6000"),
            ("heartbeat.interval.ms", "500"),
        ],
        events.clone(),
    )
}

/// Polls `c` until it has returned `n` messages or `within` passed; the messages sorted by
/// partition and offset (partitions interleave as fetches come back).
async fn collect(c: &BaseConsumer<Events>, n: usize, within: Duration) -> String {
    let mut got = Vec::new();
    let mut left = within;
    let step = Duration::from_millis(100);
    while got.len() < n && !left.is_zero() {
        match c.poll(step).await {
            Some(Ok(m)) => got.push((m.partition(), m.offset(), msg(&m, Ts::Kind))),
            Some(Err(e)) => got.push((i32::MAX, 0, format!("error {}", err(&e)))),
            None => {}
        }
        left = left.saturating_sub(step);
    }
    got.sort();
    let got: Vec<String> = got.into_iter().map(|(_, _, m)| m).collect();
    format!("{} read: {}", got.len(), got.join(" | "))
}

/// Polls `c` until its assignment has `n` partitions or `within` passed.
async fn await_assignment(c: &BaseConsumer<Events>, others: &[&BaseConsumer<Events>], n: usize, within: Duration) {
    let mut left = within;
    let step = Duration::from_millis(100);
    while c.assignment().map_or(0, |a| a.count()) != n && !left.is_zero() {
        let _ = c.poll(step).await.map(|r| r.map(|_| ()));
        for o in others {
            let _ = o.poll(Duration::ZERO).await.map(|r| r.map(|_| ()));
        }
        left = left.saturating_sub(step);
    }
}

/// A consumer subscribes: the group assigns it every
/// partition (the rebalance callbacks tell), it reads them, commits its position, and
/// unsubscribing revokes them.
pub async fn group_subscribe_assigns_every_partition(ctx: Ctx) -> Vec<String> {
    let mut t = Transcript::new();
    ctx.topic("t", 2);
    let plain = ctx.producer(&[]);
    for (partition, m) in [(0, "a"), (0, "b"), (1, "c")] {
        t.line(format!("send {m} to t/{partition}: {}", send(&plain, "t", partition, m).await));
    }
    let events = Events::default();
    let c = member(&ctx, "g", &events);
    t.line(format!("subscribe t: {}", unit(&c.subscribe(&["t"]))));
    t.line(format!("subscription: {}", tpl_result(&c.subscription())));
    t.line(format!("messages: {}", collect(&c, 3, Duration::from_secs(30)).await));
    t.line(format!("rebalance callbacks: {}", events.take().join(" | ")));
    t.line(format!("assignment: {}", tpl_result(&c.assignment())));
    let protocol = match c.rebalance_protocol() {
        RebalanceProtocol::None => "None",
        RebalanceProtocol::Eager => "Eager",
        RebalanceProtocol::Cooperative => "Cooperative",
    };
    t.line(format!("rebalance protocol: {protocol}"));
    t.line(format!("assignment lost: {}", c.assignment_lost()));
    t.line(format!("position: {}", tpl_result(&c.position())));
    t.line(format!("commit_consumer_state: {}", unit(&c.commit_consumer_state(CommitMode::Sync).await)));
    t.line(format!("committed: {}", tpl_result(&c.committed(T).await)));
    c.unsubscribe();
    await_assignment(&c, &[], 0, Duration::from_secs(10)).await;
    t.line(format!("after unsubscribe, assignment: {}", tpl_result(&c.assignment())));
    t.line(format!("after unsubscribe, callbacks: {}", events.take().join(" | ")));
    t.into_lines()
}

/// A second member joins: an eager rebalance revokes the
/// first member's partitions and deals one to each (which one to whom depends on the member
/// ids, so only the counts are written).
pub async fn group_a_second_member_takes_half_the_partitions(ctx: Ctx) -> Vec<String> {
    let mut t = Transcript::new();
    ctx.topic("t", 2);
    let (e1, e2) = (Events::default(), Events::default());
    let c1 = member(&ctx, "g", &e1);
    t.line(format!("first subscribes: {}", unit(&c1.subscribe(&["t"]))));
    await_assignment(&c1, &[], 2, Duration::from_secs(30)).await;
    t.line(format!("first's assignment: {}", tpl_result(&c1.assignment())));
    t.line(format!("first's callbacks: {}", e1.take().join(" | ")));
    let c2 = member(&ctx, "g", &e2);
    t.line(format!("second subscribes: {}", unit(&c2.subscribe(&["t"]))));
    let mut left = Duration::from_secs(60);
    let step = Duration::from_millis(100);
    let count = |c: &BaseConsumer<Events>| c.assignment().map_or(0, |a| a.count());
    while (count(&c1), count(&c2)) != (1, 1) && !left.is_zero() {
        let _ = c1.poll(step).await.map(|r| r.map(|_| ()));
        let _ = c2.poll(step).await.map(|r| r.map(|_| ()));
        left = left.saturating_sub(step * 2);
    }
    t.line(format!("assignment counts: first {} second {}", count(&c1), count(&c2)));
    let mut together: Vec<String> = [&c1, &c2]
        .iter()
        .flat_map(|c| {
            c.assignment()
                .map(|a| a.elements().iter().map(|e| format!("{}/{}", e.topic(), e.partition())).collect::<Vec<_>>())
                .unwrap_or_default()
        })
        .collect();
    together.sort();
    t.line(format!("together: {}", together.join(" ")));
    let kinds = |events: Vec<String>| -> Vec<String> {
        events.into_iter().map(|e| e.split(" [").next().unwrap_or("").to_string()).collect()
    };
    t.line(format!("first's callbacks (kinds): {}", kinds(e1.take()).join(" | ")));
    t.line(format!("second's callbacks (kinds): {}", kinds(e2.take()).join(" | ")));
    t.into_lines()
}

/// A member reads and commits, leaves; the next member of the
/// group starts at the committed offsets and reads only what came after.
pub async fn group_commits_carry_over_to_the_next_member(ctx: Ctx) -> Vec<String> {
    let mut t = Transcript::new();
    ctx.topic("t", 1);
    let plain = ctx.producer(&[]);
    for m in ["a", "b"] {
        t.line(format!("send {m}: {}", send(&plain, "t", 0, m).await));
    }
    let events = Events::default();
    {
        let c = member(&ctx, "g", &events);
        t.line(format!("first subscribes: {}", unit(&c.subscribe(&["t"]))));
        t.line(format!("first reads: {}", collect(&c, 2, Duration::from_secs(30)).await));
        t.line(format!("first commit_consumer_state: {}", unit(&c.commit_consumer_state(CommitMode::Sync).await)));
        t.line(format!("first committed: {}", tpl_result(&c.committed(T).await)));
    }
    for m in ["c", "d"] {
        t.line(format!("send {m}: {}", send(&plain, "t", 0, m).await));
    }
    let c = member(&ctx, "g", &events);
    t.line(format!("next subscribes: {}", unit(&c.subscribe(&["t"]))));
    t.line(format!("next reads: {}", collect(&c, 2, Duration::from_secs(30)).await));
    t.line(format!("next committed: {}", tpl_result(&c.committed(T).await)));
    t.into_lines()
}
