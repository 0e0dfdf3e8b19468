//! Blocks as values: they serialize, print as the Rust that builds them, and refuse bad input
//! with a message that says what to change.

use connsim_scenarios::generate::{self, Generator};
use connsim_scenarios::prelude::*;

fn every_kind() -> Scenario {
    Scenario::new("every kind")
        .exchange(Exchange::KeyBy)
        .sink_parallelism(3)
        .concurrent_checkpoints(2)
        .then(produce(10))
        .then(burst(5))
        .then(skewed(7))
        .then(add_splits(1))
        .then(checkpoint())
        .then(decline_checkpoint(Worker::Nth(1)))
        .then(checkpoint_timeout())
        .then(lose_notify(Worker::All))
        .then(crash(Worker::Any).at(Phase::AfterPrepareCommit).restart_after(30))
        .then(slow_start(Worker::Nth(2), 100))
        .then(slow_sink(Worker::Nth(1), 5, 200))
        .then(crash(job_master()))
        .then(crash(system("log")))
        .then(drop_messages(0.5, Some("Notify"), 100))
        .then(delay_messages(20, None, 100))
        .then(lose_responses(0.25, system("fs"), 100))
        .then(partition(Worker::Nth(0), job_master(), 50))
        .then(heal())
        .then(stop_with_savepoint())
        .then(savepoint_and_rescale(2))
        .then(rescale(1))
        .then(wait(10))
        .then(drain(1000))
        .then(checkpoint().then(wait(5)).repeat(2))
        .then(during(Fault::Delay { ms: 5, kind: None, from: None, to: Some(Target::JobMaster) }, wait(10)))
        .then(phases(crash(Worker::All), 500))
        .then(one_of(vec![wait(1), checkpoint()]))
        .then(wait(100).time_limit(10))
}

#[test]
fn scenarios_survive_a_serde_round_trip() {
    let s = every_kind();
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(serde_json::from_str::<Scenario>(&json).unwrap(), s);
}

#[test]
fn every_block_kind_prints_as_the_rust_that_builds_it() {
    let expected = r#"Scenario::new("every kind")
    .exchange(Exchange::KeyBy)
    .sink_parallelism(3)
    .concurrent_checkpoints(2)
    .then(produce(10))
    .then(burst(5))
    .then(skewed(7))
    .then(add_splits(1))
    .then(checkpoint())
    .then(decline_checkpoint(Worker::Nth(1)))
    .then(checkpoint_timeout())
    .then(lose_notify(Worker::All))
    .then(crash(Worker::Any).at(Phase::AfterPrepareCommit).restart_after(30))
    .then(slow_start(Worker::Nth(2), 100))
    .then(slow_sink(Worker::Nth(1), 5, 200))
    .then(crash(job_master()))
    .then(crash(system("log")))
    .then(drop_messages(0.5, Some("Notify"), 100))
    .then(delay_messages(20, None, 100))
    .then(lose_responses(0.25, system("fs"), 100))
    .then(partition(Worker::Nth(0), job_master(), 50))
    .then(heal())
    .then(stop_with_savepoint())
    .then(savepoint_and_rescale(2))
    .then(rescale(1))
    .then(wait(10))
    .then(drain(1000))
    .then(checkpoint().then(wait(5)).repeat(2))
    .then(during(Fault::Delay { ms: 5, kind: None, from: None, to: Some(job_master()) }, wait(10)))
    .then(phases(crash(Worker::All), 500))
    .then(one_of(vec![wait(1), checkpoint()]))
    .then(wait(100).time_limit(10))"#;
    assert_eq!(every_kind().to_rust(), expected);
    let kinds = every_kind().kinds();
    for k in ["produce", "crash", "fault", "during", "phases", "one_of", "time_limit", "repeat", "rescale", "slow_sink"]
    {
        assert!(kinds.contains(k), "{k} missing from {kinds:?}");
    }
}

