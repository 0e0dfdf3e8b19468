//! One seed, start to finish: build the world, start the nodes, run the script (faults),
//! heal, wait for convergence, check.

use super::config::{RunConfig, Verification};
use super::control::{Control, ControlParts, TeBuilder};
use super::report::{Cost, RunReport, RunStats};
use super::script::{RandomFaults, Script};
use super::testbed::{Testbed, World};
use crate::api::{Sink, Source};
use crate::cluster::taskexecutor::ExecutorConfig;
use crate::cluster::{
    jobmaster, task_executor, taskexecutor, CheckpointStore, Hooks, JobStatus, JobStatusCell, JOB_MASTER,
};
use crate::erased::{Codecs, ErasedSink, ErasedSource};
use crate::history::{self, Cause, History};
use crate::net::{Gateway, ObserveHook};
use crate::oracle::checks::{self, RunEnd, RunFacts, Verdict};
use crate::oracle::observe::Observer;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

/// Independent random streams, one per concern, all derived from the run's seed.
fn stream(seed: u64, id: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(id);
    rng
}
const WORKLOAD: u64 = 1;
const NETWORK: u64 = 2;
const FAULTS: u64 = 3;
const DATA: u64 = 4;

/// Runs one seed on the current thread with the configuration's random faults
/// ([`RandomFaults`]) and checks it. See [`simulate_script`].
pub fn simulate<T: Testbed>(testbed: &T, config: &RunConfig, seed: u64) -> RunReport {
    simulate_script(testbed, config, seed, &RandomFaults)
}

/// What the per-seed driver learns about the run, filled in as it goes (a panic leaves
/// whatever it had).
#[derive(Default)]
struct Slots {
    observer: Option<Observer>,
    end: Option<RunEnd>,
}

/// Runs one seed on the current thread: builds the world, starts the nodes, runs `script`,
/// heals everything, waits for convergence, lets the output settle and checks. Panics
/// inside the simulation are caught and become a failed verdict. Call it on a fresh thread
/// per seed (the [`Runner`](super::Runner) does) so std `HashMap` order is reproducible.
pub fn simulate_script<T: Testbed>(testbed: &T, config: &RunConfig, seed: u64, script: &dyn Script) -> RunReport {
    // The cluster runs on erased connectors (compiled once, in this crate); the decoders turn
    // their bytes back into `T`'s types, on this thread, for this run.
    let _codecs = Codecs::of::<T::Source, T::Sink>().install();
    simulate_erased(testbed, config, seed, script)
}

/// A testbed whose connectors the cluster sees erased.
trait ErasedTestbed {
    fn name(&self) -> String;
    fn build(&self, world: &mut World) -> (ErasedSource, ErasedSink);
    fn carries(&self) -> crate::record::Carries;
}

impl<T: Testbed> ErasedTestbed for T {
    fn name(&self) -> String {
        Testbed::name(self)
    }
    fn build(&self, world: &mut World) -> (ErasedSource, ErasedSink) {
        let (source, sink) = Testbed::build(self, world);
        (ErasedSource::new(source), ErasedSink::new(sink))
    }
    fn carries(&self) -> crate::record::Carries {
        Testbed::carries(self)
    }
}

fn simulate_erased(testbed: &dyn ErasedTestbed, config: &RunConfig, seed: u64, script: &dyn Script) -> RunReport {
    let mut config = config.clone();
    script.configure(&mut config); // settings the script fixes for the job it runs
    let config = &config;
    let verified = config.verification == Verification::Full;
    let history = if verified { History::new() } else { History::off() };
    let slots: Arc<Mutex<Slots>> = Arc::default();
    let virtual_ms = Arc::new(Mutex::new(0u64));
    // Wall time per phase, for the bench (outside the simulation: madsim's clock is not on).
    let started = std::time::Instant::now();
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
        rt.block_on(drive(testbed, config, seed, script, history.clone(), slots.clone(), virtual_ms.clone()))
    }));
    let panic = result.err().map(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic payload".into())
    });
    let Slots { observer, end } = std::mem::take(&mut *slots.lock().unwrap());
    let mut end = end.unwrap_or_else(|| RunEnd { liveness_ms: config.liveness_ms, ..RunEnd::new("") });
    if panic.is_some() {
        // The run never reached its final read: read the output now.
        end.visible = observer.map_or(Ok(Vec::new()), |o| o.reconcile());
        end.status = JobStatus::Running;
        end.panic = panic;
    }
    let simulated = std::time::Instant::now();
    if !verified {
        let virtual_ms = *virtual_ms.lock().unwrap();
        let verdicts = vec![engine_verdict(&end)];
        let facts = RunFacts::new(Vec::new(), end);
        let mut stats = RunStats::of(&facts, virtual_ms);
        // No events: what the counters know is all the run can say of itself.
        (stats.produced, stats.checkpoints_completed) = (history.produced(), history.completed());
        let fingerprint = engine_fingerprint(&stats, &facts.status);
        let mut report = RunReport::new(seed, testbed.name(), config.clone(), verdicts, fingerprint, stats, &facts);
        report.scenario = script.describe();
        report.cost = Cost { simulate: simulated - started, report: simulated.elapsed(), ..Cost::default() };
        return report;
    }
    let events = history.take();
    let hash = history::hash(&events);
    let facts = RunFacts::new(events, end);
    let indexed = std::time::Instant::now();
    let verdicts = checks::run_all(&facts);
    let checked = std::time::Instant::now();
    let virtual_ms = *virtual_ms.lock().unwrap();
    let mut report =
        RunReport::new(seed, testbed.name(), config.clone(), verdicts, hash, RunStats::of(&facts, virtual_ms), &facts);
    report.scenario = script.describe();
    drop(facts);
    report.cost = Cost {
        simulate: simulated - started,
        history: indexed - simulated,
        checks: checked - indexed,
        report: checked.elapsed(),
    };
    report
}

