//! Ready-made suites for any connector, like Flink's connector testing framework but with
//! faults everywhere: [`source`], [`sink`] and [`pipeline`] each give a [`Suite`], a named
//! list of cases ([`cases::all`]). The author implements a context
//! ([`SourceContext`], [`SinkContext`]); a case the connector cannot run is skipped by its
//! context, a case that needs an unbounded source ([`TestData::unbounded`]) is skipped when
//! the context's source reports [`Boundedness::Bounded`](connsim::api::Boundedness), and
//! every skip shows in the outcome with its reason. [`SuiteOutcome::assert_ok`] proves a
//! connector passes; [`SuiteOutcome::assert_caught`] proves a suite catches a bug.
//!
//! ```
//! use connsim::probes::GeneratorSetup;
//! use connsim_scenarios::suites::{self, source_from_setup};
//!
//! // The trusted generator source stands in for "your source" here.
//! let ctx = source_from_setup("generator", &[], |data| GeneratorSetup {
//!     splits: data.splits as usize,
//!     records_per_split: data.records / u64::from(data.splits),
//!     // The records arrive over the case's pace, so its faults land mid-stream.
//!     pace_ms: data.pace_ms,
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
mod outcome;
mod run;

pub use cases::{Body, CaseSpec, Systems};
pub use context::{
    sink_from_setup, source_from_setup, SinkContext, SinkFromSetup, SourceContext, SourceFromSetup, TestData,
    DISCOVERY_INTERVAL_MS,
};
pub use outcome::{CaseResult, MarkShare, Required, SuiteOutcome, VACUOUS_MAX_PERCENT};
pub use run::{timeline_path, write_timeline, SWARM_SHARE_PERCENT};

use crate::block::Block;
use crate::replay::CaseFile;
use connsim::api::{DeliveryGuarantee, WatermarkAlignment, WatermarkStrategy};
use connsim::cluster::Exchange;
use connsim::probes::{CollectorSetup, GeneratorSetup};
use connsim::run::{
    declared_guarantee, declared_watermarks, has_global_committer, sink_systems, sink_systems_with, source_systems,
    source_systems_with, Pipeline, RunReport, Runner, SinkSetup, SourceSetup,
};
use context::{SinkOf, SourceOf};
use run::run_case;
use std::path::PathBuf;
use std::sync::Arc;

/// The environment variable that selects suite cases by name.
pub const CASE_VAR: &str = "CONNSIM_CASE";

type RunCase = Arc<dyn Fn(&Settings) -> CaseResult + Send + Sync>;
type ReplayCase = Arc<dyn Fn(&CaseFile) -> RunReport + Send + Sync>;

struct Case {
    name: String,
    /// Why the case does not run: its context's reason, or a bounded source for an unbounded
    /// case.
    skip: Option<String>,
    /// A generated scenario per seed (its faults may hold checkpoints back on purpose).
    swarm: bool,
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
    /// Blocks taken out of every scenario case.
    without: Vec<Block>,
    /// A block put before every scenario case's first.
    first: Option<Block>,
    /// Checkpoints pending at once in every case, instead of each case's own.
    concurrent_checkpoints: Option<usize>,
    /// The exchange between readers and writers in every case (unset: each case's own, chained
    /// unless the case's scenario sets one).
    exchange: Option<Exchange>,
    /// Writers behind the exchange snapshot at the first barrier (connsim's own tests).
    unaligned: bool,
    /// A runtime bug switched on in every case (connsim's own tests).
    runtime_bug: Option<connsim::cluster::RuntimeBug>,
    /// Writers in every case, whatever the case's (reader) parallelism.
    sink_parallelism: Option<usize>,
    /// Committers as tasks of their own in every case, this many.
    committer_parallelism: Option<usize>,
    /// Exactly `seeds` seeds from `first_seed`, whatever `CONNSIM_SEEDS` says (one test
    /// of a case whose seeds are split over several).
    exact_range: bool,
    /// Every seed runs twice and the histories must match (also `CONNSIM_CHECK_DETERMINISM=1`).
    check_determinism: bool,
    /// Which data every case's records have (default: real data).
    data: connsim::record::DataKind,
    /// Event time: `Ok(Some(strategy))` the job reads the source with it, `Ok(None)` with the
    /// source's own; either way its fixed cases require `watermark-advanced` on every seed.
    /// `Err(why)`: not armed, and why.
    event_time: Result<Option<WatermarkStrategy>, String>,
    /// The strategy the alignment cases read the source with (the event-time one with
    /// [`SUITE_ALIGNMENT`]), or why they are skipped.
    alignment: Result<WatermarkStrategy, String>,
}

