//! One test per suite case: a test target with `harness = false` hands its suites to
//! [`main`], and `cargo test`, `cargo nextest` and CI see `suite::case` tests they can
//! filter, run in parallel, time, partition and report one by one.
//!
//! ```toml
//! # Cargo.toml of your connector's crate
//! [[test]]
//! name = "suites"
//! harness = false
//! ```
//!
//! ```no_run
//! // tests/suites.rs
//! use connsim::probes::GeneratorSetup;
//! use connsim_scenarios::suites::{self, source_from_setup};
//!
//! fn main() -> std::process::ExitCode {
//!     let ctx = source_from_setup("generator", &[], |data| GeneratorSetup {
//!         splits: data.splits as usize,
//!         records_per_split: data.records / u64::from(data.splits),
//!         ..Default::default()
//!     });
//!     suites::harness::main(vec![suites::source(ctx).seeds(10)])
//! }
//! ```
//!
//! `cargo test --test suites -- --list` lists `source::single_split` and the rest;
//! `cargo test --test suites -- scale` runs the cases whose name contains `scale` (`-- scale
//! rpc`: those matching either, as libtest takes several filters). After libtest's summary
//! the harness notes whether the cases' faults landed mid-stream (checkpoints completed
//! before the input ended) and why it skipped each skipped case. A suite
//! with [`Suite::seeds_per_test`] splits each case's seeds into several tests
//! (`source::single_split::seeds_1_to_50`), so a sweep of many seeds spreads over
//! `cargo nextest run --partition count:K/N` on N machines.

use super::{CaseResult, Suite};
use libtest_mimic::{Arguments, Failed, FormatSetting, Trial};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

/// `text` as a test-name segment: lowercase letters, digits and single underscores.
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c.is_ascii_alphanumeric() {
            true => out.push(c.to_ascii_lowercase()),
            false if !out.is_empty() && !out.ends_with('_') => out.push('_'),
            false => {}
        }
    }
    out.trim_end_matches('_').to_string()
}

/// One test: a case of a suite over a range of seeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestSpec {
    /// `suite::case`, or `suite::case::seeds_A_to_B` when the case's seeds are split.
    pub name: String,
    /// The case's index in its suite's selection.
    pub case: usize,
    /// The case's name.
    pub case_name: String,
    /// First seed and how many.
    pub seeds: (u64, u64),
}

/// The tests `suite` expands into, in case order.
pub fn tests_of(suite: &Suite) -> Vec<TestSpec> {
    let (first, seeds) = (suite.settings.first_seed, suite.effective_seeds());
    let per_test = suite.seeds_per_test.unwrap_or(seeds).max(1);
    let mut out = Vec::new();
    for (i, case) in suite.selected().enumerate() {
        let base = format!("{}::{}", suite.id, slug(&case.name));
        if seeds <= per_test || case.skip.is_some() {
            out.push(TestSpec { name: base, case: i, case_name: case.name.clone(), seeds: (first, seeds) });
            continue;
        }
        let mut start = first;
        while start < first + seeds {
            let n = per_test.min(first + seeds - start);
            let name = format!("{base}::seeds_{start}_to_{}", start + n - 1);
            out.push(TestSpec { name, case: i, case_name: case.name.clone(), seeds: (start, n) });
            start += n;
        }
    }
    out
}

