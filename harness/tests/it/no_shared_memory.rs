//! Connectors reach every node serialized, as on a real cluster: an `Arc` inside a source is
//! not a side channel between the enumerator (on the job master) and the readers (on the
//! task executors), nor back to the test that built it.

use connsim::api::{
    Boundedness, EnumeratorContext, InputStatus, ReaderContext, ReaderOutput, Source, SourceReader, SplitEnumerator,
};
use connsim::history::CheckpointId;
use connsim::probes::{CollectorSetup, GenSplit, GeneratorSetup, GeneratorSource, GeneratorState};
use connsim::run::FaultConfig;
use connsim::{ConnectorError, Pipeline, Runner, SourceSetup, World};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// What each reader found in its copy of the shared list once it had splits.
static READERS_SAW: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// The generator, plus a list the enumerator writes every registered reader into.
#[derive(Clone, Serialize, Deserialize)]
struct Sharing {
    inner: GeneratorSource,
    registered: Arc<Mutex<Vec<usize>>>,
}

struct Enumerator {
    inner: <GeneratorSource as Source>::Enumerator,
    registered: Arc<Mutex<Vec<usize>>>,
}

impl SplitEnumerator for Enumerator {
    type Split = GenSplit;
    type State = GeneratorState;
    fn add_splits_back(&mut self, splits: Vec<GenSplit>, subtask: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.inner.add_splits_back(splits, subtask, ctx)
    }
    fn add_reader(&mut self, subtask: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.registered.lock().unwrap().push(subtask);
        self.inner.add_reader(subtask, ctx)
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> GeneratorState {
        self.inner.snapshot_state(checkpoint)
    }
}

struct Reader {
    inner: <GeneratorSource as Source>::Reader,
    registered: Arc<Mutex<Vec<usize>>>,
    looked: bool,
}

impl SourceReader for Reader {
    type Split = GenSplit;
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
        self.inner.poll_next(output)
    }
    async fn available(&mut self) {
        self.inner.available().await
    }
    fn add_splits(&mut self, splits: Vec<GenSplit>) {
        if !self.looked {
            // The enumerator registered this reader before assigning it anything.
            READERS_SAW.lock().unwrap().push(self.registered.lock().unwrap().len());
            self.looked = true;
        }
        self.inner.add_splits(splits)
    }
    fn notify_no_more_splits(&mut self) {
        self.inner.notify_no_more_splits()
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<GenSplit> {
        self.inner.snapshot_state(checkpoint)
    }
}

impl Source for Sharing {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = Enumerator;
    type Reader = Reader;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Enumerator {
        Enumerator { inner: self.inner.create_enumerator(ctx), registered: self.registered.clone() }
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<GenSplit>, state: GeneratorState) -> Enumerator {
        Enumerator { inner: self.inner.restore_enumerator(ctx, state), registered: self.registered.clone() }
    }
    fn create_reader(&self, ctx: ReaderContext) -> Reader {
        Reader { inner: self.inner.create_reader(ctx), registered: self.registered.clone(), looked: false }
    }
}

/// Keeps a handle on the list it puts into the source.
struct SharingSetup(Arc<Mutex<Vec<usize>>>);

impl SourceSetup for SharingSetup {
    type Source = Sharing;
    fn name(&self) -> String {
        "sharing source".into()
    }
    fn build(&self, world: &mut World) -> Sharing {
        let inner = GeneratorSetup { splits: 4, records_per_split: 50, ..Default::default() }.build(world);
        Sharing { inner, registered: self.0.clone() }
    }
}

#[test]
fn an_arc_in_a_source_is_not_shared_between_the_enumerator_and_the_readers() {
    let original: Arc<Mutex<Vec<usize>>> = Arc::default();
    let mut r = Runner::new(Pipeline(SharingSetup(original.clone()), CollectorSetup));
    r.seeds(1).configure(|c| c.faults = FaultConfig::none());
    let out = r.run();
    out.assert_ok();
    // Four readers registered with the enumerator, in the enumerator's own copy of the list:
    // no reader saw an entry in its copy, and the test's original was never touched.
    let saw = READERS_SAW.lock().unwrap().clone();
    assert_eq!(saw, vec![0, 0, 0, 0], "a reader saw what the enumerator wrote: memory is shared");
    assert!(
        original.lock().unwrap().is_empty(),
        "a node wrote into the test's own Arc: {:?}",
        original.lock().unwrap()
    );
}
