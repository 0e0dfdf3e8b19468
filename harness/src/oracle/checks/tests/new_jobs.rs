//! A new job against the output the jobs before it left.

use super::*;

#[test]
fn a_new_job_may_add_one_copy_to_what_the_jobs_before_it_left_visible() {
    // Job 0 made r1..r3 visible, then a new job started without state and read them again.
    let base = || {
        let mut h = clean();
        h.at("control", EventKind::NewJob { job: 1, restored_from: 0 });
        h.emitted(2, &[1, 2, 3]).triggered(job_checkpoint(1, 1)).barrier(2, job_checkpoint(1, 1));
        h.completed(job_checkpoint(1, 1));
        h
    };
    let mut again = base();
    again.appeared(&[1, 2, 3]).visible(&[1, 2, 3, 1, 2, 3]);
    let v = again.verdict("no-duplicates");
    assert!(v.passed && v.summary.contains("none more than once per job"), "{v:?}");
    assert!(again.verdict("split-accounting").passed, "{:?}", again.verdict("split-accounting"));
    // The new job made r2 visible twice: one copy more than it may add.
    let mut twice = base();
    twice.appeared(&[1, 2, 3]).appeared(&[2]).visible(&[1, 2, 3, 1, 2, 3, 2]);
    fails(twice.verdict("no-duplicates"), "r2 (split s pos 1) visible 3 times, 2 allowed for the jobs that read it");
    // The job before made r2 visible twice on its own: the new job's start forgives nothing.
    let mut own = clean();
    own.appeared(&[2]);
    own.at("control", EventKind::NewJob { job: 1, restored_from: 0 });
    own.emitted(2, &[1, 2, 3]).appeared(&[1, 2, 3]).visible(&[1, 2, 3, 2, 1, 2, 3]);
    fails(own.verdict("no-duplicates"), "r2 (split s pos 1) visible 3 times, 2 allowed");
    // From a savepoint whose barrier had passed r1..r3 (position 3): only r4 and r5 are
    // read again; a second copy of r2 is a savepoint committable committed twice.
    let older = |again: &[u64]| {
        let mut h = H::new();
        h.produced(5).emitted(1, &[1, 2, 3]).triggered(1).barrier(1, 1).completed(1);
        h.emitted(1, &[4, 5]).triggered(2).completed(2).appeared(&[1, 2, 3, 4, 5]);
        h.at("control", EventKind::NewJob { job: 1, restored_from: 1 });
        h.emitted(2, &[4, 5]).appeared(again);
        let mut visible = vec![1, 2, 3, 4, 5];
        visible.extend(again);
        h.visible(&visible);
        h.verdict("no-duplicates")
    };
    assert!(older(&[4, 5]).passed, "{:?}", older(&[4, 5]));
    fails(older(&[2, 4, 5]), "r2 (split s pos 1) visible 2 times");
    // A split that finished before the savepoint completed is passed whole.
    let finished = |again: &[u64]| {
        let mut h = H::new();
        h.produced(3).emitted(1, &[1, 2, 3]);
        h.at("taskexecutor-0", EventKind::SplitFinished { subtask: 0, attempt: 1, split: "s".into() });
        h.triggered(1).at(
            "taskexecutor-0",
            EventKind::Barrier { subtask: 0, attempt: 1, checkpoint: 1, splits: vec![], positions: vec![] },
        );
        h.completed(1).appeared(&[1, 2, 3]);
        h.at("control", EventKind::NewJob { job: 1, restored_from: 1 });
        h.emitted(2, again).appeared(again);
        let mut visible = vec![1, 2, 3];
        visible.extend(again);
        h.visible(&visible);
        h.verdict("no-duplicates")
    };
    assert!(finished(&[]).passed);
    fails(finished(&[3]), "r3 (split s pos 2) visible 2 times");
    // A new job's copies need its own completed checkpoints: r1..r3, covered by job 0's
    // checkpoint 1, appear again before any of job 1's completed.
    let mut early = clean();
    early.at("control", EventKind::NewJob { job: 1, restored_from: 0 });
    early.emitted(2, &[1, 2, 3]).appeared(&[1, 2, 3]).visible(&[1, 2, 3, 1, 2, 3]);
    fails(early.verdict("no-premature-visibility"), "r1 (split s pos 0) became visible");
    // From savepoint 1, what it covered stays covered.
    let mut from_savepoint = clean();
    from_savepoint.at("control", EventKind::NewJob { job: 1, restored_from: 1 });
    from_savepoint.appeared(&[2]).visible(&[1, 2, 3, 2]);
    assert!(from_savepoint.verdict("no-premature-visibility").passed);
    // Without a new job, the same output is a duplicate of every record.
    let mut plain = clean();
    plain.appeared(&[1, 2, 3]).visible(&[1, 2, 3, 1, 2, 3]);
    assert_eq!(plain.verdict("no-duplicates").violations, 3);
}

#[test]
fn a_new_job_from_its_groups_offsets_may_not_copy_what_lies_behind_them() {
    // Job 0 made r1..r3 visible and its group committed split s up to position 2 (r1, r2);
    // a new job without state started from the group's offsets.
    let run = |group: Option<u64>, again: &[u64]| {
        let mut h = clean();
        h.at("control", EventKind::NewJob { job: 1, restored_from: 0 });
        if let Some(offset) = group {
            let offsets =
                EventKind::GroupOffsets { group: "g".into(), splits: vec!["s".into()], offsets: vec![offset] };
            h.at("control", offsets);
        }
        h.emitted(2, again).appeared(again);
        let mut visible = vec![1, 2, 3];
        visible.extend(again);
        h.visible(&visible);
        h.verdict("no-duplicates")
    };
    // It reads r3 again: a copy the group's offsets allow.
    assert!(run(Some(2), &[3]).passed, "{:?}", run(Some(2), &[3]));
    // It read from the earliest: r1 and r2 lay behind the group's offsets.
    let v = run(Some(2), &[1, 2, 3]);
    fails(v.clone(), "r1 (split s pos 0) visible 2 times");
    assert_eq!(v.violations, 2, "{v:?}");
    // A group with nothing committed on s: the job reads it again whole.
    let none = {
        let mut h = clean();
        h.at("control", EventKind::NewJob { job: 1, restored_from: 0 });
        h.at("control", EventKind::GroupOffsets { group: "g".into(), splits: vec![], offsets: vec![] });
        h.emitted(2, &[1, 2, 3]).appeared(&[1, 2, 3]).visible(&[1, 2, 3, 1, 2, 3]);
        h.verdict("no-duplicates")
    };
    assert!(none.passed, "{none:?}");
    // Without a declared group, as before: everything may be read again.
    assert!(run(None, &[1, 2, 3]).passed);
}
