//! The serde wall: what a connector hands the runtime to keep is encoded and decoded at once,
//! and the runtime goes on with the decoded value. A field left out of the serialized form on
//! purpose (a cache the connector rebuilds) is no failure; a field whose loss matters (a
//! split's progress) shows in the checks as soon as a run restores.

use connsim::api::{
    Boundedness, EnumeratorContext, EnumeratorState, InputStatus, ReaderContext, ReaderOutput, Source, SourceReader,
    Split, SplitEnumerator, SplitId,
};
use connsim::history::CheckpointId;
use connsim::probes::CollectorSetup;
use connsim::{Pipeline, Record, Runner, SourceSetup, World};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;

/// A split of the test source: which data it is and how far it was read.
trait TestSplit: Split + Clone + Debug + Serialize + DeserializeOwned {
    fn new(index: usize) -> Self;
    fn index(&self) -> usize;
    fn next(&self) -> usize;
    /// Moves on by one record; the split's cache (if any) is rebuilt when missing.
    fn advance(&mut self);
}

/// A split whose progress the serializer forgets (`skip`): fine while it is assigned (it
/// starts at 0), wrong in every snapshot.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct ForgetfulSplit {
    index: usize,
    #[serde(skip)]
    next: usize,
}

impl Split for ForgetfulSplit {
    fn id(&self) -> SplitId {
        format!("f-{}", self.index)
    }
}

impl TestSplit for ForgetfulSplit {
    fn new(index: usize) -> Self {
        Self { index, next: 0 }
    }
    fn index(&self) -> usize {
        self.index
    }
    fn next(&self) -> usize {
        self.next
    }
    fn advance(&mut self) {
        self.next += 1;
    }
}

/// A split that keeps its progress and leaves a cache out of its serialized form on purpose,
/// rebuilding it when it finds it missing (after any round trip).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct CachingSplit {
    index: usize,
    next: usize,
    #[serde(skip)]
    label: Option<String>,
}

impl Split for CachingSplit {
    fn id(&self) -> SplitId {
        format!("f-{}", self.index)
    }
}

