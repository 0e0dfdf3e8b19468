//! Every reference connector passes every suite: one test per reference target of the
//! catalogue `connsim sweep` runs (`connectors_under_test::catalogue`), built by the same
//! constructor, so `cargo test` proves every reference row of the sweep at ten seeds.

use crate::mutants::mutant;
use connectors_under_test::catalogue;
use connectors_under_test::contexts;
use connsim_scenarios::suites;

/// Seeds per case in the default `cargo test` (`CONNSIM_SEEDS` raises it).
const SEEDS: u64 = 10;

/// The cases a reference target skips, and only these: its context says why it cannot run them.
const SKIPS: &[(&str, &str)] = &[
    // Watermark alignment pauses the splits of a reader that hears no announcements.
    ("log-source (aligned)", "a worker cut off from the job master (zombie)"),
    // The write-ahead sink opens a transaction only inside a commit.
    ("kafka-sink", connectors_under_test::contexts::KAFKA_SKIPS.0),
    ("kafka-sink (KIP-890)", connectors_under_test::contexts::KAFKA_SKIPS.0),
    ("kafka-source -> kafka-sink", connectors_under_test::contexts::KAFKA_SKIPS.0),
    ("kafka-source -> kafka-sink (KIP-890, rebalance)", connectors_under_test::contexts::KAFKA_SKIPS.0),
];

fn check(target: &str) {
    let outcome = catalogue::suite(target).seeds(SEEDS).run();
    println!("{outcome}");
    outcome.assert_ok();
    let skipped: Vec<&str> = outcome.skipped().iter().map(|(case, _)| *case).collect();
    let expected: Vec<&str> = SKIPS.iter().filter(|(t, _)| *t == target).map(|(_, case)| *case).collect();
    assert_eq!(skipped, expected, "reference connectors skip only what SKIPS lists: {:?}", outcome.skipped());
}

/// One test per reference target (so the test harness spreads them over its threads), and
/// the list of the targets they run.
macro_rules! reference_targets {
    ($($test:ident => $target:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check($target);
            }
        )*
        const TESTED: &[&str] = &[$($target),*];
    };
}

reference_targets! {
    log_source_passes_the_source_suite => "log-source",
    log_source_passes_the_source_suite_starting_at_the_latest_offsets => "log-source (latest)",
    log_source_passes_the_source_suite_starting_at_a_specific_offset => "log-source (offset)",
    log_source_passes_the_source_suite_with_watermark_alignment => "log-source (aligned)",
    kafka_source_passes_the_source_suite => "kafka-source",
    kafka_sink_passes_the_sink_suite_on_a_classic_broker => "kafka-sink",
    kafka_sink_passes_the_sink_suite_on_a_kip890_broker => "kafka-sink (KIP-890)",
    kafka_source_to_kafka_sink_passes_the_pipeline_suite => "kafka-source -> kafka-sink",
    kafka_source_to_kafka_sink_passes_the_pipeline_suite_on_a_kip890_broker_over_a_rebalance =>
        "kafka-source -> kafka-sink (KIP-890, rebalance)",
    file_sink_passes_the_sink_suite => "file-sink",
    txn_log_sink_passes_the_sink_suite => "txn-log-sink",
    object_sink_passes_the_sink_suite => "object-sink",
    object_sink_with_real_5_mib_parts_passes_the_sink_suite_without_starting_an_upload => "object-sink (5 MiB parts)",
    object_sink_with_single_puts_passes_the_sink_suite => "object-sink (single puts)",
    table_sink_passes_the_sink_suite => "table-sink (global committer)",
    version_log_sink_passes_the_sink_suite => "version-log-sink (global committer)",
    at_least_once_log_sink_passes_the_sink_suite_flushing_at_barriers => "log-sink (at-least-once, flush)",
    at_least_once_log_sink_passes_the_sink_suite_buffering_in_state => "log-sink (at-least-once, state)",
    upsert_sink_passes_the_sink_suite_as_idempotent => "upsert-sink (idempotent)",
    // Three committers apart from the writers, whatever the case's writers.
    file_sink_passes_the_sink_suite_with_three_committers_apart => "file-sink (3 committers apart)",
    log_source_to_txn_log_sink_passes_the_pipeline_suite => "log-source -> txn-log-sink",
    log_source_to_file_sink_passes_the_pipeline_suite => "log-source -> file-sink",
    log_source_to_object_sink_passes_the_pipeline_suite => "log-source -> object-sink",
    log_source_to_txn_log_sink_passes_the_pipeline_suite_over_a_rebalance => "log-source -> txn-log-sink (rebalance)",
    log_source_to_file_sink_passes_the_pipeline_suite_over_a_rebalance => "log-source -> file-sink (rebalance)",
    log_source_to_txn_log_sink_passes_the_pipeline_suite_keyed_by_record_key => "log-source -> txn-log-sink (key-by)",
    log_source_to_file_sink_passes_the_pipeline_suite_keyed_by_record_key => "log-source -> file-sink (key-by)",
    // Writers independent of readers: 3 of them while cases run 1 to 4 readers (and rescale).
    log_source_to_txn_log_sink_passes_the_pipeline_suite_over_a_rebalance_to_three_writers =>
        "log-source -> txn-log-sink (rebalance, 3 writers)",
}

