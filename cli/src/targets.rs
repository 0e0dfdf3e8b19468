//! The catalogue the sweep runs: reference connectors (must pass) and mutants (must fail
//! the check their story predicts).

use connectors_under_test::mutants::{IgnoresSplitsBackSetup, PrematureCommitSetup};
use connectors_under_test::{FileSinkSetup, LogSourceSetup, TableSinkSetup, TxnLogSinkSetup};
use connsim::cluster::FailoverStrategy::{self, Global, Region};
use connsim::probes::{CollectorSetup, GeneratorSetup};
use connsim::{Outcome, Pipeline, RunReport, Runner, Testbed};
use connsim_scenarios::CaseFile;

/// Runs a target over the given seeds with the given parallelism.
pub type RunFn = Box<dyn Fn(&[u64], usize) -> Outcome>;

/// Replays a saved case against the target's testbed.
pub type ReplayFn = Box<dyn Fn(&CaseFile) -> RunReport>;

/// One entry of the catalogue.
pub struct Target {
    pub name: String,
    /// The testbed's name (what case files record).
    pub testbed: String,
    pub replay: ReplayFn,
    /// For a mutant: the check that must fail in some seed. `None`: a reference connector.
    pub expect_failed_check: Option<&'static str>,
    pub run: RunFn,
}

fn target<T: Testbed>(
    name: &str,
    failover: FailoverStrategy,
    expect: Option<&'static str>,
    make: impl Fn() -> T + 'static,
) -> Target {
    let make = std::rc::Rc::new(make);
    let again = make.clone();
    Target {
        name: format!("{name} [{failover:?}]"),
        testbed: make().name(),
        replay: Box::new(move |case| case.replay(&Runner::new(again()))),
        expect_failed_check: expect,
        run: Box::new(move |seeds, jobs| {
            let mut outcome = Outcome { reports: Vec::new(), nondeterministic: Vec::new() };
            let mut r = Runner::new(make());
            r.jobs(jobs).configure(|c| c.job.failover = failover);
            // Consecutive runs keep the seeds of a shard together.
            for chunk in seeds.chunk_by(|a, b| b == &(a + 1)) {
                r.first_seed(chunk[0]).seeds(chunk.len() as u64);
                let part = r.run();
                outcome.reports.extend(part.reports);
                outcome.nondeterministic.extend(part.nondeterministic);
            }
            outcome
        }),
    }
}

pub fn all() -> Vec<Target> {
    let log = || LogSourceSetup::bounded(8, 5000);
    let gen = || GeneratorSetup { splits: 8, records_per_split: 625, ..Default::default() };
    let mut t = Vec::new();
    for f in [Region, Global] {
        t.push(target("log-source -> file-sink", f, None, move || Pipeline(log(), FileSinkSetup)));
        t.push(target("log-source -> txn-log-sink", f, None, move || {
            Pipeline(log(), TxnLogSinkSetup { partitions: 4 })
        }));
        t.push(target("log-source -> table-sink (global committer)", f, None, move || {
            Pipeline(log(), TableSinkSetup)
        }));
        t.push(target("unbounded log-source -> file-sink", f, None, move || {
            Pipeline(LogSourceSetup::unbounded(6, 5000, 2), FileSinkSetup)
        }));
        t.push(target("log-source -> probe", f, None, move || Pipeline(log(), CollectorSetup)));
        t.push(target("probe -> file-sink", f, None, move || Pipeline(gen(), FileSinkSetup)));
        t.push(target("probe -> txn-log-sink", f, None, move || Pipeline(gen(), TxnLogSinkSetup { partitions: 4 })));
    }
    t.push(target("mutant: premature commit", Region, Some("no-premature-visibility"), move || {
        Pipeline(log(), PrematureCommitSetup)
    }));
    t.push(target("mutant: ignores add_splits_back", Region, Some("no-loss"), move || {
        Pipeline(IgnoresSplitsBackSetup(log()), FileSinkSetup)
    }));
    t
}