/// The one verdict of a run without verification ([`Verification::Off`]): the engine ran to
/// its end. It says nothing about the records.
fn engine_verdict(end: &RunEnd) -> Verdict {
    const NAME: &str = "engine-ran";
    if let Some(p) = &end.panic {
        return Verdict::fail(NAME, format!("the run panicked: {p}"), vec![], None);
    }
    match &end.status {
        crate::cluster::JobStatus::Finished => {
            Verdict::pass(NAME, "the bounded job finished (verification off: no record was checked)")
        }
        crate::cluster::JobStatus::Failed(reason) => {
            Verdict::fail(NAME, format!("the job failed: {reason}"), vec![], None)
        }
        other => Verdict::fail(
            NAME,
            format!("the bounded job did not finish within {} ms after faults healed ({other:?})", end.liveness_ms),
            vec![],
            None,
        ),
    }
}

/// What stands in for the history hash of a run without verification (there is no history):
/// FNV-1a over the virtual instant it ended at, the records produced, the checkpoints
/// completed and the job's end, so the determinism self-check still compares something.
fn engine_fingerprint(stats: &RunStats, status: &crate::cluster::JobStatus) -> u64 {
    let summary = format!("{} {} {} {status:?}", stats.virtual_ms, stats.produced, stats.checkpoints_completed);
    crate::record::fnv1a(crate::record::FNV_OFFSET, summary.as_bytes())
}

/// A testbed's source and sink in their serialized form.
struct Shipped {
    source: Vec<u8>,
    sink: Vec<u8>,
}

impl Shipped {
    /// Serializes both; a connector that does not survive it stops the run with a message
    /// naming it (the runner reports the panic with the seed).
    fn pack(source: &ErasedSource, sink: &ErasedSink) -> Self {
        let ship = |bytes: Result<Vec<u8>, bincode::Error>, what: &str| {
            bytes.unwrap_or_else(|e| panic!("the {what} does not serialize ({e}); every node gets its own copy of it"))
        };
        let shipped =
            Self { source: ship(bincode::serialize(source), "source"), sink: ship(bincode::serialize(sink), "sink") };
        shipped.unpack(); // fail here, before any node starts, if it does not decode
        shipped
    }

    /// A fresh copy of both, for one node incarnation.
    fn unpack(&self) -> (ErasedSource, ErasedSink) {
        let source = crate::bytes::decode(&self.source)
            .unwrap_or_else(|e| panic!("the source does not deserialize ({e}); every node gets its own copy of it"));
        let sink = crate::bytes::decode(&self.sink)
            .unwrap_or_else(|e| panic!("the sink does not deserialize ({e}); every node gets its own copy of it"));
        (source, sink)
    }
}

