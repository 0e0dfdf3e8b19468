//! The suite cases: Flink's SourceTestSuiteBase and SinkTestSuiteBase cases, with faults, and
//! what Flink's lack — crashes at every two-phase-commit phase, job-master failover, lost
//! notifications, RPC faults, lost responses and lost commit requests, external systems
//! crashing mid-stream or refusing requests, zombies (a worker cut off from the job master,
//! a frozen worker waking up), slow requests outliving a crashed writer, overlapping
//! checkpoints (two pending at once, a notification after a later barrier), splits appearing
//! while the source system is unreachable or slow to answer discovery, a source falling
//! behind its log's retention, an unbounded job that must stay put after it converged, a slow
//! sink backpressuring the source through an exchange, a swarm case.
//!
//! Every case's input arrives over [`PACE_MS`] of virtual time, so its checkpoints and
//! faults land while records still flow (at least five checkpoints complete before the end
//! of input on seed 1 of every case; a test holds the suites to it).

pub mod applied_late;
pub mod kafka;
mod optional;
pub mod schema;

use super::context::TestData;
use crate::block::{self, Block, Target, Worker};
use crate::prelude::*;
use connsim::api::DeliveryGuarantee;
use connsim::cluster::FailoverStrategy::{self, Global, Region};

/// What a case runs: a fixed scenario, or a generated (swarm) one per seed.
#[derive(Clone, Debug)]
pub enum Body {
    /// The same scenario on every seed.
    Scenario(Scenario),
    /// A generated swarm scenario per seed.
    Swarm,
}

/// One suite case: a scenario, the data it reads, the job's shape.
#[derive(Clone, Debug)]
pub struct CaseSpec {
    /// The case's name (`CONNSIM_CASE` selects cases by it).
    pub name: &'static str,
    /// Coverage marks every run of the case must reach between its seeds (the swarm case's;
    /// a scenario case carries its own in [`Scenario::requires`]).
    pub requires: Vec<&'static str>,
    /// The data in the source system.
    pub data: TestData,
    /// The job's parallelism.
    pub parallelism: usize,
    /// The failover strategy.
    pub failover: FailoverStrategy,
    /// How many checkpoints may be pending at once.
    pub concurrent_checkpoints: usize,
    /// The source is read with watermark alignment (the suite's event-time strategy with
    /// [`SUITE_ALIGNMENT`](super::SUITE_ALIGNMENT)).
    pub alignment: bool,
    /// What happens.
    pub body: Body,
}

const SPLITS: u32 = 8;
const RECORDS: u64 = 3_000;
/// How long every case's input takes to arrive, in virtual milliseconds.
pub const PACE_MS: u64 = 2_000;

fn case(name: &'static str, parallelism: usize, failover: FailoverStrategy, scenario: Scenario) -> CaseSpec {
    let data = TestData { skew_ms: super::SUITE_SKEW_MS, ..TestData::paced(SPLITS, RECORDS, PACE_MS) };
    let body = Body::Scenario(scenario);
    CaseSpec {
        name,
        requires: Vec::new(),
        data,
        parallelism,
        failover,
        concurrent_checkpoints: 1,
        alignment: false,
        body,
    }
}

