//! The `connsim` binary as a user runs it: usage, bad arguments, small sweeps of a mutant and
//! of a reference target, JSON and JUnit output, the peer bench and timelines in a browser.

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

/// CI runs the catalogue through the suites tests, not through the CLI; the sweep's own
/// handling of a reference row, passing and failing, is proven here (and of a mutant's row
/// in `a_sweep_of_one_mutant_reports_it_caught`).
#[test]
fn a_sweep_of_one_reference_target_reports_it_ok_and_a_coverage_shortfall_as_a_failure() {
    let target = "upsert-sink (idempotent)";
    let (code, out, err) = connsim(&["sweep", "--target", target, "--seeds", "10"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let row = out.lines().find(|l| l.starts_with(target)).unwrap_or_else(|| panic!("no row for {target}: {out}"));
    assert!(row.trim_end().ends_with("ok"), "{row}");
    // One seed per case is too few to reach every case's required marks: a reference row fails.
    let (code, out, err) = connsim(&["sweep", "--target", target, "--seeds", "1"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("FAILED in") && out.contains("(run more seeds)"), "{out}");
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

#[test]
fn the_engine_bench_runs_without_verification_and_says_so() {
    let (code, out, err) = connsim(&["bench", "--peer", "--engine", "--seeds", "2", "--records", "300"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("verification: off (the engine alone"), "{out}");
    assert!(out.contains("seeds: 2 on 1 thread(s), 0 failed"), "{out}");
    // Nothing kept, nothing checked: the phases after the simulation take no time.
    assert!(out.contains("history events per second: 0"), "{out}");
    assert!(out.contains("history 0.00 ms (0%), checks 0.00 ms (0%)"), "{out}");
    let (_, verified, _) = connsim(&["bench", "--peer", "--seeds", "2", "--records", "300"]);
    assert!(!verified.contains("verification: off") && !verified.contains("history events per second: 0\n"));
}

/// A headless Chromium: `CONNSIM_BROWSER`, or the first of the usual names on the PATH.
fn browser() -> std::path::PathBuf {
    if let Some(b) = std::env::var_os("CONNSIM_BROWSER") {
        return b.into();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium-headless-shell", "chromium", "google-chrome", "chrome"] {
        for dir in std::env::split_paths(&path) {
            if dir.join(name).is_file() {
                return dir.join(name);
            }
        }
    }
    panic!(
        "the timeline test renders in a headless browser and found none: apt-get install chromium-headless-shell \
         (Debian), or set CONNSIM_BROWSER to a Chromium binary"
    );
}

/// Loads `page` in the headless browser (its scripts run) and returns the DOM it ends with;
/// also writes a screenshot beside the page and returns its path.
fn render(page: &std::path::Path) -> (String, std::path::PathBuf) {
    let profile = std::env::temp_dir().join(format!("connsim-browser-{}", std::process::id()));
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let args = |extra: &str| {
        vec![
            "--headless".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--no-first-run".into(),
            format!("--user-data-dir={}", profile.display()),
            "--window-size=1400,900".into(),
            extra.to_string(),
            url.clone(),
        ]
    };
    let out = Command::new(browser()).args(args("--dump-dom")).output().expect("the browser runs");
    let dom = String::from_utf8_lossy(&out.stdout).to_string();
    let shot = page.with_extension("png");
    let status = Command::new(browser())
        .args(args(&format!("--screenshot={}", shot.display())))
        .output()
        .expect("the browser runs")
        .status;
    assert!(status.success() && shot.exists(), "no screenshot at {}", shot.display());
    let _ = std::fs::remove_dir_all(profile);
    (dom, shot)
}

#[test]
fn a_failing_case_saves_one_case_file_and_one_timeline_that_a_browser_opens_at_the_first_bad_event() {
    use connectors_under_test::contexts;
    use connectors_under_test::mutants::PrematureCommitSetup;
    use connsim_scenarios::suites;
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("timeline-test");
    let _ = std::fs::remove_dir_all(&dir);
    let suite =
        suites::sink(contexts::sink(PrematureCommitSetup, &["fs"])).only("single split").seeds(2).save_failures(&dir);
    let outcome = suite.run();
    let case = &outcome.cases[0];
    assert_eq!(case.failures().len(), 2, "the mutant fails both seeds");
    let files =
        |dir: &std::path::Path| -> Vec<_> { std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect() };
    let count = |dir: &std::path::Path, ext: &str| {
        files(dir).iter().filter(|p| p.extension().is_some_and(|e| e == ext)).count()
    };
    // The case file to commit, and its timeline in a directory git ignores by itself.
    let timelines = dir.join("timelines");
    assert_eq!((count(&dir, "json"), count(&dir, "html")), (1, 0), "one case file: {:?}", files(&dir));
    assert_eq!(count(&timelines, "html"), 1, "one timeline: {:?}", files(&timelines));
    assert_eq!(std::fs::read_to_string(timelines.join(".gitignore")).unwrap().lines().last(), Some("*"));
    let saved = case.saved[0].clone();
    assert!(suites::timeline_path(&saved).exists() && case.timelines == [suites::timeline_path(&saved)]);
    // The command line draws the same case again, as a user would.
    let page = dir.join("drawn.html");
    let (code, out, err) = connsim(&["timeline", saved.to_str().unwrap(), "--out", page.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("identical to the recorded") && out.contains("timeline: "), "{out}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("http://") && !html.contains("https://"), "the page loads nothing from the network");
    assert!(html.contains("replay: cargo run --release -p connsim-cli -- replay "), "the page's rerun line");
    let (dom, shot) = render(&page);
    println!("screenshot: {}", shot.display());
    let first_bad = dom
        .split("data-first-bad=\"#")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("the page names the first bad event");
    let file = connsim_scenarios::CaseFile::load(&saved).unwrap();
    let expected = suite
        .replay(&file)
        .expect("the suite replays its own case")
        .verdicts
        .iter()
        .filter(|v| !v.passed)
        .filter_map(|v| v.first_bad_event)
        .min()
        .expect("the failure names its first bad event");
    assert_eq!(first_bad, expected.to_string(), "the page highlights the report's first bad event");
    assert!(dom.contains("data-first-bad-visible=\"true\""), "the first bad event is on screen when the page opens");
    assert!(dom.contains("id=\"first-bad\""));
}
