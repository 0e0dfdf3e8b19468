//! Ready-made suites for any connector, like Flink's connector testing framework but with
//! faults everywhere: [`source`], [`sink`] and [`pipeline`] each give a [`Suite`], a named
//! list of cases ([`cases::all`]). The author implements a context
//! ([`SourceContext`], [`SinkContext`]); a case the connector cannot run is skipped by its
//! context, and the skip shows in the outcome.
//!
//! ```
//! use connsim::probes::GeneratorSetup;
//! use connsim_scenarios::suites::{self, source_from_setup};
//!
//! // The trusted generator source stands in for "your source" here.
//! let ctx = source_from_setup("generator", &[], |data| GeneratorSetup {
//!     splits: data.splits as usize,
//!     records_per_split: data.records / u64::from(data.splits),
//!     ..Default::default()
//! });
//! let outcome = suites::source(ctx).seeds(2).only("single split").run();
//! outcome.assert_ok();
//! println!("{outcome}");
//! ```
//!
//! `CONNSIM_CASE=<substring>` runs only matching cases; `CONNSIM_SEED` replays one seed.

pub mod cases;
mod context;
pub mod harness;

pub use cases::{Body, CaseSpec, Systems};
pub use context::{
    sink_from_setup, source_from_setup, SinkContext, SinkFromSetup, SourceContext, SourceFromSetup, TestData,
};

use crate::block::Block;
use crate::generate::{self, Generator};
use crate::replay::CaseFile;
use crate::scenario::Scenario;
use connsim::api::DeliveryGuarantee;
use connsim::cluster::Exchange;
use connsim::probes::{CollectorSetup, GeneratorSetup};
use connsim::run::{
    declared_guarantee, sink_systems, sink_systems_with, source_systems, source_systems_with, Pipeline, RunReport,
    Runner, SinkSetup, SourceSetup,
};
use context::{SinkOf, SourceOf};
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// The environment variable that selects suite cases by name.
pub const CASE_VAR: &str = "CONNSIM_CASE";

type RunCase = Arc<dyn Fn(&Settings) -> CaseResult + Send + Sync>;
type ReplayCase = Arc<dyn Fn(&CaseFile) -> RunReport + Send + Sync>;

struct Case {
    name: String,
    skip: Option<String>,
    testbed: String,
    run: RunCase,
    replay: ReplayCase,
}

/// How a suite runs its cases.
#[derive(Clone, Debug)]
struct Settings {
    seeds: u64,
    first_seed: u64,
    save_dir: Option<PathBuf>,
    /// A block taken out of every scenario case.
    without: Option<Block>,
    /// A block put before every scenario case's first.
    first: Option<Block>,
    /// Checkpoints pending at once in every case, instead of each case's own.
    concurrent_checkpoints: Option<usize>,
    /// The exchange between readers and writers in every case (unset: each case's own, chained
    /// unless the case's scenario sets one).
    exchange: Option<Exchange>,
    /// Writers behind the exchange snapshot at the first barrier (connsim's own tests).
    unaligned: bool,
    /// Writers in every case, whatever the case's (reader) parallelism.
    sink_parallelism: Option<usize>,
    /// Exactly `seeds` seeds from `first_seed`, whatever `CONNSIM_SEEDS` says (one test
    /// of a case whose seeds are split over several).
    exact_range: bool,
}

/// A named list of cases for one connector (or pair).
pub struct Suite {
    name: String,
    /// The first segment of its tests' names (see [`harness`]).
    id: String,
    cases: Vec<Case>,
    settings: Settings,
    filter: Option<String>,
    fail_fast: bool,
    /// Seeds per test when [`harness`] splits a case's seeds into several tests.
    seeds_per_test: Option<u64>,
    /// [`harness`] marks its tests ignored (run with `--ignored`).
    ignored: bool,
}

