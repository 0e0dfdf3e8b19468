//! The Kafka connectors' mutants (on rdkafka's API): each caught by a fixed case with its
//! predicted check, and each passing the same case without the fault that exposes it.

use crate::mutants::{
    caught_by_a_fixed_case, caught_by_a_fixed_case_within, mutant, only_exposed_by, only_exposed_within, FIXED_SEEDS,
};
use connectors_under_test::mutants::kafka;
use connectors_under_test::{catalogue, contexts};
use connsim_scenarios::prelude::*;
use connsim_scenarios::suites;

#[test]
fn a_kafka_source_reading_uncommitted_data_invents_the_records_of_aborted_transactions() {
    caught_by_a_fixed_case(
        mutant("mutant: kafka source reads uncommitted", "no-phantoms"),
        catalogue::suite("kafka-source"),
        "no-phantoms",
    );
}

#[test]
fn a_kafka_committer_taking_fenced_for_committed_loses_a_batch() {
    caught_by_a_fixed_case(
        mutant("mutant: kafka committer takes fenced for committed", "no-loss"),
        catalogue::suite("kafka-sink"),
        "no-loss",
    );
}

/// An older attempt's commit landing between the marker read and the fence (Materialize
/// #9249): caught with the held commits, and the same case passes without them.
#[test]
fn a_kafka_committer_reading_its_marker_before_it_fences_writes_a_batch_twice() {
    let case = "an old commit lands between a new attempt's read and its fence";
    only_exposed_within(
        || mutant("mutant: kafka committer reads its marker before it fences", "no-duplicates"),
        case,
        suites::cases::kafka::held_commits(&["sink-kafka".into()], 400),
        "no-duplicates",
        20,
    );
}

/// Only a new job started without state reads the group's offsets: within a job, restores
/// read the checkpoint's.
#[test]
fn a_kafka_source_committing_offsets_on_poll_loses_what_a_new_job_skips() {
    only_exposed_by(
        || mutant("mutant: kafka source commits offsets on poll", "no-loss"),
        "restart without state",
        restart_without_state(),
        "no-loss",
    );
}

/// A new job without state starting from the earliest reads again what the last job's
/// checkpoints covered: behind the group's committed offsets the source declared it starts
/// from. Restores read the checkpoint's offsets: without the new job, nothing shows.
#[test]
fn a_kafka_source_ignoring_committed_offsets_duplicates_what_a_new_job_reads_again() {
    only_exposed_within(
        || mutant("mutant: kafka source ignores committed offsets", "no-duplicates"),
        "restart without state",
        restart_without_state(),
        "no-duplicates",
        20,
    );
}

/// The reference starts a new job from its group's offsets, and the run records them: the
/// path the mutant above is judged on is the one the reference takes.
#[test]
fn a_new_job_of_the_kafka_source_starts_from_the_offsets_its_group_committed() {
    let outcome = catalogue::suite("kafka-source -> kafka-sink").only("restart without state").seeds(5).run();
    print!("{outcome}");
    assert!(outcome.failed_cases().is_empty(), "{outcome}");
    for report in outcome.cases.iter().flat_map(|c| &c.reports) {
        assert!(report.marks.iter().any(|m| m == "new-job:group-offsets"), "seed {}: {:?}", report.seed, report.marks);
    }
}

/// The fault that exposes it is the late fencing request: without the case's slow requests,
/// the same case passes.
#[test]
fn a_kafka_committer_taking_fenced_for_committed_passes_without_slow_requests() {
    let case = "slow requests outlive a crashed writer";
    let suite = mutant("mutant: kafka committer takes fenced for committed", "no-loss").only(case);
    // The case's slow requests, exactly as the suite builds them for the sink's log.
    let body = wait(250).then(crash(Worker::Nth(1)).restart_after(100)).then(wait(20));
    let (from, to) = (Some(Target::Worker(Worker::Nth(1))), Some(Target::System("sink-kafka".into())));
    let slow = during(Fault::Delay { ms: 400, kind: None, from, to }, body);
    let outcome = suite.without(slow).seeds(FIXED_SEEDS).run();
    print!("{outcome}");
    assert!(outcome.failed_cases().is_empty(), "caught without the slow requests:\n{outcome}");
}

