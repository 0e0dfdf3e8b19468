//! Running one case: the scenario or swarm search over the seeds, then per failed check the
//! minimal scenario, saved with its timeline when the suite saves failures.
//!
//! A saved case is a small JSON file (a few KB: seed, scenario, configuration) to commit; its
//! HTML timeline (hundreds of KB: every event of the run) goes into `timelines/` beside it, a
//! directory that git ignores by itself, and is drawn again whenever the case fails again.

use super::{Body, CaseResult, CaseSpec, MarkShare, Required, Settings};
use crate::generate::{self, Generator};
use crate::replay::CaseFile;
use connsim::cluster::Exchange;
use connsim::run::{AnyTestbed, RunReport, Runner};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The share of the swarm case's seeds that must reach each mark it requires: its scenarios
/// are drawn per seed, so any one fault path is met by some of them.
pub const SWARM_SHARE_PERCENT: u8 = 10;

/// The share of seeds that must reach a stopping savepoint with committers apart from the
/// writers (see where it is used).
const COMMITTERS_APART_STOP_SHARE: u8 = 15;

/// The swarm case's generator: it draws the job's shape per seed unless the suite fixes it.
pub(super) fn swarm(systems: &[String], settings: &Settings) -> Generator {
    let fixed = settings.exchange.is_some()
        || settings.sink_parallelism.is_some()
        || settings.committer_parallelism.is_some()
        || settings.concurrent_checkpoints.is_some()
        || settings.unaligned
        || settings.runtime_bug.is_some();
    Generator { systems: systems.to_vec(), swarm: true, job: !fixed, ..Generator::default() }
}

