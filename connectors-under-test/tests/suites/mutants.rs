//! The mutant catalogue: every mutant fails a suite case within 20 seeds, with the verdict
//! its story predicts. Cases run in order until one catches the mutant. (The release sweep
//! runs 200 seeds per case; 20 here keep `cargo test` short, and ask more of each mutant's
//! catching case, not less.)

use connectors_under_test::catalogue;
use connectors_under_test::contexts;
use connectors_under_test::mutants::*;
use connsim::cluster::Phase;
use connsim_scenarios::prelude::*;
use connsim_scenarios::suites::{self, Suite};
use connsim_scenarios::Block;

const SEEDS: u64 = 20;

/// The catalogue's mutant `name`, whose test asserts it fails `check`.
///
/// # Panics
/// Unless the catalogue predicts `check` for it: the sweep reports a mutant caught only by
/// the check the catalogue predicts, so a test proving another check would prove nothing
/// the sweep relies on.
pub(crate) fn mutant(name: &str, check: &str) -> Suite {
    let target = catalogue::target_named(name);
    assert_eq!(target.expect_failed_check, Some(check), "the catalogue predicts another check for {name:?}");
    (target.make)()
}

fn caught(suite: Suite, check: &str) {
    let outcome =
        suite.seeds(SEEDS).run_until(|_, _, _| {}, |r| r.reports.iter().any(|x| x.failed_checks().contains(&check)));
    print!("{outcome}");
    let Some((case, report)) = outcome.caught_by(check) else {
        panic!("the mutant survived: no case failed {check} within {SEEDS} seeds\n{outcome}");
    };
    let result = outcome.cases.iter().find(|c| c.case == case).expect("the case ran");
    let minimal = result.minimal.as_ref().map(|s| s.to_rust()).unwrap_or_default();
    println!("caught by {check} in case {case:?}, seed {}; minimal scenario:\n{minimal}", report.seed);
}

#[test]
fn ignores_add_splits_back_loses_splits() {
    caught(mutant("mutant: ignores add_splits_back", "no-loss"), "no-loss");
}

#[test]
fn snapshot_omitting_pending_splits_loses_track_of_them() {
    caught(mutant("mutant: snapshot omits pending", "split-accounting"), "split-accounting");
}

#[test]
fn assigning_to_an_unregistered_reader_fails_the_job() {
    caught(mutant("mutant: assigns unregistered", "liveness"), "liveness");
}

#[test]
fn no_more_splits_missing_after_restore_never_finishes() {
    caught(mutant("mutant: no more splits after restore", "liveness"), "liveness");
}

#[test]
fn a_stale_reader_snapshot_duplicates_records() {
    caught(mutant("mutant: stale reader snapshot", "no-duplicates"), "no-duplicates");
}

#[test]
fn a_partition_initialized_by_two_overlapping_discovery_rounds_is_read_twice() {
    let check = "no-duplicates";
    let suite = mutant("mutant: partition initialized twice", "no-duplicates");
    // Only the case with slow discovery responses lets two rounds overlap.
    let outcome = suite.only("discovery overlaps slow responses").seeds(SEEDS).run();
    print!("{outcome}");
    let (case, report) = outcome.caught_by(check).expect("the mutant survived its case");
    assert_eq!(case, "discovery overlaps slow responses");
    assert!(report.marks.iter().any(|m| m == "discovery-overlapped"), "{report}");
}

#[test]
fn premature_commit_is_visible_too_early() {
    caught(mutant("mutant: premature commit", "no-premature-visibility"), "no-premature-visibility");
}

#[test]
fn a_non_idempotent_commit_duplicates_records() {
    caught(mutant("mutant: non-idempotent commit", "no-duplicates"), "no-duplicates");
}

#[test]
fn dropped_recovered_committables_lose_records() {
    caught(mutant("mutant: drops recovered committables", "no-loss"), "no-loss");
}

#[test]
fn dropped_end_of_input_committables_lose_the_last_records() {
    caught(mutant("mutant: drops end-of-input committables", "no-loss"), "no-loss");
}

