//! The seed runner: one fresh thread per seed, several seeds in parallel, panics caught
//! per seed, optional determinism self-check.

use super::any_testbed::AnyTestbed;
use super::config::RunConfig;
use super::env::Env;
use super::report::RunReport;
use super::script::{RandomFaults, Script};
use super::testbed::Testbed;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Runs a testbed over many seeds.
///
/// `Runner<T>` knows the testbed's type; [`Runner::erased`] makes a `Runner<dyn AnyTestbed>`,
/// the same runner whose code (and the scenarios and suites that take it) is compiled once
/// for every testbed.
pub struct Runner<T: ?Sized> {
    testbed: Arc<T>,
    script: Arc<dyn Script>,
    config: RunConfig,
    seeds: u64,
    first_seed: u64,
    env: Env,
}

/// The result of a runner: one report per seed.
pub struct Outcome {
    /// Reports in seed order.
    pub reports: Vec<RunReport>,
    /// Seeds whose two runs produced different histories (determinism self-check).
    pub nondeterministic: Vec<(u64, u64, u64)>,
}

impl<T: Testbed> Runner<T> {
    /// A runner with the default configuration and 20 seeds; the environment (see
    /// [`Env`]) can override seeds, parallelism and determinism checking.
    pub fn new(testbed: T) -> Self {
        Runner::with(Arc::new(testbed))
    }
}

impl Runner<dyn AnyTestbed> {
    /// [`Runner::new`], with the testbed behind a trait object: every testbed's runner is
    /// then the same type, and what takes it is compiled once. Runs exactly as `new`'s.
    pub fn erased(testbed: impl Testbed) -> Self {
        let testbed: Arc<dyn AnyTestbed> = Arc::new(testbed);
        Runner::with(testbed)
    }
}

impl<T: AnyTestbed + ?Sized> Runner<T> {
    fn with(testbed: Arc<T>) -> Self {
        Self {
            testbed,
            script: Arc::new(RandomFaults),
            config: RunConfig::default(),
            seeds: 20,
            first_seed: 1,
            env: Env::from_env(),
        }
    }

    /// Sets the configuration.
    pub fn config(&mut self, config: RunConfig) -> &mut Self {
        self.config = config;
        self
    }

    /// Sets what every seed does to the cluster (default: [`RandomFaults`], the
    /// configuration's fault profile). The scenarios crate's scenarios are scripts.
    pub fn script(&mut self, script: Arc<dyn Script>) -> &mut Self {
        self.script = script;
        self
    }

    /// The configuration every seed runs with.
    pub fn run_config(&self) -> &RunConfig {
        &self.config
    }

    /// Changes the configuration in place.
    pub fn configure(&mut self, f: impl FnOnce(&mut RunConfig)) -> &mut Self {
        f(&mut self.config);
        self
    }

    /// How many seeds to run (unless `CONNSIM_SEEDS` or `CONNSIM_SEED` says otherwise).
    pub fn seeds(&mut self, n: u64) -> &mut Self {
        self.seeds = n;
        self
    }

    /// Runs exactly the seeds this runner was given, whatever `CONNSIM_SEEDS` says (a test
    /// that covers one range of a case's seeds); `CONNSIM_SEED` still replays one.
    pub fn ignore_env_seeds(&mut self) -> &mut Self {
        self.env.seeds = None;
        self
    }

    /// The environment this runner read (`CONNSIM_SEED`, `CONNSIM_SEEDS`, …).
    pub fn env(&self) -> &Env {
        &self.env
    }

    /// The first seed of the range (seeds are consecutive).
    pub fn first_seed(&mut self, seed: u64) -> &mut Self {
        self.first_seed = seed;
        self
    }

    /// How many seeds run in parallel (also `CONNSIM_JOBS`).
    pub fn jobs(&mut self, n: usize) -> &mut Self {
        self.env.jobs = Some(n.max(1));
        self
    }

    /// Turns the determinism self-check on or off (also `CONNSIM_CHECK_DETERMINISM=1`).
    pub fn check_determinism(&mut self, on: bool) -> &mut Self {
        self.env.check_determinism = on;
        self
    }

    /// The seeds this runner will run.
    pub fn seed_list(&self) -> Vec<u64> {
        match self.env.seed {
            Some(seed) => vec![seed],
            None => (0..self.env.seeds.unwrap_or(self.seeds)).map(|i| self.first_seed + i).collect(),
        }
    }

    /// The testbed's name.
    pub fn testbed_name(&self) -> String {
        self.testbed.testbed_name()
    }

    /// Runs one seed on a fresh thread.
    pub fn run_seed(&self, seed: u64) -> RunReport {
        self.run_with(seed, &self.config, self.script.clone())
    }

    /// Runs one seed of this runner's testbed with another configuration and script, on a
    /// fresh thread (replaying a saved case, shrinking a generated scenario).
    pub fn run_with(&self, seed: u64, config: &RunConfig, script: Arc<dyn Script>) -> RunReport {
        super::build_profile::warn_if_unoptimized();
        let (testbed, config) = (self.testbed.clone(), config.clone());
        let rerun = super::rerun::current();
        // A fresh OS thread per seed (outside the simulation): std HashMap order is only
        // reproducible on a new thread.
        std::thread::Builder::new()
            .name(format!("connsim-seed-{seed}"))
            .stack_size(64 << 20)
            .spawn(move || {
                super::rerun::set_rerun_command(rerun);
                testbed.simulate_seed(&config, seed, &*script)
            })
            .expect("spawn a seed thread")
            .join()
            .expect("simulate catches panics")
    }

