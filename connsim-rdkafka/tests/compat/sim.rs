//! The simulated run: a script as connector code beside a simulated log named "kafka", on
//! madsim's runtime (virtual time: the scripts' long timeouts cost nothing).

use super::scripts::Ctx;
use super::{DIR_VAR, NOT_YET_SIMULATED};
use connsim::history::History;
use connsim::net::Gateway;
use connsim::systems::{ExternalSystem, PartitionedLog};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::future::Future;
use std::time::Duration;

/// Runs `script` on two seeds (their transcripts must be equal: a script's observations do
/// not hang on the network's timing), and writes the transcript to `$CONNSIM_COMPAT_DIR`
/// when it is set.
pub fn run<F: Future<Output = Vec<String>> + 'static>(name: &str, script: impl Fn(Ctx) -> F) {
    if NOT_YET_SIMULATED.contains(&name) {
        println!("{name}: not yet in the simulated half (NOT_YET_SIMULATED in tests/compat.rs): skipped");
        return;
    }
    let first = on_seed(1, &script);
    let second = on_seed(2, &script);
    assert!(!first.is_empty(), "{name}: an empty transcript");
    if first != second {
        let diff = super::compare::compare(name, &first, &second, true);
        panic!("{name}: the transcripts of seeds 1 and 2 differ (the script hangs on timing)\n{}", diff.text);
    }
    if let Some(dir) = std::env::var_os(DIR_VAR) {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let path = dir.join(format!("{name}.txt"));
        let mut text = first.join("\n");
        text.push('\n');
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("{name}: {} lines written to {}", first.len(), path.display());
    }
}

fn on_seed<F: Future<Output = Vec<String>> + 'static>(seed: u64, script: &impl Fn(Ctx) -> F) -> Vec<String> {
    let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
    let history = History::new();
    let gw = Gateway::new(ChaCha8Rng::seed_from_u64(seed), history.clone(), (1, 2));
    rt.block_on(async move {
        let log = PartitionedLog::new("kafka", history);
        let topics = log.clone();
        let ctx = Ctx::new("kafka:9092".into(), move |topic, partitions| topics.create_topic(topic, partitions as u32));
        let g = gw.clone();
        madsim::runtime::Handle::current().create_node().name("kafka").build().spawn(async move {
            let (_ep, inbox) = g.bind("kafka");
            log.serve(inbox).await
        });
        madsim::time::sleep(Duration::from_millis(1)).await;
        let client = gw.bind("client").0;
        connsim::net::ambient::scope(client, script(ctx)).await
    })
}
