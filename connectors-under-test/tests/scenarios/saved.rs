//! Saved cases: a failure becomes a file that replays to the identical history, reruns first
//! on later runs, and a damaged file gives an error naming the file and the problem.

use connectors_under_test::mutants::PrematureCommitSetup;
use connectors_under_test::LogSourceSetup;
use connsim::run::{Pipeline, Runner};
use connsim_scenarios::prelude::*;
use connsim_scenarios::replay::{CaseFile, REPLAY_VAR};
use std::path::PathBuf;

fn mutant() -> Runner<Pipeline<LogSourceSetup, PrematureCommitSetup>> {
    Runner::new(Pipeline(LogSourceSetup::bounded(8, 2000), PrematureCommitSetup))
}

fn scenario() -> Scenario {
    Scenario::new("saved case").then(checkpoint()).then(crash(Worker::Nth(1)).at(Phase::AfterPrepareCommit))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("connsim-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_saved_failure_replays_to_the_identical_history_and_reruns_first() {
    let dir = temp_dir("saved");
    let mut runner = mutant();
    runner.seeds(2);
    let first = scenario().run_saving(&mut runner, &dir);
    assert_eq!(first.rerun, 0);
    assert_eq!(first.saved.len(), 2, "both seeds fail and are saved: {:?}", first.saved);
    let case = CaseFile::load(&first.saved[0]).unwrap();
    assert_eq!(case.seed, 1);
    assert_eq!(case.scenario, scenario());
    let replayed = case.replay(&runner);
    assert_eq!(format!("{:016x}", replayed.history_hash), case.history_hash);
    assert_eq!(replayed.failed_checks(), case.failed_checks.iter().map(String::as_str).collect::<Vec<_>>());
    // A later run reruns the saved cases before its own seeds.
    let again = scenario().run_saving(&mut runner, &dir);
    assert_eq!(again.rerun, 2);
    assert_eq!(again.outcome.reports.len(), 4);
    assert_eq!(again.outcome.reports[0].history_hash, replayed.history_hash);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_case_files_give_errors_naming_the_file_and_the_problem() {
    let dir = temp_dir("damaged");
    let mut runner = mutant();
    runner.seeds(1);
    let saved = scenario().run_saving(&mut runner, &dir).saved;
    let path = &saved[0];
    let good = std::fs::read_to_string(path).unwrap();
    let problem = |text: &str| {
        std::fs::write(path, text).unwrap();
        let err = CaseFile::load(path).unwrap_err();
        assert_eq!(err.path, *path);
        assert!(err.to_string().contains(&path.display().to_string()), "{err}");
        err.problem
    };
    assert!(problem(&good[..good.len() / 2]).contains("not valid JSON"));
    assert!(problem(&good.replace("\"seed\": 1", "\"seed\": 2")).contains("checksum"));
    assert!(problem(&good.replace("\"format\": 1", "\"format\": 99")).contains("format 99"));
    assert!(problem("{\"hello\": 1}").contains("no \"format\""));
    assert!(problem(&good.replace("\"checksum\"", "\"extra\": 0, \"checksum\"")).contains("does not describe a case"));
    // A case whose checks are off would replay as a pass whatever the connector does.
    std::fs::write(path, &good).unwrap();
    let mut unverified = CaseFile::load(path).unwrap();
    unverified.body.config.verification = connsim::run::Verification::Off;
    let refused = unverified.save(&dir.join("unverified")).unwrap_err();
    let refused_case = unverified;
    assert!(refused.problem.contains("not saved") && refused.problem.contains("verification off"), "{refused}");
    assert!(!dir.join("unverified").exists(), "nothing was written");
    // Written by hand all the same (with its checksum), it is refused on load.
    let unverified = dir.join("unverified.json");
    std::fs::write(&unverified, refused_case.to_json()).unwrap();
    let err = CaseFile::load(&unverified).unwrap_err();
    assert!(err.problem.contains("turns verification off") && err.problem.contains("remove"), "{err}");
    let missing = CaseFile::load(&dir.join("missing.json")).unwrap_err();
    assert!(missing.problem.contains("cannot read it"), "{missing}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "run by connsim_replay_runs_one_case_file_in_a_fresh_process"]
fn replay_target() {
    let outcome = scenario().run(&mut mutant());
    let r = &outcome.outcome.reports[0];
    println!("REPLAYED seed={} hash={:016x}", r.seed, r.history_hash);
}

#[test]
fn connsim_replay_runs_one_case_file_in_a_fresh_process() {
    let dir = temp_dir("replay-env");
    let mut runner = mutant();
    runner.seeds(3).first_seed(5);
    let saved = scenario().run_saving(&mut runner, &dir).saved;
    let case = CaseFile::load(&saved[1]).unwrap();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "saved::replay_target", "--ignored", "--nocapture"])
        .env(REPLAY_VAR, &saved[1])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let expected = format!("REPLAYED seed={} hash={}", case.seed, case.history_hash);
    assert!(stdout.contains(&expected), "expected {expected:?} in:\n{stdout}");
    // A corrupted file named by CONNSIM_REPLAY stops the run with the file's name.
    std::fs::write(&saved[1], "{ not json").unwrap();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "saved::replay_target", "--ignored"])
        .env(REPLAY_VAR, &saved[1])
        .output()
        .unwrap();
    let all = String::from_utf8_lossy(&output.stdout).to_string() + &String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(all.contains("connsim case file") && all.contains("not valid JSON"), "{all}");
    let _ = std::fs::remove_dir_all(&dir);
}
