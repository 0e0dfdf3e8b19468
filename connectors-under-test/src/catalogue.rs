//! The catalogue `connsim sweep` runs through the suites: every reference connector (every
//! case must pass) and every mutant (some case must fail the check its story predicts).
//!
//! The sweep and the tests build their suites here, by name ([`suite`]), so what `cargo test`
//! proves of a target is what the sweep runs, and the mutants' generic code is compiled once,
//! in this library, rather than in every binary that runs them.

use crate::contexts;
use crate::mutants::*;
use crate::BarrierMode;
use connsim::cluster::Exchange;
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
        target("table-sink (global committer)", "sink", None, || suites::sink(table_sink())),
        target("log-sink (at-least-once, flush)", "sink", None, || suites::sink(log_sink(BarrierMode::Flush))),
        target("log-sink (at-least-once, state)", "sink", None, || suites::sink(log_sink(BarrierMode::BufferInState))),
        target("upsert-sink (idempotent)", "sink", None, || suites::sink(upsert_sink())),
        target("log-source -> txn-log-sink", "pipeline", None, || suites::pipeline(log_source(), txn_log_sink())),
        target("log-source -> file-sink", "pipeline", None, || suites::pipeline(log_source(), file_sink())),
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
        target("mutant: ignores add_splits_back", "source", Some("no-loss"), || {
            suites::source(log_source_with("ignores-splits-back", IgnoresSplitsBackSetup))
        }),
        source_mutant::<SnapshotOmitsPending>("split-accounting"),
        source_mutant::<AssignsUnregistered>("liveness"),
        source_mutant::<NoMoreSplitsAfterRestore>("liveness"),
        source_mutant::<StaleReaderSnapshot>("no-duplicates"),
        target("mutant: premature commit", "sink", Some("no-premature-visibility"), || {
            suites::sink(sink(PrematureCommitSetup, &["fs"]))
        }),
        target("mutant: non-idempotent commit", "sink", Some("no-duplicates"), || {
            suites::sink(sink(BuggyFileSinkSetup(NonIdempotentCommit), &["fs"]))
        }),
        target("mutant: drops recovered committables", "sink", Some("no-loss"), || {
            suites::sink(sink(BuggyFileSinkSetup(DropsRecoveredCommittables), &["fs"]))
        }),
        target("mutant: drops end-of-input committables", "sink", Some("no-loss"), || {
            suites::sink(sink(BuggyFileSinkSetup(DropsFinalCommittables), &["fs"]))
        }),
        target("mutant: at-least-once writer without flush", "sink", Some("no-loss"), || {
            suites::sink(sink(NoFlushSetup, &["sink-log"]))
        }),
        target("mutant: writer state not restored", "sink", Some("no-loss"), || {
            suites::sink(sink(IgnoresStateSetup, &["sink-log"]))
        }),
        target("mutant: in-progress files visible", "sink", Some("no-premature-visibility"), || {
            suites::sink(sink(BuggyFileSinkSetup(InProgressVisible), &["fs"]))
        }),
        target("mutant: lossy writer state", "sink", Some("no-corruption"), || {
            suites::sink(sink(LossyStateSetup, &["sink-log"]))
        }),
        target("mutant: writes barrier batch twice", "sink", Some("no-duplicates"), || {
            suites::sink(sink(WritesTwiceSetup, &["sink-log"]))
        }),
        target("mutant: stale file relisted when idle", "sink", Some("stable-after-convergence"), || {
            suites::sink(sink(RelistsStaleFileSetup, &["table"]))
        }),
        target("mutant: final file not synced", "sink", Some("stable-after-convergence"), || {
            suites::sink(sink(BuggyFileSinkSetup(UnsyncedFinalFile), &["fs"]))
        }),
        target("mutant: returned splits restart at 0", "source", Some("no-phantoms"), || {
            let start = crate::LogStart::Offset(BEFORE_START);
            suites::source(log_source_starting_with(RestartsReturnedSplits::NAME, start, |s| {
                BuggySetup(s, RestartsReturnedSplits)
            }))
        }),
        target("mutant: partition moves with the attempt", "sink", Some("per-split-order"), || {
            suites::sink(sink(PartitionByAttemptSetup, &["sink-log"]))
        }),
        target("mutant: forgets removed transactions", "sink", Some("no-loss"), || {
            suites::sink(sink(ForgetsRemovedTransactionsSetup, &["sink-log"]))
        }),
        target("mutant: output version misses appends", "sink", Some("no-unobserved-visibility"), || {
            suites::sink(sink(StaleOutputVersionSetup, &["sink-log"]))
        }),
        target("mutant: upsert sink claims exactly-once", "sink", Some("no-premature-visibility"), || {
            suites::sink(sink(crate::UpsertSinkSetup { claims_exactly_once: true }, &["kv"]))
        }),
        target("mutant: skips restored checkpoint", "sink", Some("no-loss"), || {
            suites::sink(sink(BuggyTableSinkSetup(SkipsRestoredCheckpoint), &["table"]))
        }),
        target("mutant: unstamped recovered commit", "sink", Some("no-duplicates"), || {
            suites::sink(sink(BuggyTableSinkSetup(UnstampedRecoveredCommit), &["table"]))
        }),
        target("mutant: aborts peers' transactions", "sink", Some("no-loss"), || {
            suites::sink(sink(AbortsPeersTransactionsSetup, &["sink-log"]))
        }),
        target("mutant: commits all on notify", "sink", Some("no-premature-visibility"), || {
            suites::sink(sink(CommitsOnNotifySetup { covered_only: false }, &["sink-log"]))
        }),
        target("mutant: copies recovered files", "sink", Some("no-duplicates"), || {
            suites::sink(sink(BuggyFileSinkSetup(CopiesRecoveredFiles), &["fs"]))
        }),
        target("mutant: adopts pending files", "sink", Some("no-loss"), || {
            suites::sink(sink(BuggyFileSinkSetup(AdoptsPendingFiles), &["fs"]))
        }),
        target("mutant: cleans up on stop", "sink", Some("no-loss"), || {
            suites::sink(sink(CleansUpOnStopSetup, &["sink-log"]))
        }),
        target("mutant: gives up on error replies", "sink", Some("no-loss"), || {
            suites::sink(sink(BuggyFileSinkSetup(GivesUpOnErrorReplies), &["fs"]))
        }),
        target("mutant: holds commits back", "sink", Some("no-loss"), || {
            suites::sink(sink(HoldsCommitsBackSetup, &["sink-log"]))
        }),
        target("mutant: trusts the server's length", "sink", Some("no-loss"), || {
            suites::sink(sink(BuggyFileSinkSetup(TrustsServerLength), &["fs"]))
        }),
        target("mutant: dedupes by reading back", "sink", Some("no-duplicates"), || {
            suites::sink(sink(DedupesByReadingBackSetup, &["sink-log"]))
        }),
        target("mutant: retries at the barrier", "sink", Some("liveness"), || {
            suites::sink(sink(RetriesAtTheBarrierSetup, &["sink-log"]))
        }),
        target("mutant: split state takes the fetch position", "source", Some("no-loss"), || {
            suites::source(log_source_with("snapshots-fetch-position", SnapshotsFetchPositionSetup))
        }),
        target("mutant: resets to latest", "source", Some("no-loss"), || {
            suites::source(log_source_with(ResetsToLatest::NAME, |s| BuggySetup(s, ResetsToLatest)))
        }),
        target("mutant: restores the watermark of its fetch", "source", Some("event-time"), || {
            suites::source(log_source_with("restores-fetched-watermark", RestoresFetchedWatermarkSetup))
        }),
        target("mutant: drops stale prefetches", "source", Some("no-loss"), || {
            suites::source(log_source_with("drops-stale-prefetch", DropsStalePrefetchSetup))
        }),
        pause_mutant("mutant: split reader ignores pauses", PauseBug::Ignores),
        pause_mutant("mutant: resuming one split resumes all", PauseBug::ResumesAll),
        pause_mutant("mutant: forgets pauses when given a split", PauseBug::ForgetsPausesOnAssign),
    ]
}
