//! Checks of the records themselves: loss, duplicates, phantoms, corruption, premature
//! visibility, order, split accounting, liveness and what the output showed.

use super::*;

#[test]
fn no_loss_fails_on_a_missing_expected_record_and_ignores_records_before_the_start() {
    let mut h = clean();
    h.visible(&[1, 3]);
    fails(h.verdict("no-loss"), "r2 (split s pos 1) lost");
    fails(h.verdict("no-loss"), "split last seen: in reader 0 attempt 0.1 at position 3 at checkpoint 1");
    h.end.starts.splits.insert("s".into(), StartPosition::Offset(2));
    h.visible(&[3]);
    assert!(h.verdict("no-loss").passed, "records 1 and 2 lie before the start");
}

#[test]
fn no_duplicates_fails_on_a_record_visible_twice_when_exactly_once_or_idempotent() {
    let mut h = clean();
    h.appeared(&[2]).visible(&[1, 2, 3, 2]);
    fails(h.verdict("no-duplicates"), "r2 (split s pos 1) visible 2 times");
    h.guarantee(DeliveryGuarantee::Idempotent);
    fails(h.verdict("no-duplicates"), "visible 2 times");
}

#[test]
fn at_least_once_duplicates_pass_only_where_a_restore_or_a_lost_response_explains_them() {
    let mut h = clean();
    h.guarantee(DeliveryGuarantee::AtLeastOnce).appeared(&[2]).visible(&[1, 2, 3, 2]);
    fails(h.verdict("no-duplicates"), "emitted 1 times, with 0 restores of a checkpoint covering it");
    // A failover of the record's subtask that restores a checkpoint covering it explains one
    // more copy (its writer may resend what its state held)...
    let failover = |subtasks: Vec<usize>, checkpoint| EventKind::Failover {
        strategy: crate::history::FailoverScope::Region,
        subtasks,
        checkpoint,
        cause: "test".into(),
    };
    let mut restored = clean();
    restored.guarantee(DeliveryGuarantee::AtLeastOnce);
    restored.at("jobmaster", failover(vec![0], 1)).appeared(&[2]).visible(&[1, 2, 3, 2]);
    assert!(restored.verdict("no-duplicates").passed);
    // ...a failover of another subtask, or one restoring a checkpoint from before the record,
    // does not.
    let mut elsewhere = clean();
    elsewhere.guarantee(DeliveryGuarantee::AtLeastOnce);
    elsewhere.at("jobmaster", failover(vec![1], 1)).at("jobmaster", failover(vec![0], 0));
    elsewhere.appeared(&[2]).visible(&[1, 2, 3, 2]);
    fails(elsewhere.verdict("no-duplicates"), "with 0 restores of a checkpoint covering it");
    // After a rescale dealt the states out anew, another subtask's restore may resend it.
    let rescale = EventKind::Failover {
        strategy: crate::history::FailoverScope::Rescale,
        subtasks: vec![0, 1],
        checkpoint: 1,
        cause: "test".into(),
    };
    elsewhere.at("jobmaster", rescale).at("jobmaster", failover(vec![1], 1)).appeared(&[2]).visible(&[1, 2, 3, 2, 2]);
    assert!(elsewhere.verdict("no-duplicates").passed, "{:?}", elsewhere.verdict("no-duplicates"));
    // So does a copy whose request's caller timed out (it retried).
    let mut retried = clean();
    retried.guarantee(DeliveryGuarantee::AtLeastOnce);
    retried.appeared(&[2]);
    let Some(EventKind::Appeared { cause, .. }) = retried.events.last().map(|e| e.kind.clone()) else { unreachable!() };
    let Cause::Request { call: Some(call), .. } = *cause else { unreachable!() };
    retried.at("taskexecutor-0", EventKind::CallTimedOut { to: "fs".into(), kind: "fs.rename".into(), call });
    retried.appeared(&[2]).visible(&[1, 2, 3, 2, 2]);
    fails(retried.verdict("no-duplicates"), "1 copies from requests whose response was lost");
    retried.visible(&[1, 2, 3, 2]);
    assert!(retried.verdict("no-duplicates").passed);
}

