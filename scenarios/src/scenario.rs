//! A scenario: a named list of blocks, the coverage marks it must reach, and how to run it
//! over many seeds with saved failures rerun first.

use crate::block::Block;
use crate::job::JobSettings;
use crate::replay::{self, CaseFile};
use connsim::run::{marks::MARKS, AnyTestbed, Outcome, RunReport, Runner, Script, ScriptFuture};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// A named sequence of blocks. After the last block, the harness heals everything and the
/// job must converge (the liveness phase), so every scenario ends with a checked outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// The name reports and saved cases carry.
    pub name: String,
    /// The blocks, run in order.
    pub blocks: Vec<Block>,
    /// Coverage marks the scenario aims at (see `connsim::run::marks::MARKS`). Run by a
    /// suite, each must be reached on the share of seeds [`shares`](Self::shares) gives it,
    /// every seed unless stated; [`Outcome::assert_reached`](connsim::run::Outcome::assert_reached)
    /// asks for one seed.
    #[serde(default)]
    pub requires: Vec<String>,
    /// Per required mark reached on fewer than every seed by design: the percentage of seeds
    /// that must reach it.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub shares: std::collections::BTreeMap<String, u8>,
    /// Per required mark on a path a connector may not take by design (a sink that never
    /// starts a multipart upload has none to expire): the mark a seed must reach to be
    /// judged. The share counts only those seeds; if none reached it, the requirement does
    /// not apply, and the outcome says so.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub given: std::collections::BTreeMap<String, String>,
    /// Job settings the scenario fixes for itself, over the runner's configuration.
    #[serde(default, skip_serializing_if = "JobSettings::is_empty")]
    pub job: JobSettings,
}