#[test]
fn an_at_least_once_writer_without_flush_loses_records() {
    caught(mutant("mutant: at-least-once writer without flush", "no-loss"), "no-loss");
}

#[test]
fn ignoring_restored_writer_state_loses_records() {
    caught(mutant("mutant: writer state not restored", "no-loss"), "no-loss");
}

/// Seeds a fixed case gets to catch one of the sharper oracle's mutants.
pub(crate) const FIXED_SEEDS: u64 = 20;

/// Caught within [`FIXED_SEEDS`] seeds by a fixed case (not the swarm), failing `check`,
/// while the reference connector it was made from passes that case on that seed (so the
/// catch is the bug's, not the harness's).
pub(crate) fn caught_by_a_fixed_case(suite: Suite, reference: Suite, check: &str) {
    caught_by_a_fixed_case_within(suite, reference, check, FIXED_SEEDS)
}

/// [`caught_by_a_fixed_case`] within `seeds` seeds, for a mutant only a few seeds in a
/// hundred expose (its test says how rare).
pub(crate) fn caught_by_a_fixed_case_within(suite: Suite, reference: Suite, check: &str, seeds: u64) {
    let fixed =
        |r: &suites::CaseResult| r.case != "swarm" && r.reports.iter().any(|x| x.failed_checks().contains(&check));
    let outcome = suite.seeds(seeds).run_until(|_, _, _| {}, fixed);
    print!("{outcome}");
    let caught = outcome.cases.iter().find(|c| fixed(c));
    let Some(case) = caught else {
        panic!("the mutant survived: no fixed case failed {check} within {seeds} seeds\n{outcome}");
    };
    let report = case.reports.iter().find(|r| r.failed_checks().contains(&check)).expect("found above");
    println!("caught by {check} in case {:?}, seed {}", case.case, report.seed);
    let same = reference.only(&case.case).first_seed(report.seed).seeds(1).run();
    assert!(same.failed_cases().is_empty(), "the reference connector fails the same case and seed too:\n{same}");
}

#[test]
fn in_progress_files_in_the_visible_directory_are_visible_too_early() {
    caught_by_a_fixed_case(
        mutant("mutant: in-progress files visible", "no-premature-visibility"),
        catalogue::suite("file-sink"),
        "no-premature-visibility",
    );
}

#[test]
fn a_lossy_writer_state_serializer_corrupts_resent_records() {
    caught_by_a_fixed_case(
        mutant("mutant: lossy writer state", "no-corruption"),
        catalogue::suite("log-sink (at-least-once, state)"),
        "no-corruption",
    );
}

#[test]
fn an_at_least_once_writer_sending_its_barrier_batch_twice_is_an_unexplained_duplicate() {
    caught_by_a_fixed_case(
        mutant("mutant: writes barrier batch twice", "no-duplicates"),
        catalogue::suite("log-sink (at-least-once, flush)"),
        "no-duplicates",
    );
}

#[test]
fn a_stale_file_committed_again_after_the_input_went_quiet_changes_a_converged_output() {
    caught_by_a_fixed_case(
        mutant("mutant: stale file relisted when idle", "stable-after-convergence"),
        catalogue::suite("table-sink (global committer)"),
        "stable-after-convergence",
    );
}

#[test]
fn a_final_file_committed_without_sync_does_not_survive_a_restart_of_the_file_system() {
    caught_by_a_fixed_case(
        mutant("mutant: final file not synced", "stable-after-convergence"),
        catalogue::suite("file-sink"),
        "stable-after-convergence",
    );
}

#[test]
fn returned_splits_restarted_from_the_earliest_offset_read_before_the_declared_start() {
    caught_by_a_fixed_case(
        mutant("mutant: returned splits restart at 0", "no-phantoms"),
        catalogue::suite("log-source (offset)"),
        "no-phantoms",
    );
}

#[test]
fn a_partition_that_moves_with_the_attempt_breaks_per_split_order() {
    caught_by_a_fixed_case(
        mutant("mutant: partition moves with the attempt", "per-split-order"),
        catalogue::suite("txn-log-sink"),
        "per-split-order",
    );
}