/// The failure a test reports: the case's first failing seed (report, minimal scenario,
/// the command that reruns it) or the marks no seed reached.
fn failure(suite: &Suite, result: &CaseResult, command: &str) -> Option<Failed> {
    if result.passed() {
        return None;
    }
    if result.failures().is_empty() && !result.nondeterministic.is_empty() {
        let seed = result.nondeterministic[0];
        return Some(Failed::from(format!(
            "{}: case {:?}: seed {seed} is not deterministic (two runs gave different histories)\nrerun: \
             CONNSIM_CHECK_DETERMINISM=1 CONNSIM_SEED={seed} {command}",
            suite.name, result.case
        )));
    }
    let text = match (result.failures().first(), result.failure_headline(&suite.name)) {
        (Some(r), Some(headline)) => {
            let saved: Vec<String> = result
                .saved
                .iter()
                .map(|p| {
                    let path = connsim::run::shell_quote(&p.display().to_string());
                    let page = super::timeline_path(p);
                    let page = match page.exists() {
                        true => format!("\ntimeline: {}", page.display()),
                        false => String::new(),
                    };
                    format!("{path}\nrerun the saved case: {}={path} {command}{page}", crate::replay::REPLAY_VAR)
                })
                .collect();
            let saved = if saved.is_empty() { "-".to_string() } else { saved.join("\nsaved: ") };
            // Timelines of saved cases that failed again (those of new ones are named above).
            let again: String = result
                .timelines
                .iter()
                .filter(|t| !result.saved.iter().any(|p| super::timeline_path(p) == **t))
                .map(|t| format!("\ntimeline: {}", t.display()))
                .collect();
            format!("{headline}\nsaved: {saved}\nrerun: {}{again}", r.replay)
        }
        _ if result.missed_marks.is_empty() && result.vacuity().is_some() => {
            format!("{}: case {:?}: {}", suite.name, result.case, result.vacuity().unwrap_or_default())
        }
        _ => format!(
            "{}: case {:?} reached {} in {} seeds: the fault path it aims at was not exercised on enough of them \
             (run more seeds, or check the systems and phases the case names){}",
            suite.name,
            result.case,
            result.missed_shares(),
            result.own_seeds(),
            result.missed_mark_meanings()
        ),
    };
    Some(Failed::from(text))
}

/// The trials of every suite; duplicate test names are an error naming them.
///
/// With `CONNSIM_SEED` set, a test whose seeds do not hold that seed is ignored when another
/// test of its case holds it, and fails saying so when none does (a rerun line copied
/// without the `CONNSIM_SEEDS` it printed would otherwise pass without running anything).
pub fn trials(suites: Vec<Suite>) -> Result<Vec<Trial>, String> {
    trials_in(suites, &connsim::run::Env::from_env(), &Arc::default())
}

/// What the tests of a run show besides passing or failing, printed after libtest's summary.
#[derive(Default)]
struct Notes {
    /// Skipped tests and why.
    skipped: Mutex<Vec<(String, String)>>,
    /// Per test of a fixed case that ran seeds: the most checkpoints one of its seeds
    /// completed before its input ended, and that seed.
    paced: Mutex<Vec<(String, usize, u64)>>,
}

impl Notes {
    /// The notes of the tests in `shown` (those the filters let through), one line each.
    fn lines(&self, shown: &BTreeSet<String>) -> Vec<String> {
        let mut out = Vec::new();
        let mut paced: Vec<(String, usize, u64)> =
            self.paced.lock().expect("notes").iter().filter(|(t, ..)| shown.contains(t)).cloned().collect();
        paced.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
        let early: Vec<&str> = paced.iter().filter(|p| p.1 == 0).map(|(t, ..)| t.as_str()).collect();
        match paced.first() {
            None => {}
            Some(_) if !early.is_empty() => out.push(format!(
                "connsim: in {} tests no seed completed a checkpoint before its input ended ({}): their faults met \
                 a job with nothing left to read; does the source setup spread its records over TestData::pace_ms?",
                early.len(),
                early.join(", ")
            )),
            Some((test, fewest, seed)) => out.push(format!(
                "connsim: faults landed mid-stream: in each of the {} fixed-case tests that ran, a seed completed at \
                 least {fewest} checkpoints before its input ended (fewest: {test}, seed {seed})",
                paced.len()
            )),
        }
        let skipped = self.skipped.lock().expect("notes");
        for (test, why) in skipped.iter().filter(|(t, _)| shown.contains(t)) {
            out.push(format!("connsim: skipped {test}: {why}"));
        }
        out
    }
}

