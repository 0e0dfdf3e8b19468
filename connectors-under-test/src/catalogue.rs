//! The catalogue `connsim sweep` runs through the suites: every reference connector (every
//! case must pass) and every mutant (some case must fail the check its story predicts).
//!
//! The sweep and the tests build their suites here, by name ([`suite`]), so what `cargo test`
//! proves of a target is what the sweep runs, and the mutants' generic code is compiled once,
//! in this library, rather than in every binary that runs them.

use crate::contexts;
use crate::mutants::*;
use crate::{BarrierMode, KafkaSinkSetup};
use connsim::cluster::{Exchange, RuntimeBug};
use connsim::run::SinkSetup;
use connsim::systems::TxnProtocol;
use connsim_scenarios::suites::{self, Suite};

/// One entry: a suite over one connector (or pair).
pub struct Target {
    /// Its name in the sweep's table (`mutant: …` for a mutant).
    pub name: String,
    /// `source`, `sink` or `pipeline`.
    pub suite: &'static str,
    /// For a mutant: the check that must fail in some case. `None`: a reference connector.
    pub expect_failed_check: Option<&'static str>,
    /// Builds the suite.
    pub make: Box<dyn Fn() -> Suite>,
}

fn target(name: &str, suite: &'static str, expect: Option<&'static str>, make: impl Fn() -> Suite + 'static) -> Target {
    Target { name: name.to_string(), suite, expect_failed_check: expect, make: Box::new(make) }
}

fn source_mutant<B: LogBug + Default>(check: &'static str) -> Target {
    target(&format!("mutant: {}", B::NAME.replace('-', " ")), "source", Some(check), || {
        suites::source(contexts::log_source_with(B::NAME, |s| BuggySetup(s, B::default())))
    })
}

/// A sink mutant: the sink suite over the sink `setup` builds, on the one system it names.
fn sink_mutant<S: SinkSetup>(
    name: &str,
    check: &'static str,
    system: &'static str,
    setup: impl Fn() -> S + 'static,
) -> Target {
    target(name, "sink", Some(check), move || suites::sink(contexts::sink(setup(), &[system])))
}

fn pause_mutant(name: &str, bug: PauseBug) -> Target {
    target(name, "source", Some("watermark-alignment"), move || {
        suites::source(contexts::log_source_aligned_with("mishandles-pause", move |s| MishandlesPauseSetup(s, bug)))
    })
}

/// The target named `name`, exactly.
///
/// # Panics
/// If there is none; the message lists every name.
pub fn target_named(name: &str) -> Target {
    let all = all();
    let names: Vec<String> = all.iter().map(|t| t.name.clone()).collect();
    all.into_iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("the catalogue has no target named {name:?}; its targets: {names:?}"))
}

/// The suite of the target named `name` ([`target_named`]).
pub fn suite(name: &str) -> Suite {
    (target_named(name).make)()
}

