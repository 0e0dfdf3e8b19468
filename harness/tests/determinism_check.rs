//! The determinism self-check fails when connector code leaks state between runs — here a
//! process-wide counter that shapes fetch timing, something the simulator cannot intercept.

use connsim::api::{
    Boundedness, EnumeratorContext, FetchedBatch, FetcherMode, ReaderContext, Source, SourceReaderBase, SplitReader,
    SplitsChange,
};
use connsim::probes::{CollectorSetup, GenSplit, GeneratorEmitter, GeneratorReader, GeneratorSetup, GeneratorSource, GeneratorState};
use connsim::run::FaultConfig;
use connsim::{ConnectorError, Pipeline, Record, Runner, SourceSetup, World};
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

#[derive(Clone)]
struct LeakySource(GeneratorSource);

impl Source for LeakySource {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = <GeneratorSource as Source>::Enumerator;
    type Reader = SourceReaderBase<Leaky, GeneratorEmitter>;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Self::Enumerator {
        self.0.create_enumerator(ctx)
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<GenSplit>, s: GeneratorState) -> Self::Enumerator {
        self.0.restore_enumerator(ctx, s)
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        let data = self.0.data();
        SourceReaderBase::new(ctx, move || Leaky(GeneratorReader::new(data.clone())), GeneratorEmitter, FetcherMode::Single)
    }
}

struct LeakySetup;

impl SourceSetup for LeakySetup {
    type Source = LeakySource;
    fn name(&self) -> String {
        "leaky".into()
    }
    fn build(&self, world: &mut World) -> LeakySource {
        LeakySource(GeneratorSetup { splits: 4, records_per_split: 100, ..Default::default() }.build(world))
    }
}

#[test]
fn state_leaking_between_runs_is_reported_as_nondeterminism() {
    let mut r = Runner::new(Pipeline(LeakySetup, CollectorSetup));
    r.seeds(5).jobs(1).check_determinism(true).configure(|c| c.faults = FaultConfig::none());
    let out = r.run();
    assert!(out.failures().is_empty(), "the runs themselves are correct");
    assert!(!out.nondeterministic.is_empty(), "the determinism check must notice");
    let msg = std::panic::catch_unwind(|| out.assert_ok()).unwrap_err();
    let msg = msg.downcast_ref::<String>().unwrap();
    assert!(msg.contains("is not deterministic") && msg.contains("CONNSIM_SEED="), "{msg}");
}
