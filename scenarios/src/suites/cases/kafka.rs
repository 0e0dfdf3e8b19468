//! Cases aimed at a Kafka broker's own behaviour, for sinks that reach a log through Kafka's
//! protocol ([`Systems::kafka`]): requests that straggle across connections, and a classic
//! broker that does not verify a transaction's partitions (before KIP-890 part 1).

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

/// Every Kafka request, for the case on a broker without partition verification: a
/// transaction's produces, its partitions' registration, its end, and `InitProducerId` too.
/// A late `InitProducerId` without a producer id (a producer's first) bumps the epoch past the
/// live producer's and fences it, on a real broker as here: a correct sink survives being
/// fenced by its own straggler as by any other incarnation.
pub const EVERY_REQUEST: [&str; 1] = ["kafka."];

/// The two cases, when the sink reaches some system through Kafka's protocol.
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
}