impl TestSplit for CachingSplit {
    fn new(index: usize) -> Self {
        Self { index, next: 0, label: None }
    }
    fn index(&self) -> usize {
        self.index
    }
    fn next(&self) -> usize {
        self.next
    }
    fn advance(&mut self) {
        let label = self.label.get_or_insert_with(|| format!("split {}", self.index));
        assert!(label.starts_with("split "));
        self.next += 1;
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
struct Pending<S: TestSplit>(Vec<S>);

impl<S: TestSplit> EnumeratorState for Pending<S> {
    fn pending_splits(&self) -> Vec<SplitId> {
        self.0.iter().map(Split::id).collect()
    }
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
#[serde(bound = "")]
struct TestSource<S> {
    data: Arc<Vec<Vec<Record>>>,
    split: PhantomData<S>,
}

struct Enumerator<S>(Vec<S>);

impl<S: TestSplit> SplitEnumerator for Enumerator<S> {
    type Split = S;
    type State = Pending<S>;
    fn add_splits_back(&mut self, splits: Vec<S>, _: usize, ctx: &mut EnumeratorContext<S>) {
        self.0.extend(splits);
        self.assign(ctx);
    }
    fn add_reader(&mut self, _: usize, ctx: &mut EnumeratorContext<S>) {
        self.assign(ctx);
    }
    fn snapshot_state(&mut self, _: CheckpointId) -> Pending<S> {
        Pending(self.0.clone())
    }
}

impl<S: TestSplit> Enumerator<S> {
    fn assign(&mut self, ctx: &mut EnumeratorContext<S>) {
        for reader in ctx.registered_readers().clone() {
            let (mine, rest): (Vec<_>, Vec<_>) =
                std::mem::take(&mut self.0).into_iter().partition(|s| s.index() % ctx.parallelism() == reader);
            self.0 = rest;
            ctx.assign_splits(reader, mine);
            ctx.signal_no_more_splits(reader);
        }
    }
}

/// Emits one record per poll, a millisecond apart.
struct Reader<S> {
    data: Arc<Vec<Vec<Record>>>,
    splits: Vec<S>,
    done: bool,
}

impl<S: TestSplit> SourceReader for Reader<S> {
    type Split = S;
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, connsim::ConnectorError> {
        let Some(split) = self.splits.iter_mut().find(|s| s.next() < self.data[s.index()].len()) else {
            return Ok(if self.done { InputStatus::EndOfInput } else { InputStatus::NothingAvailable });
        };
        output.collect(self.data[split.index()][split.next()].clone());
        split.advance();
        if split.next() == self.data[split.index()].len() {
            output.split_finished(split.id());
        }
        Ok(InputStatus::NothingAvailable)
    }
    async fn available(&mut self) {
        madsim::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    fn add_splits(&mut self, splits: Vec<S>) {
        self.splits.extend(splits);
    }
    fn notify_no_more_splits(&mut self) {
        self.done = true;
    }
    fn snapshot_state(&mut self, _: CheckpointId) -> Vec<S> {
        let data = &self.data;
        self.splits.iter().filter(|s| s.next() < data[s.index()].len()).cloned().collect()
    }
}

impl<S: TestSplit> Source for TestSource<S> {
    type Split = S;
    type EnumState = Pending<S>;
    type Enumerator = Enumerator<S>;
    type Reader = Reader<S>;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, _: &EnumeratorContext<S>) -> Enumerator<S> {
        Enumerator((0..self.data.len()).map(S::new).collect())
    }
    fn restore_enumerator(&self, _: &EnumeratorContext<S>, state: Pending<S>) -> Enumerator<S> {
        Enumerator(state.0)
    }
    fn create_reader(&self, _: ReaderContext) -> Reader<S> {
        Reader { data: self.data.clone(), splits: Vec::new(), done: false }
    }
}

struct TestSetup<S>(PhantomData<S>);

impl<S: TestSplit> SourceSetup for TestSetup<S> {
    type Source = TestSource<S>;
    fn name(&self) -> String {
        format!("{} source", std::any::type_name::<S>().rsplit("::").next().unwrap_or("test"))
    }
    fn build(&self, world: &mut World) -> TestSource<S> {
        let mut data = Vec::new();
        for index in 0..4 {
            let split: Vec<Record> = (0..400).map(|pos| world.new_record(pos, vec![index as u8])).collect();
            for (pos, r) in split.iter().enumerate() {
                world.history().record_produced("source", r, &format!("f-{index}"), pos as u64);
            }
            data.push(split);
        }
        TestSource { data: Arc::new(data), split: PhantomData }
    }
}

fn run<S: TestSplit>(seeds: u64) -> Vec<connsim::run::RunReport> {
    let mut r = Runner::new(Pipeline(TestSetup::<S>(PhantomData), CollectorSetup));
    r.seeds(seeds);
    r.run().reports
}

#[test]
fn a_split_with_a_field_skipped_on_purpose_passes_through_crashes_and_restores() {
    let reports = run::<CachingSplit>(8);
    for report in &reports {
        assert!(report.passed(), "{report}");
    }
    assert!(reports.iter().any(|r| r.marks.iter().any(|m| m == "restore-from-checkpoint")), "no seed restored");
}

#[test]
fn a_split_serializer_that_drops_its_progress_is_caught_by_the_checks_once_a_run_restores() {
    let reports = run::<ForgetfulSplit>(8);
    let caught = reports.iter().find(|r| r.failed_checks().contains(&"no-duplicates"));
    let caught = caught.unwrap_or_else(|| panic!("no seed of 8 caught it: {}", reports[0]));
    assert!(caught.marks.iter().any(|m| m == "restore-from-checkpoint"), "{caught}");
    // Nothing claims the serializer is wrong before a restore: what is lost shows downstream.
    for report in &reports {
        let liveness = report.verdict("liveness").map(|v| v.summary.clone()).unwrap_or_default();
        assert!(!liveness.contains("serde round trip"), "{report}");
    }
}
