//! Testbeds: what a run is made of — external systems, data, a source and a sink —
//! built fresh for every seed.

use crate::api::{Sink, Source};
use crate::history::History;
use crate::oracle::{LeaveBehind, StartPosition, Starts};
use crate::record::{Carries, DataShape, Record};
use crate::systems::{ExternalSystem, OutputReader};
use rand_chacha::ChaCha8Rng;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Makes records with run-unique ids, shaped as the run's data is ([`DataShape`]: real
/// dates, null keys, tombstones, headers, as far as the connectors carry them); cheap to
/// clone into a during-run workload.
#[derive(Clone, Default)]
pub struct RecordMaker {
    last: Arc<AtomicU64>,
    shape: DataShape,
}

impl RecordMaker {
    /// A new record with a run-unique id, `key` and `payload`, shaped as the run's data is
    /// (its payload may gain bytes, or become a tombstone's empty one).
    pub fn make(&self, key: u64, payload: Vec<u8>) -> Record {
        let n = self.last.fetch_add(1, Ordering::Relaxed) + 1;
        self.shape.record(n, key, payload)
    }
}

pub(crate) type Workload = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The per-seed world a testbed builds into.
pub struct World {
    pub(crate) history: History,
    pub(crate) systems: Vec<Arc<dyn ExternalSystem>>,
    pub(crate) output: Option<Arc<dyn OutputReader>>,
    pub(crate) workloads: Vec<Workload>,
    pub(crate) producer: Option<Arc<dyn Producer>>,
    pub(crate) starts: Starts,
    pub(crate) leave_behind: Vec<LeaveBehind>,
    rng: ChaCha8Rng,
    records: RecordMaker,
}

impl World {
    pub(crate) fn new(history: History, rng: ChaCha8Rng) -> Self {
        Self {
            history,
            systems: Vec::new(),
            output: None,
            workloads: Vec::new(),
            producer: None,
            starts: Starts::default(),
            leave_behind: Vec::new(),
            rng,
            records: RecordMaker::default(),
        }
    }
    /// The run's history (external-system models record into it).
    pub fn history(&self) -> &History {
        &self.history
    }
    /// Hosts an external system on its own node.
    pub fn add_system(&mut self, system: Arc<dyn ExternalSystem>) {
        self.systems.push(system);
    }
    /// Declares where the sink's output is visible: the harness reads it through `output`
    /// after every request an external system serves, and the checks judge what it saw.
    /// Call it once (a second call is a mistake in the setup and panics, naming both).
    pub fn set_output(&mut self, output: Arc<dyn OutputReader>) {
        if let Some(old) = &self.output {
            panic!(
                "World::set_output was called twice ({} and then {}): a run has one output; declare the one a \
                 downstream reader of the sink reads",
                old.location(),
                output.location()
            );
        }
        self.output = Some(output);
    }
    /// Declares where the source starts reading every split (default: the earliest record).
    /// The checks then expect exactly the records at or after each split's start, and fail
    /// a record before it that shows up in the output.
    pub fn declare_start(&mut self, start: StartPosition) {
        self.starts.default = start;
    }
    /// Declares that a new job without state starts from consumer group `group`'s committed
    /// offsets (each split at the offset the group committed there, the declared start
    /// elsewhere), as a Kafka source with `OffsetsInitializer.committedOffsets` does. The run
    /// then records the group's offsets when such a job is submitted, and the checks allow a
    /// new job a copy only of what it reads again from there: a record behind them twice is
    /// a duplicate.
    pub fn declare_group_start(&mut self, group: &str) {
        self.starts.group = Some(group.to_string());
    }
    /// Declares what the sink may leave behind in a system when the run ends (a pool of
    /// transactional ids, a group per writer): the check `left-behind` holds it to that.
    /// Every system's leftovers are reported whether or not a bound is declared.
    pub fn declare_leave_behind(&mut self, bound: LeaveBehind) {
        self.leave_behind.push(bound);
    }
    /// Declares where the source starts reading one split, overriding [`World::declare_start`].
    pub fn declare_split_start(&mut self, split: &str, start: StartPosition) {
        self.starts.splits.insert(split.to_string(), start);
    }
    /// Shapes the records the world makes from now on (the run sets it before the build).
    pub(crate) fn shape_data(&mut self, shape: DataShape) {
        self.records.shape = shape;
    }
    /// Whether the run's data is shaped as real systems hold it ([`DataKind::Real`], the
    /// default): a setup then writes its input as real systems hold it too (a log's input
    /// through an upstream transactional producer, say), and plain otherwise.
    ///
    /// [`DataKind::Real`]: crate::record::DataKind::Real
    pub fn real_data(&self) -> bool {
        self.records.shape.is_real()
    }
    /// The workload's random stream (seeded from the run's seed).
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }
    /// A new record with a run-unique id.
    pub fn new_record(&mut self, key: u64, payload: Vec<u8>) -> Record {
        self.records.make(key, payload)
    }
    /// The record maker, for workloads that produce while the job runs.
    pub fn record_maker(&self) -> RecordMaker {
        self.records.clone()
    }
    /// Registers how scenario blocks write more data into the source system while the job
    /// runs. Only sources that keep reading new data (unbounded) should register one.
    pub fn set_producer(&mut self, producer: Arc<dyn Producer>) {
        self.producer = Some(producer);
    }
    /// Runs `workload` (on the supervisor, in virtual time) while the job runs, e.g. an
    /// upstream producer that keeps appending. It should end within the safety phase.
    pub fn during_run(&mut self, workload: impl Future<Output = ()> + Send + 'static) {
        self.workloads.push(Box::pin(workload));
    }
}

