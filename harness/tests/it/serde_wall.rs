//! The serde wall: what a connector hands the runtime to keep is encoded and decoded at once,
//! so a serializer that drops a field fails the first checkpoint of a run that never restores.

use connsim::api::{
    Boundedness, EnumeratorContext, EnumeratorState, InputStatus, ReaderContext, ReaderOutput, Source, SourceReader,
    Split, SplitEnumerator, SplitId,
};
use connsim::history::CheckpointId;
use connsim::probes::CollectorSetup;
use connsim::run::FaultConfig;
use connsim::{Pipeline, Record, Runner, SourceSetup, World};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Pending(Vec<ForgetfulSplit>);

impl EnumeratorState for Pending {
    fn pending_splits(&self) -> Vec<SplitId> {
        self.0.iter().map(Split::id).collect()
    }
}

#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct ForgetfulSource {
    data: Arc<Vec<Vec<Record>>>,
}

struct Enumerator(Vec<ForgetfulSplit>);

impl SplitEnumerator for Enumerator {
    type Split = ForgetfulSplit;
    type State = Pending;
    fn add_splits_back(&mut self, splits: Vec<ForgetfulSplit>, _: usize, ctx: &mut EnumeratorContext<ForgetfulSplit>) {
        self.0.extend(splits);
        self.assign(ctx);
    }
    fn add_reader(&mut self, _: usize, ctx: &mut EnumeratorContext<ForgetfulSplit>) {
        self.assign(ctx);
    }
    fn snapshot_state(&mut self, _: CheckpointId) -> Pending {
        Pending(self.0.clone())
    }
}

impl Enumerator {
    fn assign(&mut self, ctx: &mut EnumeratorContext<ForgetfulSplit>) {
        for reader in ctx.registered_readers().clone() {
            let (mine, rest): (Vec<_>, Vec<_>) =
                std::mem::take(&mut self.0).into_iter().partition(|s| s.index % ctx.parallelism() == reader);
            self.0 = rest;
            ctx.assign_splits(reader, mine);
            ctx.signal_no_more_splits(reader);
        }
    }
}

/// Emits one record per poll, a millisecond apart.
struct Reader {
    data: Arc<Vec<Vec<Record>>>,
    splits: Vec<ForgetfulSplit>,
    done: bool,
}

impl SourceReader for Reader {
    type Split = ForgetfulSplit;
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, connsim::ConnectorError> {
        let Some(split) = self.splits.iter_mut().find(|s| s.next < self.data[s.index].len()) else {
            return Ok(if self.done { InputStatus::EndOfInput } else { InputStatus::NothingAvailable });
        };
        output.collect(self.data[split.index][split.next].clone());
        split.next += 1;
        if split.next == self.data[split.index].len() {
            output.split_finished(split.id());
        }
        Ok(InputStatus::NothingAvailable)
    }
    async fn available(&mut self) {
        madsim::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    fn add_splits(&mut self, splits: Vec<ForgetfulSplit>) {
        self.splits.extend(splits);
    }
    fn notify_no_more_splits(&mut self) {
        self.done = true;
    }
    fn snapshot_state(&mut self, _: CheckpointId) -> Vec<ForgetfulSplit> {
        let data = &self.data;
        self.splits.iter().filter(|s| s.next < data[s.index].len()).cloned().collect()
    }
}

impl Source for ForgetfulSource {
    type Split = ForgetfulSplit;
    type EnumState = Pending;
    type Enumerator = Enumerator;
    type Reader = Reader;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, _: &EnumeratorContext<ForgetfulSplit>) -> Enumerator {
        Enumerator((0..self.data.len()).map(|index| ForgetfulSplit { index, next: 0 }).collect())
    }
    fn restore_enumerator(&self, _: &EnumeratorContext<ForgetfulSplit>, state: Pending) -> Enumerator {
        Enumerator(state.0)
    }
    fn create_reader(&self, _: ReaderContext) -> Reader {
        Reader { data: self.data.clone(), splits: Vec::new(), done: false }
    }
}

struct ForgetfulSetup;

impl SourceSetup for ForgetfulSetup {
    type Source = ForgetfulSource;
    fn name(&self) -> String {
        "forgetful-split source".into()
    }
    fn build(&self, world: &mut World) -> ForgetfulSource {
        let mut data = Vec::new();
        for index in 0..4 {
            let split: Vec<Record> = (0..400).map(|pos| world.new_record(pos, vec![index as u8])).collect();
            for (pos, r) in split.iter().enumerate() {
                world.history().record_produced("source", r, &format!("f-{index}"), pos as u64);
            }
            data.push(split);
        }
        ForgetfulSource { data: Arc::new(data) }
    }
}

#[test]
fn a_split_serializer_that_drops_a_field_fails_the_first_checkpoint_without_any_restore() {
    let mut r = Runner::new(Pipeline(ForgetfulSetup, CollectorSetup));
    r.seeds(1).configure(|c| c.faults = FaultConfig::none());
    let report = r.run().reports.remove(0);
    let v = report.verdict("liveness").unwrap();
    assert!(!v.passed, "{report}");
    assert!(v.summary.contains("the reader's split state did not survive a serde round trip"), "{v:?}");
    assert!(v.summary.contains("next:") && v.summary.contains("next: 0"), "{v:?}");
    assert_eq!(report.stats.crashes, 0, "no fault, no restore: {report}");
    assert!(!report.marks.iter().any(|m| m == "restore-from-checkpoint"), "{report}");
}