/// Every target, reference connectors first.
pub fn all() -> Vec<Target> {
    use contexts::*;
    vec![
        target("log-source", "source", None, || suites::source(log_source())),
        target("log-source (latest)", "source", None, || suites::source(log_source_latest())),
        target("log-source (offset)", "source", None, || suites::source(log_source_specific())),
        target("log-source (aligned)", "source", None, || suites::source(log_source_aligned())),
        target("file-sink", "sink", None, || suites::sink(file_sink())),
        target("txn-log-sink", "sink", None, || suites::sink(txn_log_sink())),
        target("object-sink", "sink", None, || suites::sink(object_sink())),
        target("object-sink (5 MiB parts)", "sink", None, || suites::sink(object_sink_real_parts())),
        target("object-sink (single puts)", "sink", None, || suites::sink(object_sink_single_puts())),
        target("table-sink (global committer)", "sink", None, || suites::sink(table_sink())),
        target("version-log-sink (global committer)", "sink", None, || suites::sink(version_log_sink())),
        target("file-sink (3 committers apart)", "sink", None, || suites::sink(file_sink()).committer_parallelism(3)),
        target("log-sink (at-least-once, flush)", "sink", None, || suites::sink(log_sink(BarrierMode::Flush))),
        target("log-sink (at-least-once, state)", "sink", None, || suites::sink(log_sink(BarrierMode::BufferInState))),
        target("upsert-sink (idempotent)", "sink", None, || suites::sink(upsert_sink())),
        target("kafka-source", "source", None, || suites::source(kafka_source())),
        target("kafka-sink", "sink", None, || suites::sink(kafka_sink(TxnProtocol::Classic))),
        target("kafka-sink (KIP-890)", "sink", None, || suites::sink(kafka_sink(TxnProtocol::Kip890))),
        target("kafka-source -> kafka-sink", "pipeline", None, || {
            suites::pipeline(kafka_source(), kafka_sink(TxnProtocol::Classic))
        }),
        target("kafka-source -> kafka-sink (KIP-890, rebalance)", "pipeline", None, || {
            suites::pipeline(kafka_source(), kafka_sink(TxnProtocol::Kip890)).exchange(Exchange::Rebalance)
        }),
        target("log-source -> txn-log-sink", "pipeline", None, || suites::pipeline(log_source(), txn_log_sink())),
        target("log-source -> file-sink", "pipeline", None, || suites::pipeline(log_source(), file_sink())),
        target("log-source -> object-sink", "pipeline", None, || suites::pipeline(log_source(), object_sink())),
        target("log-source -> txn-log-sink (rebalance)", "pipeline", None, || {
            suites::pipeline(log_source(), txn_log_sink()).exchange(Exchange::Rebalance)
        }),
        target("log-source -> file-sink (rebalance)", "pipeline", None, || {
            suites::pipeline(log_source(), file_sink()).exchange(Exchange::Rebalance)
        }),
        target("log-source -> txn-log-sink (key-by)", "pipeline", None, || {
            suites::pipeline(log_source(), txn_log_sink()).exchange(Exchange::KeyBy)
        }),
        target("log-source -> file-sink (key-by)", "pipeline", None, || {
            suites::pipeline(log_source(), file_sink()).exchange(Exchange::KeyBy)
        }),
        target("log-source -> txn-log-sink (rebalance, 3 writers)", "pipeline", None, || {
            suites::pipeline(log_source(), txn_log_sink()).exchange(Exchange::Rebalance).sink_parallelism(3)
        }),
        target("mutant (runtime): writer snapshots at the first barrier", "pipeline", Some("no-loss"), || {
            suites::pipeline(log_source(), txn_log_sink()).exchange(Exchange::Rebalance).unaligned_barriers()
        }),
        target("mutant (runtime): split state restored by index", "source", Some("no-loss"), || {
            suites::source(contexts::log_source()).runtime_bug(RuntimeBug::SplitStateByIndex)
        }),
        target(
            "mutant (runtime): split without a watermark does not hold the combined one",
            "source",
            Some("event-time"),
            || suites::source(contexts::log_source()).runtime_bug(RuntimeBug::SplitWithoutWatermarkDoesNotHold),
        ),
        target("mutant (runtime): idle reader waits for alignment", "source", Some("watermark-alignment"), || {
            suites::source(contexts::log_source()).runtime_bug(RuntimeBug::IdleReaderWaitsForAlignment)
        }),
        target(
            "mutant (runtime): global committer combines only the completed checkpoint",
            "sink",
            Some("no-loss"),
            || suites::sink(table_sink()).runtime_bug(RuntimeBug::CombinesOnlyTheCompletedCheckpoint),
        ),
        target("mutant (runtime): global committer forgets on rescale", "sink", Some("no-loss"), || {
            suites::sink(table_sink()).runtime_bug(RuntimeBug::GlobalCommitterForgetsOnRescale)
        }),
        target("mutant (runtime): committer acks at the first barrier", "sink", Some("no-loss"), || {
            suites::sink(file_sink()).committer_parallelism(3).runtime_bug(RuntimeBug::CommitterAcksAtTheFirstBarrier)
        }),
        target("mutant: ignores add_splits_back", "source", Some("no-loss"), || {
            suites::source(log_source_with("ignores-splits-back", IgnoresSplitsBackSetup))
        }),
        source_mutant::<SnapshotOmitsPending>("split-accounting"),
        source_mutant::<AssignsUnregistered>("liveness"),
        source_mutant::<NoMoreSplitsAfterRestore>("liveness"),
        source_mutant::<StaleReaderSnapshot>("no-duplicates"),
        target("mutant: partition initialized twice", "source", Some("no-duplicates"), || {
            suites::source(log_source_with("initializes-twice", InitializesTwiceSetup))
        }),
        target("mutant: kafka source reads uncommitted", "source", Some("no-phantoms"), || {
            suites::source(kafka_source_with("kafka-source(read_uncommitted)", kafka::reads_uncommitted))
        }),
        target("mutant: kafka source skips tombstones", "source", Some("no-loss"), || {
            suites::source(kafka_source_with("kafka-source(skips tombstones)", kafka::skips_tombstones))
        }),
        target("mutant: kafka source stops at the last delivered offset", "source", Some("liveness"), || {
            suites::source(kafka_source_with("kafka-source(stops at the last offset)", kafka::stops_at_last_offset))
        }),
        target("mutant: kafka source commits offsets on poll", "pipeline", Some("no-loss"), || {
            suites::pipeline(
                kafka_source_with("kafka-source(commits on poll)", kafka::commits_on_poll),
                kafka_sink(TxnProtocol::Classic),
            )
        }),
        target("mutant: kafka source ignores committed offsets", "pipeline", Some("no-duplicates"), || {
            suites::pipeline(
                kafka_source_with("kafka-source(ignores committed offsets)", kafka::ignores_committed_offsets),
                kafka_sink(TxnProtocol::Classic),
            )
        }),
        target("mutant: kafka committer takes fenced for committed", "sink", Some("no-loss"), || {
            suites::sink(kafka_sink_with(kafka::BuggyKafkaSinkSetup(
                KafkaSinkSetup { partitions: 4, protocol: TxnProtocol::Classic },
                kafka::KafkaSinkBug::FencedAsCommitted,
            )))
        }),
        target("mutant: kafka sink's serializer drops headers", "sink", Some("no-corruption"), || {
            suites::sink(kafka_sink_with(kafka::BuggyKafkaSinkSetup(
                KafkaSinkSetup { partitions: 4, protocol: TxnProtocol::Classic },
                kafka::KafkaSinkBug::DropsHeaders,
            )))
        }),
        target("mutant: kafka sink's serializer writes a null key as text", "sink", Some("no-corruption"), || {
            suites::sink(kafka_sink_with(kafka::BuggyKafkaSinkSetup(
                KafkaSinkSetup { partitions: 4, protocol: TxnProtocol::Classic },
                kafka::KafkaSinkBug::NullKeyAsText,
            )))
        }),
        target("mutant: kafka sink opens a transactional id per checkpoint", "sink", Some("left-behind"), || {
            suites::sink(kafka_sink_with(kafka::BuggyKafkaSinkSetup(
                KafkaSinkSetup { partitions: 4, protocol: TxnProtocol::Classic },
                kafka::KafkaSinkBug::IdPerCheckpoint,
            )))
        }),
        target("mutant: kafka committer reads its marker before it fences", "sink", Some("no-duplicates"), || {
            suites::sink(kafka_sink_with(kafka::BuggyKafkaSinkSetup(
                KafkaSinkSetup { partitions: 4, protocol: TxnProtocol::Classic },
                kafka::KafkaSinkBug::ReadsBeforeFence,
            )))
        }),
        sink_mutant("mutant: premature commit", "no-premature-visibility", "fs", || PrematureCommitSetup),
        sink_mutant("mutant: table writer caches the schema", "no-corruption", "table", || CachesSchemaSetup),
        sink_mutant("mutant: version-log committer cleans up after an ambiguous error", "no-loss", "s3", || {
            CleansUpAfterAmbiguousErrorSetup
        }),
        sink_mutant("mutant: object sink completes uploads at the barrier", "no-premature-visibility", "s3", || {
            BuggyObjectSinkSetup(ObjectBug::CompletesAtBarrier)
        }),
        sink_mutant("mutant: object sink forgets uploaded parts", "no-loss", "s3", || {
            BuggyObjectSinkSetup(ObjectBug::ForgetsParts)
        }),
        sink_mutant("mutant: object sink aborts recorded uploads on close", "no-loss", "s3", || {
            BuggyObjectSinkSetup(ObjectBug::AbortsOnClose)
        }),
        sink_mutant("mutant: object sink defers completions", "declared-loss", "s3", || {
            BuggyObjectSinkSetup(ObjectBug::DefersCompletions)
        }),
        sink_mutant("mutant: object sink leaves its upload on close", "left-behind", "s3", || {
            BuggyObjectSinkSetup(ObjectBug::LeavesUploadOnClose)
        }),
        sink_mutant("mutant: object sink takes a gone upload for completed", "no-loss", "s3", || {
            BuggyObjectSinkSetup(ObjectBug::TakesGoneUploadsForCompleted)
        }),
        sink_mutant("mutant: object sink fails on its own put", "liveness", "s3", || {
            BuggyObjectSinkSetup(ObjectBug::FailsOnItsOwnPut)
        }),
        sink_mutant("mutant: object sink renames tails before the copy is confirmed", "no-loss", "s3", || {
            BuggyObjectSinkSetup(ObjectBug::RenamesTailUnconfirmed)
        }),
        sink_mutant("mutant: non-idempotent commit", "no-duplicates", "fs", || BuggyFileSinkSetup(NonIdempotentCommit)),
        sink_mutant("mutant: copies on a first-try clash", "no-duplicates", "fs", || {
            BuggyFileSinkSetup(CopiesOnFirstTryClash)
        }),
        sink_mutant("mutant: drops recovered committables", "no-loss", "fs", || {
            BuggyFileSinkSetup(DropsRecoveredCommittables)
        }),
        sink_mutant("mutant: drops end-of-input committables", "no-loss", "fs", || {
            BuggyFileSinkSetup(DropsFinalCommittables)
        }),
        sink_mutant("mutant: at-least-once writer without flush", "no-loss", "sink-log", || NoFlushSetup),
        sink_mutant("mutant: writer state not restored", "no-loss", "sink-log", || IgnoresStateSetup),
        sink_mutant("mutant: in-progress files visible", "no-premature-visibility", "fs", || {
            BuggyFileSinkSetup(InProgressVisible)
        }),
        sink_mutant("mutant: lossy writer state", "no-corruption", "sink-log", || LossyStateSetup),
        sink_mutant("mutant: writes barrier batch twice", "no-duplicates", "sink-log", || WritesTwiceSetup),
        sink_mutant("mutant: stale file relisted when idle", "stable-after-convergence", "table", || {
            RelistsStaleFileSetup
        }),
        sink_mutant("mutant: final file not synced", "stable-after-convergence", "fs", || {
            BuggyFileSinkSetup(UnsyncedFinalFile)
        }),
        target("mutant: returned splits restart at 0", "source", Some("no-phantoms"), || {
            let start = crate::LogStart::Offset(BEFORE_START);
            suites::source(log_source_starting_with(RestartsReturnedSplits::NAME, start, |s| {
                BuggySetup(s, RestartsReturnedSplits)
            }))
        }),
        sink_mutant("mutant: partition moves with the attempt", "per-split-order", "sink-log", || {
            PartitionByAttemptSetup
        }),
        sink_mutant("mutant: forgets removed transactions", "no-loss", "sink-log", || ForgetsRemovedTransactionsSetup),
        sink_mutant("mutant: output version misses appends", "no-unobserved-visibility", "sink-log", || {
            StaleOutputVersionSetup
        }),
        sink_mutant("mutant: upsert sink claims exactly-once", "no-premature-visibility", "kv", || {
            crate::UpsertSinkSetup { claims_exactly_once: true }
        }),
        sink_mutant("mutant: skips restored checkpoint", "no-loss", "table", || {
            BuggyTableSinkSetup(SkipsRestoredCheckpoint)
        }),
        sink_mutant("mutant: unstamped recovered commit", "no-duplicates", "table", || {
            BuggyTableSinkSetup(UnstampedRecoveredCommit)
        }),
        sink_mutant("mutant: skips commits by another job's checkpoint id", "no-loss", "table", || {
            BuggyTableSinkSetup(SkipsByAnotherJobsCheckpoint)
        }),
        sink_mutant("mutant: global committer trusts its own commits", "no-duplicates", "table", || {
            BuggyTableSinkSetup(TrustsItsOwnCommits)
        }),
        sink_mutant("mutant: aborts peers' transactions", "no-loss", "sink-log", || AbortsPeersTransactionsSetup),
        sink_mutant("mutant: commits all on notify", "no-premature-visibility", "sink-log", || CommitsOnNotifySetup {
            covered_only: false,
        }),
        sink_mutant("mutant: copies recovered files", "no-duplicates", "fs", || {
            BuggyFileSinkSetup(CopiesRecoveredFiles)
        }),
        sink_mutant("mutant: adopts pending files", "no-loss", "fs", || BuggyFileSinkSetup(AdoptsPendingFiles)),
        sink_mutant("mutant: cleans up on stop", "no-loss", "sink-log", || CleansUpOnStopSetup),
        sink_mutant("mutant: gives up on error replies", "no-loss", "fs", || BuggyFileSinkSetup(GivesUpOnErrorReplies)),
        sink_mutant("mutant: holds commits back", "no-loss", "sink-log", || HoldsCommitsBackSetup),
        sink_mutant("mutant: trusts the server's length", "no-loss", "fs", || BuggyFileSinkSetup(TrustsServerLength)),
        sink_mutant("mutant: dedupes by reading back", "no-duplicates", "sink-log", || DedupesByReadingBackSetup),
        sink_mutant("mutant: retries at the barrier", "liveness", "sink-log", || RetriesAtTheBarrierSetup),
        target("mutant: split state takes the fetch position", "source", Some("no-loss"), || {
            suites::source(log_source_with("snapshots-fetch-position", SnapshotsFetchPositionSetup))
        }),
        target("mutant: resets to latest", "source", Some("no-loss"), || {
            suites::source(log_source_with(ResetsToLatest::NAME, |s| BuggySetup(s, ResetsToLatest)))
        }),
        target("mutant: restores the watermark of its fetch", "source", Some("event-time"), || {
            suites::source(log_source_with("restores-fetched-watermark", RestoresFetchedWatermarkSetup))
        }),
        target("mutant: idles on a failed fetch", "source", Some("event-time"), || {
            suites::source(log_source_with("idles-on-refusal", IdlesOnRefusalSetup))
        }),
        target("mutant: drops stale prefetches", "source", Some("no-loss"), || {
            suites::source(log_source_with("drops-stale-prefetch", DropsStalePrefetchSetup))
        }),
        pause_mutant("mutant: split reader ignores pauses", PauseBug::Ignores),
        pause_mutant("mutant: resuming one split resumes all", PauseBug::ResumesAll),
        pause_mutant("mutant: forgets pauses when given a split", PauseBug::ForgetsPausesOnAssign),
        target("mutant: holds new splits until a checkpoint", "source", Some("watermark-alignment"), || {
            suites::source(log_source_aligned_with(HoldsNewSplits::NAME, |s| BuggySetup(s, HoldsNewSplits)))
        }),
    ]
}