/// The external systems a suite's cases aim at (node names).
#[derive(Clone, Debug, Default)]
pub struct Systems {
    /// The source's systems (empty for the trusted generator).
    pub source: Vec<String>,
    /// The sink's systems.
    pub sink: Vec<String>,
    /// Whether the source can run unbounded and take new splits and records while it runs
    /// (a source context; not the trusted generator).
    pub source_grows: bool,
    /// The sink's systems with a transaction timeout (transactional logs).
    pub transactional: Vec<String>,
    /// The sink's systems that can tear appends (file systems).
    pub appendable: Vec<String>,
    /// The sink's object stores (buckets): they throttle, fail, and expire uploads.
    pub stores: Vec<String>,
    /// The sink's tables with a schema: an `ALTER TABLE` changes it mid-run.
    pub tables: Vec<String>,
    /// The source's systems with retention (logs).
    pub retaining: Vec<String>,
    /// Whether the source is read in event time, so a case reads it with watermark
    /// alignment (source and pipeline suites).
    pub aligns: bool,
    /// Whether the cases replace the job by a new one (without state, or from an older
    /// savepoint) against the output it left: a sink's concern, so the sink and pipeline
    /// suites.
    pub new_jobs: bool,
    /// Whether the sink commits through a global committer, so a case cuts off its task.
    pub global_committer: bool,
    /// The sink's systems it reaches through Kafka's protocol (rdkafka): cases aim at a Kafka
    /// broker's own behaviour there (straggling requests, a broker without partition
    /// verification).
    pub kafka: Vec<String>,
    /// Whether a case runs the sink's committers apart from its writers and cuts one off: a
    /// sink's concern (the sink and pipeline suites), unless a global committer commits.
    pub committers_apart: bool,
}

impl Systems {
    /// The source's and the sink's systems.
    pub fn all(&self) -> Vec<String> {
        self.source.iter().chain(&self.sink).cloned().collect()
    }
}

