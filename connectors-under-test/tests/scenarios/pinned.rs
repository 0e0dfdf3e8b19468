//! Pinned scenarios: together they use every block kind. Each runs against the reference
//! pipelines under both failover strategies; seed 1 of each is pinned as a report snapshot
//! under `snapshots/`, so a behaviour change shows in review as a timeline diff.

use connsim_scenarios::prelude::*;

/// Checkpoint blocks: trigger, decline, time out, a slow snapshot, lose notifications; a
/// checkpoint taken while a restarted reader registers late.
pub fn checkpoints() -> Scenario {
    Scenario::new("checkpoints")
        .then(checkpoint())
        .then(slow_snapshot(Worker::Nth(3), 150))
        .then(checkpoint())
        .then(decline_checkpoint(Worker::Nth(1)))
        .then(checkpoint_timeout())
        .then(lose_notify(Worker::All))
        .then(lose_notify(Worker::Nth(2)))
        .then(checkpoint())
        .then(slow_start(Worker::Nth(0), 120))
        .then(crash(Worker::Nth(0)).restart_after(10))
        .then(wait(200))
        .requires("checkpoint-declined")
        .requires("checkpoint-aborted")
        .requires("notify-lost")
}

/// A task executor crashed at every phase of the two-phase commit and of restore.
pub fn crash_at_every_phase() -> Scenario {
    let mut s = Scenario::new("crash at every phase");
    for phase in Phase::CHAIN {
        let target = if phase.on_subtasks() { Target::Worker(Worker::Any) } else { job_master() };
        s = s.then(crash(target).at(phase).restart_after(30));
        if phase != Phase::AfterRestore {
            s = s.then(wait(20)); // after AfterRestore the next crash must be armed at once
        }
        s = s.requires(phase.mark());
    }
    s
}

/// The job master and the external systems crash.
pub fn master_and_systems() -> Scenario {
    Scenario::new("job master and external systems crash")
        .then(checkpoint())
        .then(crash(job_master()).restart_after(80))
        .then(wait(150))
        .then(crash(system("log")).restart_after(40))
        .then(crash(system("fs")).restart_after(40))
        .then(crash(system("sink-log")).restart_after(40))
        .then(crash(system("table")).restart_after(40))
        .then(checkpoint())
        .then(crash(job_master()).restart_after(10))
        .then(crash(job_master()).at(Phase::BeforeNotify))
        .requires(Phase::BeforeNotify.mark())
        .requires("crash:jobmaster")
        .requires("failover:jobmaster")
        .requires("crash:system")
}

/// Network faults by kind and link, held for a window or during another block; error replies
/// and a slow system; a transaction timeout on the sink log; torn appends in the file system;
/// a zombie and a frozen worker.
pub fn network() -> Scenario {
    Scenario::new("network faults")
        .then(transaction_timeout("sink-log", 2_000))
        .then(drop_messages(0.2, None, 200))
        .then(delay_messages(60, Some("Ack"), 200))
        .then(lose_responses(0.5, system("log"), 200))
        .then(refuse("fs", Refusal::Throttled, 0.5, 150))
        .then(refuse("sink-log", Refusal::Unavailable, 0.5, 150))
        .then(slow_system("table", 80, 150))
        .then(torn_appends("fs", 0.05))
        .then(partition(Worker::Nth(1), job_master(), 300))
        .then(zombie(Worker::Nth(2), 700))
        .then(pause(Worker::Nth(3), 500))
        .then(during(
            Fault::Drop { probability: 0.3, kind: Some("Notify".into()), from: None, to: None },
            checkpoint().then(wait(100)),
        ))
        .then(heal())
        .then(torn_appends("fs", 0.0))
        .requires("message-dropped")
        .requires("message-delayed")
        .requires("response-lost")
        .requires("partition")
        .requires("zombie-wrote-after-replacement")
        .requires("paused")
}

/// Stop-with-savepoint, resume, and rescale from checkpoints and savepoints.
pub fn savepoints_and_rescaling() -> Scenario {
    Scenario::new("savepoints and rescaling")
        .then(checkpoint())
        .then(crash(Worker::Nth(1)).at(Phase::DuringSavepoint))
        .then(stop_with_savepoint())
        .then(wait(50))
        .then(stop_with_savepoint())
        .then(wait(50))
        .then(savepoint_and_rescale(2))
        .then(wait(100))
        .then(rescale(4))
        .then(wait(100))
        .then(rescale(1))
        .requires(Phase::DuringSavepoint.mark())
        .requires("savepoint-stop")
        .requires("rescale")
}

/// New jobs against the output the last one left: one without state, then one from the
/// savepoint before the one that stopped the last job.
pub fn new_jobs() -> Scenario {
    Scenario::new("new jobs")
        .then(checkpoint())
        .then(stop_with_savepoint())
        .then(wait(50))
        .then(restart_without_state())
        .then(wait(100))
        .then(checkpoint())
        .then(restart_from_older_savepoint())
        .then(wait(100))
        .then(checkpoint())
        .requires("new-job:without-state")
        .requires("new-job:older-savepoint")
}

/// Combinators: phases, one_of, repeat, time_limit.
pub fn combinators() -> Scenario {
    Scenario::new("combinators")
        .then(phases(
            one_of(vec![crash(Worker::Any).into(), partition(Worker::Any, job_master(), 200)])
                .then(checkpoint())
                .repeat(2),
            3_000,
        ))
        .then(wait(500).time_limit(50))
        .then(drain(5_000))
}

/// Workload blocks against an unbounded source: steady, burst, skewed, new splits.
pub fn workload() -> Scenario {
    Scenario::new("workload")
        .then(produce(400))
        .then(burst(300))
        .then(crash(Worker::Any))
        .then(skewed(300))
        .then(add_splits(2))
        .then(produce(200))
        .then(drain(10_000))
}

/// The data plane: over a key-by to three writers, two checkpoints pending at once, writer 0
/// slows down until its channels fill and the readers are backpressured.
pub fn data_plane() -> Scenario {
    Scenario::new("a slow sink over a key-by")
        .exchange(Exchange::KeyBy)
        .sink_parallelism(3)
        .concurrent_checkpoints(2)
        .then(wait(100))
        .then(slow_sink(Worker::Nth(0), 20, 300))
        .then(checkpoint())
        .then(wait(100))
        .requires("backpressure-held")
}