/// Its exposing fault is the aborted upstream transaction: over the same data without it
/// (no aborted head, no transactional upstream), reading uncommitted passes the case that
/// catches it.
#[test]
fn a_kafka_source_reading_uncommitted_data_passes_without_aborted_transactions() {
    let plain = contexts::kafka_source_with("kafka-source(read_uncommitted, nothing aborted)", |data| {
        kafka::reads_uncommitted(data.with_aborted_head(0).plain_upstream())
    });
    let outcome = suites::source(plain).only("single split").seeds(FIXED_SEEDS).run();
    print!("{outcome}");
    assert!(outcome.failed_cases().is_empty(), "caught without aborted transactions:\n{outcome}");
}

/// The cases aimed at a Kafka broker's own behaviour run against the sinks that reach their
/// log through Kafka's protocol, and only those: the native-protocol log sink never sends a
/// Kafka request, so its straggling marks could never be reached.
#[test]
fn the_kafka_broker_cases_aim_only_at_sinks_over_kafka() {
    let kafka = ["produce requests straggle", "a classic broker without partition verification, requests straggle"];
    for target in ["kafka-sink", "kafka-sink (KIP-890)", "kafka-source -> kafka-sink"] {
        let names = catalogue::suite(target).case_names();
        for case in kafka {
            assert!(names.iter().any(|n| n == case), "{target} runs {case:?}: {names:?}");
        }
    }
    for target in ["txn-log-sink", "file-sink", "log-source -> txn-log-sink", "kafka-source"] {
        let names = catalogue::suite(target).case_names();
        assert!(!names.iter().any(|n| kafka.contains(&n.as_str())), "{target} runs no Kafka case: {names:?}");
    }
}

/// The requests straggling past the client's timeout on a classic broker that does not
/// verify partitions (KAFKA-14402's setting): a producer's first `InitProducerId`, arriving
/// after its retry, bumps the epoch and fences the live producer, and a committer that takes
/// `Fenced` for "committed" drops its batch. Without the straggling windows, the same case
/// passes.
#[test]
fn a_kafka_committer_taking_fenced_for_committed_is_exposed_by_straggling_requests() {
    let case = "a classic broker without partition verification, requests straggle";
    let windows = suites::cases::kafka::straggling(&["sink-kafka".into()], &suites::cases::kafka::EVERY_REQUEST);
    only_exposed_by(
        || mutant("mutant: kafka committer takes fenced for committed", "no-loss"),
        case,
        windows,
        "no-loss",
    );
}

/// A serializer that drops headers is caught by what a downstream consumer decodes, naming
/// the field; on plain data (no headers) the same case and seeds pass.
#[test]
fn a_kafka_serializer_dropping_headers_is_named_by_the_field_and_needs_real_data() {
    let suite = || mutant("mutant: kafka sink's serializer drops headers", "no-corruption");
    caught_with_the_field_named(suite, "headers");
}

/// A serializer that writes a null key as text is caught naming the key; plain data has no
/// null keys, and the same case and seeds pass.
#[test]
fn a_kafka_serializer_writing_a_null_key_as_text_is_named_by_the_field_and_needs_real_data() {
    let suite = || mutant("mutant: kafka sink's serializer writes a null key as text", "no-corruption");
    caught_with_the_field_named(suite, "key");
}

/// The mutant's suite fails `no-corruption` in a fixed case within the fixed seeds, with
/// `field` named in the verdict, and passes that case on the same seeds with plain data.
fn caught_with_the_field_named(suite: impl Fn() -> suites::Suite, field: &str) {
    caught_by_a_fixed_case(suite(), catalogue::suite("kafka-sink"), "no-corruption");
    let outcome = suite().only("single split").seeds(FIXED_SEEDS).run();
    let case = outcome.cases.iter().find(|c| c.case == "single split").expect("the case ran");
    let report = case.reports.iter().find(|r| r.failed_checks().contains(&"no-corruption")).expect("caught");
    let verdict = report.verdicts.iter().find(|v| v.check == "no-corruption").expect("its verdict");
    let named = format!("({field} on ");
    assert!(verdict.summary.contains(&named), "the verdict names the {field}: {}", verdict.summary);
    assert!(verdict.evidence[0].contains(&format!("with the {field} other than")), "{:?}", verdict.evidence);
    let plain = suite().only("single split").data(DataKind::Plain).seeds(FIXED_SEEDS).run();
    print!("{plain}");
    assert!(plain.failed_cases().is_empty(), "caught on plain data:\n{plain}");
}

