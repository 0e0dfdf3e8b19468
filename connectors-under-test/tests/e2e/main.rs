//! End-to-end runs of the reference connectors and the mutants.
//!
//! Every test runs its seeds through [`connsim::Runner`]; `CONNSIM_SEEDS` raises the count,
//! `CONNSIM_SEED` replays one seed.

mod alone;
mod mutants;
mod pipelines;

use connsim::cluster::FailoverStrategy;
use connsim::{Runner, Testbed};

/// Seeds per reference-connector test in the default `cargo test`.
pub const FAST_SEEDS: u64 = 200;

/// A runner with the standard fault profile and the given failover strategy.
pub fn runner<T: Testbed>(testbed: T, failover: FailoverStrategy, seeds: u64) -> Runner<T> {
    let mut r = Runner::new(testbed);
    r.seeds(seeds).configure(|c| c.job.failover = failover);
    r
}