/// Every case, aimed at the given external systems. Marks a case requires depend on the
/// guarantee (only an exactly-once sink commits through its external system).
pub fn all(aimed: &Systems, guarantee: DeliveryGuarantee) -> Vec<CaseSpec> {
    let exactly_once = guarantee == DeliveryGuarantee::ExactlyOnce;
    let all_systems = aimed.all();
    let systems = all_systems.as_slice();
    let mut phases = Scenario::new("crash at every two-phase-commit phase");
    for phase in Phase::CHAIN {
        // Only an exactly-once sink commits through its external system.
        if matches!(phase, Phase::InsideCommit | Phase::InsideRecoveredCommit) && !exactly_once {
            continue;
        }
        let target = if phase.on_subtasks() { Target::Worker(Worker::Any) } else { job_master() };
        phases = phases.then(crash(target).at(phase).restart_after(30));
        // A crash inside a commit needs a commit in flight when it is armed: most seeds have one.
        phases = match phase {
            Phase::InsideCommit | Phase::InsideRecoveredCommit => phases.requires_on(phase.mark(), 50),
            _ => phases.requires(phase.mark()),
        };
        // The restart after a crash at AfterRestore commits the recovered committables at once:
        // the next crash must be armed before that, so no pause follows it.
        if phase != Phase::AfterRestore {
            phases = phases.then(wait(20));
        }
    }
    let mut lost_responses = Scenario::new("lost responses from the external system");
    for s in systems {
        lost_responses = lost_responses.then(lose_responses(0.5, Target::System(s.clone()), 150)).then(checkpoint());
    }
    if !systems.is_empty() {
        // A sink that writes only at barriers (each file put whole, its tail at the barrier)
        // sends nothing in the window on a few seeds: 190 of 200 lose a response there.
        lost_responses = lost_responses.requires_on("response-lost", 90);
    }
    // Now and then, for a long while, an external system's answer is lost (a flaky network,
    // not a burst): between two checkpoints a writer sends many requests after one whose
    // answer it never got, and whatever it retries must still be recognised.
    let mut flaky = Scenario::new("occasional lost responses");
    for s in systems {
        flaky = flaky.then(lose_responses(0.05, Target::System(s.clone()), 600));
    }
    if !systems.is_empty() {
        // One response in twenty is lost: a seed whose writers send few requests may lose none.
        flaky = flaky.requires_on("response-lost", 20);
    }
    let mut single = case(
        "single split",
        1,
        Region,
        Scenario::new("single split")
            .then(checkpoint())
            .then(crash(Worker::Any))
            .then(wait(100))
            .requires("failover:region"),
    );
    single.data = TestData::paced(1, 1_000, PACE_MS);
    let mut idle = case(
        "more readers than splits",
        4,
        Region,
        Scenario::new("more readers than splits")
            .then(checkpoint())
            .then(crash(Worker::Nth(3)))
            .then(wait(100))
            .requires("failover:region"),
    );
    idle.data = TestData::paced(2, 1_000, PACE_MS);
    // Requests to the sink's systems are lost, then slower than the clients' timeouts, while
    // checkpoints complete: commits (and writes) must be retried without loss or duplicates.
    let mut commits = Scenario::new("lost commit requests");
    for s in &aimed.sink {
        let to = Some(Target::System(s.clone()));
        // Requests and their responses: about half of the calls get through.
        let lost = Fault::Drop { probability: 0.3, kind: None, from: None, to: to.clone() };
        // 30 ms each way on top of the latency: calls take effect, then time out.
        let slow = Fault::Delay { ms: 30, kind: None, from: None, to };
        commits = commits
            .then(wait(100))
            // The wait keeps the last checkpoint's commit inside the window too.
            .then(during(lost, checkpoint().then(checkpoint()).then(checkpoint()).then(wait(50))))
            .then(Block::Fault { fault: slow, for_ms: 150 })
            .then(wait(100));
    }
    commits = match (aimed.sink.is_empty(), exactly_once) {
        (true, _) => commits,
        // A request lost while a committer commits: only when a commit falls into the window.
        (false, true) => commits.requires_on("commit-request-lost", 10),
        // A request lost at all: 199 of 200 seeds for the log sink buffering in state.
        (false, false) => commits.requires_on("system-request-lost", 90),
    };
    // Every external system crashes and restarts while records flow; each loses exactly
    // what its model keeps only in memory (the file system: unsynced bytes).
    let mut crashes = Scenario::new("external systems crash mid-stream");
    for s in systems {
        crashes = crashes.then(wait(120)).then(crash(Target::System(s.clone())).restart_after(40));
    }
    if !systems.is_empty() {
        crashes = crashes.then(wait(100)).requires("crash:system");
    }
    // Every external system answers some requests with an error reply (each refusal kind in
    // turn) while checkpoints complete: writes, commits and reads must retry, not give up.
    let mut refusals = Scenario::new("external systems refuse requests");
    for (s, refusal) in systems.iter().zip(Refusal::ALL.iter().cycle()) {
        refusals = refusals.then(wait(100)).then(refuse(s, *refusal, 0.4, 300));
    }
    if !systems.is_empty() {
        refusals = refusals.then(wait(100)).requires("request-refused");
    }
    if !aimed.sink.is_empty() && exactly_once {
        // A refusal while a committer commits: only when a commit falls into the window, so
        // judged over the seeds where one did (a sink rolling its files rarely commits
        // outside it on every seed).
        refusals = refusals.requires_where("commit-request-refused", 10, "commit-under-refusal");
    }
    // One worker's requests to the sink's systems take 400 ms longer (a stuck connection,
    // far past the clients' timeouts), and the worker crashes 250 ms in: what it sent lands
    // after it died, after its replacement started and looked at the output (as a request
    // stuck in a slow server outlives its client). A late write must be fenced, or harmless.
    let written: Vec<&String> = aimed.sink.iter().filter(|s| s.as_str() != "collector").collect();
    let late = (!written.is_empty()).then(|| {
        let mut body = wait(250).then(crash(Worker::Nth(1)).restart_after(100)).then(wait(20));
        for s in &written {
            let (from, to) = (Some(Target::Worker(Worker::Nth(1))), Some(Target::System(s.to_string())));
            body = during(Fault::Delay { ms: 400, kind: None, from, to }, body);
        }
        let late = Scenario::new("slow requests outlive a crashed writer").then(wait(100)).then(body).then(wait(500));
        late.requires("message-delayed").requires("request-outlived-its-sender")
    });
    // Two checkpoints may be pending at once. One subtask's snapshots are slow: checkpoint c
    // stays pending past the trigger of c + 1, and c + 1 long past c's completion, so the
    // other subtasks take barrier c + 1 well before they hear that c completed (a sink that
    // commits on notification must commit only what c covers). Then a subtask fails while a
    // slow snapshot holds a checkpoint (and often the next one) pending, which aborts them.
    let overlapping = Scenario::new("overlapping checkpoints")
        .then(wait(100))
        .then(slow_snapshot(Worker::Nth(0), 250))
        .then(wait(120))
        .then(slow_snapshot(Worker::Nth(0), 200))
        .then(wait(500))
        .then(slow_snapshot(Worker::Any, 250))
        .then(wait(150))
        .then(crash(Worker::Nth(1)))
        .then(wait(200))
        .requires("checkpoints-overlapped")
        // A notification that arrives after the next barrier: 199 of 200 seeds over a
        // rebalance to three writers.
        .requires_on("notified-after-later-barrier", 90);
    // A task executor is cut off from the job master, and only from it, for longer than the
    // job master's heartbeat timeout: its subtask is redeployed to a spare slot while the
    // cut-off attempt runs on and keeps writing, until its own lease runs out.
    let zombies = Scenario::new("a worker cut off from the job master (zombie)")
        .then(wait(100))
        .then(zombie(Worker::Any, 800))
        .then(wait(100))
        .requires("lease-expired");
    // A reader reads its source system on every seed; a sink's writers may reach theirs only at
    // barriers, which a zombie no longer gets (the table sink's do): then the share is only
    // reported.
    let zombies = zombies.requires_on("zombie-wrote-after-replacement", if aimed.source.is_empty() { 0 } else { 100 });
    // A task executor freezes (a long garbage-collection pause) past the heartbeat timeout,
    // then wakes up and goes on where it stopped, its replacement already running elsewhere.
    let frozen = Scenario::new("a frozen worker wakes up (long GC pause)")
        .then(wait(100))
        .then(pause(Worker::Any, 600))
        .then(wait(700))
        .requires("paused")
        .requires("failover:region");
    // A slow sink behind a rebalance: after a region failover, writer 0 takes 20 ms per
    // record for half a second, far below what the readers send it. Its input channels fill,
    // their credit runs out and the readers stop polling for 100 ms and more at a time
    // (mark `backpressure-held`, which a busy exchange's short waits never reach); barriers queue
    // behind the records, so alignment takes long. A source must lose nothing while it is
    // held back (its fetchers stall with it), and the job must catch up afterwards.
    let backpressure = Scenario::new("a slow sink backpressures the source")
        .exchange(Exchange::Rebalance)
        .then(wait(100))
        .then(crash(Worker::Any))
        .then(wait(150))
        .then(slow_sink(Worker::Nth(0), 20, 500))
        .then(wait(200))
        .requires("backpressure-held")
        .requires("failover:region");
    let mut settle = case(
        "unbounded, stable after convergence",
        4,
        Region,
        Scenario::new("unbounded, stable after convergence")
            .then(checkpoint())
            .then(crash(Worker::Any).restart_after(30))
            .then(wait(200))
            .requires("converged"),
    );
    settle.data.unbounded = true;
    let mut cases = vec![
        single,
        case(
            "multiple splits, per-split order",
            4,
            Region,
            Scenario::new("multiple splits")
                .then(checkpoint())
                .then(crash(Worker::Any))
                .then(checkpoint())
                .requires("failover:region"),
        ),
        case(
            "stop-with-savepoint and resume",
            4,
            Region,
            // The first stop loses a subtask after it acknowledged the savepoint; the second
            // goes through. A global committer shares subtask 0's slot: when the crash takes
            // its task executor before the committer acknowledged (it was inside a commit), the
            // first stop fails, and the job runs to its end while the stop waits (5 % of seeds).
            Scenario::new("savepoint")
                .then(checkpoint())
                .then(crash(Worker::Any).at(Phase::DuringSavepoint).restart_after(30))
                .then(stop_with_savepoint())
                .then(wait(100))
                .then(stop_with_savepoint())
                .then(wait(100))
                .requires(Phase::DuringSavepoint.mark())
                .requires_on("savepoint-stop", if aimed.global_committer { 80 } else { 100 }),
        ),
        case(
            "scale up",
            2,
            Region,
            Scenario::new("scale up")
                .then(checkpoint())
                .then(savepoint_and_rescale(4))
                .then(wait(100))
                .requires("rescale"),
        ),
        case(
            "scale down",
            4,
            Global,
            Scenario::new("scale down")
                .then(checkpoint())
                .then(rescale(2))
                .then(wait(100))
                .then(checkpoint())
                .then(savepoint_and_rescale(1))
                .requires("rescale"),
        ),
        case(
            "scale down, then up",
            4,
            Region,
            // What the subtasks a scale-down removed left behind (open transactions, in-progress
            // files) must not hold up the subtasks that come back with the scale-up. A worker
            // cut off from the job master first keeps checkpoints from completing while the
            // others write on.
            Scenario::new("scale down, then up")
                .then(wait(100))
                .then(partition(Worker::Nth(3), job_master(), 250))
                .then(rescale(1))
                .then(checkpoint())
                .then(wait(100))
                .then(savepoint_and_rescale(4))
                .then(wait(100))
                .requires("rescale"),
        ),
        idle,
        case(
            "task failure mid-stream (region)",
            4,
            Region,
            Scenario::new("task failure")
                .then(wait(150))
                .then(crash(Worker::Any))
                .then(wait(150))
                .requires("failover:region"),
        ),
        case(
            "task failure mid-stream (global)",
            4,
            Global,
            Scenario::new("task failure")
                .then(wait(150))
                .then(crash(Worker::All))
                .then(wait(150))
                .requires("failover:global"),
        ),
        case("crash at every two-phase-commit phase", 4, Region, phases),
        case(
            "job-master failover",
            4,
            Region,
            Scenario::new("job-master failover")
                .then(checkpoint())
                .then(crash(job_master()).restart_after(80))
                .then(wait(200))
                .then(crash(job_master()).restart_after(10))
                .then(wait(100))
                // A completed checkpoint is stored, then the job master dies before telling
                // any subtask: the restored one must still get its committables committed.
                .then(crash(job_master()).at(Phase::BeforeNotify).restart_after(40))
                .then(wait(100))
                .requires(Phase::BeforeNotify.mark())
                .requires("failover:jobmaster"),
        ),
        case(
            "lost checkpoint notifications",
            4,
            Region,
            // A subtask declines a checkpoint first: the others' writers prepared for it, and
            // what they prepared goes on with the next checkpoint (a global committer's
            // alignment of it is cancelled).
            Scenario::new("lost notifications")
                .then(decline_checkpoint(Worker::Any))
                .then(lose_notify(Worker::All))
                .then(lose_notify(Worker::Any))
                .then(crash(Worker::Any))
                .then(checkpoint())
                .requires("checkpoint-declined")
                .requires("notify-lost"),
        ),
        case(
            "RPC faults",
            4,
            Region,
            Scenario::new("RPC faults")
                .then(block::drop_messages(0.2, None, 300))
                .then(block::delay_messages(40, None, 200))
                .then(partition(Worker::Any, job_master(), 200))
                .then(Block::Heal)
                .requires("message-dropped")
                .requires("message-delayed")
                // The worker cut off may be a spare one, with nothing to say to the job master.
                .requires_on("partition", 50),
        ),
        case("lost responses from the external system", 4, Region, lost_responses),
        case("occasional lost responses", 4, Region, flaky),
        case("lost commit requests", 4, Region, commits),
        case("external systems crash mid-stream", 4, Region, crashes),
        case("external systems refuse requests", 4, Region, refusals),
        case("a worker cut off from the job master (zombie)", 4, Region, zombies),
        case("a frozen worker wakes up (long GC pause)", 4, Region, frozen),
        CaseSpec { concurrent_checkpoints: 2, ..case("overlapping checkpoints", 4, Region, overlapping) },
        settle,
        case(
            "splits wait for a slow reader",
            4,
            Region,
            // A reader fails before its splits were checkpointed and its next attempt registers
            // late: the splits handed back wait in the enumerator while a checkpoint is taken;
            // then the job master fails over and everything restores from that checkpoint.
            Scenario::new("slow reader registration")
                .then(wait(30))
                .then(slow_start(Worker::Nth(1), 150))
                .then(crash(Worker::Nth(1)).restart_after(10))
                .then(wait(250))
                .then(crash(job_master()))
                .requires("failover:region")
                .requires("failover:jobmaster"),
        ),
        CaseSpec {
            name: "swarm",
            requires: vec!["crash", "restore-from-checkpoint"],
            data: TestData { skew_ms: super::SUITE_SKEW_MS, ..TestData::paced(SPLITS, RECORDS, PACE_MS) },
            parallelism: 4,
            failover: Region,
            concurrent_checkpoints: 1,
            alignment: false,
            body: Body::Swarm,
        },
    ];
    cases.insert(cases.len() - 1, case("a slow sink backpressures the source", 4, Region, backpressure));
    if let Some(late) = late {
        cases.insert(cases.len() - 1, case("slow requests outlive a crashed writer", 4, Region, late));
    }
    if exactly_once && !aimed.transactional.is_empty() {
        // An exactly-once sink writes in transactions. The log aborts transactions open longer than 250 ms. The only writer is down longer
        // than that: its open transaction times out (data the source replays), while each
        // transaction a checkpoint completed is committed well within the timeout.
        let mut timeout = Scenario::new("transactions time out while a writer is down");
        for s in &aimed.transactional {
            timeout = timeout.then(transaction_timeout(s, 250));
        }
        timeout = timeout
            .then(wait(100))
            .then(crash(Worker::Any).at(Phase::BeforeBarrier).restart_after(400))
            .then(wait(300))
            .requires("transaction-timed-out");
        cases.insert(cases.len() - 1, case("transactions time out while a writer is down", 1, Region, timeout));
    }
    if !aimed.appendable.is_empty() {
        // Now and then an append writes only part of its bytes and is not answered: a writer
        // must not build on a file it cannot account for.
        let mut torn = Scenario::new("torn appends").then(wait(50));
        for s in &aimed.appendable {
            torn = torn.then(torn_appends(s, 0.05)).then(wait(500)).then(torn_appends(s, 0.0));
        }
        torn = torn.then(wait(100)).requires_on("append-torn", 50);
        cases.insert(cases.len() - 1, case("torn appends", 4, Region, torn));
    }
    if !aimed.stores.is_empty() {
        // From 50 ms on the bucket throttles (503 SlowDown, not applied) and fails (500, half
        // of them applied) requests, to the end of the run, and two workers crash meanwhile,
        // one after the other: the store's client retries both answers, so a retried write
        // may find its own first attempt, the end of the input's commits included, and so may
        // the restored attempts' commits of what their checkpoints recorded (a request the
        // bucket refused may also come back after a later one of the same commit).
        let mut errs = Scenario::new("the object store throttles and fails requests").then(wait(50));
        for s in &aimed.stores {
            errs = errs.then(slow_down(s, 0.1)).then(internal_errors(s, 0.2));
        }
        errs = errs
            .then(wait(200))
            .then(crash(Worker::Any).restart_after(30))
            .then(wait(300))
            .then(crash(Worker::Any).restart_after(30))
            .then(wait(300))
            .requires("s3-slow-down")
            .requires("s3-internal-error")
            .requires_on("restore-from-checkpoint", 50);
        cases.insert(cases.len() - 1, case("the object store throttles and fails requests", 4, Region, errs));
        // The lifecycle rule aborts uploads 250 ms after they started; the only writer is down
        // longer than that: its open upload expires (data the source replays), while each
        // upload a checkpoint completed is completed well within the rule's age.
        let mut expiry = Scenario::new("incomplete uploads expire while a writer is down");
        for s in &aimed.stores {
            expiry = expiry.then(expire_incomplete_uploads(s, 250));
        }
        expiry = expiry
            .then(wait(100))
            .then(crash(Worker::Any).at(Phase::BeforeBarrier).restart_after(400))
            .then(wait(300))
            // Only a sink that starts multipart uploads has one to expire: a sink putting each
            // file whole (or with parts larger than the suites' files) is not judged on it.
            .requires_where("upload-expired", 50, "upload-started");
        cases.insert(cases.len() - 1, case("incomplete uploads expire while a writer is down", 1, Region, expiry));
        // The lifecycle rule aborts uploads 250 ms after they started, and every checkpoint's
        // notification is lost for 400 ms: the committables of the checkpoints completed
        // meanwhile wait for a notification, and their uploads expire first. The records are
        // gone for good (completed checkpoints cover them: the source never replays them), so
        // the loss is unavoidable, and the sink must declare it: a commit failed with a known
        // reason naming the upload or its key. One that claims success loses them silently.
        let mut gone = Scenario::new("uploads expire before their checkpoint's commit");
        for s in &aimed.stores {
            gone = gone.then(expire_incomplete_uploads(s, 250));
        }
        gone = gone
            .then(wait(50))
            .then(drop_messages(1.0, Some("Notify"), 400))
            .then(wait(100))
            .loss_may_be_declared()
            .requires("notify-lost")
            .requires_where("loss-declared", 50, "upload-started");
        cases.insert(cases.len() - 1, case("uploads expire before their checkpoint's commit", 2, Region, gone));
    }
    if !aimed.retaining.is_empty() {
        // The source system deletes input older than 150 ms. A reader frozen for 600 ms is
        // replaced from the last checkpoint, whose positions retention has deleted by then:
        // the replacement is told they are out of range and must seek to the oldest record
        // left. What was deleted unread is excused; everything the log still had is not.
        let mut behind = Scenario::new("the source falls behind retention").then(wait(100));
        for s in &aimed.retaining {
            behind = behind.then(retention(s, 150));
        }
        behind = behind.then(wait(200)).then(pause(Worker::Any, 600)).then(wait(300)).requires("offset-out-of-range");
        cases.insert(cases.len() - 1, case("the source falls behind retention", 4, Region, behind));
    }
    if aimed.aligns {
        // Watermark alignment over the skewed splits: those that run ahead pause and resume,
        // and a failover starts the restored readers' alignment afresh.
        let mut aligned = case(
            "watermark alignment",
            4,
            Region,
            Scenario::new("watermark alignment")
                .then(checkpoint())
                .then(wait(200))
                .then(crash(Worker::Any).restart_after(30))
                .then(wait(200))
                .then(checkpoint())
                .requires("split-paused")
                .requires("split-resumed")
                .requires("failover:region"),
        );
        aligned.alignment = true;
        cases.insert(cases.len() - 1, aligned);
    }
    if aimed.new_jobs {
        optional::new_jobs(&mut cases);
    }
    if aimed.source_grows {
        optional::growing_source(aimed, &mut cases);
    }
    kafka::kafka_broker(aimed, &mut cases);
    applied_late::applied_late(aimed, &mut cases);
    schema::altered_schema(aimed, &mut cases);
    if aimed.global_committer {
        optional::global_committer_zombie(&mut cases);
    } else if aimed.committers_apart {
        let commits_often = guarantee == DeliveryGuarantee::ExactlyOnce && aimed.stores.is_empty();
        optional::committer_zombie(&mut cases, commits_often);
    }
    cases
}
