//! Running blocks against a cluster, through the harness's [`Control`].

use crate::block::{Block, Fault, NewJobFrom, Target, Worker};
use connsim::cluster::{task_executor, NewJobStart, Phase, JOB_MASTER};
use connsim::net::{FaultRule, RuleId};
use connsim::run::Control;
use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;

/// How long a block waits for a checkpoint before moving on (faults may hold it up).
const CHECKPOINT_WAIT_MS: u64 = 1_000;
/// How long a crash aimed at a phase waits for a subtask to get there.
const PHASE_WAIT_MS: u64 = 1_500;
/// How long a savepoint may take before the stop counts as failed.
const SAVEPOINT_WAIT_MS: u64 = 3_000;

fn workers(control: &Control, w: Worker) -> Vec<usize> {
    among(control, w, control.subtasks())
}

/// Subtasks a worker stands for among the first `p`.
fn among(control: &Control, w: Worker, p: usize) -> Vec<usize> {
    match w {
        Worker::Any => vec![control.random(p as u64) as usize],
        Worker::Nth(n) => vec![n % p],
        Worker::All => (0..p).collect(),
    }
}

/// Node names a target stands for, for crashes.
fn nodes(control: &Control, t: &Target) -> Vec<String> {
    match t {
        Target::JobMaster => vec![JOB_MASTER.to_string()],
        Target::Worker(w) => workers(control, *w).into_iter().map(task_executor).collect(),
        Target::System(s) => vec![s.clone()],
    }
}

/// A node-name prefix a target stands for, for fault rules.
fn prefix(control: &Control, t: &Target) -> String {
    match t {
        Target::JobMaster => JOB_MASTER.to_string(),
        Target::Worker(Worker::All) => "taskexecutor-".to_string(),
        Target::Worker(w) => task_executor(workers(control, *w)[0]),
        Target::System(s) => s.clone(),
    }
}

fn rules(control: &Control, fault: &Fault) -> Vec<FaultRule> {
    let link = |mut r: FaultRule, kind: &Option<String>, from: &Option<Target>, to: &Option<Target>| {
        if let Some(k) = kind {
            r = r.kind(k);
        }
        if let Some(f) = from {
            r = r.from(&prefix(control, f));
        }
        if let Some(t) = to {
            r = r.to(&prefix(control, t));
        }
        r
    };
    match fault {
        Fault::Drop { probability, kind, from, to } => vec![link(FaultRule::drop(*probability), kind, from, to)],
        Fault::Delay { ms, kind, from, to } => vec![link(FaultRule::delay(*ms), kind, from, to)],
        Fault::Straggle { ms, kind, from, to } => vec![link(FaultRule::straggle(*ms), kind, from, to)],
        Fault::Hold { until, max_ms, kind, from, to } => vec![link(FaultRule::hold(until, *max_ms), kind, from, to)],
        Fault::LoseResponses { probability, kind, from, to } => {
            vec![link(FaultRule::lose_response(*probability), kind, from, to)]
        }
        Fault::Refuse { probability, refusal, kind, to } => {
            vec![link(FaultRule::refuse(*probability, *refusal), kind, &None, &Some(to.clone()))]
        }
        Fault::Partition { a, b } => {
            let (a, b) = (prefix(control, a), prefix(control, b));
            vec![FaultRule::partition(&a, &b), FaultRule::partition(&b, &a)]
        }
    }
}

fn install(control: &Control, fault: &Fault) -> Vec<RuleId> {
    rules(control, fault).into_iter().map(|r| control.add_rule(r)).collect()
}

fn remove(control: &Control, ids: Vec<RuleId>) {
    for id in ids {
        control.remove_rule(id);
    }
}

/// Stops the job with a savepoint and lets it settle 20 ms; false, with the reason as a step,
/// when the stop failed (the job then keeps running).
async fn stopped_with_savepoint(control: &Control) -> bool {
    let outcome = control.stop_with_savepoint(SAVEPOINT_WAIT_MS).await;
    if control.crash_armed() {
        // A crash armed for this savepoint that no subtask reached.
        control.step("no subtask reached DuringSavepoint");
        control.disarm();
    }
    match outcome {
        Ok(savepoint) => {
            control.step(format!("savepoint {savepoint} taken; the job stopped"));
            control.sleep_ms(20).await;
            true
        }
        Err(e) => {
            control.step(format!("stop-with-savepoint failed, the job keeps running: {e}"));
            false
        }
    }
}

