//! The mutant catalogue: every mutant fails a suite case within 100 seeds, with the verdict
//! its story predicts. Cases run in order until one catches the mutant.

use connectors_under_test::contexts;
use connectors_under_test::mutants::*;
use connsim_scenarios::suites::{self, Suite};

const SEEDS: u64 = 100;

fn caught(suite: Suite, check: &str) {
    let outcome = suite.seeds(SEEDS).run_until(
        |_, _, _| {},
        |r| r.reports.iter().any(|x| x.failed_checks().contains(&check)),
    );
    print!("{outcome}");
    let Some((case, report)) = outcome.caught_by(check) else {
        panic!("the mutant survived: no case failed {check} within {SEEDS} seeds\n{outcome}");
    };
    let result = outcome
        .cases
        .iter()
        .find(|c| c.case == case)
        .expect("the case ran");
    let minimal = result
        .minimal
        .as_ref()
        .map(|s| s.to_rust())
        .unwrap_or_default();
    println!(
        "caught by {check} in case {case:?}, seed {}; minimal scenario:\n{minimal}",
        report.seed
    );
}

fn source_mutant<B: LogBug + Default>(check: &str) {
    caught(
        suites::source(contexts::log_source_with(B::NAME, |s| {
            BuggySetup(s, B::default())
        })),
        check,
    );
}

#[test]
fn ignores_add_splits_back_loses_splits() {
    caught(
        suites::source(contexts::log_source_with(
            "ignores-splits-back",
            IgnoresSplitsBackSetup,
        )),
        "no-loss",
    );
}

#[test]
fn snapshot_omitting_pending_splits_loses_track_of_them() {
    source_mutant::<SnapshotOmitsPending>("split-accounting");
}

#[test]
fn assigning_to_an_unregistered_reader_fails_the_job() {
    source_mutant::<AssignsUnregistered>("liveness");
}

#[test]
fn no_more_splits_missing_after_restore_never_finishes() {
    source_mutant::<NoMoreSplitsAfterRestore>("liveness");
}

#[test]
fn a_stale_reader_snapshot_duplicates_records() {
    source_mutant::<StaleReaderSnapshot>("no-duplicates");
}

#[test]
fn premature_commit_is_visible_too_early() {
    caught(
        suites::sink(contexts::sink(PrematureCommitSetup, &["fs"])),
        "no-premature-visibility",
    );
}

#[test]
fn a_non_idempotent_commit_duplicates_records() {
    caught(
        suites::sink(contexts::sink(
            BuggyFileSinkSetup(NonIdempotentCommit),
            &["fs"],
        )),
        "no-duplicates",
    );
}

#[test]
fn dropped_recovered_committables_lose_records() {
    caught(
        suites::sink(contexts::sink(
            BuggyFileSinkSetup(DropsRecoveredCommittables),
            &["fs"],
        )),
        "no-loss",
    );
}

#[test]
fn dropped_end_of_input_committables_lose_the_last_records() {
    caught(
        suites::sink(contexts::sink(
            BuggyFileSinkSetup(DropsFinalCommittables),
            &["fs"],
        )),
        "no-loss",
    );
}

#[test]
fn an_at_least_once_writer_without_flush_loses_records() {
    caught(
        suites::sink(contexts::sink(NoFlushSetup, &["sink-log"])),
        "no-loss",
    );
}

#[test]
fn ignoring_restored_writer_state_loses_records() {
    caught(
        suites::sink(contexts::sink(IgnoresStateSetup, &["sink-log"])),
        "no-loss",
    );
}

/// Seeds a fixed case gets to catch one of the sharper oracle's mutants.
const FIXED_SEEDS: u64 = 20;