/// Runs one case under the suite's settings: its scenario (or swarm search) over the seeds,
/// a minimal scenario per failed check, case files and timelines for failures.
pub(super) fn run_case(
    name: &str,
    spec: &CaseSpec,
    systems: &[String],
    settings: &Settings,
    mut runner: Runner<dyn AnyTestbed>,
) -> CaseResult {
    let t0 = Instant::now();
    let alignment = match (&settings.alignment, spec.alignment) {
        (Ok(strategy), true) => Some(*strategy),
        (Err(why), true) => return CaseResult::skipped(name, &format!("no watermark alignment: {why}")),
        (_, false) => None,
    };
    runner.configure(|c| {
        c.job.parallelism = spec.parallelism;
        c.job.failover = spec.failover;
        c.job.checkpoints.max_concurrent = settings.concurrent_checkpoints.unwrap_or(spec.concurrent_checkpoints);
        if let Some(exchange) = settings.exchange {
            c.job.exchange = exchange;
        }
        c.job.aligned_barriers = !settings.unaligned;
        c.data = settings.data;
        c.job.runtime_bug = settings.runtime_bug;
        c.job.sink.writers = settings.sink_parallelism;
        c.job.sink.committers = settings.committer_parallelism;
        if let Ok(Some(strategy)) = settings.event_time {
            c.job.watermarks = Some(strategy);
        }
        if alignment.is_some() {
            c.job.watermarks = alignment;
        }
    });
    runner.first_seed(settings.first_seed).seeds(settings.seeds);
    if settings.exact_range {
        runner.ignore_env_seeds();
    }
    if settings.check_determinism {
        runner.check_determinism(true);
    }
    let mut result = CaseResult::new(name);
    // `CONNSIM_REPLAY=<file>` reruns the saved case in the case that saved it.
    if let Some(path) = crate::replay::env_file() {
        let file = CaseFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
        if file.scenario.name != name || file.testbed != runner.testbed_name() {
            let why = format!("{}={} replays case {:?}", crate::replay::REPLAY_VAR, path.display(), file.scenario.name);
            return CaseResult::skipped(name, &why);
        }
        let report = file.replay(&runner);
        result.timelines.extend(redraw_timeline(&path, &report));
        result.reports = vec![report];
        result.wall_secs = t0.elapsed().as_secs_f64();
        return result;
    }
    let pinned = runner.env().seed.is_some();
    match &spec.body {
        Body::Scenario(scenario)
            if settings.exchange == Some(Exchange::Forward)
                && (scenario.job.exchange.is_some_and(Exchange::all_to_all)
                    || scenario.job.sink_parallelism.is_some()) =>
        {
            let why = "the case needs an exchange between readers and writers; the suite fixes Exchange::Forward";
            return CaseResult::skipped(name, why);
        }
        Body::Scenario(scenario) => {
            let edited = (!settings.without.is_empty())
                .then(|| settings.without.iter().fold(scenario.clone(), |s, b| s.without(b)));
            let scenario = edited.as_ref().unwrap_or(scenario);
            let prefixed = settings.first.as_ref().map(|b| scenario.before(b.clone()));
            let scenario = prefixed.as_ref().unwrap_or(scenario);
            // What the suite fixes wins over a case's own job settings; the case's name is the
            // scenario's (saved cases and replays find their case by it).
            let mut fitted = scenario.clone();
            fitted.name = name.to_string();
            if settings.exchange.is_some() {
                fitted.job.exchange = None;
            }
            if settings.sink_parallelism.is_some() {
                fitted.job.sink_parallelism = None;
            }
            // Committer j shares subtask j's slot: the crash after a subtask acknowledged a
            // stopping savepoint takes, on most seeds, a committer that has not acknowledged it
            // yet (it waits for every writer's barrier), so that stop fails, and the job runs to
            // its end while the stop waits (35 % of seeds reach the stop, against 95 % with a
            // global committer, which shares subtask 0's slot alone).
            let committers_apart = settings.committer_parallelism.or(fitted.job.committer_parallelism).is_some();
            if committers_apart && fitted.requires.iter().any(|m| m == "savepoint-stop") {
                let share = fitted.share_of("savepoint-stop").min(COMMITTERS_APART_STOP_SHARE);
                fitted.shares.insert("savepoint-stop".into(), share);
            }
            if settings.committer_parallelism.is_some() {
                fitted.job.committer_parallelism = None;
            }
            if settings.concurrent_checkpoints.is_some() {
                fitted.job.concurrent_checkpoints = None;
            }
            let scenario = &fitted;
            let out = match &settings.save_dir {
                Some(dir) => scenario.run_after_saved(&mut runner, dir),
                None => scenario.run(&mut runner),
            };
            // Shares count the seeds this scenario ran, not the saved cases replayed first.
            let own = out.outcome.reports[out.rerun..].iter().map(|r| r.marks.as_slice());
            let given = |m: &str| scenario.given_of(m).map(String::from);
            let mut required: Vec<Required> =
                scenario.requires.iter().map(|m| (m.clone(), scenario.share_of(m), given(m))).collect();
            // In event time, every fixed case's faults meet watermarks that must move on.
            if settings.event_time.is_ok() && !scenario.requires.iter().any(|m| m == "watermark-advanced") {
                required.push(("watermark-advanced".into(), 100, None));
            }
            result.mark_shares = MarkShare::count(&required, own);
            let own = &out.outcome.reports[out.rerun..];
            let pace = spec.data.pace_ms;
            result.vacuous = own.iter().filter_map(|r| r.stats.vacuous(pace).map(|why| (r.seed, why))).collect();
            result.nondeterministic = out.outcome.nondeterministic.iter().map(|(seed, ..)| *seed).collect();
            result.rerun = out.rerun;
            result.reports = out.outcome.reports;
            if let Some(dir) = &settings.save_dir {
                // The saved cases rerun first, in the order `load_dir` gives.
                let testbed = runner.testbed_name();
                let files = CaseFile::load_dir(dir).unwrap_or_default().into_iter();
                let files = files.filter(|c| c.scenario.name == scenario.name && c.testbed == testbed);
                for (file, report) in files.zip(&result.reports[..out.rerun]) {
                    if let Some(path) = &file.path {
                        result.timelines.extend(redraw_timeline(path, report));
                    }
                }
            }
            // Per failed check, the first seed (of those this scenario ran, not the saved cases
            // replayed before them) failing it shrinks to a minimal scenario; only that is saved.
            let mut checks_done: Vec<String> = Vec::new();
            let ran = result.reports.iter().skip(out.rerun).filter(|r| !r.passed());
            let todo: Vec<(&RunReport, String)> = ran
                .flat_map(|r| r.failed_checks().into_iter().map(move |c| (r, c.to_string())))
                .filter(|(_, c)| {
                    let new = !checks_done.contains(c);
                    if new {
                        checks_done.push(c.clone());
                    }
                    new
                })
                .collect();
            for (r, check) in todo {
                let minimal = generate::minimize(&runner, r.seed, scenario.clone(), &check);
                if let Some(dir) = &settings.save_dir {
                    let report = runner.run_with(r.seed, runner.run_config(), Arc::new(minimal.clone()));
                    // The minimal scenario must fail the check; else the seed's own run is saved.
                    let shrunk = report.failed_checks().contains(&check.as_str());
                    let (scenario, report) = if shrunk { (&minimal, &report) } else { (scenario, r) };
                    match CaseFile::from_report(scenario, report).save(dir) {
                        Ok(path) => {
                            result.timelines.extend(save_timeline(&path, report));
                            result.saved.push(path);
                        }
                        Err(e) => eprintln!("{e}"),
                    }
                }
                result.minimal.get_or_insert(minimal);
            }
        }
        Body::Swarm => {
            let seeds = runner.seed_list();
            let search = generate::search(&runner, &swarm(systems, settings), seeds);
            let required: Vec<Required> =
                spec.requires.iter().map(|m| (m.to_string(), SWARM_SHARE_PERCENT, None)).collect();
            result.mark_shares = MarkShare::count(&required, search.reports.iter().map(|r| r.marks.as_slice()));
            let mut minimal = search.found.as_ref().map(|f| f.minimal.clone());
            if let (Some(found), Some(m)) = (&search.found, &mut minimal) {
                m.name = name.to_string();
                if let Some(dir) = &settings.save_dir {
                    match CaseFile::from_report(m, &found.report).save(dir) {
                        Ok(path) => {
                            result.timelines.extend(save_timeline(&path, &found.report));
                            result.saved.push(path);
                        }
                        Err(e) => eprintln!("{e}"),
                    }
                }
            }
            result.minimal = minimal;
            result.reports = search.reports;
        }
    }
    result.missed_marks = result.mark_shares.iter().filter(|m| !m.met()).map(|m| m.mark.clone()).collect();
    if pinned {
        // One replayed seed is not expected to reach every fault path the case aims at.
        result.missed_marks.clear();
        result.vacuous.clear();
    }
    // A passing seed's report keeps its verdicts, marks and stats; its timeline, printed
    // only for failures, goes, so a suite of thousands of seeds holds little memory.
    for r in result.reports.iter_mut().filter(|r| r.passed()) {
        r.timeline = Vec::new();
    }
    result.wall_secs = t0.elapsed().as_secs_f64();
    result
}

