//! `call_async_periodically` runs at a fixed rate, as Flink's `scheduleAtFixedRate`: a round
//! every interval from the first, never two at once; a round that takes longer than the
//! interval delays the next, which starts as soon as it ends, before the enumerator handled
//! the previous result (the history says so, and the run reaches `discovery-overlapped`).

use connsim::api::{AsyncResult, Boundedness, EnumeratorContext, ReaderContext, Source, SplitEnumerator};
use connsim::history::CheckpointId;
use connsim::probes::{CollectorSetup, GenSplit, GeneratorSetup, GeneratorSource, GeneratorState};
use connsim::run::{FaultConfig, RunReport};
use connsim::{ConnectorError, Pipeline, Runner, SourceSetup, World};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Each round's start and end, in virtual milliseconds since the run began.
type Rounds = Arc<Mutex<Vec<(u64, u64)>>>;

#[derive(Clone, Serialize, Deserialize)]
struct Discovering {
    inner: GeneratorSource,
    round_ms: u64,
}

struct Enum {
    inner: <GeneratorSource as Source>::Enumerator,
    round_ms: u64,
    rounds: Rounds,
}

/// A round's result: when it started and ended.
struct Round(u64, u64);

fn now_ms() -> u64 {
    connsim::net::now().as_millis() as u64
}

impl SplitEnumerator for Enum {
    type Split = GenSplit;
    type State = GeneratorState;
    async fn start(&mut self, ctx: &mut EnumeratorContext<GenSplit>) -> Result<(), ConnectorError> {
        let round_ms = self.round_ms;
        ctx.call_async_periodically(Duration::from_millis(20), move || async move {
            let start = now_ms();
            madsim::time::sleep(Duration::from_millis(round_ms)).await;
            Round(start, now_ms())
        });
        self.inner.start(ctx).await
    }
    fn add_splits_back(&mut self, s: Vec<GenSplit>, t: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.inner.add_splits_back(s, t, ctx)
    }
    fn add_reader(&mut self, t: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.inner.add_reader(t, ctx)
    }
    fn snapshot_state(&mut self, c: CheckpointId) -> GeneratorState {
        self.inner.snapshot_state(c)
    }
    fn handle_async(&mut self, result: AsyncResult, _ctx: &mut EnumeratorContext<GenSplit>) {
        let Round(start, end) = *result.downcast::<Round>().expect("the callable's own type");
        self.rounds.lock().unwrap().push((start, end));
    }
}

/// The rounds of the run's one enumerator; set by the test before it runs (one seed).
static ROUNDS: Mutex<Option<Rounds>> = Mutex::new(None);

impl Source for Discovering {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = Enum;
    type Reader = <GeneratorSource as Source>::Reader;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Enum {
        let rounds = ROUNDS.lock().unwrap().clone().expect("the test set the rounds");
        Enum { inner: self.inner.create_enumerator(ctx), round_ms: self.round_ms, rounds }
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<GenSplit>, s: GeneratorState) -> Enum {
        let rounds = ROUNDS.lock().unwrap().clone().expect("the test set the rounds");
        Enum { inner: self.inner.restore_enumerator(ctx, s), round_ms: self.round_ms, rounds }
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        self.inner.create_reader(ctx)
    }
}

struct Setup(u64);
impl SourceSetup for Setup {
    type Source = Discovering;
    fn name(&self) -> String {
        format!("discovering source ({} ms rounds every 20 ms)", self.0)
    }
    fn build(&self, world: &mut World) -> Discovering {
        let inner =
            GeneratorSetup { splits: 2, records_per_split: 100, pace_ms: 600, ..Default::default() }.build(world);
        Discovering { inner, round_ms: self.0 }
    }
}

/// Runs one seed whose rounds take `round_ms`; its report and the rounds handled.
fn run(round_ms: u64) -> (RunReport, Vec<(u64, u64)>) {
    // Both tests share ROUNDS: one runs at a time.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let rounds = Rounds::default();
    *ROUNDS.lock().unwrap() = Some(rounds.clone());
    let mut r = Runner::new(Pipeline(Setup(round_ms), CollectorSetup));
    r.seeds(1).configure(|c| c.faults = FaultConfig::none());
    let report = r.run().reports.remove(0);
    assert!(report.passed(), "{report}");
    let rounds = rounds.lock().unwrap().clone();
    assert!(rounds.len() >= 5, "the job ran a few rounds: {rounds:?}");
    (report, rounds)
}

#[test]
fn quick_rounds_start_every_interval_from_the_first_and_never_overlap() {
    let (report, rounds) = run(3);
    for (i, (start, end)) in rounds.iter().enumerate() {
        // Fixed rate: round i is due (i + 1) intervals after the enumerator started.
        assert_eq!(start - rounds[0].0, 20 * i as u64, "round {i} started on time: {rounds:?}");
        assert_eq!(end - start, 3);
    }
    assert!(!report.marks.iter().any(|m| m == "discovery-overlapped"), "{report}");
}

#[test]
fn a_round_longer_than_the_interval_delays_the_next_which_starts_before_its_result_is_handled() {
    let (report, rounds) = run(50);
    for pair in rounds.windows(2) {
        let ((_, end), (next, _)) = (pair[0], pair[1]);
        assert_eq!(next, end, "never two at once, and a late round starts at once: {rounds:?}");
    }
    assert!(report.marks.iter().any(|m| m == "discovery-overlapped"), "{report}");
}
