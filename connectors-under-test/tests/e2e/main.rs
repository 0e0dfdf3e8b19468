//! End-to-end runs of the reference connectors and the mutants.
//!
//! Every test runs its seeds through [`connsim::Runner`]; `CONNSIM_SEEDS` raises the count,
//! `CONNSIM_SEED` replays one seed.

mod alone;
mod decoders;
mod global_task;
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

/// The recovery paths every reference test must reach in some seed.
pub const RECOVERY_MARKS: [&str; 8] = [
    "crash",
    "restore-from-checkpoint",
    "checkpoint-aborted",
    "message-dropped",
    "notify-lost",
    "commit-retried",
    "recovered-committables-committed",
    "crash-between-prepare-and-commit",
];

/// The marks a test with this strategy and boundedness must reach.
pub fn marks(failover: FailoverStrategy, bounded: bool) -> Vec<&'static str> {
    let mut m = RECOVERY_MARKS.to_vec();
    m.push(match failover {
        FailoverStrategy::Region => "failover:region",
        FailoverStrategy::Global => "failover:global",
    });
    if bounded {
        m.push("job-finished");
    }
    m
}

/// Asserts that every seed passed and that the given coverage marks were reached.
pub trait Check {
    /// Panics with the first failing report, or with the marks never reached.
    fn check(&self, marks: &[&str]);
}

impl Check for connsim::Outcome {
    fn check(&self, marks: &[&str]) {
        self.assert_ok();
        self.assert_reached(marks);
        println!("{}\ncoverage: {:?}", self.summary(), self.coverage());
    }
}
mod determinism;

/// Seeds allocate for every message and record; mimalloc serves them faster than the system
/// allocator, as in the `connsim` binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
