//! The whole connsim sink suite against the example sink.
//! `CONNSIM_SEEDS=200 cargo test --release -p example-connector` runs 200 seeds per case.

use connsim_scenarios::suites::{self, sink_from_setup};
use example_connector::sink::StagingSinkSetup;

#[test]
fn the_staging_sink_passes_the_sink_suite() {
    // The sink declares its own guarantee (exactly-once); the suite holds it to that.
    let ctx = sink_from_setup(StagingSinkSetup, &["store"]);
    let outcome = suites::sink(ctx).seeds(10).run();
    println!("{outcome}");
    outcome.assert_ok();
}