/// Triggers a checkpoint and waits for one newer than what was complete before.
async fn checkpoint(control: &Control) -> bool {
    let before = control.last_completed();
    control.trigger_checkpoint();
    control.await_checkpoint(before, CHECKPOINT_WAIT_MS).await.is_some()
}

impl Block {
    /// Whether the block acts on the running job (and so means nothing once it ended).
    fn disturbs_the_job(&self) -> bool {
        matches!(
            self,
            Block::Checkpoint
                | Block::DeclineCheckpoint { .. }
                | Block::CheckpointTimeout
                | Block::LoseNotify { .. }
                | Block::SlowStart { .. }
                | Block::SlowSnapshot { .. }
                | Block::SlowSink { .. }
                | Block::Crash { .. }
                | Block::Pause { .. }
                | Block::Fault { .. }
                | Block::StopWithSavepoint { .. }
                | Block::NewJob { .. }
                | Block::Rescale { .. }
        )
    }

    /// Runs the block against the cluster.
    pub fn run<'a>(&'a self, control: &'a Control) -> Pin<Box<dyn Future<Output = ()> + 'a>> {
        Box::pin(async move {
            let fault =
                (self.disturbs_the_job() && !matches!(self, Block::Checkpoint)) || matches!(self, Block::During { .. });
            let ended = control.ended();
            if self.disturbs_the_job() && ended {
                // Nothing left to disturb; the report shows the step was skipped, and why.
                control.step(format!("skipped, the job already ended: {}", self.to_rust()));
                if fault {
                    control.fault_block(true);
                }
                return;
            }
            if !matches!(self, Block::Seq(_) | Block::Repeat { .. }) {
                control.step(self.to_rust());
            }
            if fault {
                // A fault installed after the job ended meets no job either.
                control.fault_block(ended);
            }
            match self {
                Block::Produce { n, spread, over_ms } => {
                    let rounds = (over_ms / 10).clamp(1, (*n).max(1));
                    for round in 0..rounds {
                        let share = n / rounds + u64::from(round < n % rounds);
                        if let Err(e) = control.produce(share, *spread) {
                            control.step(format!("produce skipped: {e}"));
                            return;
                        }
                        if rounds > 1 {
                            control.sleep_ms(over_ms / rounds).await;
                        }
                    }
                }
                Block::AddSplits { n } => {
                    if let Err(e) = control.add_splits(*n) {
                        control.step(format!("add_splits skipped: {e}"));
                    }
                }
                Block::Checkpoint => {
                    checkpoint(control).await;
                }
                Block::DeclineCheckpoint { worker } => {
                    for k in workers(control, *worker) {
                        control.decline_next(k);
                    }
                    checkpoint(control).await;
                    control.disarm();
                }
                Block::CheckpointTimeout => {
                    // One subtask's snapshot is slow (a slow state upload) past the timeout.
                    let hold = control.config().job.checkpoints.timeout_ms + 100;
                    control.slow_snapshot(workers(control, Worker::Any)[0], hold);
                    control.trigger_checkpoint();
                    control.sleep_ms(hold).await;
                    control.disarm();
                }
                Block::LoseNotify { worker } => {
                    let mut ids = Vec::new();
                    for k in workers(control, *worker) {
                        let to = Some(Target::Worker(Worker::Nth(k)));
                        let f = Fault::Drop { probability: 1.0, kind: Some("Notify".into()), from: None, to };
                        ids.extend(install(control, &f));
                    }
                    checkpoint(control).await;
                    remove(control, ids);
                }
                Block::SlowSnapshot { worker, ms } => {
                    for k in workers(control, *worker) {
                        control.slow_snapshot(k, *ms);
                    }
                }
                Block::SlowSink { worker, ms, for_ms } => {
                    // Only subtasks that host a writer (with a sink parallelism of its own,
                    // some host only a reader).
                    for k in among(control, *worker, control.writers()) {
                        control.slow_writes(k, *ms, *for_ms);
                    }
                    control.sleep_ms(*for_ms).await;
                }
                Block::SlowStart { worker, ms } => {
                    for k in workers(control, *worker) {
                        control.slow_start(k, *ms);
                    }
                }
                Block::Crash { target, at: None, restart_after_ms } => {
                    for node in nodes(control, target) {
                        control.crash_for(&node, *restart_after_ms);
                    }
                }
                Block::Crash { target, at: Some(phase), restart_after_ms } => {
                    if let Err(e) = self.validate() {
                        control.step(format!("crash skipped: {e}"));
                        return;
                    }
                    match target {
                        Target::JobMaster => control.arm_job_master_crash(*phase, *restart_after_ms),
                        Target::Worker(w) => {
                            let who = match w {
                                Worker::Any => None,
                                w => Some(workers(control, *w).into_iter().collect::<BTreeSet<_>>()),
                            };
                            control.arm_crash(*phase, who, *restart_after_ms);
                        }
                        Target::System(_) => unreachable!("validated above"),
                    }
                    if *phase == Phase::DuringSavepoint {
                        // Only a stopping savepoint reaches it: the next stop_with_savepoint.
                        control.step("armed for the next stop-with-savepoint");
                        return;
                    }
                    let deadline = control.now_ms() + PHASE_WAIT_MS;
                    while control.crash_armed() && control.now_ms() < deadline && !control.ended() {
                        control.sleep_ms(10).await;
                    }
                    if control.crash_armed() {
                        control.step(format!("nothing reached {phase:?} within {PHASE_WAIT_MS} ms"));
                        control.disarm();
                    }
                }
                Block::Pause { target, ms } => {
                    for node in nodes(control, target) {
                        control.pause_for(&node, *ms);
                    }
                    control.sleep_ms(*ms).await;
                }
                Block::Fault { fault, for_ms } => {
                    let ids = install(control, fault);
                    control.sleep_ms(*for_ms).await;
                    remove(control, ids);
                }
                Block::Configure { system, setting } => {
                    let _ = control.configure(system, setting); // a refusal is a step in the history
                }
                Block::Heal => control.heal_all().await,
                Block::StopWithSavepoint { resume_with } => {
                    if stopped_with_savepoint(control).await {
                        control.resume(resume_with.unwrap_or(control.parallelism())).await;
                    }
                }
                Block::NewJob { from } => {
                    if stopped_with_savepoint(control).await {
                        let start = match from {
                            NewJobFrom::WithoutState => NewJobStart::WithoutState,
                            NewJobFrom::OlderSavepoint => NewJobStart::OlderSavepoint,
                        };
                        match control.start_new_job(start).await {
                            Ok((job, 0)) => control.step(format!("job {job} started without state")),
                            Ok((job, from)) => control.step(format!("job {job} started from savepoint {from}")),
                            Err(e) => {
                                control.step(format!("no new job: {e}; resuming the stopped one"));
                                control.resume(control.parallelism()).await;
                            }
                        }
                    }
                }
                Block::Rescale { parallelism } => {
                    control.rescale(*parallelism).await;
                }
                Block::Wait { ms } => control.sleep_ms(*ms).await,
                Block::Drain { timeout_ms } => {
                    control.drain(*timeout_ms).await;
                }
                Block::Seq(blocks) => {
                    for b in blocks {
                        b.run(control).await;
                    }
                }
                Block::Repeat { n, block } => {
                    for _ in 0..*n {
                        block.run(control).await;
                    }
                }
                Block::During { fault, body } => {
                    let ids = install(control, fault);
                    body.run(control).await;
                    remove(control, ids);
                }
                Block::Phases { safety, liveness_ms } => {
                    safety.run(control).await;
                    control.heal_all().await;
                    control.drain(*liveness_ms).await;
                }
                Block::OneOf(blocks) => {
                    if !blocks.is_empty() {
                        let i = control.random(blocks.len() as u64) as usize;
                        blocks[i].run(control).await;
                    }
                }
                Block::TimeLimit { ms, block } => {
                    let _ = madsim::time::timeout(std::time::Duration::from_millis(*ms), block.run(control)).await;
                }
            }
        })
    }
}
