//! Generated scenarios: proptest strategies over block sequences and their parameters, a
//! search that runs one generated scenario per seed, and shrinking with the seed held fixed
//! until the shortest script that still fails the same way is left.
//!
//! Swarm mode (as in swarm testing): each seed first draws which block kinds may appear and
//! how often, and how hard the network faults are, so seeds explore very different mixes.

use crate::block::{self, Block, Fault, Target, Worker};
use crate::job::JobSettings;
use crate::scenario::Scenario;
use connsim::cluster::Exchange;
use connsim::cluster::Phase;
use connsim::net::Refusal;
use connsim::run::{AnyTestbed, RunConfig, RunReport, Runner, Spread};
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Union, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

/// What the generator may use.
#[derive(Clone, Debug)]
pub struct Generator {
    /// Most blocks in one scenario.
    pub max_blocks: usize,
    /// Whether the source can take more data while running (produce and add-splits blocks).
    pub producer: bool,
    /// External systems that crashes, error replies and partitions may aim at.
    pub systems: Vec<String>,
    /// Savepoints and rescaling.
    pub lifecycle: bool,
    /// Swarm mode: the seed also picks the block mix and fault rates.
    pub swarm: bool,
    /// The seed also picks the job's shape ([`JobSettings`]): chained or an exchange
    /// (rebalance, key-by), the sink's parallelism behind an exchange, one or two checkpoints
    /// pending at once. A search leaves alone what the runner's configuration sets to other
    /// than the default (an exchange, a sink parallelism, more than one checkpoint at once).
    pub job: bool,
}

impl Default for Generator {
    fn default() -> Self {
        Self { max_blocks: 8, producer: false, systems: Vec::new(), lifecycle: true, swarm: false, job: true }
    }
}

/// The block kinds the generator draws from, in order (weights in swarm mode follow it);
/// as many as [`leaves`] gives (a test holds them to it).
const LEAVES: usize = 17;

fn worker() -> BoxedStrategy<Worker> {
    prop_oneof![Just(Worker::Any), (0..4usize).prop_map(Worker::Nth), Just(Worker::All)].boxed()
}

fn phase() -> BoxedStrategy<Phase> {
    proptest::sample::select(Phase::ALL.into_iter().filter(|p| p.on_subtasks()).collect::<Vec<_>>()).boxed()
}

fn kind() -> BoxedStrategy<Option<String>> {
    let kinds = ["Ack", "Notify", "Trigger", "AddSplits", "Deploy", "Register", "log.", "fs.", "table."];
    prop_oneof![Just(None), proptest::sample::select(kinds.to_vec()).prop_map(|k| Some(k.to_string()))].boxed()
}

/// Network faults, and where the testbed has external systems, faults of those systems:
/// error replies and partitions of a worker or the job master from one of them.
fn fault(max_p: f64, systems: &[String]) -> BoxedStrategy<Fault> {
    let p = 0.01..max_p.max(0.02);
    let network = prop_oneof![
        (p.clone(), kind()).prop_map(|(probability, kind)| Fault::Drop { probability, kind, from: None, to: None }),
        (1..300u64, kind()).prop_map(|(ms, kind)| Fault::Delay { ms, kind, from: None, to: None }),
        p.clone().prop_map(|probability| Fault::LoseResponses { probability, kind: None, from: None, to: None }),
        worker().prop_map(|w| Fault::Partition { a: Target::Worker(w), b: Target::JobMaster }),
    ];
    if systems.is_empty() {
        return network.boxed();
    }
    let system = || proptest::sample::select(systems.to_vec()).prop_map(Target::System);
    let side = prop_oneof![worker().prop_map(Target::Worker), Just(Target::JobMaster)];
    let refusal = proptest::sample::select(Refusal::ALL.to_vec());
    prop_oneof![
        4 => network,
        1 => (p, refusal, system()).prop_map(|(probability, refusal, to)| Fault::Refuse { probability, refusal, kind: None, to }),
        1 => (side, system()).prop_map(|(a, b)| Fault::Partition { a, b }),
    ]
    .boxed()
}