/// The directory beside a suite's saved cases that holds their timelines.
const TIMELINES: &str = "timelines";

/// Where the HTML timeline of the case saved at `case` goes: `timelines/<case>.html` beside
/// it. That directory holds a `.gitignore` of `*`, so git ignores it and everything in it:
/// a repository keeps the case files (a few KB each) and none of the pages (hundreds of KB).
pub fn timeline_path(case: &Path) -> PathBuf {
    let name = case.with_extension("html").file_name().map(PathBuf::from).unwrap_or_default();
    case.parent().unwrap_or(Path::new("")).join(TIMELINES).join(name)
}

/// Writes `html`, the timeline of the case saved at `case`, to [`timeline_path`] of it,
/// creating the directory and its `.gitignore`; the page's path.
pub fn write_timeline(case: &Path, html: &str) -> std::io::Result<PathBuf> {
    let path = timeline_path(case);
    let dir = path.parent().expect("a timeline's path has its directory");
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(".gitignore"), "# timelines of saved cases, drawn again when a case fails again\n*\n")?;
    std::fs::write(&path, html)?;
    Ok(path)
}

/// Writes the HTML timeline of `report` to [`timeline_path`] of `case`, if the report kept
/// its history; says on stderr if it could not.
fn save_timeline(case: &Path, report: &RunReport) -> Option<PathBuf> {
    let html = connsim::run::timeline_html(report)?;
    write_timeline(case, &html)
        .map_err(|e| eprintln!("connsim: could not write the timeline {}: {e}", timeline_path(case).display()))
        .ok()
}

/// The timeline of a saved case that failed again, drawn again from this run (git leaves
/// timelines out of a clone, and one drawn by an older connector would show an older run);
/// its path if there is one.
fn redraw_timeline(case: &Path, report: &RunReport) -> Option<PathBuf> {
    if report.passed() {
        return None;
    }
    save_timeline(case, report).or_else(|| Some(timeline_path(case)).filter(|page| page.exists()))
}
