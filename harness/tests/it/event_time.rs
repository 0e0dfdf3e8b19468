//! Event time through the runtime: a reader that emits several records per poll and a
//! watermark of its own ahead of them gets no false late records, because each record is
//! counted in its split's watermark only as it goes out; the check judges real records.

use connsim::api::{
    Boundedness, EnumeratorContext, InputStatus, ReaderContext, ReaderOutput, Source, SourceReader, SplitId,
    WatermarkStrategy,
};
use connsim::history::CheckpointId;
use connsim::probes::{CollectorSetup, GenSplit, GeneratorSetup, GeneratorSource, GeneratorState};
use connsim::{ConnectorError, Pipeline, Runner, SourceSetup, World};

/// The generator, read four records per poll, each poll opening with a (low) watermark.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Batching(GeneratorSource);

struct BatchingReader(<GeneratorSource as Source>::Reader);

impl SourceReader for BatchingReader {
    type Split = GenSplit;
    async fn start(&mut self) -> Result<(), ConnectorError> {
        self.0.start().await
    }
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
        output.emit_watermark(0); // below every record: it only makes the runtime announce now
        let mut status = InputStatus::MoreAvailable;
        for _ in 0..4 {
            status = self.0.poll_next(output)?;
            if status != InputStatus::MoreAvailable {
                break;
            }
        }
        Ok(status)
    }
    async fn available(&mut self) {
        self.0.available().await
    }
    fn add_splits(&mut self, splits: Vec<GenSplit>) {
        self.0.add_splits(splits)
    }
    fn notify_no_more_splits(&mut self) {
        self.0.notify_no_more_splits()
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<GenSplit> {
        self.0.snapshot_state(checkpoint)
    }
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        self.0.pause_or_resume_splits(pause, resume)
    }
    async fn close(&mut self) {
        self.0.close().await
    }
}

impl Source for Batching {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = <GeneratorSource as Source>::Enumerator;
    type Reader = BatchingReader;
    fn boundedness(&self) -> Boundedness {
        self.0.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Self::Enumerator {
        self.0.create_enumerator(ctx)
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<GenSplit>, state: GeneratorState) -> Self::Enumerator {
        self.0.restore_enumerator(ctx, state)
    }
    fn create_reader(&self, ctx: ReaderContext) -> BatchingReader {
        BatchingReader(self.0.create_reader(ctx))
    }
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        Some(WatermarkStrategy::monotonous().with_interval(5))
    }
}

struct BatchingSetup(GeneratorSetup);

impl SourceSetup for BatchingSetup {
    type Source = Batching;
    fn name(&self) -> String {
        "generator, four records per poll, with watermarks".into()
    }
    fn build(&self, world: &mut World) -> Batching {
        Batching(self.0.build(world))
    }
}

#[test]
fn records_of_one_poll_after_a_connector_watermark_are_not_late() {
    let generator = GeneratorSetup { splits: 4, records_per_split: 200, pace_ms: 500, ..Default::default() };
    let mut runner = Runner::new(Pipeline(BatchingSetup(generator), CollectorSetup));
    runner.seeds(3);
    let outcome = runner.run();
    outcome.assert_ok();
    for r in &outcome.reports {
        let v = r.verdict("event-time").expect("the check ran");
        let judged: usize = v.summary.split_whitespace().find_map(|w| w.parse().ok()).unwrap_or(0);
        assert!(v.passed && judged > 0, "seed {}: {v:?}", r.seed);
        assert!(r.marks.iter().any(|m| m == "watermark-advanced"), "seed {}: {:?}", r.seed, r.marks);
    }
}
