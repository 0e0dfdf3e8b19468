//! The object-store sink's mutants (`connectors_under_test::mutants::buggy_object_sink`):
//! each is caught by a fixed case within 20 seeds with the check its story predicts, on a
//! seed the reference sink passes.

use crate::mutants::{caught_by_a_fixed_case, mutant, only_exposed_by};
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

#[test]
fn a_committer_failing_on_its_own_put_fails_the_job_forever() {
    caught_by_a_fixed_case(mutant("mutant: object sink fails on its own put", "liveness"), reference(), "liveness");
}

/// Only a put applied before its `500` answer (retried by the client) finds itself: with the
/// bucket's 500s off (its 503s, which are never applied, still on), the mutant passes.
#[test]
fn only_applied_internal_errors_expose_a_committer_failing_on_its_own_put() {
    only_exposed_by(
        || mutant("mutant: object sink fails on its own put", "liveness"),
        "the object store throttles and fails requests",
        internal_errors("s3", 0.2),
        "liveness",
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