    /// Runs every seed and returns the reports.
    pub fn run(&self) -> Outcome {
        let seeds = self.seed_list();
        let jobs = self
            .env
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .clamp(1, seeds.len().max(1));
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<(RunReport, Option<u64>)>> = Mutex::new(Vec::new());
        let rerun = super::rerun::current();
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                scope.spawn(|| {
                    super::rerun::set_rerun_command(rerun.clone());
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&seed) = seeds.get(i) else { break };
                        let report = self.run_seed(seed);
                        let again = self.env.check_determinism.then(|| self.run_seed(seed).history_hash);
                        let mut report = report;
                        if !report.passed() {
                            self.dump(&report);
                        }
                        let mut results = results.lock().unwrap();
                        keep_first_history(&mut results, &mut report);
                        results.push((report, again));
                    }
                });
            }
        });
        let mut results = results.into_inner().unwrap();
        results.sort_by_key(|(r, _)| r.seed);
        let nondeterministic = results
            .iter()
            .filter_map(|(r, again)| again.filter(|h| *h != r.history_hash).map(|h| (r.seed, r.history_hash, h)))
            .collect();
        Outcome { reports: results.into_iter().map(|(r, _)| r).collect(), nondeterministic }
    }

    fn dump(&self, report: &RunReport) {
        let Some(dir) = &self.env.dump_dir else { return };
        let _ = std::fs::create_dir_all(dir);
        let _ = std::fs::write(dir.join(format!("seed-{}.report.txt", report.seed)), report.to_string());
        let _ = std::fs::write(
            dir.join(format!("seed-{}.history.jsonl", report.seed)),
            crate::history::to_json_lines(&report.history),
        );
    }
}

/// Bounds the memory of a run with many failing seeds: of the failed reports that fail the
/// same checks, only the lowest seed keeps its whole history (the one a timeline or a
/// debugger starts from); the others keep their verdicts, timeline and replay line.
/// Whichever order the jobs finish in, the same report keeps it.
fn keep_first_history(done: &mut [(RunReport, Option<u64>)], report: &mut RunReport) {
    if report.passed() || report.history.is_empty() {
        return;
    }
    let checks = report.failed_checks();
    let kept = done.iter_mut().map(|(r, _)| r).find(|r| !r.history.is_empty() && r.failed_checks() == checks);
    match kept {
        Some(r) if r.seed < report.seed => report.history = Vec::new(),
        Some(r) => r.history = Vec::new(),
        None => {}
    }
}

impl Outcome {
    /// An outcome made of these reports.
    pub fn of(reports: Vec<RunReport>) -> Self {
        Self { reports, nondeterministic: Vec::new() }
    }

    /// Reports of failed seeds.
    pub fn failures(&self) -> Vec<&RunReport> {
        self.reports.iter().filter(|r| !r.passed()).collect()
    }

    /// The first failed seed's report.
    pub fn first_failure(&self) -> Option<&RunReport> {
        self.reports.iter().find(|r| !r.passed())
    }

    /// Panics with the first failure's full report (and the replay line) unless every seed
    /// passed and every determinism check agreed.
    pub fn assert_ok(&self) {
        if let Some((seed, a, b)) = self.nondeterministic.first() {
            panic!(
                "seed {seed} is not deterministic: history hashes {a:016x} and {b:016x} differ\nreplay: CONNSIM_SEED={seed} CONNSIM_CHECK_DETERMINISM=1"
            );
        }
        if let Some(r) = self.first_failure() {
            panic!("{} of {} seeds failed; the first:\n{r}", self.failures().len(), self.reports.len());
        }
    }

    /// For every mark, how many seeds reached it.
    pub fn coverage(&self) -> std::collections::BTreeMap<String, usize> {
        let mut cov = std::collections::BTreeMap::new();
        for r in &self.reports {
            for m in &r.marks {
                *cov.entry(m.clone()).or_insert(0) += 1;
            }
        }
        cov
    }

    /// Panics unless every mark in `marks` was reached by at least one seed: the fault
    /// paths a test aims at must actually have been exercised.
    pub fn assert_reached(&self, marks: &[&str]) {
        let cov = self.coverage();
        let missing: Vec<&&str> = marks.iter().filter(|m| !cov.contains_key(**m)).collect();
        assert!(
            missing.is_empty(),
            "coverage marks never reached in {} seeds: {missing:?}\nreached: {cov:?}",
            self.reports.len()
        );
    }

    /// One line: seeds run, failures, checkpoints, crashes.
    pub fn summary(&self) -> String {
        let sum = |f: fn(&RunReport) -> usize| self.reports.iter().map(f).sum::<usize>();
        format!(
            "{} seeds, {} failed; {} checkpoints completed, {} crashes, {} failovers, {} messages faulted",
            self.reports.len(),
            self.failures().len(),
            sum(|r| r.stats.checkpoints_completed),
            sum(|r| r.stats.crashes),
            sum(|r| r.stats.failovers),
            sum(|r| r.stats.messages_faulted),
        )
    }
}