#[test]
fn an_output_reader_whose_version_misses_appends_is_unobserved_visibility() {
    caught_by_a_fixed_case(
        mutant("mutant: output version misses appends", "no-unobserved-visibility"),
        catalogue::suite("log-sink (at-least-once, flush)"),
        "no-unobserved-visibility",
    );
}

#[test]
fn transactions_left_open_by_removed_subtasks_block_read_committed_readers() {
    caught_by_a_fixed_case(
        mutant("mutant: forgets removed transactions", "no-loss"),
        catalogue::suite("txn-log-sink"),
        "no-loss",
    );
}

/// Caught by `case` within [`FIXED_SEEDS`] seeds, failing `check`, while the same seeds of
/// the same case with `block` taken out never fail `check`: the bug needs that block.
pub(crate) fn only_exposed_by(suite: impl Fn() -> Suite, case: &str, block: impl Into<Block>, check: &str) {
    only_exposed_within(suite, case, block, check, FIXED_SEEDS)
}

/// [`only_exposed_by`] over `seeds` seeds, for a mutant only a few seeds in a hundred
/// expose (its test says how rare).
pub(crate) fn only_exposed_within(
    suite: impl Fn() -> Suite,
    case: &str,
    block: impl Into<Block>,
    check: &str,
    seeds: u64,
) {
    let block = block.into();
    let fails = |r: &suites::CaseResult| r.reports.iter().any(|x| x.failed_checks().contains(&check));
    let with = suite().only(case).seeds(seeds).run_until(|_, _, _| {}, fails);
    print!("{with}");
    let Some((_, report)) = with.caught_by(check) else {
        panic!("the mutant survived {case:?}: {check} never failed within {seeds} seeds\n{with}");
    };
    assert!(
        report.marks.iter().any(|m| Some(m.as_str()) == block_mark(&block) || zombie_commit(&block, m)),
        "the failing seed never reached {block:?}"
    );
    println!("caught by {check} in {case:?}, seed {}", report.seed);
    let without = suite().only(case).without(block.clone()).seeds(seeds).run();
    assert!(
        without.caught_by(check).is_none(),
        "{case:?} without {} fails {check} too: the block is not what exposes the bug\n{without}",
        block.to_rust()
    );
    // And nothing else fails there either (a missed coverage mark, another check): the
    // case without the block is one the mutant passes, not a vacuous or broken run.
    assert!(without.failed_cases().is_empty(), "{case:?} without {} fails otherwise:\n{without}", block.to_rust());
}

/// A notification held up makes a replaced committer commit: a global committer's
/// (`block_mark`), or a committer's apart from the writers.
fn zombie_commit(block: &Block, mark: &str) -> bool {
    block_mark(block) == Some("zombie-global-commit") && mark == "zombie-commit"
}

fn block_mark(block: &Block) -> Option<&'static str> {
    match block {
        Block::Fault { fault: Fault::Partition { a: Target::Worker(_), b: Target::JobMaster }, .. } => {
            Some("zombie-wrote-after-replacement")
        }
        Block::Crash { at: Some(phase), .. } => Some(phase.mark()),
        Block::Fault { fault: Fault::Refuse { .. }, .. } => Some("commit-request-refused"),
        Block::Configure { setting: Setting::TransactionTimeoutMs(Some(_)), .. } => Some("transaction-timed-out"),
        Block::Configure { setting: Setting::TornAppends(_), .. } => Some("append-torn"),
        Block::Configure { setting: Setting::AlterTable(_), .. } => Some("schema-altered"),
        Block::Configure { setting: Setting::RetentionMs(Some(_)), .. } => Some("offset-out-of-range"),
        Block::Configure { setting: Setting::SlowDown(_), .. } => Some("s3-slow-down"),
        Block::Configure { setting: Setting::InternalErrors(_), .. } => Some("s3-internal-error"),
        Block::Configure { setting: Setting::ExpireIncompleteUploadsAfterMs(Some(_)), .. } => Some("upload-expired"),
        Block::During { fault: Fault::Delay { kind: Some(k), .. }, .. } if k == "Notify" => {
            Some("zombie-global-commit")
        }
        Block::During { fault: Fault::Delay { .. }, .. } => Some("request-outlived-its-sender"),
        Block::Repeat { block, .. } if block.any_fault(&|f| matches!(f, Fault::Straggle { .. })) => {
            Some("message-straggled")
        }
        Block::During { fault: Fault::Hold { .. }, .. } => Some("request-applied-late"),
        Block::Repeat { block, .. } if block.any_fault(&|f| matches!(f, Fault::Hold { .. })) => {
            Some("request-applied-late")
        }
        Block::Seq(v) if v.iter().any(|b| matches!(b, Block::Configure { setting: Setting::AlterTable(_), .. })) => {
            Some("schema-altered")
        }
        Block::NewJob { from: NewJobFrom::WithoutState } => Some("new-job:without-state"),
        Block::NewJob { from: NewJobFrom::OlderSavepoint } => Some("new-job:older-savepoint"),
        _ => None,
    }
}

