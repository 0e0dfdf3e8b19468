//! Source events both ways, through the coordinator's valve, under faults: a source whose
//! enumerator hands out splits as connector-defined events instead of split assignments.
//! Each reader says hello with an event; the enumerator answers with one event per split the
//! reader owns, then one saying nothing more will come. The enumerator keeps what it handed
//! out since its last completed snapshot and takes it back when a reader fails
//! (`reader_failed`), as Flink's assignment tracker does for assignments.
//!
//! Every completed checkpoint must place each split once (`split-accounting`): the
//! enumerator's snapshot holds what it has not handed out, the readers' hold what they
//! got. That holds only because the valve holds an event sent after the enumerator's
//! snapshot for a checkpoint until that checkpoint's barrier is on its way; without the
//! valve the same source fails.

use connsim::api::{
    Boundedness, EnumeratorContext, FetcherMode, InputStatus, ReaderContext, ReaderOutput, Source, SourceReader,
    SourceReaderBase, SplitEnumerator, SplitId,
};
use connsim::cluster::FailoverStrategy;
use connsim::history::CheckpointId;
use connsim::probes::{
    CollectorSetup, GenSplit, GeneratorEmitter, GeneratorReader, GeneratorSetup, GeneratorSource, GeneratorState,
};
use connsim::{ConnectorError, Outcome, Pipeline, Runner, SourceSetup, World};
use serde::{Deserialize, Serialize};
use std::future::Future;

/// What the enumerator tells a reader.
#[derive(Serialize, Deserialize)]
enum Handout {
    Split(GenSplit),
    NoMore,
}

#[derive(Clone, Serialize, Deserialize)]
struct EventSource(GeneratorSource);

struct EventEnumerator {
    pending: Vec<GenSplit>,
    /// Handed out and not yet covered by a completed checkpoint: the checkpoint whose
    /// snapshot came after the handout (`None`: none yet), the reader, the split.
    handed: Vec<(Option<CheckpointId>, usize, GenSplit)>,
}

impl SplitEnumerator for EventEnumerator {
    type Split = GenSplit;
    type State = GeneratorState;
    fn add_splits_back(&mut self, splits: Vec<GenSplit>, _subtask: usize, _ctx: &mut EnumeratorContext<GenSplit>) {
        assert!(splits.is_empty(), "nothing was assigned through assign_splits");
    }
    fn add_reader(&mut self, _subtask: usize, _ctx: &mut EnumeratorContext<GenSplit>) {}
    fn handle_source_event(&mut self, subtask: usize, event: Vec<u8>, ctx: &mut EnumeratorContext<GenSplit>) {
        assert_eq!(event, b"hello", "readers only say hello");
        let p = ctx.parallelism();
        let (mine, rest): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.pending).into_iter().partition(|s| s.index % p == subtask);
        self.pending = rest;
        for split in mine {
            ctx.send_event_to_reader(subtask, bincode::serialize(&Handout::Split(split.clone())).unwrap());
            self.handed.push((None, subtask, split));
        }
        ctx.send_event_to_reader(subtask, bincode::serialize(&Handout::NoMore).unwrap());
    }
    fn reader_failed(&mut self, subtask: usize, _ctx: &mut EnumeratorContext<GenSplit>) {
        let (back, kept): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.handed).into_iter().partition(|(_, s, _)| *s == subtask);
        self.handed = kept;
        self.pending.extend(back.into_iter().map(|(_, _, split)| split));
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> GeneratorState {
        for (at, _, _) in &mut self.handed {
            at.get_or_insert(checkpoint);
        }
        GeneratorState { pending: self.pending.clone() }
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        self.handed.retain(|(at, _, _)| at.is_none_or(|c| c > checkpoint));
    }
}

/// The generator's reader, taking its splits from events.
struct EventReader {
    base: SourceReaderBase<GeneratorReader, GeneratorEmitter>,
    ctx: ReaderContext,
}

