//! Watermark alignment through the runtime: with one fetcher per split, every fetcher hears
//! only of pauses of the split its split reader holds (a reader that rejects a pause of a
//! split it does not hold, as Kafka's consumer does, passes); and a reader that cannot pause
//! fails the job with a message saying what to implement, instead of letting its splits
//! drift apart unseen.

use connsim::api::{
    Boundedness, EnumeratorContext, FetchedBatch, FetcherMode, InputStatus, ReaderContext, ReaderOutput, Source,
    SourceReader, SourceReaderBase, Split, SplitId, SplitReader, SplitsChange, WatermarkStrategy,
};
use connsim::history::CheckpointId;
use connsim::probes::{
    CollectorSetup, GenSplit, GeneratorEmitter, GeneratorReader, GeneratorSetup, GeneratorSource, GeneratorState,
};
use connsim::{ConnectorError, Outcome, Pipeline, Runner, SourceSetup, World};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

fn aligned() -> WatermarkStrategy {
    WatermarkStrategy::monotonous().with_idleness(100).with_interval(20).with_alignment(20, 20)
}

/// Fetches nothing of a paused split, and fails the job if told to pause or resume a split
/// it does not hold.
struct StrictReader {
    inner: GeneratorReader,
    held: BTreeSet<SplitId>,
    paused: BTreeSet<SplitId>,
    wrong: Option<String>,
}

impl SplitReader for StrictReader {
    type Split = GenSplit;
    type Element = (u64, connsim::Record);
    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, connsim::Record)>, ConnectorError> {
        if let Some(wrong) = &self.wrong {
            return Err(ConnectorError::fail_job(wrong.clone()));
        }
        if self.held.iter().all(|s| self.paused.contains(s)) {
            madsim::time::sleep(std::time::Duration::from_millis(2)).await;
            return Ok(FetchedBatch::empty());
        }
        let batch = self.inner.fetch().await?;
        for split in &batch.finished {
            self.held.remove(split);
        }
        Ok(batch)
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<GenSplit>) {
        match change {
            SplitsChange::Add(splits) => {
                self.held.extend(splits.iter().map(Split::id));
                self.inner.handle_splits_changes(SplitsChange::Add(splits));
            }
            SplitsChange::PauseResume { pause, resume } => {
                if let Some(s) = pause.iter().chain(&resume).find(|s| !self.held.contains(*s)) {
                    self.wrong
                        .get_or_insert(format!("told to pause or resume {s}, which this split reader does not hold"));
                }
                self.paused.extend(pause);
                for split in resume {
                    self.paused.remove(&split);
                }
            }
        }
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct PerSplit(GeneratorSource);

impl Source for PerSplit {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = <GeneratorSource as Source>::Enumerator;
    type Reader = SourceReaderBase<StrictReader, GeneratorEmitter>;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Self::Enumerator {
        self.0.create_enumerator(ctx)
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<GenSplit>, s: GeneratorState) -> Self::Enumerator {
        self.0.restore_enumerator(ctx, s)
    }
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        Some(aligned())
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        let data = self.0.data();
        let new = move || StrictReader {
            inner: GeneratorReader::paced(data.clone(), 600, false),
            held: BTreeSet::new(),
            paused: BTreeSet::new(),
            wrong: None,
        };
        SourceReaderBase::new(ctx, new, GeneratorEmitter, FetcherMode::PerSplit)
    }
}

/// The generator's reader behind a wrapper that does not pass pauses on (the default).
struct Unpausable(<GeneratorSource as Source>::Reader);

impl SourceReader for Unpausable {
    type Split = GenSplit;
    async fn start(&mut self) -> Result<(), ConnectorError> {
        self.0.start().await
    }
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
        self.0.poll_next(output)
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
    async fn close(&mut self) {
        self.0.close().await
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct NoPause(GeneratorSource);

impl Source for NoPause {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = <GeneratorSource as Source>::Enumerator;
    type Reader = Unpausable;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Self::Enumerator {
        self.0.create_enumerator(ctx)
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<GenSplit>, s: GeneratorState) -> Self::Enumerator {
        self.0.restore_enumerator(ctx, s)
    }
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        Some(aligned())
    }
    fn create_reader(&self, ctx: ReaderContext) -> Unpausable {
        Unpausable(self.0.create_reader(ctx))
    }
}

struct Setup<F>(&'static str, F);

impl<S: Source, F: Fn(GeneratorSource) -> S + Send + Sync + 'static> SourceSetup for Setup<F> {
    type Source = S;
    fn name(&self) -> String {
        self.0.into()
    }
    fn build(&self, world: &mut World) -> S {
        // Split k holds ids k × 150 onwards: the splits' event times lie far apart.
        (self.1)(GeneratorSetup { splits: 8, records_per_split: 150, pace_ms: 600, ..Default::default() }.build(world))
    }
}

fn run<S: Source>(name: &'static str, wrap: fn(GeneratorSource) -> S, seeds: u64) -> Outcome {
    let mut r = Runner::new(Pipeline(Setup(name, wrap), CollectorSetup));
    r.seeds(seeds);
    r.run()
}

#[test]
fn one_fetcher_per_split_hears_only_of_its_own_splits_pauses() {
    let out = run("per-split fetchers, aligned", PerSplit, 30);
    out.assert_ok();
    out.assert_reached(&["split-paused", "split-resumed", "restore-from-checkpoint"]);
    for r in &out.reports {
        let v = r.verdict("watermark-alignment").expect("the check ran");
        assert!(v.summary.contains("no paused split was read") && !v.summary.contains("could not be judged"), "{v:?}");
    }
}

#[test]
fn a_reader_that_cannot_pause_fails_the_job_saying_what_to_implement() {
    let out = run("a reader without pause, aligned", NoPause, 1);
    let report = &out.reports[0];
    let v = report.verdict("liveness").expect("the check ran");
    assert!(!v.passed, "{report}");
    let all = format!("{} {}", v.summary, v.evidence.join(" "));
    assert!(all.contains("does not support pausing splits") && all.contains("pause_or_resume_splits"), "{v:?}");
}
