//! The connsim source and sink suites against the example source and sink, one test per
//! case (`source::single_split`, `sink::rpc_faults`, …): `cargo test -p example-connector --
//! --list` lists them, `cargo test -p example-connector -- scale` runs the scaling cases,
//! `cargo nextest run -p example-connector` runs each in its own process.
//! `CONNSIM_SEEDS=200 cargo test --release -p example-connector` runs 200 seeds per case.

use connsim_scenarios::suites::{self, sink_from_setup, source_from_setup};
use example_connector::sink::StagingSinkSetup;
use example_connector::source::FeedSourceSetup;

fn main() -> std::process::ExitCode {
    // The source context builds the feed with each case's data.
    let source = source_from_setup("feed-source", &["feed"], |data| FeedSourceSetup {
        partitions: data.splits,
        records: data.records,
        pace_ms: data.pace_ms,
        unbounded: data.unbounded,
    })
    .skipping(
        "new splits while the source system is unreachable",
        "the feed's partitions are fixed when it is created: the source never discovers new ones",
    );
    // The sink declares its own guarantee (exactly-once); the suite holds it to that.
    let sink = sink_from_setup(StagingSinkSetup, &["store"]);
    suites::harness::main(vec![suites::source(source).seeds(10), suites::sink(sink).seeds(10)])
}
