//! `call_async`: an enumerator's slow callable runs as a task of its own, so the coordinator
//! keeps taking checkpoints while it is in flight, and its result comes back on the
//! coordinator's loop.

use connsim::api::{AsyncResult, Boundedness, EnumeratorContext, ReaderContext, Source, SplitEnumerator};
use connsim::history::CheckpointId;
use connsim::probes::{CollectorSetup, GenSplit, GeneratorSetup, GeneratorSource, GeneratorState};
use connsim::run::FaultConfig;
use connsim::{ConnectorError, Pipeline, Runner, SourceSetup, World};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use std::time::Duration;

/// For every result handled: how many checkpoints completed while its callable ran.
static DURING: Mutex<Vec<u64>> = Mutex::new(Vec::new());

#[derive(Clone, Serialize, Deserialize)]
struct Slow(GeneratorSource);

struct Enum {
    inner: <GeneratorSource as Source>::Enumerator,
    completed: u64,
}

/// A callable's result: the completed count when it was made.
struct Started(u64);

impl SplitEnumerator for Enum {
    type Split = GenSplit;
    type State = GeneratorState;
    async fn start(&mut self, ctx: &mut EnumeratorContext<GenSplit>) -> Result<(), ConnectorError> {
        self.inner.start(ctx).await
    }
    fn add_splits_back(&mut self, s: Vec<GenSplit>, t: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.inner.add_splits_back(s, t, ctx)
    }
    fn add_reader(&mut self, t: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        if t == 0 {
            // A slow metadata lookup: 400 ms, while checkpoints every 100 ms go on.
            let started = self.completed;
            ctx.call_async(async move {
                madsim::time::sleep(Duration::from_millis(400)).await;
                Started(started)
            });
        }
        self.inner.add_reader(t, ctx)
    }
    fn snapshot_state(&mut self, c: CheckpointId) -> GeneratorState {
        self.inner.snapshot_state(c)
    }
    fn notify_checkpoint_complete(&mut self, _c: CheckpointId) {
        self.completed += 1;
    }
    fn handle_async(&mut self, result: AsyncResult, _ctx: &mut EnumeratorContext<GenSplit>) {
        let Started(at) = *result.downcast::<Started>().expect("the callable's own type");
        DURING.lock().unwrap().push(self.completed - at);
    }
}

impl Source for Slow {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = Enum;
    type Reader = <GeneratorSource as Source>::Reader;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Enum {
        Enum { inner: self.0.create_enumerator(ctx), completed: 0 }
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<GenSplit>, s: GeneratorState) -> Enum {
        Enum { inner: self.0.restore_enumerator(ctx, s), completed: 0 }
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        self.0.create_reader(ctx)
    }
}

struct SlowSetup;
impl SourceSetup for SlowSetup {
    type Source = Slow;
    fn name(&self) -> String {
        "slow-lookup source".into()
    }
    fn build(&self, world: &mut World) -> Slow {
        Slow(GeneratorSetup { splits: 4, records_per_split: 100, pace_ms: 1_000, ..Default::default() }.build(world))
    }
}

#[test]
fn checkpoints_complete_while_a_callable_is_in_flight_and_its_result_is_handled() {
    let mut r = Runner::new(Pipeline(SlowSetup, CollectorSetup));
    r.seeds(1).configure(|c| c.faults = FaultConfig::none());
    r.run().assert_ok();
    let during = DURING.lock().unwrap().clone();
    assert_eq!(during.len(), 1, "the result was handled once: {during:?}");
    assert!(during[0] >= 2, "checkpoints completed while the callable ran: {during:?}");
}
