//! One seed, start to finish: build the world, start the nodes, inject faults, heal, wait
//! for convergence, check.

use super::config::RunConfig;
use super::report::{RunReport, RunStats};
use super::testbed::{Testbed, World};
use crate::api::{Sink, Source};
use crate::checks::{self, RunFacts};
use crate::cluster::{jobmaster, taskexecutor, task_executor, CheckpointStore, JobStatus, JobStatusCell, JOB_MASTER};
use crate::history::{self, EventKind, History};
use crate::net::{FaultRule, Gateway};
use crate::systems::OutputReader;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Independent random streams, one per concern, all derived from the run's seed.
fn stream(seed: u64, id: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(id);
    rng
}
const WORKLOAD: u64 = 1;
const NETWORK: u64 = 2;
const FAULTS: u64 = 3;

struct Ended {
    status: JobStatus,
    bounded: bool,
    guarantee: crate::api::DeliveryGuarantee,
    ordered: bool,
    liveness_ms: u64,
}

/// Runs one seed on the current thread and checks it. Panics inside the simulation are
/// caught and become a failed verdict. Call it on a fresh thread per seed (the
/// [`Runner`](super::Runner) does) so std `HashMap` order is reproducible.
pub fn simulate<T: Testbed>(testbed: &T, config: &RunConfig, seed: u64) -> RunReport {
    let history = History::new();
    let output: Arc<Mutex<Option<Arc<dyn OutputReader>>>> = Arc::default();
    let virtual_ms = Arc::new(Mutex::new(0u64));
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
        rt.block_on(drive(testbed, config, seed, history.clone(), output.clone(), virtual_ms.clone()))
    }));
    let (ended, panic) = match result {
        Ok(ended) => (Some(ended), None),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic payload".into());
            (None, Some(msg))
        }
    };
    let events = history.take();
    let hash = history::hash(&events);
    let output = output.lock().unwrap().clone();
    let (location, visible) = match &output {
        Some(o) => (o.location(), o.read_visible()),
        None => (String::new(), (Vec::new(), Vec::new())),
    };
    let ended = ended.unwrap_or(Ended {
        status: JobStatus::Running,
        bounded: true,
        guarantee: crate::api::DeliveryGuarantee::ExactlyOnce,
        ordered: false,
        liveness_ms: config.liveness_ms,
    });
    let facts = RunFacts::new(
        events,
        location,
        visible,
        ended.guarantee,
        ended.ordered,
        ended.bounded,
        ended.status,
        ended.liveness_ms,
        panic,
    );
    let verdicts = checks::run_all(&facts);
    let virtual_ms = *virtual_ms.lock().unwrap();
    RunReport::new(seed, testbed.name(), config.clone(), verdicts, hash, RunStats::of(&facts, virtual_ms), &facts)
}

