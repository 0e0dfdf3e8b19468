//! The determinism self-check fails when connector code leaks state between runs — here a
//! process-wide counter that shapes fetch timing, something the simulator cannot intercept.

use crate::common::{FromData, WithReaderSetup};
use connsim::api::{FetchedBatch, SplitReader, SplitsChange};
use connsim::probes::{CollectorSetup, GenSplit, GeneratorReader, GeneratorSetup};
use connsim::run::FaultConfig;
use connsim::{ConnectorError, Pipeline, Record, Runner};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

static FETCHES: AtomicU64 = AtomicU64::new(0);

/// The generator's split reader, pausing a little longer on some fetches depending on how
/// many fetches this *process* has made so far.
struct Leaky(GeneratorReader);

impl SplitReader for Leaky {
    type Split = GenSplit;
    type Element = (u64, Record);
    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        let n = FETCHES.fetch_add(1, Ordering::Relaxed);
        madsim::time::sleep(Duration::from_millis(1 + n % 3)).await;
        self.0.fetch().await
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<GenSplit>) {
        self.0.handle_splits_changes(change)
    }
}

impl FromData for Leaky {
    fn from_data(data: std::sync::Arc<Vec<Vec<Record>>>) -> Self {
        Leaky(GeneratorReader::new(data))
    }
}

#[test]
fn state_leaking_between_runs_is_reported_as_nondeterminism() {
    let mut r = Runner::new(Pipeline(
        WithReaderSetup {
            name: "leaky",
            generator: GeneratorSetup { splits: 4, records_per_split: 100, ..Default::default() },
            reader: std::marker::PhantomData::<fn() -> Leaky>,
        },
        CollectorSetup,
    ));
    r.seeds(5).jobs(1).check_determinism(true).configure(|c| c.faults = FaultConfig::none());
    let out = r.run();
    assert!(out.failures().is_empty(), "the runs themselves are correct");
    assert!(!out.nondeterministic.is_empty(), "the determinism check must notice");
    let msg = std::panic::catch_unwind(|| out.assert_ok()).unwrap_err();
    let msg = msg.downcast_ref::<String>().unwrap();
    assert!(msg.contains("is not deterministic") && msg.contains("CONNSIM_SEED="), "{msg}");
}
