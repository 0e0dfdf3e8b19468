//! `connsim generate`: generated scenarios (swarm mode) against the reference pipelines,
//! then a generated search against the premature-commit mutant, shrunk. Prints generated
//! seeds per second and the time to shrink; exits 1 if a reference pipeline fails or the
//! mutant is not found.

use crate::args::GenerateArgs;
use connectors_under_test::mutants::PrematureCommitSetup;
use connectors_under_test::{FileSinkSetup, LogSourceSetup, TableSinkSetup, TxnLogSinkSetup};
use connsim::cluster::FailoverStrategy::{self, Global, Region};
use connsim::run::{Pipeline, Runner, SinkSetup, SourceSetup};
use connsim_scenarios::generate::{self, Generator};
use std::time::Instant;

fn generator() -> Generator {
    let systems = ["log", "fs", "sink-log", "table"].map(String::from).to_vec();
    Generator { systems, producer: true, swarm: true, ..Generator::default() }
}

fn sweep<A: SourceSetup, B: SinkSetup>(name: &str, source: A, sink: B, failover: FailoverStrategy, seeds: u64) -> bool {
    let mut runner = Runner::erased(Pipeline(source, sink));
    runner.configure(|c| c.job.failover = failover);
    let t0 = Instant::now();
    let search = generate::search(&runner, &generator(), 1..=seeds);
    let wall = t0.elapsed().as_secs_f64();
    let verdict = match &search.found {
        None => "ok".to_string(),
        Some(f) => {
            format!("FAILED {} at seed {}; minimal scenario:\n{}\n{}", f.check, f.seed, f.minimal.to_rust(), f.report)
        }
    };
    println!(
        "{:<48} {:>6} {:>9.1} {:>9.1}  {verdict}",
        format!("{name} [{failover:?}]"),
        search.seeds,
        wall,
        search.seeds as f64 / wall
    );
    search.found.is_none()
}

pub fn run(args: GenerateArgs) -> Result<bool, String> {
    let seeds = args.seeds;
    println!("generated scenarios (swarm), one thread, {seeds} seeds per target");
    println!("{:<48} {:>6} {:>9} {:>9}  verdict", "target", "seeds", "wall s", "seeds/s");
    let mut ok = true;
    let source = || LogSourceSetup::unbounded(8, 2000, 1);
    for f in [Region, Global] {
        ok &= sweep("unbounded log-source -> file-sink", source(), FileSinkSetup, f, seeds);
        ok &= sweep("unbounded log-source -> txn-log-sink", source(), TxnLogSinkSetup { partitions: 4 }, f, seeds);
        ok &= sweep("unbounded log-source -> table-sink", source(), TableSinkSetup, f, seeds);
        ok &= sweep(
            "log-source -> txn-log-sink",
            LogSourceSetup::bounded(8, 5000),
            TxnLogSinkSetup { partitions: 4 },
            f,
            seeds,
        );
    }
    let runner = Runner::erased(Pipeline(LogSourceSetup::bounded(8, 2000), PrematureCommitSetup));
    let plain = Generator { swarm: false, ..generator() };
    let t0 = Instant::now();
    let search = generate::search(&runner, &plain, 1..=50);
    match search.found {
        Some(f) => println!(
            "mutant premature-commit: found at seed {} ({} seeds, {:.2} s); {} blocks shrank to {} in {} runs, {:.2} s; fails {}\n{}",
            f.seed,
            search.seeds,
            t0.elapsed().as_secs_f64() - f.shrink_secs,
            f.original.size(),
            f.minimal.size(),
            f.shrink_runs,
            f.shrink_secs,
            f.check,
            f.minimal.to_rust()
        ),
        None => {
            println!("mutant premature-commit: SURVIVED 50 generated seeds");
            ok = false;
        }
    }
    Ok(ok)
}