/// One strategy per leaf kind; `None` where the generator's settings rule it out.
fn leaves(g: &Generator, max_p: f64) -> Vec<Option<BoxedStrategy<Block>>> {
    let systems = g.systems.clone();
    vec![
        Some(Just(Block::Checkpoint).boxed()),
        Some(
            (worker(), proptest::option::of(phase()), 1..200u64)
                .prop_map(|(w, at, restart_after_ms)| Block::Crash { target: Target::Worker(w), at, restart_after_ms })
                .boxed(),
        ),
        Some(
            (1..200u64, proptest::option::of(Just(Phase::BeforeNotify)))
                .prop_map(|(ms, at)| Block::Crash { target: Target::JobMaster, at, restart_after_ms: ms })
                .boxed(),
        ),
        (!systems.is_empty()).then(|| {
            (proptest::sample::select(systems), 1..200u64)
                .prop_map(|(s, ms)| block::crash(Target::System(s)).restart_after(ms).into())
                .boxed()
        }),
        Some(worker().prop_map(block::lose_notify).boxed()),
        Some((worker(), 10..200u64).prop_map(|(w, ms)| block::slow_start(w, ms)).boxed()),
        Some((worker(), 10..300u64).prop_map(|(w, ms)| block::slow_snapshot(w, ms)).boxed()),
        Some((worker(), 1..30u64, 50..600u64).prop_map(|(w, ms, for_ms)| block::slow_sink(w, ms, for_ms)).boxed()),
        Some(worker().prop_map(block::decline_checkpoint).boxed()),
        Some(Just(block::checkpoint_timeout()).boxed()),
        Some((fault(max_p, &g.systems), 10..500u64).prop_map(|(fault, for_ms)| Block::Fault { fault, for_ms }).boxed()),
        g.lifecycle.then(|| {
            prop_oneof![Just(block::stop_with_savepoint()), (1..=4usize).prop_map(block::savepoint_and_rescale)].boxed()
        }),
        g.lifecycle.then(|| (1..=4usize).prop_map(block::rescale).boxed()),
        Some((10..300u64).prop_map(block::wait).boxed()),
        g.producer.then(|| {
            (1..400u64, prop_oneof![Just(Spread::Uniform), Just(Spread::Skewed)], prop_oneof![Just(0u64), Just(200u64)])
                .prop_map(|(n, spread, over_ms)| Block::Produce { n, spread, over_ms })
                .boxed()
        }),
        g.producer.then(|| (1..3u64).prop_map(block::add_splits).boxed()),
        Some(
            (prop_oneof![4 => worker().prop_map(Target::Worker), 1 => Just(Target::JobMaster)], 10..600u64)
                .prop_map(|(t, ms)| block::pause(t, ms))
                .boxed(),
        ),
    ]
}

/// Leaves, and now and then a fault held during a few of them.
fn with_combinators(leaf: BoxedStrategy<Block>, max_p: f64, systems: &[String]) -> BoxedStrategy<Block> {
    let during = (fault(max_p, systems), proptest::collection::vec(leaf.clone(), 1..3))
        .prop_map(|(fault, body)| Block::During { fault, body: Box::new(Block::Seq(body)) });
    let repeat = (leaf.clone(), 2..4u32).prop_map(|(b, n)| b.repeat(n));
    prop_oneof![8 => leaf, 1 => during, 1 => repeat].boxed()
}

fn weighted(g: &Generator, weights: &[u32], max_p: f64) -> BoxedStrategy<Block> {
    let mut arms: Vec<(u32, BoxedStrategy<Block>)> = leaves(g, max_p)
        .into_iter()
        .zip(weights.iter().copied())
        .filter_map(|(s, w)| s.filter(|_| w > 0).map(|s| (w, s)))
        .collect();
    if arms.is_empty() {
        arms = leaves(g, max_p).into_iter().flatten().map(|s| (1, s)).collect();
    }
    with_combinators(Union::new_weighted(arms).boxed(), max_p, &g.systems)
}

/// The job's shape, drawn per seed; each part shrinks towards the runner's own (`None`).
fn job() -> BoxedStrategy<JobSettings> {
    let exchange = prop_oneof![2 => Just(None), 1 => Just(Some(Exchange::Rebalance)), 1 => Just(Some(Exchange::KeyBy))];
    let writers = prop_oneof![2 => Just(None), 1 => (1..=5usize).prop_map(Some)];
    let concurrent = prop_oneof![Just(None), Just(Some(2usize))];
    (exchange, writers, concurrent)
        .prop_map(|(exchange, writers, concurrent_checkpoints)| JobSettings {
            exchange,
            // Only behind an exchange can the sink have a parallelism of its own.
            sink_parallelism: writers.filter(|_| exchange.is_some()),
            concurrent_checkpoints,
            committer_parallelism: None,
            declared_loss: false,
        })
        .boxed()
}

