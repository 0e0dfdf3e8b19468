//! Every reference connector passes every suite.

use connectors_under_test::contexts;
use connectors_under_test::BarrierMode;
use connsim_scenarios::suites::{self, Suite};

/// Seeds per case in the default `cargo test` (`CONNSIM_SEEDS` raises it).
const SEEDS: u64 = 10;

fn check(suite: Suite) {
    let outcome = suite.seeds(SEEDS).run();
    println!("{outcome}");
    outcome.assert_ok();
    assert!(outcome.skipped().is_empty(), "reference connectors skip nothing: {:?}", outcome.skipped());
}

#[test]
fn log_source_passes_the_source_suite() {
    check(suites::source(contexts::log_source()));
}

#[test]
fn log_source_passes_the_source_suite_starting_at_the_latest_offsets() {
    check(suites::source(contexts::log_source_latest()));
}

#[test]
fn log_source_passes_the_source_suite_starting_at_a_specific_offset() {
    check(suites::source(contexts::log_source_specific()));
}

#[test]
fn upsert_sink_passes_the_sink_suite_as_idempotent() {
    check(suites::sink(contexts::upsert_sink()));
}

#[test]
fn upsert_sink_claiming_exactly_once_fails_premature_visibility() {
    let ctx = contexts::sink(connectors_under_test::UpsertSinkSetup { claims_exactly_once: true }, &["kv"]);
    let outcome = suites::sink(ctx).seeds(2).only("single split").run();
    let (case, report) =
        outcome.caught_by("no-premature-visibility").unwrap_or_else(|| panic!("not caught:\n{outcome}"));
    assert_eq!((case, report.seed), ("single split", 1), "{report}");
    // Everything else about it is sound: no loss, no duplicates, no corruption.
    for check in ["no-loss", "no-duplicates", "no-corruption", "stable-after-convergence"] {
        assert!(report.verdict(check).unwrap().passed, "{report}");
    }
}

#[test]
fn file_sink_passes_the_sink_suite() {
    check(suites::sink(contexts::file_sink()));
}

#[test]
fn txn_log_sink_passes_the_sink_suite() {
    check(suites::sink(contexts::txn_log_sink()));
}

/// The transactional log sink retries a produce whose answer was lost, and the log
/// recognises the batch from its sequence (Kafka's idempotent produce), never writing it twice.
#[test]
fn txn_log_sink_retries_are_recognised_by_the_log() {
    let outcome = suites::sink(contexts::txn_log_sink()).only("lost responses").seeds(SEEDS).run();
    outcome.assert_ok();
    let reached =
        outcome.cases.iter().flat_map(|c| &c.reports).any(|r| r.marks.iter().any(|m| m == "produce-deduplicated"));
    assert!(reached, "no retried produce was deduplicated in {SEEDS} seeds:\n{outcome}");
}

#[test]
fn table_sink_passes_the_sink_suite() {
    check(suites::sink(contexts::table_sink()));
}

#[test]
fn at_least_once_log_sink_passes_the_sink_suite_in_both_modes() {
    check(suites::sink(contexts::log_sink(BarrierMode::Flush)));
    check(suites::sink(contexts::log_sink(BarrierMode::BufferInState)));
}

#[test]
fn log_source_to_txn_log_sink_passes_the_pipeline_suite() {
    check(suites::pipeline(contexts::log_source(), contexts::txn_log_sink()));
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

/// The pipeline suite with records crossing the network: every reader sends to every
/// writer, and writers align barriers. One test per exchange and sink, so the test harness
/// spreads them over its threads.
fn over(exchange: connsim::cluster::Exchange, sink: impl connsim_scenarios::suites::SinkContext) {
    check(suites::pipeline(contexts::log_source(), sink).exchange(exchange));
}

#[test]
fn log_source_to_txn_log_sink_passes_the_pipeline_suite_over_a_rebalance() {
    over(connsim::cluster::Exchange::Rebalance, contexts::txn_log_sink());
}

#[test]
fn log_source_to_file_sink_passes_the_pipeline_suite_over_a_rebalance() {
    over(connsim::cluster::Exchange::Rebalance, contexts::file_sink());
}

#[test]
fn log_source_to_txn_log_sink_passes_the_pipeline_suite_keyed_by_record_key() {
    over(connsim::cluster::Exchange::KeyBy, contexts::txn_log_sink());
}

#[test]
fn log_source_to_file_sink_passes_the_pipeline_suite_keyed_by_record_key() {
    over(connsim::cluster::Exchange::KeyBy, contexts::file_sink());
}

/// Writers independent of readers: 3 of them while cases run 1 to 4 readers (and rescale).
#[test]
fn log_source_to_txn_log_sink_passes_the_pipeline_suite_over_a_rebalance_to_three_writers() {
    check(
        suites::pipeline(contexts::log_source(), contexts::txn_log_sink())
            .exchange(connsim::cluster::Exchange::Rebalance)
            .sink_parallelism(3),
    );
}