#[test]
fn bad_blocks_are_refused_with_what_to_change() {
    let phase_on_master = Block::from(crash(job_master()).at(Phase::AfterAck));
    let err = phase_on_master.validate().unwrap_err();
    assert!(err.contains("aim the crash at a Worker"), "{err}");
    let master_only = Block::from(crash(Worker::Any).at(Phase::BeforeNotify));
    let err = master_only.validate().unwrap_err();
    assert!(err.contains("aim the crash at job_master()"), "{err}");
    let system_phase = Block::from(crash(system("log")).at(Phase::AfterAck));
    assert!(system_phase.validate().unwrap_err().contains("drop .at(..)"));
    for phase in Phase::ALL {
        let on_master = Block::from(crash(job_master()).at(phase)).validate();
        assert_eq!(on_master.is_ok(), phase.on_job_master(), "{phase:?}");
        let on_worker = Block::from(crash(Worker::Any).at(phase)).validate();
        assert_eq!(on_worker.is_ok(), phase.on_subtasks(), "{phase:?}");
    }
    let err = rescale(0).validate().unwrap_err();
    assert!(err.contains("at least one subtask"), "{err}");
    let err = drop_messages(1.5, None, 10).validate().unwrap_err();
    assert!(err.contains("not between 0.0 and 1.0"), "{err}");
    let caught = std::panic::catch_unwind(|| Scenario::new("x").then(crash(job_master()).at(Phase::AfterAck)));
    let msg = caught.unwrap_err().downcast::<String>().unwrap();
    assert!(msg.contains("scenario \"x\"") && msg.contains("Worker"), "{msg}");
    let err = Scenario::new("z").exchange(Exchange::Forward).sink_parallelism(2).validate().unwrap_err();
    assert!(err.contains("Exchange::Rebalance or Exchange::KeyBy"), "{err}");
    let err = Scenario::new("z").exchange(Exchange::Rebalance).sink_parallelism(0).validate().unwrap_err();
    assert!(err.contains("at least one writer"), "{err}");
    let caught = std::panic::catch_unwind(|| Scenario::new("y").requires("no-such-mark"));
    let msg = caught.unwrap_err().downcast::<String>().unwrap();
    assert!(msg.contains("unknown coverage mark") && msg.contains("crash-at:inside-commit"), "{msg}");
}

#[test]
fn generated_scenarios_are_valid_print_and_round_trip() {
    let g = Generator { producer: true, swarm: true, systems: vec!["log".into()], ..Generator::default() };
    let mut shapes = std::collections::BTreeSet::new();
    for seed in 1..200 {
        let s = generate::scenario_for(&g, seed);
        s.validate().unwrap();
        shapes.insert(format!("{:?}", s.job));
        // The job's shape is drawn after the blocks: without it, a seed's blocks stay the same.
        let plain = generate::scenario_for(&Generator { job: false, ..g.clone() }, seed);
        assert_eq!(plain.blocks, s.blocks);
        assert!(plain.job.is_empty());
        assert!((1..=g.max_blocks).contains(&s.blocks.len()));
        assert!(s.to_rust().starts_with("Scenario::new(\"generated\")"));
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Scenario>(&json).unwrap(), s);
    }
    // Chained and both exchanges, with and without a sink parallelism of their own.
    assert!(shapes.len() >= 10, "{shapes:?}");
    assert!(shapes.iter().any(|s| s.contains("KeyBy") && s.contains("sink_parallelism: Some")), "{shapes:?}");
}

#[test]
fn a_scenario_fails_when_the_fault_path_it_requires_was_never_reached() {
    use connsim::probes::{CollectorSetup, GeneratorSetup};
    use connsim::run::{Pipeline, Runner};
    let mut runner = Runner::new(Pipeline(
        GeneratorSetup { splits: 4, records_per_split: 200, ..Default::default() },
        CollectorSetup,
    ));
    runner.seeds(2);
    // Waiting never crashes anything, so the required mark cannot be reached.
    let idle = Scenario::new("aims at a crash but never crashes").then(wait(50)).requires("crash-at:inside-commit");
    let outcome = idle.run(&mut runner);
    outcome.outcome.assert_ok(); // every seed passed its checks...
    let missed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| outcome.assert_ok()));
    let msg = missed.unwrap_err().downcast::<String>().unwrap();
    assert!(msg.contains("never reached") && msg.contains("crash-at:inside-commit"), "{msg}"); // ...but the aim was missed
                                                                                               // The same requirement is met once the scenario aims the crash.
    let aimed = Scenario::new("aims and hits")
        .then(crash(Worker::Any).at(Phase::InsideCommit))
        .requires("crash-at:inside-commit");
    aimed.run(&mut runner).assert_ok();
}

#[test]
fn a_block_that_meets_an_ended_job_is_skipped_as_a_step_the_report_shows() {
    use connsim::probes::{CollectorSetup, GeneratorSetup};
    use connsim::run::{Pipeline, Runner};
    let scenario = Scenario::new("after the end").then(drain(5_000)).then(crash(Worker::Any)).then(checkpoint());
    let mut runner = Runner::new(Pipeline(
        GeneratorSetup { splits: 2, records_per_split: 50, ..Default::default() },
        CollectorSetup,
    ));
    runner.seeds(1);
    let outcome = scenario.run(&mut runner).outcome;
    let report = &outcome.reports[0];
    assert!(report.passed(), "{report}");
    let text = report.to_string();
    for step in ["skipped, the job already ended: crash(Worker::Any)", "skipped, the job already ended: checkpoint()"] {
        assert!(text.contains(step), "{step:?} not in the timeline:\n{text}");
    }
}

