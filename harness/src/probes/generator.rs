//! The generator source: a fixed set of splits, each a sequence of pre-generated records,
//! read through [`SourceReaderBase`]. The records can be released over a span of virtual
//! time (`pace_ms`), so checkpoints and faults land while the input still flows, and the
//! source can be unbounded (it never ends; after its records it stays idle).

use crate::api::{
    Boundedness, EnumeratorContext, EnumeratorState, FetchedBatch, FetcherMode, ReaderContext, ReaderOutput,
    RecordEmitter, Source, SourceReaderBase, Split, SplitEnumerator, SplitId, SplitReader, SplitState, SplitsChange,
};
use crate::error::ConnectorError;
use crate::history::CheckpointId;
use crate::record::Record;
use crate::run::{SourceSetup, World};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

/// One generator split: records `next..end` of split `index`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenSplit {
    /// Which split.
    pub index: usize,
    /// Next position to emit.
    pub next: u64,
    /// One past the last position.
    pub end: u64,
}

impl Split for GenSplit {
    fn id(&self) -> SplitId {
        format!("gen-{}", self.index)
    }
    fn position(&self) -> Option<u64> {
        Some(self.next)
    }
}

/// The generator enumerator's state: splits not yet assigned.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GeneratorState {
    /// Unassigned splits.
    pub pending: Vec<GenSplit>,
}

impl EnumeratorState for GeneratorState {
    fn pending_splits(&self) -> Vec<SplitId> {
        self.pending.iter().map(Split::id).collect()
    }
}

/// The generator source.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct GeneratorSource {
    data: Arc<Vec<Vec<Record>>>,
    on_request: bool,
    pace_ms: u64,
    unbounded: bool,
}

/// Assigns split k to reader k mod parallelism once that reader registered, or, on
/// request, one split to whichever reader asks.
pub struct GeneratorEnumerator {
    pending: Vec<GenSplit>,
    on_request: bool,
    /// Unbounded: readers are never told there are no more splits.
    unbounded: bool,
    /// Readers told "no more splits" since they registered: they get nothing more.
    done: BTreeSet<usize>,
}

impl GeneratorEnumerator {
    fn assign(&mut self, ctx: &mut EnumeratorContext<GenSplit>) {
        if self.on_request {
            return;
        }
        let p = ctx.parallelism();
        let registered: BTreeSet<usize> = ctx.registered_readers().clone();
        for &reader in &registered {
            let (mine, rest): (Vec<_>, Vec<_>) =
                std::mem::take(&mut self.pending).into_iter().partition(|s| s.index % p == reader);
            self.pending = rest;
            ctx.assign_splits(reader, mine);
            if !self.unbounded {
                ctx.signal_no_more_splits(reader);
            }
        }
    }
}

impl SplitEnumerator for GeneratorEnumerator {
    type Split = GenSplit;
    type State = GeneratorState;
    fn add_splits_back(&mut self, splits: Vec<GenSplit>, _subtask: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.pending.extend(splits);
        self.assign(ctx);
    }
    fn add_reader(&mut self, subtask: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.done.remove(&subtask);
        self.assign(ctx);
    }
    fn handle_split_request(&mut self, subtask: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        if !self.on_request || !ctx.registered_readers().contains(&subtask) || self.done.contains(&subtask) {
            return;
        }
        // Splits handed back after a failure wait for the failed reader's next attempt,
        // which registers anew and asks again.
        match self.pending.pop() {
            Some(split) => ctx.assign_splits(subtask, vec![split]),
            None if self.unbounded => {}
            None => {
                ctx.signal_no_more_splits(subtask);
                self.done.insert(subtask);
            }
        }
    }
    fn snapshot_state(&mut self, _checkpoint: CheckpointId) -> GeneratorState {
        GeneratorState { pending: self.pending.clone() }
    }
}

/// Reads generator splits, at most 16 records per split per fetch, 2 ms per fetch; a record
/// is there only once its release time has come.
pub struct GeneratorReader {
    data: Arc<Vec<Vec<Record>>>,
    splits: Vec<GenSplit>,
    turn: usize,
    pace_ms: u64,
    unbounded: bool,
}

impl GeneratorReader {
    /// A split reader over the generator's records (see [`GeneratorSource::data`]), all
    /// there from the start, ending.
    pub fn new(data: Arc<Vec<Vec<Record>>>) -> Self {
        Self::paced(data, 0, false)
    }

    /// A split reader whose records are released evenly over `pace_ms` of virtual time;
    /// `unbounded`: splits never finish.
    pub fn paced(data: Arc<Vec<Vec<Record>>>, pace_ms: u64, unbounded: bool) -> Self {
        Self { data, splits: Vec::new(), turn: 0, pace_ms, unbounded }
    }

    /// Virtual time at which position `pos` of a split of `len` records is released.
    fn release(&self, pos: u64, len: u64) -> Duration {
        Duration::from_micros(pos * self.pace_ms * 1000 / len.max(1))
    }
}

impl GeneratorSource {
    /// The generated records, per split (for building a reader of your own on them).
    pub fn data(&self) -> Arc<Vec<Vec<Record>>> {
        self.data.clone()
    }
}

