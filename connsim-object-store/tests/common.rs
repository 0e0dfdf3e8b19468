//! What the tests share: a simulated bucket beside connector code.
#![allow(dead_code)]

use connsim::history::History;
use connsim::net::Gateway;
use connsim::systems::{Bucket, ExternalSystem};
use connsim_object_store::SimulatedS3;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// Runs `f` as connector code beside a bucket on node "s3" (objects under `out/` visible),
/// given the bucket, a store on it and the gateway (for fault rules).
pub fn sim<F: std::future::Future<Output = ()> + 'static>(f: impl FnOnce(Bucket, SimulatedS3, Gateway) -> F) {
    sim_seeded(1, f)
}

/// [`sim`] with the simulation's seed `seed`.
pub fn sim_seeded<F: std::future::Future<Output = ()> + 'static>(
    seed: u64,
    f: impl FnOnce(Bucket, SimulatedS3, Gateway) -> F,
) {
    let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
    let history = History::new();
    let gw = Gateway::new(ChaCha8Rng::seed_from_u64(seed), history.clone(), (1, 2));
    rt.block_on(async move {
        let bucket = Bucket::new("s3", "out/", history.clone());
        let (g, system) = (gw.clone(), bucket.clone());
        madsim::runtime::Handle::current().create_node().name("s3").build().spawn(async move {
            let (_ep, inbox) = g.bind("s3");
            system.serve(inbox).await
        });
        madsim::time::sleep(Duration::from_millis(1)).await;
        let client = gw.bind("client").0;
        connsim::net::ambient::scope(client, f(bucket, SimulatedS3::new("s3"), gw)).await
    });
}