/// What one case gave.
pub struct CaseResult {
    /// The case's name.
    pub case: String,
    /// Why the context skipped it.
    pub skipped: Option<String>,
    /// One report per seed (a passing seed's without its timeline).
    pub reports: Vec<RunReport>,
    /// Marks the case requires that no seed reached.
    pub missed_marks: Vec<String>,
    /// The smallest scenario that still fails the first failure's check, with that seed.
    pub minimal: Option<Scenario>,
    /// Case files written for failures.
    pub saved: Vec<PathBuf>,
    /// Wall time.
    pub wall_secs: f64,
    /// Seeds whose two runs gave different histories (`CONNSIM_CHECK_DETERMINISM=1`).
    pub nondeterministic: Vec<u64>,
}

impl CaseResult {
    fn new(case: &str) -> Self {
        Self {
            case: case.to_string(),
            skipped: None,
            reports: Vec::new(),
            missed_marks: Vec::new(),
            minimal: None,
            saved: Vec::new(),
            wall_secs: 0.0,
            nondeterministic: Vec::new(),
        }
    }

    fn skipped(case: &str, why: &str) -> Self {
        Self { skipped: Some(why.to_string()), ..Self::new(case) }
    }

    /// Failed seeds.
    pub fn failures(&self) -> Vec<&RunReport> {
        self.reports.iter().filter(|r| !r.passed()).collect()
    }

    /// Whether the case passed: every seed passed, deterministically, and every required
    /// mark was reached.
    pub fn passed(&self) -> bool {
        self.skipped.is_some()
            || (self.failures().is_empty() && self.missed_marks.is_empty() && self.nondeterministic.is_empty())
    }
}

/// What a suite gave.
pub struct SuiteOutcome {
    /// The suite's name.
    pub suite: String,
    /// One result per case, in order.
    pub cases: Vec<CaseResult>,
}

/// The swarm case's generator: it draws the job's shape per seed unless the suite fixes it.
fn swarm(systems: &[String], settings: &Settings) -> Generator {
    let fixed = settings.exchange.is_some()
        || settings.sink_parallelism.is_some()
        || settings.concurrent_checkpoints.is_some()
        || settings.unaligned;
    Generator { systems: systems.to_vec(), swarm: true, job: !fixed, ..Generator::default() }
}

/// The case list, as runnable cases over the given testbed maker.
fn build_cases<A, B>(
    specs: Vec<CaseSpec>,
    systems: Vec<String>,
    skip: impl Fn(&str) -> Option<String>,
    make: impl Fn(TestData) -> Pipeline<A, B> + Send + Sync + 'static,
) -> Vec<Case>
where
    A: SourceSetup,
    B: SinkSetup,
{
    let make = Arc::new(make);
    specs
        .into_iter()
        .map(|spec| {
            let name = spec.name.to_string();
            let (m, m2, systems, case_name) = (make.clone(), make.clone(), systems.clone(), name.clone());
            let testbed = connsim::run::Testbed::name(&make(spec.data));
            let data = spec.data;
            Case {
                skip: skip(spec.name),
                testbed,
                replay: Arc::new(move |file| file.replay(&Runner::new(m2(data)))),
                run: Arc::new(move |settings| run_case(&case_name, &spec, &systems, settings, m(spec.data))),
                name,
            }
        })
        .collect()
}