#[test]
fn no_phantoms_fails_on_a_record_never_produced_or_before_its_start() {
    let mut h = clean();
    h.appeared(&[9]).visible(&[1, 2, 3, 9]);
    fails(h.verdict("no-phantoms"), "r9 is visible but was never produced");
    let mut early = clean();
    early.end.starts.default = StartPosition::Offset(1);
    fails(
        early.verdict("no-phantoms"),
        "r1 (split s pos 0) is visible but lies before its split's declared start (pos 1)",
    );
}

#[test]
fn no_corruption_fails_on_changed_content_and_on_garbage() {
    let mut h = clean();
    h.change(true, vec![Seen { id: RecordId(2), digest: 7 }], Cause::Setup);
    fails(h.verdict("no-corruption"), "r2 (split s pos 1) became visible with the key, the event time, the value and");
    let mut g = clean();
    g.end.visible = Ok(vec![Entry::Garbage("out/f: line 3 is not a record".into())]);
    fails(g.verdict("no-corruption"), "line 3 is not a record");
}

/// A changed field is named, in the evidence and in the summary's count per field, as a
/// downstream reader decodes it: a dropped header, a null key written as text, a tombstone
/// written as an empty value.
#[test]
fn no_corruption_names_the_field_that_changed() {
    use crate::record::{DigestBuilder, Field};
    let produced = rec(2);
    let as_read = |f: &dyn Fn(&mut DigestBuilder)| {
        let mut d = DigestBuilder::new(produced.key, produced.event_time_ms);
        d.bytes(&produced.payload);
        f(&mut d);
        d.finish()
    };
    type Change<'a> = &'a dyn Fn(&mut DigestBuilder);
    let cases: [(Change, &str, &str); 3] = [
        (&|d| d.header("trace", Some(b"t")), "with the headers other than", "(headers on 1)"),
        (&|d| d.null_key(), "with the key other than", "(key on 1)"),
        (&|d| d.null_value(), "with the value other than", "(value on 1)"),
    ];
    for (change, evidence, summary) in cases {
        let mut h = clean();
        h.change(true, vec![Seen { id: RecordId(2), digest: as_read(change) }], Cause::Setup);
        let v = h.verdict("no-corruption");
        fails(v.clone(), evidence);
        assert!(v.summary.contains(summary), "{}", v.summary);
    }
    // And what is read as produced passes: the lanes only name, they do not excuse.
    let mut same = clean();
    same.change(true, vec![Seen { id: RecordId(2), digest: as_read(&|_| {}) }], Cause::Setup);
    assert!(same.verdict("no-corruption").passed);
    assert_eq!(Field::differing(as_read(&|_| {}), produced.digest()), []);
}

#[test]
fn exactly_once_fails_on_a_record_visible_before_its_checkpoint_completed_and_on_vanishing() {
    let mut h = H::new();
    h.produced(2)
        .emitted(1, &[1, 2])
        .triggered(1)
        .barrier(1, 1)
        .appeared(&[1])
        .completed(1)
        .appeared(&[2])
        .visible(&[1, 2]);
    fails(h.verdict("no-premature-visibility"), "r1 (split s pos 0) became visible");
    let mut late = H::new();
    late.produced(2).emitted(1, &[1]).triggered(1).barrier(1, 1).emitted(1, &[2]).completed(1).appeared(&[1, 2]);
    fails(late.verdict("no-premature-visibility"), "r2 (split s pos 1) became visible");
    let mut gone = clean();
    gone.vanished(&[3]).visible(&[1, 2]);
    fails(gone.verdict("no-premature-visibility"), "r3 (split s pos 2) vanished");
    gone.guarantee(DeliveryGuarantee::AtLeastOnce);
    fails(gone.verdict("no-premature-visibility"), "vanished");
}