/// Every reference row of the sweep has its test above (CI runs the catalogue through these
/// tests, not through the sweep).
#[test]
fn every_reference_target_of_the_catalogue_is_tested() {
    let references: Vec<String> =
        catalogue::all().into_iter().filter(|t| t.expect_failed_check.is_none()).map(|t| t.name).collect();
    let untested: Vec<&String> = references.iter().filter(|n| !TESTED.contains(&n.as_str())).collect();
    assert!(untested.is_empty(), "reference targets without a test in reference.rs: {untested:?}");
    assert_eq!(references.len(), TESTED.len(), "a tested name twice, or one the catalogue does not hold");
}

#[test]
fn upsert_sink_claiming_exactly_once_fails_premature_visibility() {
    let outcome = mutant("mutant: upsert sink claims exactly-once", "no-premature-visibility")
        .seeds(2)
        .only("single split")
        .run();
    let (case, report) =
        outcome.caught_by("no-premature-visibility").unwrap_or_else(|| panic!("not caught:\n{outcome}"));
    assert_eq!((case, report.seed), ("single split", 1), "{report}");
    // Everything else about it is sound: no loss, no duplicates, no corruption.
    for check in ["no-loss", "no-duplicates", "no-corruption", "stable-after-convergence"] {
        assert!(report.verdict(check).unwrap().passed, "{report}");
    }
}

/// The transactional log sink retries a produce whose answer was lost, and the log
/// recognises the batch from its sequence (Kafka's idempotent produce), never writing it twice.
#[test]
fn txn_log_sink_retries_are_recognised_by_the_log() {
    let outcome = catalogue::suite("txn-log-sink").only("lost responses").seeds(SEEDS).run();
    outcome.assert_ok();
    let reached =
        outcome.cases.iter().flat_map(|c| &c.reports).any(|r| r.marks.iter().any(|m| m == "produce-deduplicated"));
    assert!(reached, "no retried produce was deduplicated in {SEEDS} seeds:\n{outcome}");
}

/// A sink context that cannot rescale, to show a skip is visible in the outcome.
struct NoRescale(connsim_scenarios::suites::SinkFromSetup<connectors_under_test::FileSinkSetup>);

impl connsim_scenarios::suites::SinkContext for NoRescale {
    type Sink = connectors_under_test::FileSink;
    fn name(&self) -> String {
        "file-sink without rescaling".into()
    }
    fn build(&self, world: &mut connsim::run::World) -> Self::Sink {
        self.0.build(world)
    }
    fn systems(&self) -> Vec<String> {
        self.0.systems()
    }
    fn supports(&self, case: &str) -> Result<(), String> {
        match case.starts_with("scale") {
            true => Err("this sink's state cannot be redistributed".into()),
            false => Ok(()),
        }
    }
}

#[test]
fn a_case_the_context_cannot_support_is_skipped_visibly() {
    let outcome = suites::sink(NoRescale(contexts::file_sink())).seeds(2).only("scale").run();
    let skipped = outcome.skipped();
    assert_eq!(skipped.len(), 3, "scale up, scale down, scale down then up: {outcome}");
    assert!(skipped.iter().all(|(_, why)| *why == "this sink's state cannot be redistributed"));
    assert!(outcome.to_string().contains("skipped: this sink's state cannot be redistributed"), "{outcome}");
    assert_eq!(outcome.seeds(), 0);
    outcome.assert_ok(); // a skip is not a failure
}

/// A mark judged only over the seeds that took its path (`Scenario::requires_where`) is
/// judged for the sinks built to take it: the default object sink starts uploads, the
/// transactional sinks commit under the refusals. Only the object sink that puts every file
/// whole is not judged on an expiring upload, and says so.
#[test]
fn the_sinks_that_take_a_path_judged_where_taken_are_judged_on_it() {
    let expiry = "incomplete uploads expire while a writer is down";
    let refusals = "external systems refuse requests";
    let share = |target: &str, case: &str, mark: &str| {
        let outcome = catalogue::suite(target).only(case).seeds(SEEDS).run();
        let result = outcome.cases.iter().find(|c| c.case == case).expect("the case ran");
        result.mark_shares.iter().find(|m| m.mark == mark).cloned().expect("the case requires the mark")
    };
    for (target, case, mark) in [
        ("object-sink", expiry, "upload-expired"),
        ("object-sink", refusals, "commit-request-refused"),
        ("txn-log-sink", refusals, "commit-request-refused"),
        ("kafka-sink", refusals, "commit-request-refused"),
        ("file-sink", refusals, "commit-request-refused"),
    ] {
        let share = share(target, case, mark);
        assert!(share.applies() && share.met() && share.seeds > 0, "{target}, {case:?}: {share}");
    }
    let whole = share("object-sink (single puts)", expiry, "upload-expired");
    assert!(!whole.applies() && whole.met(), "{whole}");
}