/// The watermark strategy source and pipeline suites read a source with when it declares
/// none: bounded out-of-orderness of 20 ms, splits silent for 100 ms idle, an emission every
/// 50 ms (as a Flink job gives `env.fromSource`).
pub const SUITE_WATERMARKS: WatermarkStrategy =
    WatermarkStrategy { max_out_of_orderness_ms: 20, idle_timeout_ms: Some(100), interval_ms: 50, alignment: None };

/// The watermark alignment the suites' alignment cases add to the source's strategy: one
/// group, splits at most 20 ms apart, reports every 20 ms (Flink's
/// `withWatermarkAlignment(group, maxDrift, updateInterval)`).
pub const SUITE_ALIGNMENT: WatermarkAlignment = WatermarkAlignment { max_drift_ms: 20, update_interval_ms: 20 };

/// How far ahead each split's event time runs of the one before it in every case's data
/// ([`TestData::skew_ms`]): with [`SUITE_ALIGNMENT`]'s 20 ms drift, neighbouring splits are
/// already too far apart, so alignment pauses and resumes.
pub const SUITE_SKEW_MS: u64 = 40;

/// The strategy the alignment cases read `ctx`'s source with, or why they cannot.
fn alignment_of<C: SourceContext>(ctx: &Arc<C>) -> Result<WatermarkStrategy, String> {
    ctx.event_time().map_err(|why| format!("the source carries no event time: {why}"))?;
    ctx.alignment()?;
    let own = declared_watermarks(&SourceOf { ctx: ctx.clone(), data: TestData::paced(1, 1, 0) });
    let strategy = own.unwrap_or(SUITE_WATERMARKS);
    Ok(WatermarkStrategy { alignment: Some(SUITE_ALIGNMENT), ..strategy })
}

/// Whether the suite reads `ctx`'s source in event time: with its own strategy if it declares
/// one, else with [`SUITE_WATERMARKS`]; `Err` when the context says its source cannot carry
/// event time ([`SourceContext::event_time`]).
fn event_time_of<C: SourceContext>(ctx: &Arc<C>) -> Result<Option<WatermarkStrategy>, String> {
    ctx.event_time()?;
    let own = declared_watermarks(&SourceOf { ctx: ctx.clone(), data: TestData::paced(1, 1, 0) });
    Ok(if own.is_some() { None } else { Some(SUITE_WATERMARKS) })
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
            // The context's own reason first; else a bounded source cannot run an unbounded case.
            let skip = skip(spec.name).or_else(|| context::needs_unbounded(make(data).0, data));
            Case {
                skip,
                swarm: matches!(spec.body, Body::Swarm),
                testbed,
                // The runners are erased: what runs a case is compiled once for every suite.
                replay: Arc::new(move |file| file.replay(&Runner::erased(m2(data)))),
                run: Arc::new(move |settings| {
                    run_case(&case_name, &spec, &systems, settings, Runner::erased(m(spec.data)))
                }),
                name,
            }
        })
        .collect()
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
        aligns: true,
        retaining,
        ..Systems::default()
    };
    let (c, ctx_for_event_time) = (ctx.clone(), ctx.clone());
    let cases = build_cases(
        cases::all(&systems, DeliveryGuarantee::ExactlyOnce),
        systems.all(),
        move |case| c.supports(case).err(),
        move |data| Pipeline(SourceOf { ctx: ctx.clone(), data }, CollectorSetup),
    );
    let mut suite = Suite::new(format!("source suite: {name}"), "source", cases);
    suite.settings.event_time = event_time_of(&ctx_for_event_time);
    suite.settings.alignment = alignment_of(&ctx_for_event_time);
    suite
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
/// Probes which sink systems are object stores.
const STORE_SETTING: connsim::systems::Setting = connsim::systems::Setting::SlowDown(0.0);
/// Probes which sink systems are tables with a schema.
const SCHEMA_SETTING: connsim::systems::Setting =
    connsim::systems::Setting::AlterTable(connsim::systems::Alteration::Nothing);
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
    let stores = sink_systems_with(&SinkOf { ctx: ctx.clone() }, &STORE_SETTING);
    let tables = sink_systems_with(&SinkOf { ctx: ctx.clone() }, &SCHEMA_SETTING);
    let systems = Systems {
        source: Vec::new(),
        sink: ctx.systems(),
        source_grows: false,
        aligns: false,
        transactional,
        appendable,
        stores,
        tables,
        retaining: Vec::new(),
        new_jobs: true,
        global_committer: has_global_committer(&SinkOf { ctx: ctx.clone() }),
        committers_apart: true,
        kafka: ctx.kafka_systems(),
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
    let stores = sink_systems_with(&SinkOf { ctx: sink.clone() }, &STORE_SETTING);
    let tables = sink_systems_with(&SinkOf { ctx: sink.clone() }, &SCHEMA_SETTING);
    let retaining =
        source_systems_with(&SourceOf { ctx: source.clone(), data: TestData::paced(1, 1, 0) }, &RETENTION_SETTING);
    let systems = Systems {
        source: source.systems(),
        sink: sink.systems(),
        source_grows: true,
        aligns: true,
        transactional,
        appendable,
        stores,
        tables,
        retaining,
        new_jobs: true,
        global_committer: has_global_committer(&SinkOf { ctx: sink.clone() }),
        committers_apart: true,
        kafka: sink.kafka_systems(),
    };
    let (s1, k1, s2, k2) = (source.clone(), sink.clone(), source.clone(), sink.clone());
    let cases = build_cases(
        cases::all(&systems, guarantee),
        systems.all(),
        move |case| s1.supports(case).err().or_else(|| k1.supports(case).err()),
        move |data| Pipeline(SourceOf { ctx: s2.clone(), data }, SinkOf { ctx: k2.clone() }),
    );
    let mut suite =
        Suite::new(format!("pipeline suite: {} -> {} ({guarantee:?})", source.name(), sink.name()), "pipeline", cases);
    suite.settings.event_time = event_time_of(&source);
    suite.settings.alignment = alignment_of(&source);
    suite
}

