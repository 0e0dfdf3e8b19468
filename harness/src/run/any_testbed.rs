//! A testbed behind a trait object: code that runs seeds (the runner, scenarios, suites,
//! shrinking, replays) is compiled once, not once per testbed type a crate runs.
//!
//! The cluster already runs on erased connectors ([`crate::erased`]); what a testbed type
//! still multiplied was everything around a seed. A [`Runner<dyn AnyTestbed>`](Runner::erased)
//! reaches the testbed's own types only through [`AnyTestbed::simulate_seed`], which runs the
//! seed exactly as [`simulate_script`] does: the same world, history and verdicts.

use super::config::RunConfig;
use super::report::RunReport;
use super::script::Script;
use super::simulate::simulate_script;
use super::testbed::Testbed;
#[cfg(doc)]
use super::Runner;

/// What the [`Runner`](super::Runner) needs of a testbed: its name and a way to run one seed.
/// Every [`Testbed`] is one, and only they are (the trait is sealed: a seed always runs
/// through [`simulate_script`]); `dyn AnyTestbed` holds any of them.
pub trait AnyTestbed: sealed::Sealed + Send + Sync + 'static {
    /// The testbed's name for reports ([`Testbed::name`]).
    fn testbed_name(&self) -> String;
    /// Runs one seed on the current thread and checks it ([`simulate_script`]).
    fn simulate_seed(&self, config: &RunConfig, seed: u64, script: &dyn Script) -> RunReport;
}

mod sealed {
    /// Implemented for every [`Testbed`](super::Testbed) and nothing else.
    pub trait Sealed {}
    impl<T: super::Testbed> Sealed for T {}
}

impl<T: Testbed> AnyTestbed for T {
    fn testbed_name(&self) -> String {
        Testbed::name(self)
    }

    fn simulate_seed(&self, config: &RunConfig, seed: u64, script: &dyn Script) -> RunReport {
        simulate_script(self, config, seed, script)
    }
}