#[test]
fn a_global_committer_that_takes_the_restored_checkpoint_as_committed_loses_it() {
    caught_by_a_fixed_case(
        mutant("mutant: skips restored checkpoint", "no-loss"),
        catalogue::suite("table-sink (global committer)"),
        "no-loss",
    );
}

#[test]
fn recovered_snapshots_committed_without_their_checkpoint_id_are_committed_twice() {
    caught_by_a_fixed_case(
        mutant("mutant: unstamped recovered commit", "no-duplicates"),
        catalogue::suite("table-sink (global committer)"),
        "no-duplicates",
    );
}

/// A global committer cut off from the job master and replaced commits a checkpoint its
/// replacement committed from the restored state: a committer that asks the table only
/// about recovered and retried requests commits it twice. Without the notification held up
/// on its way to the cut-off committer, nothing reaches it after the replacement started.
#[test]
fn a_global_committer_that_trusts_its_own_commits_commits_twice_next_to_its_replacement() {
    only_exposed_by(
        || mutant("mutant: global committer trusts its own commits", "no-duplicates"),
        "the global committer cut off and replaced (zombie)",
        global_committer_notified_late(),
        "no-duplicates",
    );
}

/// Committers apart from the writers: committer 0, cut off and replaced, hears late that a
/// checkpoint completed and renames, on its first try, what its replacement renamed from the
/// restored checkpoint; a committer that guards idempotence only on retries and recovered
/// committables writes a second copy. Without the late notification the case passes.
#[test]
fn a_committer_apart_without_an_idempotence_guard_commits_twice_next_to_its_replacement() {
    only_exposed_by(
        || mutant("mutant: copies on a first-try clash", "no-duplicates"),
        "committers apart, one cut off and replaced (zombie)",
        global_committer_notified_late(),
        "no-duplicates",
    );
}

#[test]
fn a_global_committer_that_takes_another_jobs_checkpoint_id_for_its_own_loses_a_new_jobs_commits() {
    only_exposed_by(
        || mutant("mutant: skips commits by another job's checkpoint id", "no-loss"),
        "restart without state",
        restart_without_state(),
        "no-loss",
    );
    only_exposed_by(
        || mutant("mutant: skips commits by another job's checkpoint id", "no-loss"),
        "restart from an older savepoint",
        restart_from_older_savepoint(),
        "no-loss",
    );
}

#[test]
fn writers_that_abort_their_peers_restored_transactions_lose_them_when_the_job_master_dies_before_notifying() {
    only_exposed_by(
        || mutant("mutant: aborts peers' transactions", "no-loss"),
        "job-master failover",
        crash(job_master()).at(Phase::BeforeNotify).restart_after(40),
        "no-loss",
    );
}

#[test]
fn recovered_files_published_by_copy_are_published_twice_after_a_crash_inside_the_recovered_commit() {
    only_exposed_by(
        || mutant("mutant: copies recovered files", "no-duplicates"),
        "crash at every",
        crash(Worker::Any).at(Phase::InsideRecoveredCommit).restart_after(30),
        "no-duplicates",
    );
}

