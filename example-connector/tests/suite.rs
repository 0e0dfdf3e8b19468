//! The connsim source and sink suites against the example source and sink, one test per
//! case (`source::single_split`, `sink::rpc_faults`, …): `cargo test -p example-connector
//! --test suite -- --list` lists them, `cargo test -p example-connector --test suite -- scale
//! rpc` runs the scaling and RPC-fault cases, `cargo nextest run -p example-connector` runs
//! each in its own process. `CONNSIM_SEEDS=200 cargo test --release -p example-connector`
//! runs 200 seeds per case. The crate's other tests are in one ordinary binary, `tests/it/`.

use connsim_scenarios::suites::{self, sink_from_setup, source_from_setup};
use example_connector::sink::StagingSinkSetup;
use example_connector::source::FeedSourceSetup;

/// Why the feed source cannot run the cases that add splits while the job runs.
const FIXED_PARTITIONS: &str =
    "the feed's partitions are fixed when it is created: the source never discovers new ones";

fn main() -> std::process::ExitCode {
    // The source context builds the feed with each case's data: its records arrive over
    // `data.pace_ms`, and the source runs unbounded when `data.unbounded` asks (a bounded
    // source would have its unbounded cases skipped by the suite, saying so). The feed cannot
    // grow new partitions, so the two cases that add splits while it runs are skipped here,
    // with why: being unbounded is not enough for them.
    let source = source_from_setup("feed-source", &["feed"], |data| FeedSourceSetup {
        partitions: data.splits,
        records: data.records,
        pace_ms: data.pace_ms,
        unbounded: data.unbounded,
        skew_ms: data.skew_ms,
    })
    .skipping("new splits while the source system is unreachable", FIXED_PARTITIONS)
    .skipping("discovery overlaps slow responses", FIXED_PARTITIONS);
    // The sink declares its own guarantee (exactly-once); the suite holds it to that.
    let sink = sink_from_setup(StagingSinkSetup, &["store"]);
    suites::harness::main(vec![suites::source(source).seeds(10), suites::sink(sink).seeds(10)])
}
