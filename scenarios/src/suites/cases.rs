//! The suite cases: Flink's SourceTestSuiteBase and SinkTestSuiteBase cases, with faults, and
//! what Flink's lack — crashes at every two-phase-commit phase, job-master failover, lost
//! notifications, RPC faults, lost responses from the external system, a swarm case.

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
    /// The data in the source system.
    pub data: TestData,
    /// The job's parallelism.
    pub parallelism: usize,
    /// The failover strategy.
    pub failover: FailoverStrategy,
    /// What happens.
    pub body: Body,
}

const SPLITS: u32 = 8;
const RECORDS: u64 = 3_000;

fn case(name: &'static str, parallelism: usize, failover: FailoverStrategy, scenario: Scenario) -> CaseSpec {
    let data = TestData { splits: SPLITS, records: RECORDS };
    CaseSpec { name, data, parallelism, failover, body: Body::Scenario(scenario) }
}

/// Every case, aimed at the given external systems (node names). Marks a case requires
/// depend on the guarantee (an at-least-once sink may have nothing to commit).
pub fn all(systems: &[String], guarantee: DeliveryGuarantee) -> Vec<CaseSpec> {
    let exactly_once = guarantee == DeliveryGuarantee::ExactlyOnce;
    let mut phases = Scenario::new("crash at every two-phase-commit phase");
    for phase in Phase::ALL {
        if phase == Phase::InsideCommit && !exactly_once {
            continue;
        }
        phases = phases.then(crash(Worker::Any).at(phase).restart_after(30)).then(wait(20)).requires(phase.mark());
    }
    let mut lost_responses = Scenario::new("lost responses from the external system");
    for s in systems {
        lost_responses = lost_responses.then(lose_responses(0.5, Target::System(s.clone()), 150)).then(checkpoint());
    }
    if !systems.is_empty() {
        lost_responses = lost_responses.requires("response-lost");
    }
    let mut single = case(
        "single split",
        1,
        Region,
        Scenario::new("single split").then(checkpoint()).then(crash(Worker::Any)).then(wait(100)),
    );
    single.data = TestData { splits: 1, records: 1_000 };
    let mut idle = case(
        "more readers than splits",
        4,
        Region,
        Scenario::new("more readers than splits").then(checkpoint()).then(crash(Worker::Nth(3))).then(wait(100)),
    );
    idle.data = TestData { splits: 2, records: 1_000 };
    vec![
        single,
        case(
            "multiple splits, per-split order",
            4,
            Region,
            Scenario::new("multiple splits").then(checkpoint()).then(crash(Worker::Any)).then(checkpoint()),
        ),
        case(
            "stop-with-savepoint and resume",
            4,
            Region,
            Scenario::new("savepoint").then(checkpoint()).then(stop_with_savepoint()).then(wait(100)).requires("savepoint-stop"),
        ),
        case(
            "scale up",
            2,
            Region,
            Scenario::new("scale up").then(checkpoint()).then(savepoint_and_rescale(4)).then(wait(100)).requires("rescale"),
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
        idle,
        case(
            "task failure mid-stream (region)",
            4,
            Region,
            Scenario::new("task failure").then(wait(150)).then(crash(Worker::Any)).then(wait(150)).requires("failover:region"),
        ),
        case(
            "task failure mid-stream (global)",
            4,
            Global,
            Scenario::new("task failure").then(wait(150)).then(crash(Worker::All)).then(wait(150)).requires("failover:global"),
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
                .requires("failover:jobmaster"),
        ),
        case(
            "lost checkpoint notifications",
            4,
            Region,
            Scenario::new("lost notifications")
                .then(lose_notify(Worker::All))
                .then(lose_notify(Worker::Any))
                .then(crash(Worker::Any))
                .then(checkpoint())
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
                .requires("message-dropped"),
        ),
        case("lost responses from the external system", 4, Region, lost_responses),
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
            data: TestData { splits: SPLITS, records: RECORDS },
            parallelism: 4,
            failover: Region,
            body: Body::Swarm,
        },
    ]
}