impl SplitReader for GeneratorReader {
    type Split = GenSplit;
    type Element = (u64, Record);
    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        madsim::time::sleep(Duration::from_millis(2)).await;
        let mut batch = FetchedBatch::empty();
        if self.splits.is_empty() {
            return Ok(batch);
        }
        self.turn = (self.turn + 1) % self.splits.len();
        let split = self.splits[self.turn].clone();
        let now = crate::net::now();
        let released = (split.next..split.end.min(split.next + 16)).take_while(|p| self.release(*p, split.end) <= now);
        let end = released.last().map_or(split.next, |p| p + 1);
        for pos in split.next..end {
            batch.elements.push((split.id(), (pos, self.data[split.index][pos as usize].clone())));
        }
        self.splits[self.turn].next = end;
        if end >= split.end && !self.unbounded {
            batch.finished.push(split.id());
            self.splits.remove(self.turn);
        } else if end == split.next && self.splits.iter().all(|s| s.next >= s.end || self.release(s.next, s.end) > now)
        {
            // Nothing released anywhere: wait for the next release (or idle, once all is read).
            let next = self.splits.iter().filter(|s| s.next < s.end).map(|s| self.release(s.next, s.end)).min();
            let wait =
                next.map_or(Duration::from_millis(50), |at| at.saturating_sub(now)).min(Duration::from_millis(50));
            madsim::time::sleep(wait).await;
        }
        Ok(batch)
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<GenSplit>) {
        if let SplitsChange::Add(splits) = change {
            self.splits.extend(splits);
        }
    }
}

/// Emits the record and moves the split past it.
pub struct GeneratorEmitter;

impl SplitState<GenSplit> for GenSplit {
    fn from_split(split: GenSplit) -> Self {
        split
    }
    fn to_split(&self) -> GenSplit {
        self.clone()
    }
}

impl RecordEmitter for GeneratorEmitter {
    type Element = (u64, Record);
    type State = GenSplit;
    fn emit(&mut self, (pos, record): (u64, Record), output: &mut ReaderOutput, state: &mut GenSplit) {
        output.collect(record);
        state.next = pos + 1;
    }
}

impl Source for GeneratorSource {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = GeneratorEnumerator;
    type Reader = SourceReaderBase<GeneratorReader, GeneratorEmitter>;
    fn boundedness(&self) -> Boundedness {
        match self.unbounded {
            true => Boundedness::Unbounded,
            false => Boundedness::Bounded,
        }
    }
    fn create_enumerator(&self, _ctx: &EnumeratorContext<GenSplit>) -> GeneratorEnumerator {
        let pending = self
            .data
            .iter()
            .enumerate()
            .map(|(index, recs)| GenSplit { index, next: 0, end: recs.len() as u64 })
            .collect();
        GeneratorEnumerator { pending, on_request: self.on_request, unbounded: self.unbounded, done: BTreeSet::new() }
    }
    fn restore_enumerator(&self, _ctx: &EnumeratorContext<GenSplit>, state: GeneratorState) -> GeneratorEnumerator {
        let (on_request, unbounded) = (self.on_request, self.unbounded);
        GeneratorEnumerator { pending: state.pending, on_request, unbounded, done: BTreeSet::new() }
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        let (data, pace_ms, unbounded) = (self.data.clone(), self.pace_ms, self.unbounded);
        let reader = SourceReaderBase::new(
            ctx,
            move || GeneratorReader::paced(data.clone(), pace_ms, unbounded),
            GeneratorEmitter,
            FetcherMode::Single,
        );
        if self.on_request {
            reader.request_splits_when_idle()
        } else {
            reader
        }
    }
}

/// Sets up the generator: `splits` splits of `records_per_split` records each.
#[derive(Clone, Debug, Default)]
pub struct GeneratorSetup {
    /// Number of splits.
    pub splits: usize,
    /// Records per split.
    pub records_per_split: u64,
    /// Assign splits one at a time to readers that ask (pull-based, like Flink's file
    /// source) instead of split k to reader k mod parallelism.
    pub on_request: bool,
    /// Release each split's records evenly over this much virtual time from the start of
    /// the run (0: all there at once), so checkpoints and faults land mid-stream.
    pub pace_ms: u64,
    /// Never end: after its records the source stays idle (the job runs until the harness
    /// has seen the output converge and settle).
    pub unbounded: bool,
}

impl SourceSetup for GeneratorSetup {
    type Source = GeneratorSource;
    fn name(&self) -> String {
        let mut name = format!("generator({}x{}", self.splits, self.records_per_split);
        if self.pace_ms > 0 {
            name.push_str(&format!(" over {} ms", self.pace_ms));
        }
        if self.unbounded {
            name.push_str(", unbounded");
        }
        name + ")"
    }
    fn build(&self, world: &mut World) -> GeneratorSource {
        let mut data = Vec::new();
        for index in 0..self.splits {
            let mut split = Vec::new();
            for pos in 0..self.records_per_split {
                let record = world.new_record(pos, format!("gen {index}/{pos}").into_bytes());
                world.history().record_produced("generator", &record, &format!("gen-{index}"), pos);
                split.push(record);
            }
            data.push(split);
        }
        GeneratorSource {
            data: Arc::new(data),
            on_request: self.on_request,
            pace_ms: self.pace_ms,
            unbounded: self.unbounded,
        }
    }
}