/// A deserializer that skips null values loses every tombstone of the input; plain data has
/// none, and the same case and seeds pass.
#[test]
fn a_kafka_source_skipping_tombstones_loses_them_and_needs_real_data() {
    let suite = || mutant("mutant: kafka source skips tombstones", "no-loss");
    caught_by_a_fixed_case(suite(), catalogue::suite("kafka-source"), "no-loss");
    let plain = suite().only("single split").data(DataKind::Plain).seeds(FIXED_SEEDS).run();
    print!("{plain}");
    assert!(plain.failed_cases().is_empty(), "caught on plain data:\n{plain}");
}

/// A bounded split finished at "last delivered offset = stop − 1" never finishes where the
/// partition ends in a transaction marker (FLINK-34470): the job hangs. The same data
/// written without transactions (every partition ends in a record) passes the same seeds.
#[test]
fn a_kafka_source_stopping_at_the_last_delivered_offset_hangs_on_a_tail_marker() {
    let suite = || mutant("mutant: kafka source stops at the last delivered offset", "liveness");
    caught_by_a_fixed_case_within(suite(), catalogue::suite("kafka-source"), "liveness", 20);
    let plain = contexts::kafka_source_with("kafka-source(stops at the last offset, no transactions)", |data| {
        kafka::stops_at_last_offset(data.plain_upstream())
    });
    let outcome = suites::source(plain).only("single split").seeds(FIXED_SEEDS).run();
    print!("{outcome}");
    assert!(outcome.failed_cases().is_empty(), "caught without a transactional upstream:\n{outcome}");
}

/// A committer that opens a new transactional id every checkpoint leaves one on the broker
/// per writer and checkpoint, each kept for seven days with its producer state (the
/// FLINK-34554 out-of-memory class): `left-behind` holds it to the reference's pool. Its
/// window is a job whose writers commit more batches than the pool holds: the same job
/// reading its input in one go, with checkpoints a second apart, commits each writer's
/// input in fewer and passes, while the reference's pool holds on the paced one.
#[test]
fn a_kafka_sink_opening_a_transactional_id_per_checkpoint_outlives_the_pool() {
    use connectors_under_test::{KafkaSinkSetup, LogSourceSetup};
    use connsim::systems::TxnProtocol;
    use connsim::{Pipeline, Runner};
    let suite = mutant("mutant: kafka sink opens a transactional id per checkpoint", "left-behind");
    caught_by_a_fixed_case_within(suite, catalogue::suite("kafka-sink"), "left-behind", 20);
    let setup = KafkaSinkSetup { partitions: 4, protocol: TxnProtocol::Classic };
    let buggy = kafka::BuggyKafkaSinkSetup(setup.clone(), kafka::KafkaSinkBug::IdPerCheckpoint);
    let run = |paced: bool, interval_ms: u64, with_bug: bool| {
        let source = LogSourceSetup::bounded(2, 400).plain_upstream();
        let source = if paced { source.paced(1_500) } else { source };
        let mut r = match with_bug {
            true => Runner::erased(Pipeline(source, buggy.clone())),
            false => Runner::erased(Pipeline(source, setup.clone())),
        };
        r.seeds(5).configure(|c| c.job.checkpoints.interval_ms = interval_ms);
        let out = r.run();
        assert_eq!(out.reports.len(), 5, "every seed ran");
        for report in &out.reports {
            println!("seed {}: {}", report.seed, report.verdict("left-behind").expect("judged").summary);
        }
        out
    };
    let window = run(true, 100, true);
    assert!(
        window.reports.iter().all(|r| r.verdict("left-behind").is_some_and(|v| !v.passed)),
        "the mutant passes where writers commit more batches than the pool:\n{}",
        window.summary()
    );
    let reference = run(true, 100, false);
    assert!(reference.reports.iter().all(|r| r.passed()), "{}", reference.summary());
    let few = run(false, 1_000, true);
    assert!(few.reports.iter().all(|r| r.passed()), "caught without its window:\n{}", few.summary());
}