#[test]
fn a_scenario_fixes_the_jobs_shape_over_the_runners_and_its_report_shows_it() {
    use connsim::probes::{CollectorSetup, GeneratorSetup};
    use connsim::run::{Pipeline, Runner};
    let mut runner = Runner::new(Pipeline(
        GeneratorSetup { splits: 4, records_per_split: 200, pace_ms: 300, ..Default::default() },
        CollectorSetup,
    ));
    runner.seeds(2);
    let shaped = Scenario::new("over a key-by")
        .exchange(Exchange::KeyBy)
        .sink_parallelism(3)
        .concurrent_checkpoints(2)
        .then(slow_sink(Worker::Nth(1), 10, 200))
        .requires("backpressure-held");
    let outcome = shaped.run(&mut runner);
    outcome.assert_ok();
    for r in &outcome.outcome.reports {
        assert_eq!(r.config.job.exchange, Exchange::KeyBy);
        assert_eq!(r.config.job.sink.writers, Some(3));
        assert_eq!(r.config.job.checkpoints.max_concurrent, 2);
    }
    // The runner's own configuration is left as it was: chained, so nothing backpressures.
    let chained = Scenario::new("chained").then(slow_sink(Worker::Nth(1), 10, 200)).run(&mut runner);
    chained.assert_ok();
    for r in &chained.outcome.reports {
        assert_eq!(r.config.job.exchange, Exchange::Forward);
        assert!(!r.marks.iter().any(|m| m.starts_with("backpressure")), "{r}");
    }
}

/// Taking a block out of a scenario also drops the coverage marks only that block reaches
/// (so a run without it is judged on its checks, not on a mark it cannot reach), and keeps
/// them while another block of the kind remains.
#[test]
fn a_scenario_without_a_block_no_longer_requires_the_marks_only_it_reaches() {
    let cut = partition(Worker::Any, job_master(), 800);
    let zombie = Scenario::new("z").then(cut.clone()).then(wait(100)).requires("lease-expired").requires("crash");
    assert_eq!(zombie.without(&cut).requires, ["crash"]);
    let another = zombie.clone().then(partition(Worker::Any, job_master(), 300));
    assert_eq!(another.without(&cut).requires, ["lease-expired", "crash"]);
    let fresh = Scenario::new("n").then(restart_without_state()).requires("new-job:without-state");
    assert!(fresh.without(&restart_without_state()).requires.is_empty());
    let older = Scenario::new("o").then(restart_from_older_savepoint()).requires("new-job:older-savepoint");
    assert!(older.without(&restart_without_state()).requires == ["new-job:older-savepoint"]);
}

/// The hold fault and the table alterations print as the Rust that builds them (the text
/// below is the code of the scenario it is compared with) and survive a serde round trip.
#[test]
fn holds_and_alterations_print_as_the_rust_that_builds_them() {
    let s = Scenario::new("held and altered")
        .then(hold("s3", "s3.put", "s3.", 1500, 60))
        .then(during(
            Fault::Hold {
                until: "kafka.offset_fetch".into(),
                max_ms: 1500,
                kind: Some("kafka.end_txn".into()),
                from: None,
                to: None,
            },
            wait(10),
        ))
        .then(alter_table("table", Alteration::AddColumn(Column::new("region", ColumnType::Int { bytes: 2 }, false))))
        .then(alter_table("table", Alteration::SetNullable { column: "body".into(), nullable: true }))
        .then(alter_table("table", Alteration::Widen { column: "region".into(), bytes: 4 }));
    let expected = r#"Scenario::new("held and altered")
    .then(hold("s3", "s3.put", "s3.", 1500, 60))
    .then(during(Fault::Hold { until: "kafka.offset_fetch".into(), max_ms: 1500, kind: Some("kafka.end_txn".into()), from: None, to: None }, wait(10)))
    .then(alter_table("table", Alteration::AddColumn(Column::new("region", ColumnType::Int { bytes: 2 }, false))))
    .then(alter_table("table", Alteration::SetNullable { column: "body".into(), nullable: true }))
    .then(alter_table("table", Alteration::Widen { column: "region".into(), bytes: 4 }))"#;
    assert_eq!(s.to_rust(), expected);
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(serde_json::from_str::<Scenario>(&json).unwrap(), s);
}