impl Suite {
    fn new(name: String, id: &str, cases: Vec<Case>) -> Self {
        let id = id.to_string();
        let filter = std::env::var(CASE_VAR).ok().filter(|v| !v.is_empty());
        let settings = Settings {
            seeds: 200,
            first_seed: 1,
            save_dir: None,
            without: Vec::new(),
            first: None,
            concurrent_checkpoints: None,
            exchange: None,
            unaligned: false,
            runtime_bug: None,
            sink_parallelism: None,
            committer_parallelism: None,
            exact_range: false,
            check_determinism: false,
            data: connsim::record::DataKind::Real,
            event_time: Err("the sink suite reads connsim's generator, without event time".into()),
            alignment: Err("the sink suite reads connsim's generator, without event time".into()),
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

    /// Runs every case on `data` instead of real data: with [`DataKind::Plain`](connsim::record::DataKind::Plain),
    /// to show that a bug needs real data (null keys, tombstones, headers, real dates), a
    /// mutant a case catches on real data should pass the same seeds on plain data.
    pub fn data(mut self, data: connsim::record::DataKind) -> Self {
        self.settings.data = data;
        self
    }

    /// Runs only the cases whose name contains `filter` (also `CONNSIM_CASE`).
    pub fn only(mut self, filter: &str) -> Self {
        self.filter = Some(filter.to_string());
        self
    }

    /// Runs every scenario case with each top-level copy of `block` taken out (and the marks
    /// only it reached no longer required): to show that a bug needs that block, a mutant a
    /// case catches with it should survive the same seeds without it. Called again, it
    /// takes out one more block (a bug several faults expose survives only without all).
    pub fn without(mut self, block: impl Into<Block>) -> Self {
        self.settings.without.push(block.into());
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

    /// Runs every case with the sink's committers as `n` tasks of their own, apart from the
    /// writers (writer `w` hands its committables to committer `w mod n`).
    pub fn committer_parallelism(mut self, n: usize) -> Self {
        self.settings.committer_parallelism = Some(n);
        self.name = format!("{} with {n} committers apart", self.name);
        self.id = format!("{}_{n}_committers", self.id);
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

    /// Runs every case with `bug` in the runtime: a broken runtime, for showing that the
    /// suites catch it (connsim's own tests and the catalogue's runtime mutants).
    pub fn runtime_bug(mut self, bug: connsim::cluster::RuntimeBug) -> Self {
        self.settings.runtime_bug = Some(bug);
        self.name = format!("{} with runtime bug {bug:?}", self.name);
        self.id = format!("{}_{bug:?}", self.id);
        self
    }

    /// Runs every seed of a scenario case twice and fails the case when the two runs of a
    /// seed differ: state that outlives a run (a `static`, a thread-local cache) makes a seed
    /// stop describing its run, so a printed rerun line would not reproduce it. Doubles the
    /// cost; the same as `CONNSIM_CHECK_DETERMINISM=1` for every suite in the process. The
    /// swarm case's search, and replays of saved cases, run each seed once.
    pub fn check_determinism(mut self) -> Self {
        self.settings.check_determinism = true;
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
        let event_time = match &self.settings.event_time {
            Ok(Some(w)) => format!("read with the job's strategy {w:?}"),
            Ok(None) => "read with the source's own watermark strategy".to_string(),
            Err(why) => format!("off: {why}"),
        };
        SuiteOutcome { suite: self.name.clone(), cases: results, event_time }
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
