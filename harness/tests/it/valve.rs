//! The coordinator's valve, proven by the split-accounting check: with pull-based split
//! assignment, assignments race with checkpoints. With the valve every completed checkpoint
//! places each split exactly once; without it an assignment made after the enumerator's
//! snapshot lands in the reader's snapshot too, and the split is in two places.

use connsim::cluster::FailoverStrategy;
use connsim::probes::{CollectorSetup, GeneratorSetup};
use connsim::{Outcome, Pipeline, Runner};

fn runner(valve: bool, failover: FailoverStrategy) -> Runner<Pipeline<GeneratorSetup, CollectorSetup>> {
    let source = GeneratorSetup { splits: 64, records_per_split: 200, on_request: true, ..Default::default() };
    let mut r = Runner::new(Pipeline(source, CollectorSetup));
    r.seeds(100).configure(|c| {
        c.job.coordinator_valve = valve;
        c.job.failover = failover;
        c.job.checkpoints.interval_ms = 20;
    });
    r
}

fn run(valve: bool, failover: FailoverStrategy) -> Outcome {
    runner(valve, failover).run()
}

#[test]
fn with_the_valve_every_split_is_in_one_place() {
    let region = run(true, FailoverStrategy::Region);
    region.assert_ok();
    region.assert_reached(&["valve-held-events", "splits-returned", "restore-from-checkpoint"]);
    let global = run(true, FailoverStrategy::Global);
    global.assert_ok();
    global.assert_reached(&["valve-held-events", "failover:global", "restore-from-checkpoint"]);
}

#[test]
fn without_the_valve_split_accounting_catches_the_race() {
    // Seed by seed, up to the first that catches it (the same 100 seeds as with the valve).
    let r = runner(false, FailoverStrategy::Global);
    let caught = r
        .seed_list()
        .into_iter()
        .map(|seed| r.run_seed(seed))
        .find(|report| report.verdict("split-accounting").is_some_and(|v| !v.passed))
        .unwrap_or_else(|| panic!("none of the {} seeds caught the race", r.seed_list().len()));
    println!("seed {} caught the race", caught.seed);
    let v = caught.verdict("split-accounting").unwrap();
    assert!(v.evidence.iter().any(|e| e.contains("in 2 places") && e.contains("enumerator")), "{v:?}");
}