/// Writes into a source system while the job runs, for scenario blocks that produce data or
/// add splits. A source setup that can take more data registers one
/// ([`World::set_producer`]); blocks that need one fail with a clear message otherwise.
pub trait Producer: Send + Sync + 'static {
    /// Appends each record to the split its hint picks (`hint % splits`), recording it as
    /// produced in the history.
    fn produce(&self, records: Vec<(Record, u64)>);
    /// How many splits the source system has now.
    fn splits(&self) -> u64;
    /// Adds `n` splits (e.g. partitions); the source discovers them.
    fn add_splits(&self, n: u64);
}

/// Sets up a source and the data it reads.
pub trait SourceSetup: Send + Sync + 'static {
    /// The source.
    type Source: Source;
    /// Name for reports.
    fn name(&self) -> String;
    /// Creates the source system(s), writes the test data and returns the source.
    fn build(&self, world: &mut World) -> Self::Source;
    /// What the source's system and deserializer carry end to end beyond plain records
    /// (null keys, tombstones, headers, binary payloads): the run's data has no shape it
    /// leaves out. Everything by default; say what your element type or format cannot hold.
    fn carries(&self) -> Carries {
        Carries::ALL
    }
}

/// Sets up a sink and where its output becomes visible.
pub trait SinkSetup: Send + Sync + 'static {
    /// The sink.
    type Sink: Sink;
    /// Name for reports.
    fn name(&self) -> String;
    /// Creates the sink system(s), declares the output ([`World::set_output`]) and returns the sink.
    fn build(&self, world: &mut World) -> Self::Sink;
    /// What the sink and its output's format carry end to end beyond plain records (null
    /// keys, tombstones, headers, binary payloads): the run's data has no shape it leaves
    /// out, and every field of what it does carry is compared. Everything by default; say
    /// what your element type or format cannot hold.
    fn carries(&self) -> Carries {
        Carries::ALL
    }
}

/// What the sink a setup builds promises ([`Sink::delivery_guarantee`]): the setup is built
/// once, in a throwaway simulation of its own, and the sink asked. Suites use it to pick the
/// cases and coverage they require, so the sink is the one source of truth.
pub fn declared_guarantee<S: SinkSetup>(setup: &S) -> crate::api::DeliveryGuarantee {
    with_built_sink(setup, |_, sink| sink.delivery_guarantee())
}

/// Whether `setup`'s sink commits through a global committer (a throwaway world, outside
/// any run).
pub fn has_global_committer<S: SinkSetup>(setup: &S) -> bool {
    with_built_sink(setup, |_, sink| sink.has_global_committer())
}

/// The external systems `setup`'s sink builds that have `setting` (for instance the logs
/// with a transaction timeout), by node name.
pub fn sink_systems_with<S: SinkSetup>(setup: &S, setting: &crate::systems::Setting) -> Vec<String> {
    with_built_sink(setup, |world, _| systems_with(world, setting))
}