async fn drive(
    testbed: &dyn ErasedTestbed,
    config: &RunConfig,
    seed: u64,
    script: &dyn Script,
    history: History,
    slots: Arc<Mutex<Slots>>,
    virtual_ms: Arc<Mutex<u64>>,
) {
    let mut world = World::new(history.clone(), stream(seed, WORKLOAD));
    world.shape_data(crate::record::DataShape::new(config.data, testbed.carries(), &mut stream(seed, DATA)));
    let (source, sink) = testbed.build(&mut world);
    let output = world.output.clone().expect("the testbed's sink setup must call World::set_output");
    let bounded = source.boundedness() == crate::api::Boundedness::Bounded;
    let observer = match config.verification {
        Verification::Full => Observer::new(output, history.clone()),
        // Without the observed output nothing tells when an unbounded job has converged.
        Verification::Off if !bounded => panic!(
            "a run without verification (Verification::Off) needs a bounded source: an unbounded job converges \
             when its output shows every expected record, and such a run reads no output; bench a bounded source, \
             or turn verification on"
        ),
        Verification::Off => Observer::off(output, history.clone()),
    };
    {
        let mut slots = slots.lock().unwrap();
        slots.observer = Some(observer.clone());
        slots.end = Some(RunEnd {
            output_location: observer.location().to_string(),
            visible: Ok(Vec::new()),
            guarantee: sink.delivery_guarantee(),
            ordered: sink.keeps_split_order(),
            late_accepted: sink.accepts_late_records(),
            exchange: config.job.exchange,
            bounded,
            status: JobStatus::Running,
            liveness_ms: config.liveness_ms,
            panic: None,
            starts: world.starts.clone(),
            declared_loss_allowed: config.declared_loss_allowed,
            leave_behind: world.leave_behind.clone(),
        });
    }
    observer.observe(Cause::Setup);
    let gateway = Gateway::new(stream(seed, NETWORK), history.clone(), (config.latency_ms_min, config.latency_ms_max));
    let handle = madsim::runtime::Handle::current();
    let (hooks, hits) = Hooks::new();

    let mut systems = Vec::new();
    for system in world.systems.clone() {
        let gw = gateway.clone();
        let sys = system.clone();
        let seen = observer.clone();
        let observe: ObserveHook = Arc::new(move |cause| seen.observe(cause));
        let node = handle
            .create_node()
            .name(system.name())
            .init(move || {
                let (gw, system, observe) = (gw.clone(), sys.clone(), observe.clone());
                async move {
                    let (_, inbox) = gw.bind_observed(&system.name(), observe);
                    system.serve(inbox).await
                }
            })
            .build();
        systems.push((node, system));
    }
    // Connectors reach the nodes as Flink ships them, serialized: every node incarnation
    // decodes its own copy, so no node shares memory with another through a connector.
    let shipped = Arc::new(Shipped::pack(&source, &sink));
    let executor = ExecutorConfig {
        slots: config.job.slots_per_task_executor.max(1),
        lease: std::time::Duration::from_millis(config.job.heartbeats.executor_timeout_ms),
        exchange: config.job.exchange,
        aligned_barriers: config.job.aligned_barriers,
        watermarks: config.job.watermarks.or(source.watermark_strategy()),
        runtime_bug: config.job.runtime_bug,
        committers: config.job.committers(),
    };
    let build_te: TeBuilder = {
        let (gw, h, shipped, hk, handle) =
            (gateway.clone(), history.clone(), shipped.clone(), hooks.clone(), handle.clone());
        Box::new(move |i| {
            let (gw, h, shipped, hk) = (gw.clone(), h.clone(), shipped.clone(), hk.clone());
            handle
                .create_node()
                .name(task_executor(i))
                .init(move || {
                    let (src, snk) = shipped.unpack();
                    taskexecutor::run(i, executor, gw.clone(), h.clone(), hk.clone(), src, snk)
                })
                .build()
        })
    };
    let executors: Vec<_> = (0..config.job.task_executors(config.job.parallelism)).map(&build_te).collect();
    // Let the task executors and systems come up before the job master deploys to them.
    madsim::time::sleep(std::time::Duration::from_millis(1)).await;
    let status: JobStatusCell = Arc::new(Mutex::new(JobStatus::Running));
    let store = CheckpointStore::default();
    let job_master = {
        let (gw, h, shipped, cfg, st, store, hk) = (
            gateway.clone(),
            history.clone(),
            shipped.clone(),
            config.job.clone(),
            status.clone(),
            store.clone(),
            hooks.clone(),
        );
        handle
            .create_node()
            .name(JOB_MASTER)
            .init(move || {
                let (src, snk) = shipped.unpack();
                jobmaster::run(src, snk, cfg.clone(), gw.clone(), h.clone(), store.clone(), st.clone(), hk.clone())
            })
            .build()
    };
    let workloads = std::mem::take(&mut world.workloads).into_iter().map(madsim::task::spawn).collect();
    let control = Control::new(
        ControlParts {
            handle: handle.clone(),
            gateway: gateway.clone(),
            history: history.clone(),
            hooks,
            status: status.clone(),
            store,
            config: config.clone(),
            rng: stream(seed, FAULTS),
            job_master,
            executors,
            systems,
            build_te,
            producer: world.producer.clone(),
            records: world.record_maker(),
            observer: observer.clone(),
            starts: world.starts.clone(),
            bounded,
            workloads,
        },
        hits,
    );

    // Safety phase: whatever the script does.
    script.drive(&control).await;
    // Liveness phase: everything healed; the job must converge.
    control.heal_all().await;
    control.drain(config.liveness_ms).await;
    // After convergence: more checkpoints (unbounded), every system restarted; then the
    // final read, which must hold nothing that was never seen appearing.
    if config.verification == Verification::Full {
        control.settle(config.liveness_ms).await;
    }
    // What outlives the job, as each system holds it now.
    for system in &world.systems {
        let left = system.leftovers();
        if !left.is_empty() {
            history.record(&system.name(), history::EventKind::LeftBehind { left });
        }
    }
    let visible = observer.reconcile();
    *virtual_ms.lock().unwrap() = crate::net::now().as_millis() as u64;
    control.kill_all();
    if let Some(end) = slots.lock().unwrap().end.as_mut() {
        end.status = status.lock().unwrap().clone();
        end.visible = visible;
    }
}
