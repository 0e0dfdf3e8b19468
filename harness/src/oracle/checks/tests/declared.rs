//! Declared loss against silent loss, on hand-built histories: a record a system's own rule
//! destroyed is declared lost only when a later commit failed with a known reason naming
//! what was destroyed; every other missing record is `no-loss`'s.

use super::*;
use crate::history::CommitOutcome;

/// Records 1..=3 covered by checkpoint 1, only 1 visible; the upload holding 2 and 3 is
/// destroyed by the bucket's rule.
fn destroyed() -> H {
    let mut h = H::new();
    h.produced(3).emitted(1, &[1, 2, 3]).triggered(1).barrier(1, 1).completed(1).appeared(&[1]).visible(&[1]);
    let records = vec![RecordId(2), RecordId(3)];
    h.at("s3", EventKind::DataDestroyed { key: "out/part-0".into(), upload: "upload-7".into(), records });
    h
}

fn outcome(h: &mut H, outcome: CommitOutcome) -> &mut H {
    h.at("taskexecutor-0", EventKind::CommitOutcome { subtask: 0, attempt: 1, checkpoint: 1, outcome })
}

#[test]
fn a_destroyed_upload_whose_commit_names_it_is_a_declared_loss() {
    for named in ["upload upload-7 of out/part-0 is gone", "out/part-0 expired", "upload-7 gone"] {
        let mut h = destroyed();
        outcome(&mut h, CommitOutcome::FailedKnown(named.into()));
        let loss = h.verdict("no-loss");
        assert!(loss.passed, "{loss:?}");
        assert!(loss.summary.contains("but 2, whose loss the connector declared"), "{}", loss.summary);
        fails(h.verdict("declared-loss"), "2 records lost, declared by the connector, where nothing in the case");
        h.end.declared_loss_allowed = true;
        let declared = h.verdict("declared-loss");
        assert!(declared.passed, "{declared:?}");
        assert!(declared.evidence[0].contains("r2 (split s pos 1) lost: upload upload-7 of out/part-0 destroyed"));
    }
}

#[test]
fn a_loss_claimed_as_success_or_declared_of_something_else_is_silent() {
    let claims = [
        CommitOutcome::AlreadyCommitted,
        CommitOutcome::Committed,
        CommitOutcome::FailedKnown("upload upload-8 of out/part-1 is gone".into()),
        CommitOutcome::FailedUnknown("upload-7 gone".into()),
    ];
    for claim in claims {
        let mut h = destroyed();
        outcome(&mut h, claim.clone());
        h.end.declared_loss_allowed = true;
        fails(h.verdict("no-loss"), "2 of 3 expected records are missing");
        assert!(h.verdict("declared-loss").passed, "{claim:?}: nothing declared");
    }
    // A declaration before the destruction declares nothing: it cannot know.
    let mut early = H::new();
    early.produced(3).emitted(1, &[1, 2, 3]).triggered(1).barrier(1, 1).completed(1).appeared(&[1]).visible(&[1]);
    outcome(&mut early, CommitOutcome::FailedKnown("upload-7 gone".into()));
    let records = vec![RecordId(2), RecordId(3)];
    early.at("s3", EventKind::DataDestroyed { key: "out/part-0".into(), upload: "upload-7".into(), records });
    fails(early.verdict("no-loss"), "2 of 3 expected records are missing");
}

#[test]
fn only_the_destroyed_records_are_excused_a_silent_loss_beside_them_fails() {
    let mut h = H::new();
    h.produced(4).emitted(1, &[1, 2, 3, 4]).triggered(1).barrier(1, 1).completed(1).appeared(&[1]).visible(&[1]);
    let records = vec![RecordId(2), RecordId(3)];
    h.at("s3", EventKind::DataDestroyed { key: "out/part-0".into(), upload: "upload-7".into(), records });
    outcome(&mut h, CommitOutcome::FailedKnown("upload-7 gone".into()));
    h.end.declared_loss_allowed = true;
    let loss = h.verdict("no-loss");
    fails(loss.clone(), "1 of 4 expected records are missing");
    assert_eq!(loss.ids, [RecordId(4)]);
    assert!(h.verdict("declared-loss").passed);
    // And the mark says a loss was declared.
    let marks = crate::oracle::marks::reached(&h.facts().events, false);
    assert!(marks.contains("loss-declared"), "{marks:?}");
    assert!(!crate::oracle::marks::reached(&destroyed().facts().events, false).contains("loss-declared"));
}
