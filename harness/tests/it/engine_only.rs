//! A run without verification (`Verification::Off`, what `connsim bench --engine` runs):
//! the engine alone, with no history kept, no output read and no check run. It reports
//! whether the engine ran to its end, and nothing else.

use crate::common::{DropsThird, FromData, WithReaderSetup};
use connsim::api::{FetchedBatch, SplitReader, SplitsChange};
use connsim::probes::{CollectorSetup, GenSplit, GeneratorReader, GeneratorSetup};
use connsim::run::{Outcome, Verification};
use connsim::{ConnectorError, Pipeline, Record, RunConfig, Runner, Testbed};

fn verified(on: bool) -> RunConfig {
    RunConfig { verification: if on { Verification::Full } else { Verification::Off }, ..RunConfig::default() }
}

fn run<T: Testbed>(testbed: T, on: bool, seeds: u64) -> Outcome {
    let mut r = Runner::new(testbed);
    r.config(verified(on)).seeds(seeds).jobs(2).ignore_env_seeds();
    r.run()
}

fn generator(unbounded: bool) -> GeneratorSetup {
    GeneratorSetup { splits: 4, records_per_split: 200, unbounded, ..Default::default() }
}

/// The generator's split reader, failing the job on its second fetch.
struct FailsJob(GeneratorReader, u32);

impl SplitReader for FailsJob {
    type Split = GenSplit;
    type Element = (u64, Record);
    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        self.1 += 1;
        if self.1 == 2 {
            return Err(ConnectorError::fail_job("the second fetch fails the job"));
        }
        self.0.fetch().await
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<GenSplit>) {
        self.0.handle_splits_changes(change)
    }
}

impl FromData for FailsJob {
    fn from_data(data: std::sync::Arc<Vec<Vec<Record>>>) -> Self {
        FailsJob(GeneratorReader::new(data), 0)
    }
}

fn with_reader<R: FromData>(name: &'static str) -> Pipeline<WithReaderSetup<R>, CollectorSetup> {
    Pipeline(WithReaderSetup { name, generator: generator(false), reader: std::marker::PhantomData }, CollectorSetup)
}

#[test]
fn a_run_without_verification_keeps_no_history_and_gives_one_verdict() {
    let off = run(Pipeline(generator(false), CollectorSetup), false, 4);
    let on = run(Pipeline(generator(false), CollectorSetup), true, 4);
    for (off, on) in off.reports.iter().zip(&on.reports) {
        assert!(off.passed(), "{off}");
        let checks: Vec<&str> = off.verdicts.iter().map(|v| v.check.as_str()).collect();
        assert_eq!(checks, ["engine-ran"], "seed {}", off.seed);
        assert!(off.verdicts[0].summary.contains("no record was checked"), "{}", off.verdicts[0].summary);
        assert_eq!(off.stats.events, 0, "seed {}: nothing is kept", off.seed);
        // What the counters know: every record produced, checkpoints completed.
        assert_eq!(off.stats.produced, on.stats.produced, "seed {}", off.seed);
        assert!(off.stats.checkpoints_completed > 0, "seed {}", off.seed);
        assert!(off.history_hash != 0 && off.history_hash != on.history_hash, "seed {}", off.seed);
        assert!(off.marks.is_empty(), "seed {}: no history, no marks", off.seed);
        // The same seed with verification on keeps a history and runs every check.
        assert!(on.passed() && on.stats.events > 0 && on.verdicts.len() > 1, "{on}");
        // The engine ran the job to its end: it took virtual time, though none of the
        // settling after convergence that a verified run adds.
        assert!(off.stats.virtual_ms > 0 && off.stats.virtual_ms < on.stats.virtual_ms, "seed {}", off.seed);
    }
}

#[test]
fn a_run_without_verification_finds_no_lost_record() {
    // What the mode is for, and why it tests nothing: a reader losing records passes it.
    let on = run(with_reader::<DropsThird>("drops-third"), true, 6);
    let lossy: Vec<u64> =
        on.reports.iter().filter(|r| r.failed_checks().contains(&"no-loss")).map(|r| r.seed).collect();
    assert!(!lossy.is_empty(), "the lossy reader loses records on some seed:\n{}", on.summary());
    let off = run(with_reader::<DropsThird>("drops-third"), false, 6);
    for r in off.reports.iter().filter(|r| lossy.contains(&r.seed)) {
        assert!(r.passed(), "seed {}: verification is off, so nothing finds the loss\n{r}", r.seed);
    }
}

#[test]
fn a_run_without_verification_still_reports_a_failed_job() {
    let off = run(with_reader::<FailsJob>("fails-job"), false, 2);
    for r in &off.reports {
        assert_eq!(r.failed_checks(), ["engine-ran"], "{r}");
        assert!(r.verdicts[0].summary.contains("the second fetch fails the job"), "{}", r.verdicts[0].summary);
    }
}

#[test]
fn a_run_without_verification_refuses_an_unbounded_source_and_says_why() {
    let off = run(Pipeline(generator(true), CollectorSetup), false, 1);
    let r = &off.reports[0];
    assert_eq!(r.failed_checks(), ["engine-ran"], "{r}");
    let summary = &r.verdicts[0].summary;
    assert!(summary.contains("needs a bounded source") && summary.contains("turn verification on"), "{summary}");
}

#[test]
fn verification_is_left_out_of_a_saved_configuration_unless_it_is_off() {
    let full = serde_json::to_string(&RunConfig::default()).unwrap();
    assert!(!full.contains("verification"), "{full}");
    let off = serde_json::to_string(&verified(false)).unwrap();
    assert!(off.contains(r#""verification":"off""#), "{off}");
    let back: RunConfig = serde_json::from_str(&off).unwrap();
    assert_eq!(back.verification, Verification::Off);
    let back: RunConfig = serde_json::from_str(&full).unwrap();
    assert_eq!(back.verification, Verification::Full);
}

#[test]
fn a_run_without_verification_ends_at_the_same_instant_every_time() {
    // No history to hash: the virtual instant the run ended at, and the fingerprint over it
    // that stands in for the hash, are the same on every run of a seed.
    let ends = |o: &Outcome| o.reports.iter().map(|r| (r.seed, r.stats.virtual_ms, r.history_hash)).collect::<Vec<_>>();
    let first = run(Pipeline(generator(false), CollectorSetup), false, 4);
    let again = run(Pipeline(generator(false), CollectorSetup), false, 4);
    assert_eq!(ends(&first), ends(&again));
    assert!(ends(&first).windows(2).any(|w| w[0].1 != w[1].1 && w[0].2 != w[1].2), "seeds differ: {:?}", ends(&first));
}