fn generated(blocks: Vec<Block>, job: JobSettings) -> Scenario {
    let mut s = Scenario::new("generated");
    s.blocks = blocks;
    s.job = job;
    s
}

/// Scenarios the generator may produce. The blocks are drawn first, so turning
/// [`Generator::job`] on or off leaves a seed's blocks as they were.
pub fn scenarios(g: &Generator) -> BoxedStrategy<Scenario> {
    let g = g.clone();
    let max = g.max_blocks.max(1);
    let shape = if g.job { job() } else { Just(JobSettings::default()).boxed() };
    if g.swarm {
        (proptest::collection::vec(0..4u32, LEAVES), 0.02..0.5f64)
            .prop_flat_map(move |(weights, max_p)| {
                (proptest::collection::vec(weighted(&g, &weights, max_p), 1..=max), shape.clone())
            })
            .prop_map(|(blocks, job)| generated(blocks, job))
            .boxed()
    } else {
        (proptest::collection::vec(weighted(&g, &[1; LEAVES], 0.2), 1..=max), shape)
            .prop_map(|(blocks, job)| generated(blocks, job))
            .boxed()
    }
}

/// The scenario with the job settings it drew taken back where the runner's configuration
/// sets them itself: what the runner fixes, a generated scenario does not change.
fn fit(mut scenario: Scenario, config: &RunConfig) -> Scenario {
    let job = &config.job;
    if job.exchange != Exchange::Forward || job.sink.writers.is_some() {
        scenario.job.exchange = None;
        scenario.job.sink_parallelism = None;
    }
    if job.checkpoints.max_concurrent > 1 {
        scenario.job.concurrent_checkpoints = None;
    }
    scenario
}

/// Whether the scenario's job settings over `config` make a job the job master refuses
/// (such a candidate fails for its configuration, not for what it shows).
fn refused(scenario: &Scenario, config: &RunConfig) -> bool {
    let mut config = config.clone();
    scenario.job.apply(&mut config);
    config.job.problem().is_some()
}