impl SourceReader for EventReader {
    type Split = GenSplit;
    fn start(&mut self) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.ctx.send_source_event(b"hello".to_vec());
        self.base.start()
    }
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
        self.base.poll_next(output)
    }
    fn available(&mut self) -> impl Future<Output = ()> + Send {
        self.base.available()
    }
    fn add_splits(&mut self, splits: Vec<GenSplit>) {
        self.base.add_splits(splits) // restored splits
    }
    fn notify_no_more_splits(&mut self) {
        panic!("no-more-splits comes as an event");
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<GenSplit> {
        self.base.snapshot_state(checkpoint)
    }
    fn handle_source_event(&mut self, event: Vec<u8>) {
        match bincode::deserialize(&event).expect("a handout") {
            Handout::Split(split) => self.base.add_splits(vec![split]),
            Handout::NoMore => self.base.notify_no_more_splits(),
        }
    }
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        self.base.pause_or_resume_splits(pause, resume)
    }
    fn close(&mut self) -> impl Future<Output = ()> + Send {
        self.base.close()
    }
}

impl Source for EventSource {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = EventEnumerator;
    type Reader = EventReader;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, _ctx: &EnumeratorContext<GenSplit>) -> EventEnumerator {
        let pending = self
            .0
            .data()
            .iter()
            .enumerate()
            .map(|(index, r)| GenSplit { index, next: 0, end: r.len() as u64 })
            .collect();
        EventEnumerator { pending, handed: Vec::new() }
    }
    fn restore_enumerator(&self, _ctx: &EnumeratorContext<GenSplit>, state: GeneratorState) -> EventEnumerator {
        EventEnumerator { pending: state.pending, handed: Vec::new() }
    }
    fn create_reader(&self, ctx: ReaderContext) -> EventReader {
        let data = self.0.data();
        let base = SourceReaderBase::new(
            ctx.clone(),
            move || GeneratorReader::new(data.clone()),
            GeneratorEmitter,
            FetcherMode::Single,
        );
        EventReader { base, ctx }
    }
}

struct EventSetup(GeneratorSetup);

impl SourceSetup for EventSetup {
    type Source = EventSource;
    fn name(&self) -> String {
        "splits handed out as source events".into()
    }
    fn build(&self, world: &mut World) -> EventSource {
        EventSource(self.0.build(world))
    }
}

fn run(valve: bool, failover: FailoverStrategy) -> Outcome {
    let generator = GeneratorSetup { splits: 32, records_per_split: 100, ..Default::default() };
    let mut r = Runner::new(Pipeline(EventSetup(generator), CollectorSetup));
    r.seeds(100).configure(|c| {
        c.job.coordinator_valve = valve;
        c.job.failover = failover;
        c.job.checkpoints.interval_ms = 20;
    });
    r.run()
}

#[test]
fn events_both_ways_pass_the_valve_under_faults_and_every_split_stays_in_one_place() {
    for failover in [FailoverStrategy::Region, FailoverStrategy::Global] {
        let out = run(true, failover);
        out.assert_ok();
        let strategy = if failover == FailoverStrategy::Region { "failover:region" } else { "failover:global" };
        out.assert_reached(&["valve-held-events", "message-dropped", strategy, "restore-from-checkpoint"]);
        let checked = out.reports.iter().all(|r| r.verdict("split-accounting").is_some_and(|v| v.passed));
        assert!(checked, "{}", out.summary());
    }
}

#[test]
fn without_the_valve_a_handout_after_the_snapshot_puts_a_split_in_two_places() {
    let out = run(false, FailoverStrategy::Global);
    let caught = out
        .reports
        .iter()
        .find(|r| r.verdict("split-accounting").is_some_and(|v| !v.passed))
        .unwrap_or_else(|| panic!("no seed caught the race: {}", out.summary()));
    let v = caught.verdict("split-accounting").unwrap();
    assert!(v.evidence.iter().any(|e| e.contains("in 2 places") && e.contains("enumerator")), "{v:?}");
}