#[test]
fn pending_files_adopted_on_restore_are_lost_when_the_adopting_attempt_dies_before_committing() {
    only_exposed_by(
        || mutant("mutant: adopts pending files", "no-loss"),
        "crash at every",
        crash(Worker::Any).at(Phase::AfterRestore).restart_after(30),
        "no-loss",
    );
}

#[test]
fn writers_that_clean_up_on_stop_abort_the_savepoint_transaction_of_a_subtask_that_died_during_the_stop() {
    only_exposed_by(
        || mutant("mutant: cleans up on stop", "no-loss"),
        "stop-with-savepoint",
        crash(Worker::Any).at(Phase::DuringSavepoint).restart_after(30),
        "no-loss",
    );
}

#[test]
fn a_committer_that_takes_error_replies_for_permanent_failures_drops_files() {
    only_exposed_by(
        || mutant("mutant: gives up on error replies", "no-loss"),
        "refuse requests",
        refuse("fs", Refusal::Unavailable, 0.4, 300),
        "no-loss",
    );
}

#[test]
fn a_committer_that_holds_commits_back_loses_transactions_to_the_brokers_timeout() {
    only_exposed_by(
        || mutant("mutant: holds commits back", "no-loss"),
        "transactions time out",
        transaction_timeout("sink-log", 250),
        "no-loss",
    );
}

#[test]
fn a_writer_that_deduplicates_by_reading_its_output_back_writes_again_what_a_zombie_wrote_after_it_looked() {
    only_exposed_by(
        || mutant("mutant: dedupes by reading back", "no-duplicates"),
        "a worker cut off from the job master (zombie)",
        zombie(Worker::Any, 800),
        "no-duplicates",
    );
    // A request slower than its caller does the same: it lands after its writer crashed and
    // the replacement read the output back.
    let (from, to) = (Some(Target::Worker(Worker::Nth(1))), Some(Target::System("sink-log".into())));
    let slow = Fault::Delay { ms: 400, kind: None, from, to };
    let crash_while_slow = during(slow, wait(250).then(crash(Worker::Nth(1)).restart_after(100)).then(wait(20)));
    only_exposed_by(
        || mutant("mutant: dedupes by reading back", "no-duplicates"),
        "slow requests outlive a crashed writer",
        crash_while_slow,
        "no-duplicates",
    );
    // Nothing but a write landing after its writer was replaced exposes it: every seed of the
    // whole suite that it fails had a zombie (message loss that fools the failure detector,
    // a frozen worker, a generated partition make zombies too) or a request that outlived
    // its crashed sender.
    let all = mutant("mutant: dedupes by reading back", "no-duplicates").seeds(FIXED_SEEDS).run();
    let mut failed = 0;
    for case in &all.cases {
        for report in case.reports.iter().filter(|r| !r.failed_checks().is_empty()) {
            failed += 1;
            assert!(
                report
                    .marks
                    .iter()
                    .any(|m| m == "zombie-wrote-after-replacement" || m == "request-outlived-its-sender"),
                "{:?} seed {} fails without a zombie or a late request:\n{report}",
                case.case,
                report.seed
            );
        }
    }
    assert!(failed > 0, "{all}");
}

#[test]
fn a_reader_that_resets_to_the_end_when_retention_deleted_its_position_skips_what_is_left() {
    let suite = || mutant("mutant: resets to latest", "no-loss");
    only_exposed_by(suite, "retention", retention("log", 150), "no-loss");
    // Nothing but retention exposes it: every seed of the whole suite that it fails was told
    // a position was out of range.
    let all = suite().seeds(FIXED_SEEDS).run();
    let mut failed = 0;
    for case in &all.cases {
        for report in case.reports.iter().filter(|r| !r.failed_checks().is_empty()) {
            failed += 1;
            assert!(
                report.marks.iter().any(|m| m == "offset-out-of-range"),
                "{:?} seed {} fails without retention:\n{report}",
                case.case,
                report.seed
            );
        }
    }
    assert!(failed > 0, "{all}");
}

