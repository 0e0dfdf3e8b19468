//! What a sweep found, as data: the text table, `--format json` and `--junit FILE` are all
//! written from one [`Summary`].

use connsim::RunReport;
use connsim_scenarios::suites::{CaseResult, SuiteOutcome};
use serde::Serialize;
use std::time::Instant;

/// A whole sweep.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// `suites` (the catalogue through the suites) or `random` (the random-fault catalogue).
    pub catalogue: &'static str,
    /// The seeds every case ran, first and last (a shard's range).
    pub first_seed: u64,
    pub last_seed: u64,
    pub targets: Vec<TargetRow>,
    pub wall_secs: f64,
    /// Every reference connector passed and every mutant was caught.
    pub ok: bool,
}

impl Summary {
    /// The summary of `targets`, each run over seeds `first..first + count`, started at
    /// `started`; `ok` when every reference passed and every mutant was caught.
    pub fn new(catalogue: &'static str, first: u64, count: u64, targets: Vec<TargetRow>, started: Instant) -> Self {
        Summary {
            catalogue,
            first_seed: first,
            last_seed: first + count - 1,
            ok: targets.iter().all(|r| r.status.good()),
            targets,
            wall_secs: started.elapsed().as_secs_f64(),
        }
    }
}

/// How a target ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A reference connector passed every case.
    Ok,
    /// A mutant failed the check its story predicts.
    Caught,
    /// A reference connector failed a case (or was not deterministic).
    Failed,
    /// A mutant failed no case with its check.
    Survived,
}

impl Status {
    /// Whether the sweep counts this target as a success.
    pub fn good(self) -> bool {
        matches!(self, Status::Ok | Status::Caught)
    }
}

/// One catalogue entry.
#[derive(Debug, Serialize)]
pub struct TargetRow {
    pub name: String,
    /// source, sink, pipeline or random.
    pub suite: String,
    /// For a mutant: the check that must fail.
    pub expect_failed_check: Option<String>,
    pub status: Status,
    /// The verdict in words, as the table prints it.
    pub verdict: String,
    pub seeds: usize,
    pub failures: usize,
    pub first_failing_seed: Option<u64>,
    /// Blocks in the smallest failing scenario the shrinker found.
    pub minimal_blocks: Option<usize>,
    pub wall_secs: f64,
    pub cases: Vec<CaseRow>,
    /// Case files or reports saved for failures of a reference connector.
    pub saved: Vec<String>,
}

/// One case of a target (the random catalogue has one case per target).
#[derive(Debug, Serialize)]
pub struct CaseRow {
    pub name: String,
    /// Why the target's context skipped the case.
    pub skipped: Option<String>,
    pub seeds: usize,
    pub failures: usize,
    /// Checks any seed failed, sorted.
    pub failed_checks: Vec<String>,
    pub first_failing_seed: Option<u64>,
    /// The first failure's report, as printed.
    pub first_failure: Option<String>,
    /// The command that reruns the first failing seed.
    pub replay: Option<String>,
    /// Coverage marks the case requires that no seed reached.
    pub missed_marks: Vec<String>,
    pub wall_secs: f64,
}

impl CaseRow {
    /// Whether the case passed (a skipped case passes).
    pub fn passed(&self) -> bool {
        self.skipped.is_some() || (self.failures == 0 && self.missed_marks.is_empty())
    }

    /// A row from a suite case.
    pub fn of_case(c: &CaseResult) -> Self {
        let mut row = Self::of_reports(&c.case, &c.reports, c.wall_secs);
        row.skipped = c.skipped.clone();
        // The shares it missed ("system-request-lost 199/200 MISSED"), not only the names.
        row.missed_marks = if c.missed_marks.is_empty() { Vec::new() } else { vec![c.missed_shares()] };
        row.nondeterministic(&c.nondeterministic);
        row
    }

    /// Counts seeds whose two runs differed as failures of the check `determinism`.
    pub fn nondeterministic(&mut self, seeds: &[u64]) {
        if seeds.is_empty() {
            return;
        }
        self.failures = self.failures.max(seeds.len());
        self.failed_checks.push("determinism".into());
        self.first_failing_seed = self.first_failing_seed.into_iter().chain(seeds.iter().copied()).min();
        if self.first_failure.is_none() {
            let seed = seeds[0];
            self.first_failure = Some(format!(
                "seed {seed} is not deterministic: two runs gave different histories (state outlives a run, e.g. \
                 a static or a cache); rerun with CONNSIM_CHECK_DETERMINISM=1 CONNSIM_SEED={seed}"
            ));
        }
    }

    /// A row from the reports of one run of seeds.
    pub fn of_reports(name: &str, reports: &[RunReport], wall_secs: f64) -> Self {
        let failed: Vec<&RunReport> = reports.iter().filter(|r| !r.passed()).collect();
        let mut checks: Vec<String> = failed.iter().flat_map(|r| r.failed_checks()).map(String::from).collect();
        checks.sort();
        checks.dedup();
        let first = failed.iter().min_by_key(|r| r.seed);
        Self {
            name: name.to_string(),
            skipped: None,
            seeds: reports.len(),
            failures: failed.len(),
            failed_checks: checks,
            first_failing_seed: first.map(|r| r.seed),
            first_failure: first.map(|r| r.to_string()),
            replay: first.map(|r| r.replay.clone()),
            missed_marks: Vec::new(),
            wall_secs,
        }
    }
}

/// The rows of every case a suite ran.
pub fn case_rows(outcome: &SuiteOutcome) -> Vec<CaseRow> {
    outcome.cases.iter().map(CaseRow::of_case).collect()
}
