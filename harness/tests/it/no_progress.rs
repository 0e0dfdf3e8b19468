//! A connector that never makes progress is a liveness verdict, not a hung test.

use crate::common::{FromData, WithReaderSetup};
use connsim::api::{FetchedBatch, SplitReader, SplitsChange};
use connsim::probes::{CollectorSetup, GenSplit, GeneratorSetup};
use connsim::run::FaultConfig;
use connsim::{ConnectorError, Pipeline, Record, Runner};

/// A split reader that never finds anything.
struct NeverReads;

impl SplitReader for NeverReads {
    type Split = GenSplit;
    type Element = (u64, Record);
    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        Ok(FetchedBatch::empty())
    }
    fn handle_splits_changes(&mut self, _change: SplitsChange<GenSplit>) {}
}

impl FromData for NeverReads {
    fn from_data(_: std::sync::Arc<Vec<Vec<Record>>>) -> Self {
        NeverReads
    }
}

fn stalled() -> Runner<Pipeline<WithReaderSetup<NeverReads>, CollectorSetup>> {
    Runner::new(Pipeline(
        WithReaderSetup {
            name: "stalled",
            generator: GeneratorSetup { splits: 4, records_per_split: 10, ..Default::default() },
            reader: std::marker::PhantomData::<fn() -> NeverReads>,
        },
        CollectorSetup,
    ))
}

#[test]
fn a_connector_that_never_makes_progress_is_reported_stuck() {
    let mut r = stalled();
    r.seeds(2).configure(|c| {
        c.faults = FaultConfig::none();
        c.liveness_ms = 3_000;
    });
    let out = r.run();
    assert_eq!(out.failures().len(), 2);
    let v = out.reports[0].verdict("liveness").unwrap();
    assert!(v.summary.contains("did not finish within 3000 ms"), "{v:?}");
    assert!(out.reports[0].verdict("no-loss").is_some_and(|l| !l.passed));
}

#[test]
fn of_many_seeds_failing_alike_only_the_lowest_keeps_its_whole_history() {
    let mut r = stalled();
    r.seeds(5).first_seed(3).jobs(2).configure(|c| {
        c.faults = FaultConfig::none();
        c.liveness_ms = 1_000;
    });
    let out = r.run();
    assert_eq!(out.failures().len(), 5);
    let kept: Vec<u64> = out.reports.iter().filter(|r| !r.history.is_empty()).map(|r| r.seed).collect();
    assert_eq!(kept, vec![3], "one history per set of failed checks, the lowest seed's");
    for r in &out.reports {
        assert!(r.verdict("liveness").is_some_and(|v| !v.passed), "every report keeps its verdicts");
        assert!(!r.timeline.is_empty() && r.replay.contains(&r.seed.to_string()));
    }
}
