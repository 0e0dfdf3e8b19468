use connsim::cluster::FailoverStrategy;
use connsim::probes::{CollectorSetup, GeneratorSetup};
use connsim::run::FaultConfig;
use connsim::{Pipeline, Runner};

#[test]
fn probes_without_faults() {
    let mut runner = Runner::new(Pipeline(GeneratorSetup { splits: 8, records_per_split: 100 }, CollectorSetup));
    runner.seeds(1).configure(|c| c.faults = FaultConfig::none());
    let out = runner.run();
    println!("{}", out.reports[0]);
    out.assert_ok();
}

fn faulty(strategy: FailoverStrategy) {
    let mut runner = Runner::new(Pipeline(GeneratorSetup { splits: 8, records_per_split: 2000 }, CollectorSetup));
    runner.seeds(20).configure(|c| c.job.failover = strategy);
    let out = runner.run();
    println!("{}", out.summary());
    if let Some(r) = out.reports.first() { println!("{r}"); }
    out.assert_ok();
}

#[test]
fn probes_with_faults_region() { faulty(FailoverStrategy::Region) }
#[test]
fn probes_with_faults_global() { faulty(FailoverStrategy::Global) }