#[test]
fn a_writer_that_retries_unanswered_sends_at_the_barrier_is_wedged_by_kafkas_five_batch_window() {
    let suite = || mutant("mutant: retries at the barrier", "liveness");
    let fails = |r: &suites::CaseResult| r.reports.iter().any(|x| x.failed_checks().contains(&"liveness"));
    let case = "occasional lost responses";
    let with = suite().only(case).seeds(FIXED_SEEDS).run_until(|_, _, _| {}, fails);
    print!("{with}");
    let (_, report) = with.caught_by("liveness").expect("caught by liveness within 20 seeds");
    assert!(report.marks.iter().any(|m| m == "sequence-rejected"), "the failing seed had no retry refused:\n{report}");
    println!("caught by liveness in {case:?}, seed {}", report.seed);
    // Nothing but the window exposes it: over the whole suite, every failing seed had a
    // retry refused, and against a log that recognises every retried batch no case fails
    // (the case above included, at the same seeds).
    let remembers_all = Block::Configure { system: "sink-log".into(), setting: Setting::DeduplicationWindow(None) };
    let all = suite().seeds(FIXED_SEEDS).run();
    for case in &all.cases {
        for report in case.reports.iter().filter(|r| !r.failed_checks().is_empty()) {
            assert!(
                report.marks.iter().any(|m| m == "sequence-rejected"),
                "{:?} seed {} fails without a refused retry:\n{report}",
                case.case,
                report.seed
            );
        }
    }
    assert!(!all.failed_cases().is_empty(), "{all}");
    let kind = suite().with_first(remembers_all).seeds(FIXED_SEEDS).run();
    let ran = |c: &suites::CaseResult| c.skipped.is_none() && c.reports.len() == FIXED_SEEDS as usize;
    assert!(kind.cases.iter().any(|c| c.case == case && ran(c)), "{case:?} ran every seed with every batch remembered");
    let scenario_cases = kind.failed_cases().into_iter().filter(|c| c.case != "swarm").count(); // generated: no first block
    assert_eq!(scenario_cases, 0, "the writer fails without Kafka's window too:\n{kind}");
}

#[test]
fn a_split_state_that_takes_the_fetch_position_skips_what_a_barrier_inside_a_batch_left_unemitted() {
    caught_by_a_fixed_case(
        mutant("mutant: split state takes the fetch position", "no-loss"),
        catalogue::suite("log-source"),
        "no-loss",
    );
}

#[test]
fn a_writer_that_takes_a_longer_file_for_a_landed_append_builds_on_a_torn_one() {
    only_exposed_by(
        || mutant("mutant: trusts the server's length", "no-loss"),
        "torn appends",
        torn_appends("fs", 0.05),
        "no-loss",
    );
}

#[test]
fn a_writer_that_commits_everything_pending_on_any_notification_shows_a_later_checkpoint_early() {
    let mutant = || mutant("mutant: commits all on notify", "no-premature-visibility");
    let check = "no-premature-visibility";
    let case = "overlapping checkpoints";
    let fails = |r: &suites::CaseResult| r.reports.iter().any(|x| x.failed_checks().contains(&check));
    let with = mutant().only(case).seeds(FIXED_SEEDS).run_until(|_, _, _| {}, fails);
    print!("{with}");
    let Some((_, report)) = with.caught_by(check) else {
        panic!("the mutant survived {case:?}: {check} never failed within {FIXED_SEEDS} seeds\n{with}");
    };
    assert!(
        report.marks.iter().any(|m| m == "notified-after-later-barrier"),
        "the failing seed never delivered a notification after a later barrier"
    );
    println!("caught by {check} in {case:?}, seed {}", report.seed);
    // One checkpoint at a time: notify(c) always comes before barrier c + 1, and the bug hides.
    let one_at_a_time = mutant().only(case).concurrent_checkpoints(1).seeds(FIXED_SEEDS).run();
    print!("{one_at_a_time}");
    assert_eq!(one_at_a_time.cases.len(), 1, "the case ran");
    assert!(
        one_at_a_time.caught_by(check).is_none(),
        "{case:?} fails {check} with one checkpoint at a time too\n{one_at_a_time}"
    );
    // Committing on notification only what it covers is correct.
    let fixed = suites::sink(contexts::sink(CommitsOnNotifySetup { covered_only: true }, &["sink-log"]));
    let fixed = fixed.only(case).seeds(FIXED_SEEDS).run();
    print!("{fixed}");
    assert_eq!(fixed.cases.len(), 1, "the case ran");
    assert!(fixed.failed_cases().is_empty(), "the fixed writer fails {case:?}\n{fixed}");
}

