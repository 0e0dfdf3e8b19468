//! The `connsim` binary as a user runs it: usage, bad arguments, one small sweep. Building
//! this test builds the binary with the tests' features, so CI runs its sweep from
//! `target/debug/connsim` without compiling the dependencies again.

use std::process::Command;

fn connsim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_connsim")).args(args).output().expect("the binary runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("utf-8 output");
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

#[test]
fn help_prints_the_commands() {
    let (code, out, _) = connsim(&["--help"]);
    assert_eq!(code, 0);
    for command in ["connsim sweep", "connsim bench", "--target", "--shard"] {
        assert!(out.contains(command), "{command} missing from:\n{out}");
    }
}

#[test]
fn bad_arguments_say_what_to_change_and_exit_2() {
    let (code, _, err) = connsim(&["sweep", "--seeds", "many"]);
    assert_eq!(code, 2);
    assert!(err.contains("--seeds \"many\": expected a non-negative integer"), "{err}");
    let (code, _, err) = connsim(&["sweep", "--target", "no such target"]);
    assert_ne!(code, 0);
    assert!(err.contains("no target matches"), "{err}");
}

#[test]
fn a_sweep_of_one_mutant_reports_it_caught() {
    let (code, out, err) =
        connsim(&["sweep", "--target", "mutant: drops stale prefetches", "--seeds", "2", "--jobs", "1"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("caught by no-loss"), "{out}");
}

#[test]
fn the_peer_bench_runs_the_peers_scenario_and_refuses_options_it_has_no_use_for() {
    let (code, out, err) = connsim(&["bench", "--peer", "--seeds", "2", "--records", "300"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("300 records") && out.contains("global failover"), "{out}");
    assert!(out.contains("seeds: 2 on 1 thread(s), 0 failed"), "{out}");
    let (code, _, err) = connsim(&["bench", "--records", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--records 0"), "{err}");
    let (code, _, err) = connsim(&["bench", "--target", "file"]);
    assert_eq!(code, 2);
    assert!(err.contains("bench takes only"), "{err}");
}
