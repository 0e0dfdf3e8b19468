//! Cases aimed at a Kafka broker's own behaviour, for sinks that reach a log through Kafka's
//! protocol ([`Systems::kafka`]): requests that straggle across connections, and a classic
//! broker that does not verify a transaction's partitions (before KIP-890 part 1).

use super::{case, CaseSpec, Systems};
use crate::prelude::*;
use connsim::cluster::FailoverStrategy::Region;

/// Straggling windows in a case: every 60 ms, the requests of `kind` sent in the next 15 ms
/// arrive 80 ms late: past the clients' request timeout (50 ms in the simulation), so each
/// client retries on a new connection and the first attempt arrives after the retry.
fn straggling(systems: &[String], kind: &str) -> Block {
    let windows = systems.iter().map(|s| straggle(s, kind, 80, 15)).reduce(Block::then).expect("a Kafka system");
    windows.then(wait(60)).repeat(12)
}

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
///   leaves one; every Kafka request straggles here, the transaction's own included.
pub(super) fn kafka_broker(aimed: &Systems, cases: &mut Vec<CaseSpec>) {
    let systems = aimed.kafka.as_slice();
    if systems.is_empty() {
        return;
    }
    let produce = Scenario::new("produce requests straggle")
        .then(wait(100))
        .then(straggling(systems, "kafka.produce"))
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
        .then(straggling(systems, "kafka."))
        .then(crash(Worker::Any).restart_after(30))
        .then(straggling(systems, "kafka."))
        .requires_on("message-straggled", 80)
        .requires_on("produce-deduplicated", 50);
    cases.insert(cases.len() - 1, case(name, 4, Region, unverified));
}
