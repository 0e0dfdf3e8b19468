//! The object-store sink's mutants (`connectors_under_test::mutants::buggy_object_sink`):
//! each is caught by a fixed case within 20 seeds with the check its story predicts, on a
//! seed the reference sink passes.

use crate::mutants::{
    caught_by_a_fixed_case, caught_by_a_fixed_case_within, mutant, only_exposed_by, only_exposed_within,
};
use connectors_under_test::catalogue;
use connsim_scenarios::prelude::*;

fn reference() -> connsim_scenarios::suites::Suite {
    catalogue::suite("object-sink")
}

#[test]
fn uploads_completed_at_the_barrier_are_visible_before_their_checkpoint() {
    let mutant = mutant("mutant: object sink completes uploads at the barrier", "no-premature-visibility");
    caught_by_a_fixed_case(mutant, reference(), "no-premature-visibility");
}

#[test]
fn a_state_without_the_uploaded_parts_completes_a_partial_file_on_restore() {
    caught_by_a_fixed_case(mutant("mutant: object sink forgets uploaded parts", "no-loss"), reference(), "no-loss");
}

#[test]
fn a_writer_aborting_its_recorded_upload_on_close_loses_it_in_a_failover() {
    let mutant = mutant("mutant: object sink aborts recorded uploads on close", "no-loss");
    caught_by_a_fixed_case(mutant, reference(), "no-loss");
}

/// Rare: a put must be applied before its `500` answer and then retried, which happens on
/// 3 to 4 seeds in a hundred of the case that catches it (7 of 200, 3 of the first 100 on
/// real data): 60 seeds, not the usual 20.
#[test]
fn a_committer_failing_on_its_own_put_fails_the_job_forever() {
    let mutant = mutant("mutant: object sink fails on its own put", "liveness");
    caught_by_a_fixed_case_within(mutant, reference(), "liveness", OWN_PUT_SEEDS);
}

/// Seeds the own-put mutant's tests run (see above).
const OWN_PUT_SEEDS: u64 = 60;

/// Only a put applied before its `500` answer (retried by the client) finds itself: with the
/// bucket's 500s off (its 503s, which are never applied, still on), the mutant passes.
#[test]
fn only_applied_internal_errors_expose_a_committer_failing_on_its_own_put() {
    only_exposed_within(
        || mutant("mutant: object sink fails on its own put", "liveness"),
        "the object store throttles and fails requests",
        internal_errors("s3", 0.2),
        "liveness",
        OWN_PUT_SEEDS,
    );
}

#[test]
fn a_rename_deleting_the_tail_before_its_copy_is_confirmed_loses_it() {
    let mutant = mutant("mutant: object sink renames tails before the copy is confirmed", "no-loss");
    caught_by_a_fixed_case(mutant, reference(), "no-loss");
}

/// The copy is applied before the delete unless it fails: the failing seed's history has a
/// copy the bucket did not apply, and with the bucket's 503s and 500s off (nothing else in
/// the case fails a request) the mutant passes the case that catches it with them on.
#[test]
fn only_a_failed_copy_exposes_a_rename_that_deletes_unconfirmed() {
    use connsim::history::{EventKind, FaultKind};
    let case = "the object store throttles and fails requests";
    let suite = || mutant("mutant: object sink renames tails before the copy is confirmed", "no-loss").only(case);
    let fails =
        |r: &connsim_scenarios::suites::CaseResult| r.reports.iter().any(|x| x.failed_checks().contains(&"no-loss"));
    let with = suite().seeds(crate::mutants::FIXED_SEEDS).run_until(|_, _, _| {}, fails);
    print!("{with}");
    let Some((_, report)) = with.caught_by("no-loss") else {
        panic!("the mutant survived {case:?} within {} seeds\n{with}", crate::mutants::FIXED_SEEDS);
    };
    let copy_failed = report.history.iter().any(|e| match &e.kind {
        EventKind::Fault { fault: FaultKind::SlowDown | FaultKind::InternalError, kind, .. } => {
            kind.starts_with("s3.copy") && kind.ends_with("not applied")
        }
        _ => false,
    });
    assert!(copy_failed, "seed {} lost records without a copy the bucket refused", report.seed);
    let without = suite().without(slow_down("s3", 0.1)).without(internal_errors("s3", 0.2));
    let without = without.seeds(crate::mutants::FIXED_SEEDS).run();
    print!("{without}");
    assert!(without.failed_cases().is_empty(), "without the bucket's errors the mutant fails:\n{without}");
}

/// "Gone means completed" is true after a lost answer and false after a lifecycle rule:
/// the records of an upload that expired before its checkpoint's commit are lost, and the
/// committer says they are committed. Caught by `no-loss` (a silent loss) where the
/// reference declares the same loss; without the rule the mutant passes the case.
#[test]
fn a_committer_taking_a_gone_upload_for_completed_loses_silently_what_the_reference_declares() {
    let case = "uploads expire before their checkpoint's commit";
    only_exposed_within(
        || mutant("mutant: object sink takes a gone upload for completed", "no-loss"),
        case,
        expire_incomplete_uploads("s3", 250),
        "no-loss",
        crate::mutants::FIXED_SEEDS,
    );
}

