//! Determinism: a seed is a complete description of a run.

use connectors_under_test::mutants::PrematureCommitSetup;
use connectors_under_test::{FileSinkSetup, LogSourceSetup, TxnLogSinkSetup};
use connsim::cluster::FailoverStrategy;
use connsim::{Pipeline, Runner};

#[test]
fn every_seed_runs_twice_to_the_same_history_hash() {
    let mut r = Runner::new(Pipeline(LogSourceSetup::bounded(8, 5000), FileSinkSetup));
    r.seeds(50).check_determinism(true);
    let out = r.run();
    out.assert_ok();
    assert_eq!(out.reports.len(), 50);
    let mut r = Runner::new(Pipeline(LogSourceSetup::bounded(8, 5000), TxnLogSinkSetup { partitions: 4 }));
    r.seeds(50).first_seed(1_000).check_determinism(true).configure(|c| c.job.failover = FailoverStrategy::Global);
    r.run().assert_ok();
}

fn mutant_runner() -> Runner<Pipeline<LogSourceSetup, PrematureCommitSetup>> {
    Runner::new(Pipeline(LogSourceSetup::bounded(8, 5000), PrematureCommitSetup))
}

#[test]
fn a_failing_seed_replays_to_the_identical_history() {
    let mut r = mutant_runner();
    r.seeds(10);
    let out = r.run();
    let failed = out.first_failure().expect("the premature-commit mutant fails");
    let again = r.run_seed(failed.seed);
    assert_eq!(again.history_hash, failed.history_hash);
    assert_eq!(again.failed_checks(), failed.failed_checks());
    assert_eq!(again.to_string(), failed.to_string());
}

/// Run by [`connsim_seed_replays_a_run_in_a_fresh_process`] in a child process.
#[test]
#[ignore = "helper: run in a child process with CONNSIM_SEED set"]
fn replay_target() {
    let out = mutant_runner().run();
    for r in &out.reports {
        println!("replayed seed {} hash {:016x}", r.seed, r.history_hash);
    }
}

#[test]
fn connsim_seed_replays_a_run_in_a_fresh_process() {
    let seed = 7;
    let expected = mutant_runner().run_seed(seed).history_hash;
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "determinism::replay_target", "--ignored", "--nocapture"])
        .env("CONNSIM_SEED", seed.to_string())
        .output()
        .expect("run the test binary");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("replayed seed")).collect();
    assert_eq!(lines, vec![format!("replayed seed {seed} hash {expected:016x}").as_str()], "{stdout}");
}