fn rng_for(seed: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(b"connsim!");
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// The scenario the generator makes for `seed` (the same one every time).
pub fn scenario_for(g: &Generator, seed: u64) -> Scenario {
    let mut runner = TestRunner::new_with_rng(Config::default(), rng_for(seed));
    scenarios(g).new_tree(&mut runner).expect("scenario strategies never reject").current()
}

/// A failure a search found, and what shrinking made of it.
pub struct Found {
    /// The seed (held fixed while shrinking).
    pub seed: u64,
    /// The scenario as generated.
    pub original: Scenario,
    /// The shortest scenario found that still fails the same check.
    pub minimal: Scenario,
    /// The check the failure is about.
    pub check: String,
    /// The minimal scenario's report.
    pub report: RunReport,
    /// Simulations run while shrinking.
    pub shrink_runs: usize,
    /// Wall time spent shrinking.
    pub shrink_secs: f64,
}

/// The result of a generated search.
pub struct Search {
    /// Seeds that ran.
    pub seeds: usize,
    /// The first failure, shrunk.
    pub found: Option<Found>,
    /// Every report (one per seed, before shrinking).
    pub reports: Vec<RunReport>,
}

/// Runs the generated scenario of each seed; at the first failure, shrinks it with the
/// seed held fixed and stops. Runs seeds one after another, each on a fresh thread.
pub fn search<T: AnyTestbed + ?Sized>(
    runner: &Runner<T>,
    g: &Generator,
    seeds: impl IntoIterator<Item = u64>,
) -> Search {
    let config = runner.run_config().clone();
    let mut reports = Vec::new();
    for seed in seeds {
        let scenario = fit(scenario_for(g, seed), &config);
        let report = runner.run_with(seed, &config, Arc::new(scenario.clone()));
        let failed = !report.passed();
        let check = report.failed_checks().first().map(|c| c.to_string());
        reports.push(report);
        if let (true, Some(check)) = (failed, check) {
            let found = shrink(runner, &config, g, seed, scenario, check);
            return Search { seeds: reports.len(), found: Some(found), reports };
        }
    }
    Search { seeds: reports.len(), found: None, reports }
}

/// Shrinks a failing generated scenario, seed fixed: proptest removes and simplifies blocks
/// and the job settings and keeps a candidate only if `check` still fails.
pub fn shrink<T: AnyTestbed + ?Sized>(
    runner: &Runner<T>,
    config: &RunConfig,
    g: &Generator,
    seed: u64,
    original: Scenario,
    check: String,
) -> Found {
    let started = Instant::now();
    let runs = RefCell::new(0usize);
    let mut proptest = TestRunner::new_with_rng(
        Config { cases: 1, failure_persistence: None, max_shrink_iters: 2_000, ..Config::default() },
        rng_for(seed),
    );
    let result = proptest.run(&scenarios(g), |scenario| {
        let scenario = fit(scenario, config);
        if refused(&scenario, config) {
            return Ok(());
        }
        *runs.borrow_mut() += 1;
        let report = runner.run_with(seed, config, Arc::new(scenario));
        if report.failed_checks().contains(&check.as_str()) {
            Err(TestCaseError::fail(check.clone()))
        } else {
            Ok(())
        }
    });
    let minimal = match result {
        Err(TestError::Fail(_, minimal)) => fit(minimal, config),
        // The same seed generates the same scenario, so it fails again; if it somehow does
        // not, the original is the best known.
        _ => original.clone(),
    };
    // Proptest cannot look inside combinators; finish by removing and unwrapping blocks.
    let minimal = minimize(runner, seed, minimal, &check);
    let minimal = Scenario { name: format!("shrunk from seed {seed}"), ..minimal };
    let report = runner.run_with(seed, config, Arc::new(minimal.clone()));
    Found {
        seed,
        original,
        minimal,
        check,
        report,
        shrink_runs: runs.into_inner(),
        shrink_secs: started.elapsed().as_secs_f64(),
    }
}

/// Simpler stand-ins for one block: its inner blocks, spliced in its place.
fn simplifications(b: &Block) -> Vec<Vec<Block>> {
    let flat = |b: &Block| match b {
        Block::Seq(v) => v.clone(),
        other => vec![other.clone()],
    };
    match b {
        Block::Seq(v) => vec![v.clone()],
        Block::During { body, .. } => vec![flat(body)],
        Block::Repeat { block, .. } | Block::TimeLimit { block, .. } => vec![flat(block)],
        Block::Phases { safety, .. } => vec![flat(safety)],
        Block::OneOf(v) => v.iter().map(flat).collect(),
        _ => Vec::new(),
    }
}

/// Shrinks a scenario with the seed held fixed: first takes the job settings back to the
/// runner's one at a time, then removes one top-level block at a time, or replaces a
/// combinator by what it wraps, while `check` still fails, until no such step keeps the
/// failure. A candidate whose job the job master would refuse is never taken.
pub fn minimize<T: AnyTestbed + ?Sized>(runner: &Runner<T>, seed: u64, scenario: Scenario, check: &str) -> Scenario {
    let config = runner.run_config().clone();
    let fails = |s: &Scenario| {
        !refused(s, &config) && runner.run_with(seed, &config, Arc::new(s.clone())).failed_checks().contains(&check)
    };
    let mut best = scenario;
    // The job's shape back to the runner's, one setting at a time, where the failure stays.
    let clears: [fn(&mut JobSettings); 3] =
        [|j| j.concurrent_checkpoints = None, |j| j.sink_parallelism = None, |j| j.exchange = None];
    for clear in clears {
        let mut candidate = best.clone();
        clear(&mut candidate.job);
        if candidate.job.exchange.is_none() {
            candidate.job.sink_parallelism = None;
        }
        if candidate.job != best.job && fails(&candidate) {
            best = candidate;
        }
    }
    'shrink: loop {
        for i in 0..best.blocks.len() {
            let mut candidates = vec![Vec::new()];
            candidates.extend(simplifications(&best.blocks[i]));
            for replacement in candidates {
                let mut candidate = best.clone();
                candidate.blocks.splice(i..=i, replacement);
                let smaller = candidate.size() < best.size() || candidate.blocks.len() < best.blocks.len();
                if smaller && fails(&candidate) {
                    best = candidate;
                    continue 'shrink;
                }
            }
        }
        return best;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_leaf_kind_has_a_weight() {
        let g = Generator { producer: true, systems: vec!["log".into()], ..Generator::default() };
        assert_eq!(leaves(&g, 0.2).len(), LEAVES, "LEAVES must count every leaf, or the last ones are never drawn");
        let kinds: std::collections::BTreeSet<&str> =
            (1..300).flat_map(|seed| scenario_for(&g, seed).kinds()).collect();
        for k in ["pause", "slow_sink", "add_splits", "produce", "rescale"] {
            assert!(kinds.contains(k), "{k} never generated: {kinds:?}");
        }
    }
}
