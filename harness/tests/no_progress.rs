//! A connector that never makes progress is a liveness verdict, not a hung test.

use connsim::api::{
    Boundedness, EnumeratorContext, FetchedBatch, FetcherMode, ReaderContext, Source, SourceReaderBase, SplitReader,
    SplitsChange,
};
use connsim::probes::{CollectorSetup, GenSplit, GeneratorSetup, GeneratorSource, GeneratorState};
use connsim::run::FaultConfig;
use connsim::{ConnectorError, Pipeline, Record, Runner, SourceSetup, World};

/// The generator's enumerator, but a split reader that never finds anything.
#[derive(Clone)]
struct Stalled(GeneratorSource);

struct NeverReads;

impl SplitReader for NeverReads {
    type Split = GenSplit;
    type Element = (u64, Record);
    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        Ok(FetchedBatch::empty())
    }
    fn handle_splits_changes(&mut self, _change: SplitsChange<GenSplit>) {}
}

impl Source for Stalled {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = <GeneratorSource as Source>::Enumerator;
    type Reader = SourceReaderBase<NeverReads, connsim::probes::GeneratorEmitter>;
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
        SourceReaderBase::new(ctx, || NeverReads, connsim::probes::GeneratorEmitter, FetcherMode::Single)
    }
}

struct StalledSetup;

impl SourceSetup for StalledSetup {
    type Source = Stalled;
    fn name(&self) -> String {
        "stalled".into()
    }
    fn build(&self, world: &mut World) -> Stalled {
        Stalled(GeneratorSetup { splits: 4, records_per_split: 10, ..Default::default() }.build(world))
    }
}

#[test]
fn a_connector_that_never_makes_progress_is_reported_stuck() {
    let mut r = Runner::new(Pipeline(StalledSetup, CollectorSetup));
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
