//! The whole connsim sink suite against the example sink.
//! `CONNSIM_SEEDS=200 cargo test --release -p example-connector` runs 200 seeds per case.

use connsim::api::DeliveryGuarantee;
use connsim_scenarios::suites::{self, sink_from_setup};
use example_connector::sink::StagingSinkSetup;

#[test]
fn the_staging_sink_passes_the_sink_suite() {
    let ctx = sink_from_setup(StagingSinkSetup, DeliveryGuarantee::ExactlyOnce, &["store"]);
    let outcome = suites::sink(ctx).seeds(10).run();
    println!("{outcome}");
    outcome.assert_ok();
}