/// The reference declares the loss the case makes unavoidable: the records of the expired
/// uploads are counted by `declared-loss` (passing, with evidence naming the upload), on the
/// share of seeds the case requires, and `no-loss` passes; every other record is there.
#[test]
fn the_reference_object_sink_declares_the_loss_of_uploads_expired_before_their_commit() {
    let case = "uploads expire before their checkpoint's commit";
    let outcome = reference().only(case).seeds(crate::mutants::FIXED_SEEDS).run();
    print!("{outcome}");
    assert!(outcome.failed_cases().is_empty(), "the reference fails the case:\n{outcome}");
    let result = outcome.cases.iter().find(|c| c.case == case).expect("the case ran");
    let declared: Vec<_> = result
        .reports
        .iter()
        .filter_map(|r| r.verdicts.iter().find(|v| v.check == "declared-loss" && !v.evidence.is_empty()))
        .collect();
    assert!(declared.len() * 2 >= result.reports.len(), "a loss declared on too few seeds:\n{outcome}");
    assert!(declared.iter().all(|v| v.passed && v.evidence[0].contains("destroyed at event")), "{declared:?}");
}

/// A committer that holds completions back lets a lifecycle rule destroy what completed
/// checkpoints hold, and declares the loss it made itself: `declared-loss` fails where the
/// case makes no loss unavoidable. Without the rule it passes (slow, not wrong).
#[test]
fn a_committer_deferring_completions_past_the_lifecycle_rule_declares_a_loss_it_caused() {
    only_exposed_by(
        || mutant("mutant: object sink defers completions", "declared-loss"),
        "incomplete uploads expire while a writer is down",
        expire_incomplete_uploads("s3", 250),
        "declared-loss",
    );
}

/// A writer that drops, rather than aborts, the upload no snapshot recorded leaves it
/// behind whenever its attempt closes between two barriers with one open: a failover
/// cancelling the writers the crash spared. Caught by `left-behind` only on seeds where an
/// attempt closes so (`closed:unsnapshotted-upload`); every seed without such a close
/// passes. The reference reaches the same closes, aborts, and passes.
#[test]
fn a_writer_dropping_its_unrecorded_upload_on_close_leaves_it_behind() {
    let (case, mark) = ("crash at every two-phase-commit phase", "closed:unsnapshotted-upload");
    let suite = || mutant("mutant: object sink leaves its upload on close", "left-behind");
    caught_by_a_fixed_case_within(suite(), reference(), "left-behind", 20);
    let outcome = suite().only(case).seeds(20).run();
    let reports = &outcome.cases.iter().find(|c| c.case == case).expect("the case ran").reports;
    assert_eq!(reports.len(), 20, "every seed ran");
    let reached = |r: &&connsim::RunReport| r.marks.iter().any(|m| m == mark);
    for r in reports {
        let failed = r.failed_checks().contains(&"left-behind");
        assert!(!failed || reached(&r), "seed {} fails without an attempt closing so:\n{r}", r.seed);
        assert!(reached(&r) || r.passed(), "seed {} fails otherwise:\n{r}", r.seed);
    }
    let without = reports.iter().filter(|r| !reached(r)).count();
    assert!(without > 0, "every seed closed an attempt with an unrecorded upload: the window is not shown");
    let same = reference().only(case).seeds(20).run();
    assert!(same.failed_cases().is_empty(), "{same}");
    let case_result = same.cases.iter().find(|c| c.case == case).expect("the case ran");
    assert!(case_result.reports.iter().any(|r| reached(&r)), "the reference never closed so: {same}");
}

/// A version whose conditional put timed out, applied after the committer looked once and
/// deleted its data files (Iceberg #3717): the restored committer finds the checkpoint
/// published and the records are gone. Without the held writes the same case passes.
#[test]
fn a_version_committer_cleaning_up_after_an_ambiguous_put_loses_the_published_files() {
    only_exposed_within(
        || mutant("mutant: version-log committer cleans up after an ambiguous error", "no-loss"),
        "writes land after their client's next request",
        connsim_scenarios::suites::cases::applied_late::held_writes(&["s3".into()]),
        "no-loss",
        20,
    );
}

/// The reference writer aborts, when it closes, an upload its file started after a snapshot
/// that recorded the file without one (a tail only): a restore of that snapshot publishes
/// the tail, so no checkpoint holds the upload. Swarm seed 31 of the pipeline cancels three
/// writers so; when a snapshot's record of the file counted for its later upload, two of
/// them left theirs behind (`left-behind`).
#[test]
fn an_upload_started_after_the_snapshot_that_recorded_its_file_is_aborted_on_close() {
    let outcome = catalogue::suite("log-source -> object-sink").only("swarm").first_seed(31).seeds(1).run();
    print!("{outcome}");
    let report = &outcome.cases[0].reports[0];
    assert!(report.passed(), "seed 31 fails: {:?}", report.failed_checks());
    assert!(
        report.marks.iter().any(|m| m == "closed:unsnapshotted-upload"),
        "the seed reaches the path: {:?}",
        report.marks
    );
}
