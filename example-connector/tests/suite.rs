//! The whole connsim sink suite against the example sink, one test per case
//! (`sink::single_split`, `sink::rpc_faults`, …): `cargo test -p example-connector -- --list`
//! lists them, `cargo test -p example-connector -- scale` runs the scaling cases,
//! `cargo nextest run -p example-connector` runs each in its own process.
//! `CONNSIM_SEEDS=200 cargo test --release -p example-connector` runs 200 seeds per case.

use connsim_scenarios::suites::{self, sink_from_setup};
use example_connector::sink::StagingSinkSetup;

fn main() -> std::process::ExitCode {
    // The sink declares its own guarantee (exactly-once); the suite holds it to that.
    let ctx = sink_from_setup(StagingSinkSetup, &["store"]);
    suites::harness::main(vec![suites::sink(ctx).seeds(10)])
}