/// The external systems `setup`'s source builds that have `setting` (for instance the logs
/// with retention), by node name. The setup is built into a throwaway world, outside any run.
pub fn source_systems_with<S: SourceSetup>(setup: &S, setting: &crate::systems::Setting) -> Vec<String> {
    with_built_source(setup, |world| systems_with(world, setting))
}

/// Every external system `setup`'s sink builds, by node name (a throwaway world, outside any
/// run).
pub fn sink_systems<S: SinkSetup>(setup: &S) -> Vec<String> {
    with_built_sink(setup, |world, _| world.systems.iter().map(|s| s.name()).collect())
}

/// The watermark strategy the source `setup` builds declares for itself
/// ([`Source::watermark_strategy`](crate::api::Source::watermark_strategy)), built in a
/// throwaway world, outside any run.
pub fn declared_watermarks<S: SourceSetup>(setup: &S) -> Option<crate::api::WatermarkStrategy> {
    use crate::api::Source;
    let mut declared = None;
    in_throwaway_world(&mut |world| declared = setup.build(world).watermark_strategy());
    declared
}

/// Every external system `setup`'s source builds, by node name (a throwaway world, outside
/// any run).
pub fn source_systems<S: SourceSetup>(setup: &S) -> Vec<String> {
    with_built_source(setup, |world| world.systems.iter().map(|s| s.name()).collect())
}

/// The systems built into `world` that have `setting`, by node name.
fn systems_with(world: &World, setting: &crate::systems::Setting) -> Vec<String> {
    let env = crate::systems::SettingEnv { seed: 0, history: world.history.clone() };
    world.systems.iter().filter(|s| s.configure(setting, &env).is_ok()).map(|s| s.name()).collect()
}

/// Builds `setup`'s source into a throwaway world, outside any run, and asks `f` about the
/// world (the source is dropped after).
fn with_built_source<S: SourceSetup>(setup: &S, f: impl FnOnce(&World) -> Vec<String>) -> Vec<String> {
    let (mut f, mut answer) = (Some(f), None);
    in_throwaway_world(&mut |world| {
        let _source = setup.build(world);
        answer = f.take().map(|f| f(world));
    });
    answer.expect("the throwaway world ran its build")
}

/// Builds `setup`'s sink into a throwaway world, outside any run, and asks `f` about it.
fn with_built_sink<S: SinkSetup, T>(setup: &S, f: impl FnOnce(&World, S::Sink) -> T) -> T {
    let (mut f, mut answer) = (Some(f), None);
    in_throwaway_world(&mut |world| {
        let sink = setup.build(world);
        answer = f.take().map(|f| f(world, sink));
    });
    answer.expect("the throwaway world ran its build")
}

/// Runs `build` on a fresh world inside a simulation of its own (systems are madsim nodes),
/// outside any run. Not generic: one copy of the simulator's `block_on` serves every setup.
fn in_throwaway_world(build: &mut dyn FnMut(&mut World)) {
    let rt = madsim::runtime::Runtime::with_seed_and_config(0, madsim::Config::default());
    rt.block_on(async {
        let mut world = World::new(crate::history::History::new(), rand::SeedableRng::seed_from_u64(0));
        build(&mut world);
    })
}

/// Everything one run needs.
pub trait Testbed: Send + Sync + 'static {
    /// The source.
    type Source: Source;
    /// The sink.
    type Sink: Sink;
    /// Name for reports.
    fn name(&self) -> String;
    /// Builds systems, data and connectors into `world`.
    fn build(&self, world: &mut World) -> (Self::Source, Self::Sink);
    /// What the source and the sink both carry end to end ([`SourceSetup::carries`]).
    fn carries(&self) -> Carries {
        Carries::ALL
    }
}

/// A source setup feeding a sink setup.
pub struct Pipeline<A, B>(pub A, pub B);

impl<A: SourceSetup, B: SinkSetup> Testbed for Pipeline<A, B> {
    type Source = A::Source;
    type Sink = B::Sink;
    fn name(&self) -> String {
        format!("{} -> {}", self.0.name(), self.1.name())
    }
    fn build(&self, world: &mut World) -> (A::Source, B::Sink) {
        (self.0.build(world), self.1.build(world))
    }
    fn carries(&self) -> Carries {
        self.0.carries().and(self.1.carries())
    }
}