fn run_case<A: SourceSetup, B: SinkSetup>(
    name: &str,
    spec: &CaseSpec,
    systems: &[String],
    settings: &Settings,
    testbed: Pipeline<A, B>,
) -> CaseResult {
    let t0 = Instant::now();
    let mut runner = Runner::new(testbed);
    runner.configure(|c| {
        c.job.parallelism = spec.parallelism;
        c.job.failover = spec.failover;
        c.job.max_concurrent_checkpoints = settings.concurrent_checkpoints.unwrap_or(spec.concurrent_checkpoints);
        if let Some(exchange) = settings.exchange {
            c.job.exchange = exchange;
        }
        c.job.aligned_barriers = !settings.unaligned;
        c.job.sink_parallelism = settings.sink_parallelism;
    });
    runner.first_seed(settings.first_seed).seeds(settings.seeds);
    if settings.exact_range {
        runner.ignore_env_seeds();
    }
    let mut result = CaseResult::new(name);
    // `CONNSIM_REPLAY=<file>` reruns the saved case in the case that saved it.
    if let Some(path) = crate::replay::env_file() {
        let file = CaseFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
        if file.scenario.name != name || file.testbed != runner.testbed_name() {
            let why = format!("{}={} replays case {:?}", crate::replay::REPLAY_VAR, path.display(), file.scenario.name);
            return CaseResult::skipped(name, &why);
        }
        result.reports = vec![file.replay(&runner)];
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
            let edited = settings.without.as_ref().map(|b| scenario.without(b));
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
            if settings.concurrent_checkpoints.is_some() {
                fitted.job.concurrent_checkpoints = None;
            }
            let scenario = &fitted;
            let out = match &settings.save_dir {
                Some(dir) => scenario.run_after_saved(&mut runner, dir),
                None => scenario.run(&mut runner),
            };
            let cov = out.outcome.coverage();
            result.missed_marks = scenario.requires.iter().filter(|m| !cov.contains_key(*m)).cloned().collect();
            result.nondeterministic = out.outcome.nondeterministic.iter().map(|(seed, ..)| *seed).collect();
            result.reports = out.outcome.reports;
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
                            crate::replay::save_timeline(&path, report);
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
            let reached: std::collections::BTreeSet<&String> = search.reports.iter().flat_map(|r| &r.marks).collect();
            result.missed_marks =
                spec.requires.iter().filter(|m| !reached.iter().any(|r| r == *m)).map(|m| m.to_string()).collect();
            let mut minimal = search.found.as_ref().map(|f| f.minimal.clone());
            if let (Some(found), Some(m)) = (&search.found, &mut minimal) {
                m.name = name.to_string();
                if let Some(dir) = &settings.save_dir {
                    match CaseFile::from_report(m, &found.report).save(dir) {
                        Ok(path) => {
                            crate::replay::save_timeline(&path, &found.report);
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
    if pinned {
        // One replayed seed is not expected to reach every fault path the case aims at.
        result.missed_marks.clear();
    }
    // A passing seed's report keeps its verdicts, marks and stats; its timeline, printed
    // only for failures, goes, so a suite of thousands of seeds holds little memory.
    for r in result.reports.iter_mut().filter(|r| r.passed()) {
        r.timeline = Vec::new();
    }
    result.wall_secs = t0.elapsed().as_secs_f64();
    result
}

/// The source suite: `ctx`'s source feeding the trusted collecting sink.
pub fn source<C: SourceContext>(ctx: C) -> Suite {
    let ctx = Arc::new(ctx);
    let name = ctx.name();
    let built = source_systems(&SourceOf { ctx: ctx.clone(), data: TestData::paced(1, 1, 0) });
    known_systems("source", &name, &ctx.systems(), &built);
    let retaining =
        source_systems_with(&SourceOf { ctx: ctx.clone(), data: TestData::paced(1, 1, 0) }, &RETENTION_SETTING);
    let systems = Systems {
        source: ctx.systems(),
        sink: vec!["collector".into()],
        source_grows: true,
        retaining,
        ..Systems::default()
    };
    let c = ctx.clone();
    let cases = build_cases(
        cases::all(&systems, DeliveryGuarantee::ExactlyOnce),
        systems.all(),
        move |case| c.supports(case).err(),
        move |data| Pipeline(SourceOf { ctx: ctx.clone(), data }, CollectorSetup),
    );
    Suite::new(format!("source suite: {name}"), "source", cases)
}

/// Panics, naming the systems there are, unless every system a context names is one its
/// setup builds: a typo would otherwise make the cases aimed at it crash and fault nothing.
fn known_systems(kind: &str, context: &str, named: &[String], built: &[String]) {
    let unknown: Vec<&String> = named.iter().filter(|n| !built.contains(n)).collect();
    if !unknown.is_empty() {
        panic!(
            "{kind} context {context:?} names the external systems {unknown:?}, but its setup builds only \
             {built:?}: pass the names given to World::add_system to {kind}_from_setup"
        );
    }
}

/// The trusted generator for a case's data.
fn generator(data: TestData) -> GeneratorSetup {
    let records_per_split = data.records / u64::from(data.splits.max(1));
    GeneratorSetup {
        splits: data.splits as usize,
        records_per_split,
        pace_ms: data.pace_ms,
        unbounded: data.unbounded,
        ..Default::default()
    }
}

/// Probes which sink systems have a transaction timeout.
const TIMEOUT_SETTING: connsim::systems::Setting = connsim::systems::Setting::TransactionTimeoutMs(None);
/// Probes which sink systems can tear appends.
const TORN_SETTING: connsim::systems::Setting = connsim::systems::Setting::TornAppends(0.0);
/// Probes which source systems have retention.
const RETENTION_SETTING: connsim::systems::Setting = connsim::systems::Setting::RetentionMs(None);

/// The sink suite: the trusted generator source feeding `ctx`'s sink, held to the guarantee
/// its sink declares.
pub fn sink<C: SinkContext>(ctx: C) -> Suite {
    let ctx = Arc::new(ctx);
    known_systems("sink", &ctx.name(), &ctx.systems(), &sink_systems(&SinkOf { ctx: ctx.clone() }));
    let guarantee = declared_guarantee(&SinkOf { ctx: ctx.clone() });
    let transactional = sink_systems_with(&SinkOf { ctx: ctx.clone() }, &TIMEOUT_SETTING);
    let appendable = sink_systems_with(&SinkOf { ctx: ctx.clone() }, &TORN_SETTING);
    let systems = Systems {
        source: Vec::new(),
        sink: ctx.systems(),
        source_grows: false,
        transactional,
        appendable,
        retaining: Vec::new(),
    };
    let (c, k) = (ctx.clone(), ctx.clone());
    let cases = build_cases(
        cases::all(&systems, guarantee),
        systems.all(),
        move |case| c.supports(case).err(),
        move |data| Pipeline(generator(data), SinkOf { ctx: k.clone() }),
    );
    Suite::new(format!("sink suite: {} ({guarantee:?})", ctx.name()), "sink", cases)
}

/// The pipeline suite: `source`'s source feeding `sink`'s sink.
pub fn pipeline<S: SourceContext, K: SinkContext>(source: S, sink: K) -> Suite {
    let (source, sink) = (Arc::new(source), Arc::new(sink));
    let built = source_systems(&SourceOf { ctx: source.clone(), data: TestData::paced(1, 1, 0) });
    known_systems("source", &source.name(), &source.systems(), &built);
    known_systems("sink", &sink.name(), &sink.systems(), &sink_systems(&SinkOf { ctx: sink.clone() }));
    let guarantee = declared_guarantee(&SinkOf { ctx: sink.clone() });
    let transactional = sink_systems_with(&SinkOf { ctx: sink.clone() }, &TIMEOUT_SETTING);
    let appendable = sink_systems_with(&SinkOf { ctx: sink.clone() }, &TORN_SETTING);
    let retaining =
        source_systems_with(&SourceOf { ctx: source.clone(), data: TestData::paced(1, 1, 0) }, &RETENTION_SETTING);
    let systems = Systems {
        source: source.systems(),
        sink: sink.systems(),
        source_grows: true,
        transactional,
        appendable,
        retaining,
    };
    let (s1, k1, s2, k2) = (source.clone(), sink.clone(), source.clone(), sink.clone());
    let cases = build_cases(
        cases::all(&systems, guarantee),
        systems.all(),
        move |case| s1.supports(case).err().or_else(|| k1.supports(case).err()),
        move |data| Pipeline(SourceOf { ctx: s2.clone(), data }, SinkOf { ctx: k2.clone() }),
    );
    Suite::new(format!("pipeline suite: {} -> {} ({guarantee:?})", source.name(), sink.name()), "pipeline", cases)
}

impl Suite {
    fn new(name: String, id: &str, cases: Vec<Case>) -> Self {
        let id = id.to_string();
        let filter = std::env::var(CASE_VAR).ok().filter(|v| !v.is_empty());
        let settings = Settings {
            seeds: 200,
            first_seed: 1,
            save_dir: None,
            without: None,
            first: None,
            concurrent_checkpoints: None,
            exchange: None,
            unaligned: false,
            sink_parallelism: None,
            exact_range: false,
        };
        Self { name, id, cases, settings, filter, fail_fast: false, seeds_per_test: None, ignored: false }
    }

    /// Names the suite's tests `id::case` (default: `source`, `sink` or `pipeline`, with
    /// what [`exchange`](Self::exchange) and the like add); two suites in one test binary
    /// need different ids.
    pub fn named(mut self, id: &str) -> Self {
        self.id = harness::slug(id);
        self
    }

    /// The first segment of the suite's test names.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Splits every case's seeds into tests of at most `n` seeds each
    /// (`sink::single_split::seeds_1_to_50`, …), so [`harness`] can spread a large sweep
    /// over machines (`cargo nextest run --partition count:K/N`). Each test must reach the
    /// case's coverage marks on its own seeds: keep `n` at the seeds a case needs.
    pub fn seeds_per_test(mut self, n: u64) -> Self {
        self.seeds_per_test = Some(n.max(1));
        self
    }

    /// Marks the suite's tests ignored under [`harness`]: they run only with `--ignored`
    /// or `--include-ignored` (a suite expected to fail, a long sweep).
    pub fn ignored(mut self) -> Self {
        self.ignored = true;
        self
    }

    /// Seeds each case runs: `CONNSIM_SEEDS` if set, else the suite's own count.
    fn effective_seeds(&self) -> u64 {
        connsim::run::Env::from_env().seeds.unwrap_or(self.settings.seeds)
    }

    /// Runs the `index`-th selected case over `count` seeds from `first` (one test of
    /// [`harness`]).
    fn run_one(&self, index: usize, (first, count): (u64, u64)) -> CaseResult {
        let case = self.selected().nth(index).expect("the harness names selected cases");
        if let Some(why) = &case.skip {
            return CaseResult::skipped(&case.name, why);
        }
        if let Some(seed) = connsim::run::Env::from_env().seed.filter(|s| !(first..first + count).contains(s)) {
            return CaseResult::skipped(&case.name, &format!("CONNSIM_SEED={seed} lies outside this test's seeds"));
        }
        let mut settings = self.settings.clone();
        settings.first_seed = first;
        settings.seeds = count;
        settings.exact_range = true;
        (case.run)(&settings)
    }

    /// Seeds per case (default 200; `CONNSIM_SEEDS` overrides, `CONNSIM_SEED` replays one).
    pub fn seeds(mut self, n: u64) -> Self {
        self.settings.seeds = n;
        self
    }

    /// The first seed of every case's range.
    pub fn first_seed(mut self, seed: u64) -> Self {
        self.settings.first_seed = seed;
        self
    }

    /// Runs only the cases whose name contains `filter` (also `CONNSIM_CASE`).
    pub fn only(mut self, filter: &str) -> Self {
        self.filter = Some(filter.to_string());
        self
    }

    /// Runs every scenario case with each top-level copy of `block` taken out (and the marks
    /// only it reached no longer required): to show that a bug needs that block, a mutant a
    /// case catches with it should survive the same seeds without it.
    pub fn without(mut self, block: impl Into<Block>) -> Self {
        self.settings.without = Some(block.into());
        self
    }

    /// Runs every scenario case (not the swarm's generated ones) with `block` before its
    /// first (for instance a setting that
    /// makes an external system kinder than the real one): to show that a bug needs the real
    /// system's behaviour, a mutant a case catches should survive the same seeds with it.
    pub fn with_first(mut self, block: impl Into<Block>) -> Self {
        self.settings.first = Some(block.into());
        self
    }

    /// Runs every case with at most `n` checkpoints pending at once, instead of each case's
    /// own setting: to show that a bug needs overlapping checkpoints, a mutant the
    /// overlapping-checkpoints case catches should not fail that check on the same seeds with
    /// `1` (the case then misses its own marks, so it still counts as failed).
    pub fn concurrent_checkpoints(mut self, n: usize) -> Self {
        self.settings.concurrent_checkpoints = Some(n);
        self
    }

    /// Runs every case with `exchange` between the readers and the writers instead of
    /// chaining them: records, watermarks and barriers cross the network, writers align
    /// barriers, and a failure anywhere restarts every subtask (one failover region).
    pub fn exchange(mut self, exchange: Exchange) -> Self {
        self.settings.exchange = Some(exchange);
        if exchange != Exchange::Forward {
            self.name = format!("{} over a {exchange:?} exchange", self.name);
            self.id = format!("{}_over_{}", self.id, harness::slug(&format!("{exchange:?}")));
        }
        self
    }

    /// Runs every case with `n` writers, whatever its number of readers (needs an
    /// [`exchange`](Self::exchange): a chained job has one writer per reader).
    pub fn sink_parallelism(mut self, n: usize) -> Self {
        self.settings.sink_parallelism = Some(n);
        self.name = format!("{} with {n} writers", self.name);
        self.id = format!("{}_{n}_writers", self.id);
        self
    }

    /// Writers behind the exchange snapshot at the first barrier instead of aligning: a
    /// broken runtime, for showing that the suites catch it (connsim's own tests).
    pub fn unaligned_barriers(mut self) -> Self {
        self.settings.unaligned = true;
        self.name = format!("{} with unaligned barriers", self.name);
        self.id = format!("{}_unaligned", self.id);
        self
    }

    /// Stops at the first case that fails (for finding a bug fast, e.g. in a mutant).
    pub fn fail_fast(mut self) -> Self {
        self.fail_fast = true;
        self
    }

    /// Saves every failure as a case file in `dir`; saved cases rerun first.
    pub fn save_failures(mut self, dir: impl Into<PathBuf>) -> Self {
        self.settings.save_dir = Some(dir.into());
        self
    }

    /// The suite's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The names of the cases that will run.
    pub fn case_names(&self) -> Vec<String> {
        self.selected().map(|c| c.name.clone()).collect()
    }

    /// The cases the filter selects: the one named exactly so if there is one, else those
    /// whose name contains it.
    fn selected(&self) -> impl Iterator<Item = &Case> {
        let exact = self.filter.as_ref().filter(|f| self.cases.iter().any(|c| &c.name == *f));
        self.cases.iter().filter(move |c| match (exact, &self.filter) {
            (Some(f), _) => &c.name == f,
            (None, f) => f.as_ref().is_none_or(|f| c.name.contains(f.as_str())),
        })
    }

    /// Runs the cases, calling `progress(case index, case count, case name)` before each.
    pub fn run_with_progress(&self, progress: impl FnMut(usize, usize, &str)) -> SuiteOutcome {
        let fail_fast = self.fail_fast;
        self.run_until(progress, |r| fail_fast && !r.passed())
    }

    /// Runs the cases until `stop` says so after one (e.g. once a mutant is caught).
    pub fn run_until(
        &self,
        mut progress: impl FnMut(usize, usize, &str),
        stop: impl Fn(&CaseResult) -> bool,
    ) -> SuiteOutcome {
        let selected: Vec<&Case> = self.selected().collect();
        let mut results = Vec::new();
        // Reports name the case in their rerun command: CONNSIM_CASE='<case>' <command>.
        let base = connsim::run::rerun_command();
        for (i, case) in selected.iter().enumerate() {
            progress(i, selected.len(), &case.name);
            let command = base.as_ref().map(|b| format!("{CASE_VAR}={} {b}", connsim::run::shell_quote(&case.name)));
            let result = match &case.skip {
                Some(why) => CaseResult::skipped(&case.name, why),
                None => connsim::run::with_rerun_command(command, || (case.run)(&self.settings)),
            };
            let done = stop(&result);
            results.push(result);
            if done {
                break;
            }
        }
        SuiteOutcome { suite: self.name.clone(), cases: results }
    }

    /// Runs the cases.
    pub fn run(&self) -> SuiteOutcome {
        self.run_with_progress(|_, _, _| {})
    }

    /// Replays a saved case against the suite's testbed of the same name; None if no case
    /// of this suite has that testbed.
    pub fn replay(&self, file: &CaseFile) -> Option<RunReport> {
        self.cases.iter().find(|c| c.testbed == file.testbed).map(|c| (c.replay)(file))
    }
}

impl SuiteOutcome {
    /// Cases that failed (a seed failed, or a required mark was never reached).
    pub fn failed_cases(&self) -> Vec<&CaseResult> {
        self.cases.iter().filter(|c| !c.passed()).collect()
    }

    /// Cases skipped by the context, with the reason.
    pub fn skipped(&self) -> Vec<(&str, &str)> {
        self.cases.iter().filter_map(|c| c.skipped.as_deref().map(|w| (c.case.as_str(), w))).collect()
    }

    /// The first case and seed that failed `check`.
    pub fn caught_by(&self, check: &str) -> Option<(&str, &RunReport)> {
        self.cases
            .iter()
            .find_map(|c| c.reports.iter().find(|r| r.failed_checks().contains(&check)).map(|r| (c.case.as_str(), r)))
    }

    /// Seeds run in all cases.
    pub fn seeds(&self) -> usize {
        self.cases.iter().map(|c| c.reports.len()).sum()
    }

    /// Panics with the first failing case's report, its minimal scenario and how to replay
    /// it, unless every case passed.
    pub fn assert_ok(&self) {
        let Some(case) = self.failed_cases().into_iter().next() else { return };
        if let Some(r) = case.failures().first() {
            let minimal = case.minimal.as_ref().map(|s| s.to_rust()).unwrap_or_default();
            panic!(
                "{}: case {:?} failed on {} of {} seeds; the first:\n{r}\nminimal scenario at seed {}:\n{minimal}\n\n{self}",
                self.suite,
                case.case,
                case.failures().len(),
                case.reports.len(),
                r.seed,
            );
        }
        panic!(
            "{}: case {:?} never reached the fault path it aims at: {:?} in {} seeds\n\n{self}",
            self.suite,
            case.case,
            case.missed_marks,
            case.reports.len()
        );
    }
}

impl fmt::Display for SuiteOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.suite)?;
        writeln!(
            f,
            "  {:<46} {:>6} {:>8} {:>10} {:>8} {:>7}  verdict",
            "case", "seeds", "failures", "first fail", "minimal", "wall s"
        )?;
        for c in &self.cases {
            let failures = c.failures();
            let first = failures.first().map_or("-".into(), |r| r.seed.to_string());
            let minimal = c.minimal.as_ref().map_or("-".into(), |s| format!("{} blocks", s.size()));
            let verdict = match (&c.skipped, failures.first()) {
                (Some(why), _) => format!("skipped: {why}"),
                (None, Some(r)) => format!("FAILED: {}", r.failed_checks().join(", ")),
                (None, None) if !c.missed_marks.is_empty() => format!("MISSED marks {:?}", c.missed_marks),
                (None, None) => "ok".into(),
            };
            writeln!(
                f,
                "  {:<46} {:>6} {:>8} {:>10} {:>8} {:>7.1}  {verdict}",
                c.case,
                c.reports.len(),
                failures.len(),
                first,
                minimal,
                c.wall_secs
            )?;
        }
        Ok(())
    }
}
