//! Cases aimed at a Kafka broker's own behaviour, for sinks that reach a log through Kafka's
//! protocol ([`Systems::kafka`]): requests that straggle across connections, a classic
//! broker that does not verify a transaction's partitions (before KIP-890 part 1), and an
//! older attempt's commit that lands after a newer attempt's first read.

use super::{case, CaseSpec, Systems};
use crate::prelude::*;
use connsim::cluster::FailoverStrategy::Region;

/// The straggling windows of the Kafka cases: every 75 ms, the requests of `kinds` (kind
/// prefixes such as `"kafka.produce"`) to `systems` sent in the next 15 ms arrive 80 ms late:
/// past the clients' request timeout (50 ms in the simulation), so each client retries on a
/// new connection and the first attempt arrives after the retry. A test that removes them
/// from a case ([`Scenario::without`]) builds the same block.
pub fn straggling(systems: &[String], kinds: &[&str]) -> Block {
    let mut window = wait(15);
    for s in systems {
        for kind in kinds {
            let to = Some(Target::System(s.clone()));
            window = during(Fault::Straggle { ms: 80, kind: Some(kind.to_string()), from: None, to }, window);
        }
    }
    window.then(wait(60)).repeat(12)
}

/// The held commits of the read-before-fence case: for `for_ms`, every `EndTxn` a writer's
/// committer sends to `systems` is held until the same subtask's next `OffsetFetch` reaches
/// the broker, and lands right behind it (at most 1.5 s late). The commit call times out
/// meanwhile, its retry is a new attempt at the batch, and the old attempt's `EndTxn` lands
/// between the new attempt's first read of its marker and whatever it sends next.
pub fn held_commits(systems: &[String], for_ms: u64) -> Block {
    let mut window = wait(for_ms);
    for s in systems {
        let to = Some(Target::System(s.clone()));
        let hold = Fault::Hold {
            until: "kafka.offset_fetch".into(),
            max_ms: 1_500,
            kind: Some("kafka.end_txn".into()),
            from: None,
            to,
        };
        window = during(hold, window);
    }
    window
}

/// Every Kafka request, for the case on a broker without partition verification: a
/// transaction's produces, its partitions' registration, its end, and `InitProducerId` too.
/// A late `InitProducerId` without a producer id (a producer's first) bumps the epoch past the
/// live producer's and fences it, on a real broker as here: a correct sink survives being
/// fenced by its own straggler as by any other incarnation.
pub const EVERY_REQUEST: [&str; 1] = ["kafka."];

/// The three cases, when the sink reaches some system through Kafka's protocol.
///
/// - "produce requests straggle": a produce request on an abandoned connection reaches the
///   broker after the client's later requests (its retry, the next batch). An idempotent
///   producer keeps its records' order and count through its sequences: the broker
///   recognises the late first attempt of a batch its retry appended and does not append it
///   again (`produce-deduplicated`, on half the seeds at least).
/// - "a classic broker without partition verification, requests straggle": the broker writes
///   any transactional produce it gets, even one its transaction never added or that arrives
///   after the transaction ended (KAFKA-14402); such a write opens a hanging transaction that
///   holds the partition's last stable offset and never times out. A sink whose client waits
///   for every produce before it ends a transaction, and fences its previous epochs, never
///   leaves one; every Kafka request straggles here ([`EVERY_REQUEST`]), and a writer
///   crashes.
/// - "an old commit lands between a new attempt's read and its fence": a commit whose
///   answer never came is retried by a new attempt at the batch; the old attempt's commit
///   lands right after the new attempt's first read of the broker ([`held_commits`]). A
///   sink that fences before it reads (`init_transactions`, then its progress marker) sees
///   the old commit refused; one that reads its marker first finds it absent, and the old
///   commit then lands before its fence: the batch is written twice (Materialize #9249).
pub(super) fn kafka_broker(aimed: &Systems, cases: &mut Vec<CaseSpec>) {
    let systems = aimed.kafka.as_slice();
    if systems.is_empty() {
        return;
    }
    let produce = Scenario::new("produce requests straggle")
        .then(wait(100))
        .then(straggling(systems, &["kafka.produce"]))
        .requires_on("message-straggled", 80)
        .requires_on("produce-deduplicated", 50);
    cases.insert(cases.len() - 1, case("produce requests straggle", 4, Region, produce));
    let name = "a classic broker without partition verification, requests straggle";
    let mut unverified = Scenario::new(name);
    for s in systems {
        unverified = unverified.then(transaction_protocol(s, TxnProtocol::ClassicUnverified));
    }
    let unverified = unverified
        .then(wait(100))
        .then(straggling(systems, &EVERY_REQUEST))
        .then(crash(Worker::Any).restart_after(30))
        .then(straggling(systems, &EVERY_REQUEST))
        .requires_on("message-straggled", 80)
        .requires_on("produce-deduplicated", 50);
    cases.insert(cases.len() - 1, case(name, 4, Region, unverified));
    let name = "an old commit lands between a new attempt's read and its fence";
    let fence = Scenario::new(name).then(wait(100)).then(held_commits(systems, 400)).then(wait(300));
    cases.insert(cases.len() - 1, case(name, 4, Region, fence.requires_on("request-applied-late", 50)));
}