#[test]
fn at_least_once_and_idempotent_may_show_records_early_but_idempotent_never_loses_one() {
    let mut h = H::new();
    h.produced(2).appeared(&[1, 2]).emitted(1, &[1, 2]).triggered(1).barrier(1, 1).completed(1).visible(&[1, 2]);
    h.guarantee(DeliveryGuarantee::AtLeastOnce);
    assert!(h.verdict("no-premature-visibility").passed);
    h.guarantee(DeliveryGuarantee::Idempotent);
    assert!(h.verdict("no-premature-visibility").passed);
    // A rewrite (another copy appears, the old one goes) is fine for an upsert...
    h.appeared(&[2]).vanished(&[2]);
    assert!(h.verdict("no-premature-visibility").passed);
    // ...losing the record altogether is not.
    h.vanished(&[2]).visible(&[1]);
    fails(h.verdict("no-premature-visibility"), "r2 (split s pos 1) vanished");
}

#[test]
fn per_split_order_fails_when_a_record_overtakes_an_earlier_one_of_its_split() {
    let mut h = clean();
    h.end.ordered = true;
    assert!(h.verdict("per-split-order").passed);
    h.visible(&[1, 3, 2]);
    fails(h.verdict("per-split-order"), "r2 (pos 1) is read at output position 2, after r3 (pos 2)");
}

#[test]
fn split_accounting_fails_on_a_split_in_two_places() {
    let mut h = clean();
    h.at("jobmaster", EventKind::CheckpointTriggered { checkpoint: 2, pending: vec!["s".into()] })
        .barrier(1, 2)
        .completed(2);
    fails(h.verdict("split-accounting"), "split s is in 2 places: enumerator, reader 0");
}

#[test]
fn liveness_fails_on_a_hang_and_on_an_unbounded_job_that_stops_checkpointing() {
    let mut h = clean();
    h.end.status = JobStatus::Running;
    fails(h.verdict("liveness"), "did not finish");
    h.end.bounded = false;
    h.visible(&[1, 2]);
    fails(h.verdict("liveness"), "1 expected records not visible");
    h.visible(&[1, 2, 3]).at("supervisor", EventKind::Converged).completed(2).completed(3);
    fails(h.verdict("liveness"), "only 2 of 3 more checkpoints completed");
    h.completed(4);
    assert!(h.verdict("liveness").passed);
}

#[test]
fn unobserved_visibility_fails_on_what_appeared_only_in_the_final_read_or_could_not_be_read() {
    let mut h = clean();
    h.change(true, vec![seen(3)], Cause::Final);
    fails(h.verdict("no-unobserved-visibility"), "r3 (split s pos 2) appeared, found only by the final read, in p");
    let mut audited = clean();
    audited.change(false, vec![seen(2)], Cause::Audit);
    fails(audited.verdict("no-unobserved-visibility"), "r2 (split s pos 1) vanished, found by an audit");
    let mut broken = clean();
    broken.at(
        "harness",
        EventKind::OutputUnreadable { output: "out".into(), error: "the output reader of out panicked: boom".into() },
    );
    fails(
        broken.verdict("no-unobserved-visibility"),
        "output out could not be read: the output reader of out panicked: boom",
    );
}

#[test]
fn stable_after_convergence_fails_on_any_change_after_it_and_at_least_once_only_on_vanishing() {
    let mut h = clean();
    h.at("supervisor", EventKind::Converged);
    assert!(h.verdict("stable-after-convergence").passed);
    h.appeared(&[3]);
    fails(h.verdict("stable-after-convergence"), "r3 (split s pos 2) appeared");
    h.guarantee(DeliveryGuarantee::AtLeastOnce);
    assert!(h.verdict("stable-after-convergence").passed, "a late explained duplicate is no-duplicates' business");
    h.vanished(&[3]);
    fails(h.verdict("stable-after-convergence"), "r3 (split s pos 2) vanished");
}
