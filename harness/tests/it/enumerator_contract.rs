//! An enumerator that breaks the assignment contract gets a clear job failure naming the
//! problem, never silent loss.

use connsim::api::{Boundedness, EnumeratorContext, ReaderContext, Source, SplitEnumerator};
use connsim::history::CheckpointId;
use connsim::probes::{CollectorSetup, GenSplit, GeneratorSetup, GeneratorSource, GeneratorState};
use connsim::run::FaultConfig;
use connsim::{Pipeline, Runner, SourceSetup, World};

#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
#[allow(clippy::enum_variant_names)]
enum Bug {
    AssignAfterNoMoreSplits,
    AssignToMissingSubtask,
    AssignToUnregistered,
}

/// Hands every split to the first reader that registers, after (or instead of) doing it right.
struct Broken {
    pending: Vec<GenSplit>,
    bug: Bug,
}

impl SplitEnumerator for Broken {
    type Split = GenSplit;
    type State = GeneratorState;
    fn add_splits_back(&mut self, splits: Vec<GenSplit>, _: usize, _: &mut EnumeratorContext<GenSplit>) {
        self.pending.extend(splits);
    }
    fn add_reader(&mut self, subtask: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        let splits = std::mem::take(&mut self.pending);
        match self.bug {
            Bug::AssignAfterNoMoreSplits => {
                ctx.signal_no_more_splits(subtask);
                ctx.assign_splits(subtask, splits);
            }
            Bug::AssignToMissingSubtask => ctx.assign_splits(ctx.parallelism(), splits),
            // The first reader to register triggers an assignment to the next one, which has not.
            Bug::AssignToUnregistered => ctx.assign_splits((subtask + 1) % ctx.parallelism(), splits),
        }
    }
    fn snapshot_state(&mut self, _: CheckpointId) -> GeneratorState {
        GeneratorState { pending: self.pending.clone() }
    }
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct BrokenSource(GeneratorSource, Bug);

impl Source for BrokenSource {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = Broken;
    type Reader = <GeneratorSource as Source>::Reader;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Broken {
        let mut inner = self.0.create_enumerator(ctx);
        Broken { pending: inner.snapshot_state(0).pending, bug: self.1 }
    }
    fn restore_enumerator(&self, _: &EnumeratorContext<GenSplit>, state: GeneratorState) -> Broken {
        Broken { pending: state.pending, bug: self.1 }
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        self.0.create_reader(ctx)
    }
}

struct BrokenSetup(Bug);

impl SourceSetup for BrokenSetup {
    type Source = BrokenSource;
    fn name(&self) -> String {
        "broken-enumerator".into()
    }
    fn build(&self, world: &mut World) -> BrokenSource {
        BrokenSource(GeneratorSetup { splits: 4, records_per_split: 50, ..Default::default() }.build(world), self.0)
    }
}

fn liveness_summary(bug: Bug) -> String {
    let mut r = Runner::new(Pipeline(BrokenSetup(bug), CollectorSetup));
    r.seeds(1).configure(|c| c.faults = FaultConfig::none());
    let out = r.run();
    out.reports[0].verdict("liveness").unwrap().summary.clone()
}

#[test]
fn assigning_after_no_more_splits_fails_the_job_with_a_clear_error() {
    let summary = liveness_summary(Bug::AssignAfterNoMoreSplits);
    assert!(summary.contains("job failed") && summary.contains("after signalling it no more splits"), "{summary}");
}

#[test]
fn assigning_to_a_subtask_that_does_not_exist_fails_the_job_with_a_clear_error() {
    let summary = liveness_summary(Bug::AssignToMissingSubtask);
    assert!(summary.contains("addressed subtask 4, but parallelism is 4"), "{summary}");
}

#[test]
fn assigning_to_a_reader_that_has_not_registered_fails_the_job_with_a_clear_error() {
    let summary = liveness_summary(Bug::AssignToUnregistered);
    assert!(summary.contains("which is not registered") && summary.contains("add_reader"), "{summary}");
}