#[test]
fn a_source_dropping_stale_prefetches_loses_records_only_when_backpressured() {
    let mutant = || mutant("mutant: drops stale prefetches", "no-loss");
    let outcome = mutant().only(crate::exchange::BACKPRESSURE).seeds(20).run();
    print!("{outcome}");
    let (case, report) = outcome.caught_by("no-loss").unwrap_or_else(|| panic!("not caught:\n{outcome}"));
    assert_eq!(case, crate::exchange::BACKPRESSURE);
    assert_eq!(report.failed_checks(), ["no-loss"], "{report}");
    assert!(report.marks.iter().any(|m| m == "backpressure-held"), "{report}");
    // Without the slow sink the fetcher never waits long, and nothing expires.
    let calm = mutant().only(crate::exchange::BACKPRESSURE).without(slow_sink(Worker::Nth(0), 20, 500)).seeds(20).run();
    print!("{calm}");
    calm.assert_ok();
    // And without it no reader is held back long: the slow sink is what held them.
    let held = calm.cases[0].reports.iter().filter(|r| r.marks.iter().any(|m| m == "backpressure-held")).count();
    assert_eq!(held, 0, "readers held back without a slow sink");
}

/// `connsim sweep --target mutant` runs the catalogue's mutants; these tests prove each one,
/// with more seeds and more questions. So no mutant of the catalogue goes without a test: each
/// is named, with its predicted check, in the body of a test that is not ignored (here, in
/// `alignment.rs`, `event_time.rs`, `exchange.rs`, `reference.rs`, `object_sink_mutants.rs`
/// or `runtime_mutants.rs`), as `mutant("NAME", "CHECK")` (or through
/// a helper taking both), and [`mutant`] panics unless the catalogue predicts that check.
#[test]
fn every_mutant_of_the_catalogue_is_tested_by_name_with_the_check_it_predicts() {
    let files = [
        include_str!("mutants.rs"),
        include_str!("alignment.rs"),
        include_str!("event_time.rs"),
        include_str!("exchange.rs"),
        include_str!("reference.rs"),
        include_str!("object_sink_mutants.rs"),
        include_str!("runtime_mutants.rs"),
        include_str!("kafka_mutants.rs"),
        include_str!("table_mutants.rs"),
    ];
    // A test's body: from its attribute to the end of its function (the first line that is
    // a lone `}`), without comment lines.
    let attribute = ["#[", "test]"].concat(); // not written whole, so this test's text is not split here
    let mut bodies = vec![];
    for file in files {
        for chunk in file.split(attribute.as_str()).skip(1) {
            let end = chunk.find("\n}\n").unwrap_or(chunk.len());
            let body: Vec<&str> = chunk[..end].lines().filter(|l| !l.trim_start().starts_with("//")).collect();
            if !body.iter().any(|l| l.contains("#[ignore")) {
                bodies.push(body.join("\n"));
            }
        }
    }
    let mut mutants = 0;
    let mut untested = vec![];
    for target in catalogue::all() {
        let Some(check) = target.expect_failed_check else { continue };
        mutants += 1;
        let call = format!("(\"{}\", \"{check}\")", target.name);
        if !bodies.iter().any(|b| b.contains(&call)) {
            untested.push(call);
        }
    }
    assert!(mutants >= 41, "the catalogue lost mutants: {mutants}");
    assert!(untested.is_empty(), "mutants of the catalogue no test body names with their check: {untested:#?}");
}
