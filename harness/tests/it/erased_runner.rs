//! `Runner::erased` runs a testbed exactly as `Runner::new` does: same seeds, same histories,
//! same verdicts, failures included.

use crate::common::{DropsThird, WithReaderSetup};
use connsim::probes::{CollectorSetup, GeneratorSetup};
use connsim::run::{AnyTestbed, Outcome};
use connsim::{Pipeline, Runner};

fn testbed() -> Pipeline<GeneratorSetup, CollectorSetup> {
    Pipeline(GeneratorSetup { splits: 4, records_per_split: 200, ..Default::default() }, CollectorSetup)
}

fn lossy() -> Pipeline<WithReaderSetup<DropsThird>, CollectorSetup> {
    Pipeline(
        WithReaderSetup {
            name: "drops-third",
            generator: GeneratorSetup { splits: 4, records_per_split: 200, ..Default::default() },
            reader: std::marker::PhantomData::<fn() -> DropsThird>,
        },
        CollectorSetup,
    )
}

/// Per seed: the history hash, the failed checks and the coverage marks reached.
type Fingerprint = Vec<(u64, u64, Vec<String>, Vec<String>)>;

fn fingerprint(out: &Outcome) -> Fingerprint {
    let failed = |r: &connsim::RunReport| r.failed_checks().iter().map(|c| c.to_string()).collect();
    out.reports.iter().map(|r| (r.seed, r.history_hash, failed(r), r.marks.clone())).collect()
}

/// Six seeds whatever `CONNSIM_SEEDS` says (`CONNSIM_SEED` pins one, for a replay).
fn configured<T: AnyTestbed + ?Sized>(mut r: Runner<T>) -> Outcome {
    r.seeds(6).jobs(2).ignore_env_seeds();
    let out = r.run();
    assert_eq!(out.reports.len(), if r.env().seed.is_some() { 1 } else { 6 });
    out
}

#[test]
fn an_erased_runner_runs_every_seed_as_the_typed_runner_does() {
    let typed = configured(Runner::new(testbed()));
    let erased = configured(Runner::erased(testbed()));
    assert_eq!(fingerprint(&typed), fingerprint(&erased));
    assert!(typed.failures().is_empty(), "{}", typed.summary());
    assert_eq!(Runner::new(testbed()).testbed_name(), Runner::erased(testbed()).testbed_name());
}

#[test]
fn an_erased_runner_fails_the_seeds_the_typed_runner_fails() {
    let typed = configured(Runner::new(lossy()));
    let erased = configured(Runner::erased(lossy()));
    assert!(!typed.failures().is_empty(), "{}", typed.summary());
    assert_eq!(fingerprint(&typed), fingerprint(&erased));
}
