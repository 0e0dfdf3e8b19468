//! The job-master node's init task: the job's components built (the enumerator, the slots
//! of every subtask and of the tasks downstream of the writers), then a fresh start or a restore from
//! the latest completed checkpoint, then the coordinator's loop.

use super::alignment::AlignmentCoordinator;
use super::components::{CheckpointCoordinator, DownstreamTasks, Scheduler, SourceCoordinator};
use super::{JobMaster, JobStatus, JobStatusCell, Slot};
use crate::api::{EnumeratorContext, Sink, Source};
use crate::cluster::config::JobConfig;
use crate::cluster::downlink::Downlink;
use crate::cluster::heartbeat::{self, Expected};
use crate::cluster::hooks::Hooks;
use crate::cluster::protocol::JOB_MASTER;
use crate::cluster::store::CheckpointStore;
use crate::cluster::tracker::AssignmentTracker;
use crate::history::{EventKind, FailoverScope, History};
use crate::net::Gateway;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// The init task of the job-master node.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn run<Src: Source, Snk: Sink>(
    source: Src,
    sink: Snk,
    cfg: JobConfig,
    gateway: Gateway,
    history: History,
    store: CheckpointStore,
    status: JobStatusCell,
    hooks: Hooks,
) {
    let (endpoint, inbox) = gateway.bind(JOB_MASTER);
    // The enumerator runs here: clients it builds without the context (rdkafka's) send from
    // the job master.
    let ambient = endpoint.clone();
    crate::net::ambient::scope(ambient, async move {
        let (reports, reports_rx) = mpsc::unbounded_channel();
        let (internal, internal_rx) = mpsc::unbounded_channel();
        let (call_results, call_results_rx) = mpsc::unbounded_channel();
        let (lost_tx, lost_rx) = mpsc::unbounded_channel();
        let (commands_tx, commands_rx) = mpsc::unbounded_channel();
        hooks.register_job_master(commands_tx);
        let epoch = store.next_epoch();
        // Readers; subtasks host a reader, a writer, or both (slot sharing).
        let p = store.parallelism().unwrap_or(cfg.parallelism);
        let n = p.max(cfg.writers(p));
        // The tasks downstream of the writers (the global committer's, or the committers'
        // when they run apart) come after every reader and writer; each shares a subtask's
        // slot (Flink's slot sharing).
        let global = sink.has_global_committer();
        let downstream = DownstreamTasks {
            tasks: crate::cluster::shape::JobShape::downstream_of(p, cfg.writers(p), cfg.committers(), global),
            global,
        };
        let slots_n = n + downstream.tasks.len();
        *status.lock().unwrap() = JobStatus::Running;
        let problem = cfg.problem().or_else(|| {
            (global && cfg.committers() > 0).then(|| {
                "committer_parallelism is set, but the sink has a global committer, which commits instead of \
                 the committers: leave committer_parallelism unset"
                    .to_string()
            })
        });
        if let Some(problem) = problem {
            history.record(JOB_MASTER, EventKind::JobFailed { reason: problem.clone() });
            *status.lock().unwrap() = JobStatus::Failed(problem);
            return;
        }
        let expected: Expected = Arc::new(Mutex::new(vec![None; slots_n]));
        heartbeat::start(
            endpoint.clone(),
            expected.clone(),
            Duration::from_millis(cfg.heartbeats.interval_ms),
            cfg.heartbeats.misses_max,
            lost_tx,
        );
        history.record(JOB_MASTER, EventKind::JobStarted { parallelism: p });
        let ctx = EnumeratorContext::new(p, endpoint.clone());
        let enumerator = source.create_enumerator(&ctx);
        let slots = (0..slots_n)
            // Attempts start at `epoch << 32`, above every earlier incarnation's, so a task
            // executor fences whatever an older job master still has in flight.
            .map(|i| {
                let executor = cfg.home(if downstream.contains(i) { downstream.host(i) } else { i });
                let downlink = Downlink::start(endpoint.clone(), i, 0, executor, reports.clone());
                Slot { attempt: epoch << 32, executor, no_more_splits: false, last_seq: 0, downlink, held: None }
            })
            .collect();
        let suspects = vec![None; cfg.task_executors(p)];
        let mut jm: JobMaster<Src, Snk> = JobMaster {
            coordinator: SourceCoordinator {
                source,
                enumerator: Some(enumerator),
                ctx,
                starting: None,
                tracker: AssignmentTracker::new(),
                readers: p,
                calls: Vec::new(),
                call_results,
                generation: 0,
                alignment: None,
            },
            checkpoints: CheckpointCoordinator {
                store,
                pending: BTreeMap::new(),
                finishing: None,
                stop_requested: false,
            },
            scheduler: Scheduler { slots, suspects, expected, downstream },
            sink: std::marker::PhantomData,
            cfg,
            endpoint,
            history,
            status,
            hooks: hooks.clone(),
            reports,
            internal,
            done: false,
        };
        let watermarks = jm.cfg.watermarks.or(jm.coordinator.source.watermark_strategy());
        jm.coordinator.alignment = watermarks.and_then(|w| w.alignment).map(AlignmentCoordinator::new);
        match jm.checkpoints.store.latest() {
            None => {
                jm.start_enumerator().await;
                for i in 0..slots_n {
                    jm.redeploy(i);
                }
                jm.wire();
            }
            Some(cp) => {
                // A new incarnation (job-master failover, resume from a savepoint, rescale):
                // everything restarts from the latest completed checkpoint.
                let strategy = if cp.readers != p || cp.subtasks.len() != slots_n {
                    FailoverScope::Rescale
                } else {
                    FailoverScope::JobMaster
                };
                let cause = format!("job master incarnation {epoch} started");
                jm.restore_all(strategy, cause).await;
            }
        }
        jm.run(inbox, reports_rx, internal_rx, lost_rx, commands_rx, call_results_rx).await;
    })
    .await;
}