async fn drive<T: Testbed>(
    testbed: &T,
    config: &RunConfig,
    seed: u64,
    history: History,
    output_slot: Arc<Mutex<Option<Arc<dyn OutputReader>>>>,
    virtual_ms: Arc<Mutex<u64>>,
) -> Ended {
    let mut world = World::new(history.clone(), stream(seed, WORKLOAD));
    let (source, sink) = testbed.build(&mut world);
    let output = world.output.clone().expect("the testbed's sink setup must call World::set_output");
    *output_slot.lock().unwrap() = Some(output.clone());
    let bounded = source.boundedness() == crate::api::Boundedness::Bounded;
    let guarantee = sink.delivery_guarantee();
    let ordered = sink.keeps_split_order();
    let gateway = Gateway::new(stream(seed, NETWORK), history.clone(), (config.latency_ms_min, config.latency_ms_max));
    let handle = madsim::runtime::Handle::current();
    let mut nodes = Vec::new();

    for system in world.systems.clone() {
        let gw = gateway.clone();
        let node = handle
            .create_node()
            .name(system.name())
            .init(move || {
                let (gw, system) = (gw.clone(), system.clone());
                async move {
                    let (_, inbox) = gw.bind(&system.name());
                    system.serve(inbox).await
                }
            })
            .build();
        nodes.push(node.id());
    }
    let p = config.job.parallelism;
    let mut executors = Vec::new();
    for i in 0..p {
        let (gw, h, src, snk) = (gateway.clone(), history.clone(), source.clone(), sink.clone());
        let node = handle
            .create_node()
            .name(task_executor(i))
            .init(move || taskexecutor::run(i, p, gw.clone(), h.clone(), src.clone(), snk.clone()))
            .build();
        executors.push(node.id());
        nodes.push(node.id());
    }
    let status: JobStatusCell = Arc::new(Mutex::new(JobStatus::Running));
    let store = CheckpointStore::default();
    {
        let (gw, h, src, snk, cfg, st) =
            (gateway.clone(), history.clone(), source.clone(), sink.clone(), config.job.clone(), status.clone());
        let node = handle
            .create_node()
            .name(JOB_MASTER)
            .init(move || {
                jobmaster::run(src.clone(), snk.clone(), cfg.clone(), gw.clone(), h.clone(), store.clone(), st.clone())
            })
            .build();
        nodes.push(node.id());
    }

    for workload in std::mem::take(&mut world.workloads) {
        madsim::task::spawn(workload);
    }

    // Safety phase: faults.
    let faults = &config.faults;
    let safety = Duration::from_millis(faults.safety_ms);
    if faults.rpc_drop_probability > 0.0 && faults.safety_ms > 0 {
        gateway.add_rule(FaultRule::drop(faults.rpc_drop_probability).window(0, faults.safety_ms));
    }
    let mut rng = stream(seed, FAULTS);
    let down: Arc<Mutex<Vec<bool>>> = Arc::new(Mutex::new(vec![false; p]));
    if faults.crash_interval_ms_mean > 0 {
        let mean = faults.crash_interval_ms_mean;
        loop {
            let wait = Duration::from_millis(rng.gen_range(mean / 2..=mean + mean / 2));
            if crate::net::now() + wait >= safety {
                break;
            }
            madsim::time::sleep(wait).await;
            if *status.lock().unwrap() != JobStatus::Running {
                break; // the job already ended: there is nothing left to disturb
            }
            let k = rng.gen_range(0..p);
            if down.lock().unwrap()[k] {
                continue;
            }
            down.lock().unwrap()[k] = true;
            let name = task_executor(k);
            gateway.node_down(&name);
            handle.kill(executors[k]);
            history.record("supervisor", EventKind::Crashed { node: name.clone() });
            let delay = Duration::from_millis(rng.gen_range(1..=faults.restart_delay_ms_max.max(1)));
            let (handle, history, down, id) = (handle.clone(), history.clone(), down.clone(), executors[k]);
            madsim::task::spawn(async move {
                madsim::time::sleep(delay).await;
                handle.restart(id);
                down.lock().unwrap()[k] = false;
                history.record("supervisor", EventKind::Restarted { node: name });
            });
        }
    }
    while crate::net::now() < safety && *status.lock().unwrap() == JobStatus::Running {
        madsim::time::sleep(Duration::from_millis(20).min(safety - crate::net::now())).await;
    }
    gateway.heal();

    // Liveness phase: everything healed; the job must converge.
    let deadline = crate::net::now() + Duration::from_millis(config.liveness_ms);
    while crate::net::now() < deadline {
        madsim::time::sleep(Duration::from_millis(20)).await;
        let st = status.lock().unwrap().clone();
        if st != JobStatus::Running {
            break;
        }
        if !bounded && all_visible(&history, output.as_ref()) {
            break;
        }
    }
    *virtual_ms.lock().unwrap() = crate::net::now().as_millis() as u64;
    for node in nodes {
        handle.kill(node);
    }
    let status = status.lock().unwrap().clone();
    Ended { status, bounded, guarantee, ordered, liveness_ms: config.liveness_ms }
}

/// Whether every produced record is visible (counting first: sets are built only when the
/// count says it is possible, and duplicates cannot end the wait early).
fn all_visible(history: &History, output: &dyn OutputReader) -> bool {
    let visible = output.read_visible().0;
    if visible.len() < history.produced() {
        return false;
    }
    let visible: std::collections::BTreeSet<_> = visible.into_iter().collect();
    history.events().iter().all(|e| match &e.kind {
        EventKind::Produced { id, .. } => visible.contains(id),
        _ => true,
    })
}