/// [`trials`] under the given environment, noting in `notes` what the run shows.
fn trials_in(suites: Vec<Suite>, env: &connsim::run::Env, notes: &Arc<Notes>) -> Result<Vec<Trial>, String> {
    let mut names = std::collections::BTreeMap::new();
    let mut trials = Vec::new();
    for suite in suites {
        let suite = Arc::new(suite);
        let specs = tests_of(&suite);
        let holds = |t: &TestSpec, seed: u64| (t.seeds.0..t.seeds.0 + t.seeds.1).contains(&seed);
        for spec in specs.clone() {
            let pinned = env.seed.filter(|s| !holds(&spec, *s));
            let elsewhere = pinned.is_some_and(|s| specs.iter().any(|t| t.case == spec.case && holds(t, s)));
            if let Some(other) = names.insert(spec.name.clone(), suite.name.clone()) {
                return Err(format!(
                    "two tests are named {:?} (suites {other:?} and {:?}): give one suite another name with \
                     Suite::named(\"...\")",
                    spec.name, suite.name
                ));
            }
            let (suite, name) = (suite.clone(), spec.name.clone());
            let case = suite.selected().nth(spec.case);
            let skipped = case.and_then(|c| c.skip.clone());
            let swarm = case.is_some_and(|c| c.swarm);
            if let Some(why) = &skipped {
                notes.skipped.lock().expect("notes").push((spec.name.clone(), why.clone()));
            }
            let ignored = suite.ignored;
            let seeds = env.seeds;
            let notes = notes.clone();
            let trial = Trial::test(spec.name.clone(), move || {
                if let (Some(seed), false) = (pinned, elsewhere) {
                    let (first, n) = spec.seeds;
                    return Err(Failed::from(format!(
                        "CONNSIM_SEED={seed}, but case {:?} runs seeds {first}..={} here: set CONNSIM_SEEDS as the \
                         printed rerun command does",
                        spec.case_name,
                        first + n - 1
                    )));
                }
                let mut command = connsim::run::cargo_test(&name);
                if suite.ignored {
                    command.push_str(" --include-ignored");
                }
                // The test names depend on CONNSIM_SEEDS when a case's seeds are split.
                if let Some(n) = seeds {
                    command = format!("CONNSIM_SEEDS={n} {command}");
                }
                let result =
                    connsim::run::with_rerun_command(Some(command.clone()), || suite.run_one(spec.case, spec.seeds));
                // A swarm seed's generated faults may hold checkpoints back on purpose.
                if let (false, None, Some((most, seed))) =
                    (swarm, &result.skipped, result.most_checkpoints_before_input_ended())
                {
                    notes.paced.lock().expect("notes").push((name.clone(), most, seed));
                }
                match failure(&suite, &result, &command) {
                    Some(f) => Err(f),
                    None => Ok(()),
                }
            });
            // A case the suite cannot run shows as ignored, of kind "skipped"; why is printed
            // after the summary.
            trials.push(match skipped {
                Some(_) => trial.with_ignored_flag(true).with_kind("skipped"),
                None if elsewhere => trial.with_ignored_flag(true).with_kind("other seeds"),
                None => trial.with_ignored_flag(ignored),
            });
        }
    }
    Ok(trials)
}

/// Runs `suites` as a test binary, one test per case: call it from the `main` of a test
/// target with `harness = false`. Takes libtest's options (`--list`, `--exact`, filters,
/// several of them as libtest does, `--skip`, `--test-threads`, `--format terse`, …) so
/// `cargo test` and `cargo nextest` drive it. After libtest's summary it prints, unless
/// listing or writing JSON, a `connsim:` line saying how many checkpoints the seeds completed
/// before their input ended (whether the faults landed mid-stream) and one per skipped test
/// with why.
pub fn main(suites: Vec<Suite>) -> ExitCode {
    let (args, filters) = arguments(std::env::args_os());
    let notes = Arc::new(Notes::default());
    let trials = match trials_in(suites, &connsim::run::Env::from_env(), &notes) {
        Ok(trials) => select(trials, &filters, args.exact),
        Err(e) => {
            eprintln!("connsim suites: {e}");
            return ExitCode::from(101);
        }
    };
    let shown: BTreeSet<String> =
        trials.iter().filter(|t| !args.is_filtered_out(t)).map(|t| t.name().to_string()).collect();
    let conclusion = libtest_mimic::run(&args, trials);
    if !args.list && args.format != Some(FormatSetting::Json) {
        for line in notes.lines(&shown) {
            println!("{line}");
        }
    }
    conclusion.exit_code()
}