/// Caught within [`FIXED_SEEDS`] seeds by a fixed case (not the swarm), failing `check`,
/// while the reference connector it was made from passes that case on that seed (so the
/// catch is the bug's, not the harness's).
fn caught_by_a_fixed_case(suite: Suite, reference: Suite, check: &str) {
    let fixed = |r: &suites::CaseResult| {
        r.case != "swarm" && r.reports.iter().any(|x| x.failed_checks().contains(&check))
    };
    let outcome = suite.seeds(FIXED_SEEDS).run_until(|_, _, _| {}, fixed);
    print!("{outcome}");
    let caught = outcome.cases.iter().find(|c| fixed(c));
    let Some(case) = caught else {
        panic!("the mutant survived: no fixed case failed {check} within {FIXED_SEEDS} seeds\n{outcome}");
    };
    let report = case
        .reports
        .iter()
        .find(|r| r.failed_checks().contains(&check))
        .expect("found above");
    println!(
        "caught by {check} in case {:?}, seed {}",
        case.case, report.seed
    );
    let same = reference
        .only(&case.case)
        .first_seed(report.seed)
        .seeds(1)
        .run();
    assert!(
        same.failed_cases().is_empty(),
        "the reference connector fails the same case and seed too:\n{same}"
    );
}

#[test]
fn in_progress_files_in_the_visible_directory_are_visible_too_early() {
    caught_by_a_fixed_case(
        suites::sink(contexts::sink(
            BuggyFileSinkSetup(InProgressVisible),
            &["fs"],
        )),
        suites::sink(contexts::file_sink()),
        "no-premature-visibility",
    );
}

#[test]
fn a_lossy_writer_state_serializer_corrupts_resent_records() {
    caught_by_a_fixed_case(
        suites::sink(contexts::sink(LossyStateSetup, &["sink-log"])),
        suites::sink(contexts::log_sink(
            connectors_under_test::BarrierMode::BufferInState,
        )),
        "no-corruption",
    );
}

#[test]
fn an_at_least_once_writer_sending_its_barrier_batch_twice_is_an_unexplained_duplicate() {
    caught_by_a_fixed_case(
        suites::sink(contexts::sink(WritesTwiceSetup, &["sink-log"])),
        suites::sink(contexts::log_sink(
            connectors_under_test::BarrierMode::Flush,
        )),
        "no-duplicates",
    );
}

#[test]
fn a_stale_file_committed_again_after_the_input_went_quiet_changes_a_converged_output() {
    caught_by_a_fixed_case(
        suites::sink(contexts::sink(RelistsStaleFileSetup, &["table"])),
        suites::sink(contexts::table_sink()),
        "stable-after-convergence",
    );
}

#[test]
fn a_final_file_committed_without_sync_does_not_survive_a_restart_of_the_file_system() {
    caught_by_a_fixed_case(
        suites::sink(contexts::sink(
            BuggyFileSinkSetup(UnsyncedFinalFile),
            &["fs"],
        )),
        suites::sink(contexts::file_sink()),
        "stable-after-convergence",
    );
}

#[test]
fn returned_splits_restarted_from_the_earliest_offset_read_before_the_declared_start() {
    let start = connectors_under_test::LogStart::Offset(contexts::BEFORE_START);
    let ctx = contexts::log_source_starting_with(RestartsReturnedSplits::NAME, start, |s| {
        BuggySetup(s, RestartsReturnedSplits)
    });
    caught_by_a_fixed_case(
        suites::source(ctx),
        suites::source(contexts::log_source_specific()),
        "no-phantoms",
    );
}

#[test]
fn a_partition_that_moves_with_the_attempt_breaks_per_split_order() {
    caught_by_a_fixed_case(
        suites::sink(contexts::sink(PartitionByAttemptSetup, &["sink-log"])),
        suites::sink(contexts::txn_log_sink()),
        "per-split-order",
    );
}

#[test]
fn an_output_reader_whose_version_misses_appends_is_unobserved_visibility() {
    caught_by_a_fixed_case(
        suites::sink(contexts::sink(StaleOutputVersionSetup, &["sink-log"])),
        suites::sink(contexts::log_sink(
            connectors_under_test::BarrierMode::Flush,
        )),
        "no-unobserved-visibility",
    );
}

#[test]
fn transactions_left_open_by_removed_subtasks_block_read_committed_readers() {
    caught_by_a_fixed_case(
        suites::sink(contexts::sink(
            ForgetsRemovedTransactionsSetup,
            &["sink-log"],
        )),
        suites::sink(contexts::txn_log_sink()),
        "no-loss",
    );
}