impl Scenario {
    /// An empty scenario.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            blocks: Vec::new(),
            requires: Vec::new(),
            shares: Default::default(),
            given: Default::default(),
            job: JobSettings::default(),
        }
    }

    /// Runs the job with this exchange between readers and writers (over the runner's).
    pub fn exchange(mut self, exchange: connsim::cluster::Exchange) -> Self {
        self.job.exchange = Some(exchange);
        self
    }

    /// Runs the job with `n` writers behind its exchange (over the runner's).
    pub fn sink_parallelism(mut self, n: usize) -> Self {
        self.job.sink_parallelism = Some(n);
        self
    }

    /// Runs the sink's committers as `n` tasks of their own, apart from the writers (over the
    /// runner's): writer `w` hands its committables to committer `w mod n`.
    pub fn committer_parallelism(mut self, n: usize) -> Self {
        self.job.committer_parallelism = Some(n);
        self
    }

    /// The scenario makes a loss unavoidable (an upload expires before its checkpoint's
    /// commit can run): a loss the connector declares, a commit failed with a known reason
    /// naming what is gone, passes `declared-loss`; a loss it does not declare still fails
    /// `no-loss`. In every other scenario a declared loss fails `declared-loss`.
    pub fn loss_may_be_declared(mut self) -> Self {
        self.job.declared_loss = true;
        self
    }

    /// Lets `n` checkpoints be pending at once (over the runner's).
    pub fn concurrent_checkpoints(mut self, n: usize) -> Self {
        self.job.concurrent_checkpoints = Some(n);
        self
    }

    /// The scenario with every top-level copy of `block` taken out; a crash aimed at a phase
    /// takes that phase's mark off the required ones, an error-reply fault the refusal marks, a
    /// system setting its mark, the last slow sink the backpressure marks. Taking out a `during(fault, body)` takes out the fault and
    /// keeps its body (a delay takes the delay marks off once no delay is left).
    pub fn without(&self, block: &Block) -> Scenario {
        let mut s = self.clone();
        if let Block::During { fault, body } = block {
            for b in s.blocks.iter_mut().filter(|b| *b == block) {
                *b = (**body).clone();
            }
            if matches!(fault, crate::block::Fault::Straggle { .. }) && !s.blocks.iter().any(straggles) {
                s.requires.retain(|m| m != "message-straggled" && m != "produce-deduplicated");
            }
            if matches!(fault, crate::block::Fault::Hold { .. }) && !s.blocks.iter().any(holds) {
                s.requires.retain(|m| m != "message-held" && m != "request-applied-late");
            }
            if matches!(fault, crate::block::Fault::Delay { .. }) && !s.blocks.iter().any(delays) {
                s.requires.retain(|m| m != "message-delayed" && m != "request-outlived-its-sender");
                // A notification held up is what makes a replaced global committer commit.
                if matches!(fault, crate::block::Fault::Delay { kind: Some(k), .. } if k == "Notify") {
                    s.requires.retain(|m| m != "zombie-global-commit" && m != "zombie-commit");
                }
            }
            return s;
        }
        s.blocks.retain(|b| b != block);
        // Straggling requests are what the broker recognises as retries it already appended.
        if straggles(block) && !s.blocks.iter().any(straggles) {
            s.requires.retain(|m| m != "message-straggled" && m != "produce-deduplicated");
        }
        // Held requests are what lands late.
        if holds(block) && !s.blocks.iter().any(holds) {
            s.requires.retain(|m| m != "message-held" && m != "request-applied-late");
        }
        if let Block::Crash { at: Some(phase), .. } = block {
            s.requires.retain(|m| m != phase.mark());
        }
        if matches!(block, Block::SlowSink { .. }) && !s.blocks.iter().any(|b| matches!(b, Block::SlowSink { .. })) {
            s.requires.retain(|m| m != "backpressure" && m != "backpressure-held");
        }
        if let Block::Fault { fault: crate::block::Fault::Refuse { .. }, .. } = block {
            s.requires.retain(|m| !m.ends_with("request-refused"));
        }
        // A partition between a worker and the job master is what lets a lease expire.
        let partitions = |b: &Block| matches!(b, Block::Fault { fault: crate::block::Fault::Partition { .. }, .. });
        if partitions(block) && !s.blocks.iter().any(partitions) {
            s.requires.retain(|m| m != "lease-expired");
        }
        if let Block::NewJob { from } = block {
            if !s.blocks.contains(block) {
                let mark = match from {
                    crate::block::NewJobFrom::WithoutState => "new-job:without-state",
                    crate::block::NewJobFrom::OlderSavepoint => "new-job:older-savepoint",
                };
                s.requires.retain(|m| m != mark);
            }
        }
        // An `ALTER TABLE` is what changes a schema.
        let alters = |b: &Block| {
            b.any_block(&|x| matches!(x, Block::Configure { setting: connsim::systems::Setting::AlterTable(_), .. }))
        };
        if alters(block) && !s.blocks.iter().any(alters) {
            s.requires.retain(|m| m != "schema-altered");
        }
        match block {
            Block::Configure { setting: connsim::systems::Setting::TransactionTimeoutMs(_), .. } => {
                s.requires.retain(|m| m != "transaction-timed-out");
            }
            Block::Configure { setting: connsim::systems::Setting::TornAppends(_), .. } => {
                s.requires.retain(|m| m != "append-torn");
            }
            Block::Configure { setting: connsim::systems::Setting::RetentionMs(_), .. } => {
                s.requires.retain(|m| m != "offset-out-of-range");
            }
            Block::Configure { setting: connsim::systems::Setting::SlowDown(_), .. } => {
                s.requires.retain(|m| m != "s3-slow-down");
            }
            Block::Configure { setting: connsim::systems::Setting::InternalErrors(_), .. } => {
                s.requires.retain(|m| m != "s3-internal-error");
            }
            Block::Configure { setting: connsim::systems::Setting::ExpireIncompleteUploadsAfterMs(_), .. } => {
                // Without the rule nothing expires, and nothing is destroyed to declare.
                s.requires.retain(|m| m != "upload-expired" && m != "loss-declared");
            }
            _ => {}
        }
        s
    }

    /// A copy of the scenario with `block` before its first block.
    pub fn before(&self, block: Block) -> Scenario {
        let mut s = self.clone();
        s.blocks.insert(0, block);
        s
    }

    /// Appends a block. Panics with what to change if the block cannot run.
    pub fn then(mut self, block: impl Into<Block>) -> Self {
        let block = block.into();
        if let Err(e) = block.validate() {
            panic!("scenario {:?}: {e}", self.name);
        }
        self.blocks.push(block);
        self
    }

    /// Requires coverage mark `mark`: a scenario aimed at a fault path fails if that path was
    /// not hit. A suite case needs it on every seed; a scenario run on its own, on one seed.
    /// Panics on a mark connsim does not know.
    pub fn requires(mut self, mark: &str) -> Self {
        if !MARKS.iter().any(|(m, _)| *m == mark) {
            let known: Vec<&str> = MARKS.iter().map(|(m, _)| *m).collect();
            panic!("scenario {:?}: unknown coverage mark {mark:?}; known marks: {}", self.name, known.join(", "));
        }
        self.requires.push(mark.to_string());
        self
    }

    /// Requires coverage mark `mark` on at least `percent` % of a suite case's seeds: for a
    /// fault path the scenario reaches only when its timing meets the job's (a message on its
    /// way while a node goes down), where a seed that misses it is no bug in the connector.
    /// The share a case reached is printed with its result.
    pub fn requires_on(mut self, mark: &str, percent: u8) -> Self {
        self = self.requires(mark);
        self.shares.insert(mark.to_string(), percent.min(100));
        self
    }

    /// Requires `mark` on `percent` % of the seeds that reached `given`: for a path only some
    /// connectors take (an upload to expire exists only for a sink that starts one). A
    /// connector whose seeds never reach `given` is not judged on `mark`, and the outcome
    /// says so; one that reaches it is held to the share over those seeds.
    pub fn requires_where(mut self, mark: &str, percent: u8, given: &str) -> Self {
        self = self.requires_on(mark, percent);
        self.given.insert(mark.to_string(), given.to_string());
        self
    }

    /// The mark a seed must reach to be judged on `mark` ([`requires_where`](Self::requires_where)).
    pub fn given_of(&self, mark: &str) -> Option<&str> {
        self.given.get(mark).map(String::as_str)
    }

    /// The percentage of a suite case's seeds that must reach `mark` (100 unless
    /// [`requires_on`](Self::requires_on) says otherwise).
    pub fn share_of(&self, mark: &str) -> u8 {
        self.shares.get(mark).copied().unwrap_or(100)
    }

    /// Leaf blocks in the scenario (combinators count their parts).
    pub fn size(&self) -> usize {
        self.blocks.iter().map(Block::size).sum()
    }

    /// Every block kind the scenario uses.
    pub fn kinds(&self) -> std::collections::BTreeSet<&'static str> {
        let mut out = std::collections::BTreeSet::new();
        self.blocks.iter().for_each(|b| b.kinds(&mut out));
        out
    }

    /// Checks every block can run; the error names the block and what to change.
    pub fn validate(&self) -> Result<(), String> {
        self.job.validate().map_err(|e| format!("scenario {:?}: {e}", self.name))?;
        for (i, b) in self.blocks.iter().enumerate() {
            b.validate().map_err(|e| format!("scenario {:?}, block {i} ({}): {e}", self.name, b.to_rust()))?;
        }
        for m in self.requires.iter().chain(self.given.values()) {
            if !MARKS.iter().any(|(k, _)| k == m) {
                return Err(format!("scenario {:?} requires unknown coverage mark {m:?}", self.name));
            }
        }
        Ok(())
    }

    /// The Rust code that builds this scenario (paste it into a test with
    /// `use connsim_scenarios::prelude::*;`).
    pub fn to_rust(&self) -> String {
        let mut s = format!("Scenario::new({:?})", self.name);
        s.push_str(&self.job.to_rust());
        for b in &self.blocks {
            s.push_str(&format!("\n    .then({})", b.to_rust()));
        }
        for m in &self.requires {
            match (self.shares.get(m), self.given.get(m)) {
                (Some(p), Some(g)) => s.push_str(&format!("\n    .requires_where({m:?}, {p}, {g:?})")),
                (Some(p), None) => s.push_str(&format!("\n    .requires_on({m:?}, {p})")),
                (None, _) => s.push_str(&format!("\n    .requires({m:?})")),
            }
        }
        s
    }

    /// Runs the scenario over the runner's seeds (its testbed and configuration). Cases saved
    /// under [`Scenario::run_saving`]'s directory rerun first; `CONNSIM_REPLAY=<file>` runs
    /// only that saved case.
    pub fn run<T: AnyTestbed + ?Sized>(&self, runner: &mut Runner<T>) -> ScenarioOutcome {
        self.run_inner(runner, None, false)
    }

    /// As [`Scenario::run`], and every failing seed is saved as a case file in `dir` (commit
    /// it, like proptest-regressions); saved cases of this scenario and testbed in `dir` rerun
    /// before the seeds.
    pub fn run_saving<T: AnyTestbed + ?Sized>(
        &self,
        runner: &mut Runner<T>,
        dir: impl Into<PathBuf>,
    ) -> ScenarioOutcome {
        self.run_inner(runner, Some(dir.into()), true)
    }

    /// As [`Scenario::run`], after the cases of this scenario and testbed saved in `dir`
    /// (whoever saves them: a suite saves only each check's minimal case).
    pub fn run_after_saved<T: AnyTestbed + ?Sized>(
        &self,
        runner: &mut Runner<T>,
        dir: impl Into<PathBuf>,
    ) -> ScenarioOutcome {
        self.run_inner(runner, Some(dir.into()), false)
    }

    fn run_inner<T: AnyTestbed + ?Sized>(
        &self,
        runner: &mut Runner<T>,
        dir: Option<PathBuf>,
        save: bool,
    ) -> ScenarioOutcome {
        if let Err(e) = self.validate() {
            panic!("{e}");
        }
        let mut applied = runner.run_config().clone();
        self.job.apply(&mut applied);
        if let Some(problem) = applied.job.problem() {
            panic!(
                "scenario {:?}: its job settings over the runner's make a job that cannot run: {problem}",
                self.name
            );
        }
        let testbed = runner.testbed_name();
        if let Some(path) = replay::env_file() {
            let case = CaseFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
            let report = case.replay(runner);
            return ScenarioOutcome {
                scenario: case.scenario.clone(),
                outcome: Outcome::of(vec![report]),
                saved: Vec::new(),
                rerun: 1,
            };
        }
        let mut reports = Vec::new();
        let mut rerun = 0;
        // `CONNSIM_SEED` runs exactly that seed: saved cases wait.
        let rerun_saved = dir.as_ref().filter(|_| runner.env().seed.is_none());
        if let Some(dir) = rerun_saved {
            for case in CaseFile::load_dir(dir).unwrap_or_else(|e| panic!("{e}")) {
                if case.scenario.name == self.name && case.testbed == testbed {
                    rerun += 1;
                    reports.push(case.replay(runner));
                }
            }
        }
        runner.script(Arc::new(self.clone()));
        let mut outcome = runner.run();
        let mut saved = Vec::new();
        if let Some(dir) = dir.as_ref().filter(|_| save) {
            for r in outcome.failures() {
                match CaseFile::from_report(self, r).save(dir) {
                    Ok(path) => {
                        replay::save_timeline(&path, r);
                        saved.push(path)
                    }
                    Err(e) => eprintln!("{e}"),
                }
            }
        }
        reports.append(&mut outcome.reports);
        outcome.reports = reports;
        ScenarioOutcome { scenario: self.clone(), outcome, saved, rerun }
    }
}

