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
fn help_lists_the_commands_and_each_commands_options() {
    let (code, out, _) = connsim(&["--help"]);
    assert_eq!(code, 0);
    for command in ["sweep", "bench", "generate", "replay", "Examples:"] {
        assert!(out.contains(command), "{command} missing from:\n{out}");
    }
    let (code, out, _) = connsim(&["sweep", "--help"]);
    assert_eq!(code, 0);
    for option in ["--seeds", "--jobs", "--target", "--suite", "--shard", "--format", "--junit", "json"] {
        assert!(out.contains(option), "{option} missing from:\n{out}");
    }
}

#[test]
fn bad_arguments_say_what_to_change_and_exit_2() {
    let (code, _, err) = connsim(&["sweep", "--seeds", "many"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value 'many' for '--seeds <N>'"), "{err}");
    let (code, _, err) = connsim(&["sweep", "--shard", "5/4"]);
    assert_eq!(code, 2);
    assert!(err.contains("need 1 <= K <= N"), "{err}");
    let (code, _, err) = connsim(&["sweep", "--format", "yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("[possible values: text, json]"), "{err}");
    let (code, _, err) = connsim(&["sweep", "--target", "no such target"]);
    assert_eq!(code, 2);
    assert!(err.contains("no target matches"), "{err}");
    let (code, _, err) = connsim(&["sweep", "--seeds", "2", "--shard", "1/3"]);
    assert_eq!(code, 2);
    assert!(err.contains("is empty: use fewer shards"), "{err}");
    let (code, _, err) = connsim(&["frobnicate"]);
    assert_eq!(code, 2);
    assert!(err.contains("unrecognized subcommand 'frobnicate'"), "{err}");
}

#[test]
fn a_sweep_of_one_mutant_reports_it_caught() {
    let (code, out, err) =
        connsim(&["sweep", "--target", "mutant: drops stale prefetches", "--seeds", "2", "--jobs", "1"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("caught by no-loss"), "{out}");
    assert!(!err.contains('\r') && !err.contains("\x1b"), "no progress drawn off a terminal: {err:?}");
}

#[test]
fn a_sweep_writes_json_to_stdout_and_junit_to_a_file() {
    let junit = std::env::temp_dir().join(format!("connsim-cli-test-{}.xml", std::process::id()));
    let junit_arg = junit.to_str().unwrap();
    let args = ["sweep", "--target", "mutant: drops stale prefetches", "--seeds", "2", "--jobs", "1"];
    let (code, out, err) = connsim(&[&args[..], &["--format", "json", "--junit", junit_arg]].concat());
    assert_eq!(code, 0, "{out}\n{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("stdout is one JSON document");
    assert_eq!(json["ok"], true);
    assert_eq!((json["first_seed"].as_u64(), json["last_seed"].as_u64()), (Some(1), Some(2)));
    let target = &json["targets"][0];
    assert_eq!(target["status"], "caught", "{target}");
    assert_eq!(target["expect_failed_check"], "no-loss");
    let cases = target["cases"].as_array().expect("cases");
    assert!(!cases.is_empty());
    let caught = cases.iter().find(|c| c["failed_checks"].as_array().unwrap().iter().any(|k| k == "no-loss"));
    let caught = caught.expect("a case that failed no-loss");
    assert!(caught["replay"].as_str().unwrap().contains("CONNSIM_SEED="), "{caught}");
    let xml = std::fs::read_to_string(&junit).expect("the JUnit file is written");
    let _ = std::fs::remove_file(&junit);
    let doc = roxmltree::Document::parse(&xml).expect("well-formed JUnit XML");
    let case = doc.descendants().find(|n| n.has_tag_name("testcase")).expect("a testcase");
    assert_eq!(case.attribute("name"), Some("caught by no-loss"));
    assert_eq!(doc.root_element().attribute("failures"), Some("0"), "{xml}");
}

#[test]
fn the_peer_bench_runs_the_peers_scenario_and_refuses_options_it_has_no_use_for() {
    let (code, out, err) = connsim(&["bench", "--peer", "--seeds", "2", "--records", "300"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("300 records") && out.contains("global failover"), "{out}");
    assert!(out.contains("seeds: 2 on 1 thread(s), 0 failed"), "{out}");
    let (code, _, err) = connsim(&["bench", "--records", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value '0' for '--records <N>'"), "{err}");
    let (code, _, err) = connsim(&["bench", "--target", "file"]);
    assert_eq!(code, 2);
    assert!(err.contains("unexpected argument '--target'"), "{err}");
}
