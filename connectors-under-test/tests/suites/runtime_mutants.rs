//! Runtime mutants: bugs in behaviours the runtime owns, which no connector can break on
//! purpose, switched on in the runtime ([`connsim::cluster::RuntimeBug`]). Each is caught by
//! a fixed case with the check its story predicts, and the reference passes the same case and
//! seed with the switch off (`caught_by_a_fixed_case` reruns it).

use crate::mutants::{caught_by_a_fixed_case, mutant, FIXED_SEEDS};
use connectors_under_test::catalogue;

/// Scaling 4 readers down to 2: new readers 0 and 1 restore old readers 0 and 1's splits, and
/// the splits of old readers 2 and 3 are gone. Scaling up (every old reader's state has a new
/// reader with its index) loses nothing.
#[test]
fn split_state_restored_by_index_loses_the_removed_readers_splits() {
    let m = || mutant("mutant (runtime): split state restored by index", "no-loss");
    let outcome = m().only("scale down").seeds(FIXED_SEEDS).run();
    let (case, report) = outcome.caught_by("no-loss").unwrap_or_else(|| panic!("not caught:\n{outcome}"));
    assert_eq!(case, "scale down");
    assert!(report.marks.iter().any(|m| m == "rescale"), "{report}");
    caught_by_a_fixed_case(m(), catalogue::suite("log-source"), "no-loss");
    let up = m().only("scale up").seeds(FIXED_SEEDS).run();
    print!("{up}");
    assert!(up.failed_cases().is_empty(), "scaling up lost splits:\n{up}");
}

/// A subtask declines a checkpoint after the other writers prepared their committables for
/// it and sent them to the global committer; its cancelled alignment hands them on with the
/// next checkpoint, whose global commit leaves them out.
#[test]
fn a_global_committer_combining_only_the_completed_checkpoint_loses_what_an_aborted_one_prepared() {
    let m = || mutant("mutant (runtime): global committer combines only the completed checkpoint", "no-loss");
    let outcome = m().only("lost checkpoint notifications").seeds(FIXED_SEEDS).run();
    let (_, report) = outcome.caught_by("no-loss").unwrap_or_else(|| panic!("not caught:\n{outcome}"));
    assert!(report.marks.iter().any(|m| m == "checkpoint-declined"), "{report}");
    caught_by_a_fixed_case(m(), catalogue::suite("table-sink (global committer)"), "no-loss");
}

/// Committers apart from the writers: committer 0 takes committables from writers 0 and 3
/// but barriers from all four, and acknowledges a checkpoint at the first barrier. What a
/// slower writer prepared lands in the committer's part of the next checkpoint; a failover
/// restoring the first loses it (the writer's part no longer holds it).
#[test]
fn a_committer_acknowledging_at_the_first_barrier_loses_what_slower_writers_prepared() {
    let m = || mutant("mutant (runtime): committer acks at the first barrier", "no-loss");
    let outcome = m().only("multiple splits, per-split order").seeds(FIXED_SEEDS).run();
    let (_, report) = outcome.caught_by("no-loss").unwrap_or_else(|| panic!("not caught:\n{outcome}"));
    assert!(report.marks.iter().any(|m| m == "restore-from-checkpoint"), "{report}");
    caught_by_a_fixed_case(m(), catalogue::suite("file-sink (3 committers apart)"), "no-loss");
}

/// The stopping savepoint's global committable is stored with it, not committed yet when the
/// job stops; the job restored with another parallelism must commit it.
#[test]
fn a_global_committer_forgetting_its_committables_on_rescale_loses_the_savepoints_data() {
    let m = || mutant("mutant (runtime): global committer forgets on rescale", "no-loss");
    let outcome = m().only("scale down").seeds(FIXED_SEEDS).run();
    let (_, report) = outcome.caught_by("no-loss").unwrap_or_else(|| panic!("not caught:\n{outcome}"));
    assert!(report.marks.iter().any(|m| m == "rescale"), "{report}");
    caught_by_a_fixed_case(m(), catalogue::suite("table-sink (global committer)"), "no-loss");
    // Restores at the same parallelism (failovers, savepoints resumed) keep them.
    let same = m().only("stop-with-savepoint and resume").seeds(FIXED_SEEDS).run();
    print!("{same}");
    assert!(same.failed_cases().is_empty(), "lost without a rescale:\n{same}");
}

/// A reader whose fetches are slow at the start (lost responses, dropped or delayed messages)
/// has a split without records while another's watermark rises: the combined watermark passes
/// the lagging split's first records. Without such faults every split emits before the first
/// watermark, and nothing is late.
#[test]
fn a_split_without_a_watermark_that_does_not_hold_the_combined_one_lets_its_records_be_late() {
    let m = || mutant("mutant (runtime): split without a watermark does not hold the combined one", "event-time");
    caught_by_a_fixed_case(m(), catalogue::suite("log-source"), "event-time");
    let quiet = m().only("multiple splits, per-split order").seeds(FIXED_SEEDS).run();
    print!("{quiet}");
    assert!(quiet.failed_cases().is_empty(), "caught without slow fetches:\n{quiet}");
}

/// Under watermark alignment, a reader whose splits have all been silent for the idle timeout
/// (its data not there yet, its fetches slow) pauses them as if they ran at the maximum:
/// within the drift, so without a cause, and never resumed. Without alignment nothing pauses.
#[test]
fn an_idle_reader_waiting_for_alignment_pauses_its_splits_without_a_cause() {
    let m = || mutant("mutant (runtime): idle reader waits for alignment", "watermark-alignment");
    let outcome = m().only("watermark alignment").seeds(FIXED_SEEDS).run();
    print!("{outcome}");
    let (_, report) = outcome.caught_by("watermark-alignment").unwrap_or_else(|| panic!("not caught:\n{outcome}"));
    assert!(report.marks.iter().any(|m| m == "split-paused"), "{report}");
    caught_by_a_fixed_case(m(), catalogue::suite("log-source"), "watermark-alignment");
    let unaligned = m().only("multiple splits, per-split order").seeds(FIXED_SEEDS).run();
    assert!(unaligned.failed_cases().is_empty(), "caught without alignment:\n{unaligned}");
}