impl Script for Scenario {
    fn describe(&self) -> String {
        self.to_rust()
    }
    fn configure(&self, config: &mut connsim::run::RunConfig) {
        self.job.apply(config);
    }
    fn drive<'a>(&'a self, control: &'a connsim::run::Control) -> ScriptFuture<'a> {
        Box::pin(async move {
            for b in &self.blocks {
                b.run(control).await;
            }
        })
    }
}

/// What running a scenario gave.
pub struct ScenarioOutcome {
    /// The scenario.
    pub scenario: Scenario,
    /// The reports (saved cases first, then the seeds).
    pub outcome: Outcome,
    /// Case files written for failing seeds.
    pub saved: Vec<PathBuf>,
    /// How many saved cases reran.
    pub rerun: usize,
}

impl ScenarioOutcome {
    /// Panics with the first failure's report unless every seed passed, the runs were
    /// deterministic, and every mark the scenario requires was reached.
    pub fn assert_ok(&self) {
        self.outcome.assert_ok();
        self.assert_reached();
    }

    /// Panics unless every mark the scenario requires was reached by some seed (a mark
    /// required only where another was reached, if some seed reached that one).
    pub fn assert_reached(&self) {
        let reached = |m: &str| self.outcome.reports.iter().any(|r| r.marks.iter().any(|x| x == m));
        let applies = |m: &&str| self.scenario.given_of(m).is_none_or(reached);
        let marks: Vec<&str> = self.scenario.requires.iter().map(String::as_str).filter(applies).collect();
        self.outcome.assert_reached(&marks);
    }

    /// Reports of failed seeds.
    pub fn failures(&self) -> Vec<&RunReport> {
        self.outcome.failures()
    }
}

/// Whether `block` lets messages straggle anywhere inside it.
fn straggles(block: &Block) -> bool {
    block.any_fault(&|f| matches!(f, crate::block::Fault::Straggle { .. }))
}

/// Whether `block` holds messages anywhere inside it.
fn holds(block: &Block) -> bool {
    block.any_fault(&|f| matches!(f, crate::block::Fault::Hold { .. }))
}

/// Whether `block` delays messages anywhere inside it.
fn delays(block: &Block) -> bool {
    block.any_fault(&|f| matches!(f, crate::block::Fault::Delay { .. }))
}
