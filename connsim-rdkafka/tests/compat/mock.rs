//! The run against librdkafka's mock cluster: a script through the real rdkafka (the crate's
//! std half) on a tokio runtime, its transcript compared with the simulated one.

use super::scripts::{Ctx, Fenced};
use super::{DIR_VAR, NOT_YET_SIMULATED};
use rdkafka::mocking::MockCluster;
use rdkafka::types::{RDKafkaApiKey, RDKafkaRespErr};
use std::future::Future;
use std::path::PathBuf;
use std::rc::Rc;

/// Runs `script` against a fresh mock cluster of one broker and compares its transcript
/// with the simulated one in `$CONNSIM_COMPAT_DIR`.
pub fn run<F: Future<Output = Vec<String>>>(name: &str, script: impl Fn(Ctx) -> F) {
    let gated = NOT_YET_SIMULATED.contains(&name);
    // Read first: a missing transcript fails before the mock's run takes its seconds.
    let sim = if gated { None } else { Some(simulated(name)) };
    let cluster = Rc::new(MockCluster::new(1).unwrap_or_else(|e| panic!("a mock cluster: {e}")));
    let (topics, fences) = (cluster.clone(), cluster.clone());
    let ctx = Ctx::new(cluster.bootstrap_servers(), move |topic, partitions| {
        topics.create_topic(topic, partitions, 1).unwrap_or_else(|e| panic!("topic {topic} on the mock: {e}"))
    })
    .with_fencing(move |fenced| {
        // What a real broker answers the fenced epoch's next request of the kind; the mock
        // keeps the older producer id valid (it hands a new one out instead of a new epoch).
        let (api, answer) = match fenced {
            Fenced::Produce => (RDKafkaApiKey::Produce, RDKafkaRespErr::RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH),
            Fenced::EndTxn => (RDKafkaApiKey::EndTxn, RDKafkaRespErr::RD_KAFKA_RESP_ERR_PRODUCER_FENCED),
        };
        fences.request_errors(api, &[answer]);
    });
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let mock = runtime.block_on(script(ctx));
    drop(runtime);
    drop(cluster);
    let Some(sim) = sim else {
        println!(
            "== {name}: not yet in the simulated half (NOT_YET_SIMULATED in tests/compat.rs): the mock's transcript, \
             not compared:\n{}",
            mock.iter().enumerate().map(|(i, l)| format!("{:4}    {l}", i + 1)).collect::<Vec<_>>().join("\n")
        );
        return;
    };
    let strict = std::env::var_os(super::compare::STRICT_VAR).is_some();
    let outcome = super::compare::compare(name, &sim, &mock, strict);
    println!("{}", outcome.text);
    assert!(!outcome.failed, "{name}: the transcripts differ where no known departure explains it (above)");
}

/// The simulated transcript of `name`.
fn simulated(name: &str) -> Vec<String> {
    let Some(dir) = std::env::var_os(DIR_VAR) else {
        panic!(
            "{DIR_VAR} is not set: the comparison needs the simulated transcripts; run scripts/check-rdkafka-compat, \
             which writes them first (the simulated half's `cargo test -p connsim-rdkafka --test compat` with \
             {DIR_VAR} set) and then runs this comparison"
        )
    };
    let path = PathBuf::from(dir).join(format!("{name}.txt"));
    match std::fs::read_to_string(&path) {
        Ok(text) => text.lines().map(str::to_string).collect(),
        Err(e) => panic!(
            "no simulated transcript of {name} at {} ({e}): run the simulated half first (scripts/check-rdkafka-compat \
             does: `{DIR_VAR}=<dir> cargo test -p connsim-rdkafka --test compat`)",
            path.display()
        ),
    }
}