/// libtest's options, and every free argument as a filter: libtest takes several
/// (`cargo test -- scale rpc` runs the tests matching either), libtest-mimic one.
fn arguments(raw: impl IntoIterator<Item = OsString>) -> (Arguments, Vec<String>) {
    // The options that take the next argument as their value.
    const VALUED: [&str; 6] = ["--test-threads", "--logfile", "--skip", "--color", "--format", "-Z"];
    let mut raw = raw.into_iter();
    let mut options: Vec<OsString> = raw.next().into_iter().collect(); // the program
    let mut filters = Vec::new();
    let mut only_filters = false;
    while let Some(arg) = raw.next() {
        let text = arg.to_string_lossy().into_owned();
        if only_filters || !text.starts_with('-') {
            filters.push(text);
        } else if text == "--" {
            only_filters = true;
        } else {
            options.push(arg);
            if VALUED.contains(&text.as_str()) {
                options.extend(raw.next());
            }
        }
    }
    let mut args = Arguments::from_iter(options);
    // One filter is libtest-mimic's own (its summary counts what it filtered out); several
    // are applied by `select`.
    if let [one] = filters.as_slice() {
        args.filter = Some(one.clone());
    }
    (args, filters)
}

/// The trials that match one of several `filters` (all of them when there is at most one:
/// libtest-mimic applies a single filter itself), as libtest matches: by substring of the
/// name with its kind, or `exact`ly the name or the name with its kind.
fn select(trials: Vec<Trial>, filters: &[String], exact: bool) -> Vec<Trial> {
    if filters.len() < 2 {
        return trials;
    }
    let matches = |t: &Trial, f: &String| {
        let with_kind = match t.kind() {
            "" => t.name().to_string(),
            kind => format!("[{kind}] {}", t.name()),
        };
        match exact {
            true => t.name() == f || &with_kind == f,
            false => with_kind.contains(f.as_str()),
        }
    };
    trials.into_iter().filter(|t| filters.iter().any(|f| matches(t, f))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::{self, source_from_setup};
    use connsim::probes::GeneratorSetup;

    fn generator_suite() -> Suite {
        let ctx = source_from_setup("generator", &[], |data| GeneratorSetup {
            splits: data.splits as usize,
            records_per_split: data.records / u64::from(data.splits),
            ..Default::default()
        });
        suites::source(ctx)
    }

    #[test]
    fn a_suite_is_a_test_per_case_or_per_seed_range_of_each_case() {
        let suite = generator_suite().seeds(10);
        let whole = tests_of(&suite);
        assert_eq!(whole.len(), suite.case_names().len());
        assert_eq!(whole[0].name, "source::single_split");
        assert!(whole.iter().all(|t| t.seeds == (1, 10)));
        let split = tests_of(&generator_suite().seeds(10).seeds_per_test(4).named("gen source"));
        let single: Vec<(&str, (u64, u64))> =
            split.iter().filter(|t| t.case == 0).map(|t| (t.name.as_str(), t.seeds)).collect();
        assert_eq!(
            single,
            vec![
                ("gen_source::single_split::seeds_1_to_4", (1, 4)),
                ("gen_source::single_split::seeds_5_to_8", (5, 4)),
                ("gen_source::single_split::seeds_9_to_10", (9, 2)),
            ]
        );
        let names: std::collections::BTreeSet<&str> = split.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.len(), split.len(), "every test name is unique");
    }

    #[test]
    fn a_context_naming_a_system_its_setup_does_not_build_is_refused_naming_those_it_does() {
        let typo = source_from_setup("generator", &["kv-store"], |data| GeneratorSetup {
            splits: data.splits as usize,
            ..Default::default()
        });
        let Err(e) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| suites::source(typo))) else {
            panic!("a context naming a system its setup does not build must be refused");
        };
        let e = e.downcast_ref::<String>().expect("a message");
        assert!(e.contains(r#"names the external systems ["kv-store"], but its setup builds only []"#), "{e}");
    }

    #[test]
    fn a_pinned_seed_runs_in_the_one_test_that_holds_it_and_fails_where_none_does() {
        use connsim::run::Env;
        let split = || vec![generator_suite().seeds(10).seeds_per_test(4)];
        let of_case = |trials: &[Trial]| -> Vec<(String, bool)> {
            trials
                .iter()
                .filter(|t| t.name().starts_with("source::single_split"))
                .map(|t| (t.name().to_string(), t.has_ignored_flag()))
                .collect()
        };
        let six = trials_in(split(), &Env { seed: Some(6), ..Env::default() }, &Arc::default()).unwrap();
        let names = |v: &[(&str, bool)]| v.iter().map(|(n, i)| (format!("source::single_split::{n}"), *i)).collect();
        let expected: Vec<(String, bool)> =
            names(&[("seeds_1_to_4", true), ("seeds_5_to_8", false), ("seeds_9_to_10", true)]);
        assert_eq!(of_case(&six), expected, "only the test holding seed 6 runs");
        // Seed 15 lies in no test of the case (a rerun line copied without its CONNSIM_SEEDS):
        // the tests fail, saying why, instead of passing without running anything.
        let fifteen = trials_in(split(), &Env { seed: Some(15), ..Env::default() }, &Arc::default()).unwrap();
        assert!(of_case(&fifteen).iter().all(|(_, ignored)| !ignored));
        let args = libtest_mimic::Arguments {
            filter: Some("source::single_split::seeds_1_to_4".into()),
            exact: true,
            test_threads: Some(1),
            quiet: true,
            // The inner run's own summary ("FAILED") goes to a file, not into this test's log.
            logfile: Some(std::env::temp_dir().join("connsim-harness-inner-run.log").display().to_string()),
            ..Default::default()
        };
        let ran = libtest_mimic::run(&args, fifteen);
        assert_eq!((ran.num_passed, ran.num_failed), (0, 1));
    }

    #[test]
    fn two_suites_with_one_id_are_refused_with_what_to_do() {
        let Err(e) = trials(vec![generator_suite().seeds(1), generator_suite().seeds(1)]) else {
            panic!("expected a clash of test names");
        };
        assert!(e.contains("two tests are named \"source::single_split\"") && e.contains("Suite::named"), "{e}");
        assert!(trials(vec![generator_suite().seeds(1), generator_suite().seeds(1).named("other")]).is_ok());
    }

    #[test]
    fn one_test_runs_exactly_its_seeds_and_names_itself_in_the_rerun_command() {
        let suite = generator_suite().seeds(10);
        let result = connsim::run::with_rerun_command(Some(connsim::run::cargo_test("source::single_split")), || {
            suite.run_one(0, (5, 3))
        });
        assert_eq!(result.reports.iter().map(|r| r.seed).collect::<Vec<_>>(), vec![5, 6, 7]);
        assert!(result.reports.iter().all(|r| r.passed() && r.timeline.is_empty()), "passing seeds keep no timeline");
        let replay = &result.reports[0].replay;
        assert!(
            replay.starts_with("CONNSIM_SEED=5 cargo test -p connsim-scenarios --lib -- --exact source::single_split"),
            "{replay}"
        );
    }

    #[test]
    fn several_filters_run_the_tests_matching_any_as_libtest_does() {
        let args = |a: &[&str]| arguments(["suites"].iter().chain(a).map(OsString::from));
        let names = |filters: &[String], exact| -> Vec<String> {
            let trials = trials(vec![generator_suite().seeds(1)]).unwrap();
            select(trials, filters, exact).iter().map(|t| t.name().to_string()).collect()
        };
        let (parsed, filters) = args(&["scale", "--test-threads", "2", "rpc", "--skip", "down"]);
        assert_eq!(filters, ["scale", "rpc"]);
        assert_eq!(
            (parsed.test_threads, parsed.skip.as_slice(), &parsed.filter),
            (Some(2), &["down".into()][..], &None)
        );
        let picked = names(&filters, false);
        assert!(picked.contains(&"source::scale_up".into()) && picked.contains(&"source::rpc_faults".into()));
        assert!(picked.iter().all(|n| n.contains("scale") || n.contains("rpc")), "{picked:?}");
        let (parsed, filters) = args(&["--exact", "source::scale_up", "source::rpc_faults"]);
        assert!(parsed.exact);
        assert_eq!(names(&filters, true), ["source::scale_up", "source::rpc_faults"]);
        // One filter stays libtest-mimic's, so its summary counts the tests it filtered out.
        let (parsed, filters) = args(&["scale"]);
        let every = generator_suite().case_names().len();
        assert_eq!((parsed.filter.as_deref(), names(&filters, false).len()), (Some("scale"), every));
    }

    #[test]
    fn a_bounded_source_skips_the_unbounded_cases_saying_why() {
        let notes = Arc::new(Notes::default());
        trials_in(vec![generator_suite()], &connsim::run::Env::default(), &notes).unwrap();
        let skipped = notes.skipped.lock().unwrap().clone();
        let names: Vec<&str> = skipped.iter().map(|(n, _)| n.as_str()).collect();
        let systems = suites::Systems { source_grows: true, ..Default::default() };
        let unbounded: Vec<String> = suites::cases::all(&systems, connsim::api::DeliveryGuarantee::ExactlyOnce)
            .iter()
            .filter(|c| c.data.unbounded)
            .map(|c| format!("source::{}", slug(c.name)))
            .collect();
        assert!(names.contains(&"source::unbounded_stable_after_convergence"), "{names:?}");
        assert_eq!(names, unbounded);
        for (_, why) in &skipped {
            assert!(
                why.starts_with(
                    "needs an unbounded source: the source generator(8 splits, 3000 records over 2000 ms, \
                                 unbounded) built for it reports Boundedness::Bounded"
                ) && why.ends_with("builds its source with Boundedness::Unbounded when TestData::unbounded is set"),
                "{why}"
            );
        }
        let shown = skipped.iter().map(|(n, _)| n.clone()).take(1).collect();
        assert_eq!(notes.lines(&shown), [format!("connsim: skipped {}: {}", skipped[0].0, skipped[0].1)]);
        // A source that runs unbounded when asked runs them.
        let unbounded = source_from_setup("generator", &[], |data| GeneratorSetup {
            splits: data.splits as usize,
            records_per_split: data.records / u64::from(data.splits),
            unbounded: data.unbounded,
            ..Default::default()
        });
        let notes = Arc::new(Notes::default());
        trials_in(vec![suites::source(unbounded)], &connsim::run::Env::default(), &notes).unwrap();
        assert!(notes.skipped.lock().unwrap().is_empty());
    }

    #[test]
    fn the_notes_say_whether_faults_landed_mid_stream() {
        let notes = Notes::default();
        notes.paced.lock().unwrap().extend([("s::a".into(), 7, 1), ("s::b".into(), 5, 3), ("s::c".into(), 0, 2)]);
        let all: BTreeSet<String> = ["s::a", "s::b", "s::c"].map(String::from).into();
        assert_eq!(
            notes.lines(&all),
            ["connsim: in 1 tests no seed completed a checkpoint before its input ended (s::c): their faults met a job \
              with nothing left to read; does the source setup spread its records over TestData::pace_ms?"]
        );
        let two: BTreeSet<String> = ["s::a", "s::b"].map(String::from).into();
        assert_eq!(
            notes.lines(&two),
            ["connsim: faults landed mid-stream: in each of the 2 fixed-case tests that ran, a seed completed at least \
              5 checkpoints before its input ended (fewest: s::b, seed 3)"]
        );
    }

    #[test]
    fn slugs_are_lowercase_words_joined_by_underscores() {
        assert_eq!(slug("crash at every two-phase-commit phase"), "crash_at_every_two_phase_commit_phase");
        assert_eq!(
            slug("a worker cut off from the job master (zombie)"),
            "a_worker_cut_off_from_the_job_master_zombie"
        );
        assert_eq!(slug("RPC faults"), "rpc_faults");
        assert_eq!(slug("--x--"), "x");
    }
}
