//! `left-behind`: a declared bound on transactional ids and groups, and uploads a closed
//! attempt abandoned.

use super::{clean, fails, H};
use crate::history::{Closing, EventKind, LeftUpload, Leftovers};
use crate::oracle::LeaveBehind;

fn deployed(h: &mut H, subtask: usize) {
    h.at("jobmaster", EventKind::Deployed { subtask, attempt: 1, checkpoint: 0 });
}

fn left(h: &mut H, system: &str, left: Leftovers) {
    h.at(system, EventKind::LeftBehind { left });
}

#[test]
fn transactional_ids_and_groups_are_held_to_the_bound_per_writer_and_job() {
    let run = |ids: u64, groups: u64, new_jobs: usize| {
        let mut h = clean();
        deployed(&mut h, 0);
        deployed(&mut h, 1);
        for job in 1..=new_jobs as u64 {
            h.at("control", EventKind::NewJob { job, restored_from: 0 });
        }
        left(&mut h, "kafka", Leftovers { transactional_ids: ids, groups, ..Leftovers::default() });
        h.end.leave_behind = vec![LeaveBehind::new("kafka").transactional_ids_per_writer(3).groups_per_writer(1)];
        h.verdict("left-behind")
    };
    // Two writers, a pool of 3 each: 6 ids, 2 groups.
    assert!(run(6, 2, 0).passed, "{:?}", run(6, 2, 0));
    fails(run(7, 2, 0), "7 transactional ids outlive the job, the sink declared at most 3 per writer");
    fails(run(6, 3, 0), "3 consumer groups outlive the job");
    // A second job may have its own pool.
    assert!(run(12, 4, 1).passed);
    fails(run(13, 4, 1), "(12 for 2 writers and 2 jobs)");
    // Without a declared bound, leftovers are only reported.
    let mut h = clean();
    left(&mut h, "kafka", Leftovers { transactional_ids: 100, groups: 9, ..Leftovers::default() });
    let v = h.verdict("left-behind");
    assert!(v.passed && v.summary.contains("kafka: 100 transactional ids, 9 groups"), "{v:?}");
}

#[test]
fn an_upload_a_closed_attempt_started_after_its_last_snapshot_and_left_is_abandoned() {
    // Subtask 0 attempt 1 snapshots (at `snapshot`), starts upload-1, then closes.
    let run = |snapshot_after_start: bool, how: Closing, fault: bool, by: Option<(usize, u64)>| {
        let mut h = clean();
        let early = h.events.len() as u64 * 1000 - 1; // just before the upload starts
        h.at("s3", EventKind::UploadStarted { key: "out/f".into(), upload: "upload-1".into(), by });
        if fault {
            let kind = "s3.abort".to_string();
            let fault = crate::history::FaultKind::Drop;
            h.at(
                "gateway",
                EventKind::Fault { fault, from: "taskexecutor-0".into(), to: "s3".into(), kind, call: None },
            );
        }
        let snapshot_us = if snapshot_after_start { h.events.len() as u64 * 1000 } else { early };
        h.at("taskexecutor-0", EventKind::Closed { subtask: 0, attempt: 1, how, snapshot_us: Some(snapshot_us) });
        let upload = LeftUpload { key: "out/f".into(), upload: "upload-1".into() };
        left(&mut h, "s3", Leftovers { uploads: vec![upload], ..Leftovers::default() });
        h.verdict("left-behind")
    };
    let by = Some((0, 1));
    for how in [Closing::Cancelled, Closing::Finished, Closing::Failed] {
        fails(
            run(false, how, false, by),
            "upload upload-1 of out/f, started by subtask 0 attempt 1 after its last snapshot",
        );
    }
    // A snapshot after the start may hold it: a restore completes it, or it is the
    // checkpoint's to roll.
    assert!(run(true, Closing::Cancelled, false, by).passed);
    // A message between the bucket and anyone lost since: the writer may never have learnt
    // of it, or its abort was lost.
    assert!(run(false, Closing::Cancelled, true, by).passed);
    // Started by no connector's attempt, or by one that crashed (no close): not judged.
    assert!(run(false, Closing::Cancelled, false, None).passed);
    let mut crashed = clean();
    crashed.at("s3", EventKind::UploadStarted { key: "out/f".into(), upload: "upload-1".into(), by });
    let upload = LeftUpload { key: "out/f".into(), upload: "upload-1".into() };
    left(&mut crashed, "s3", Leftovers { uploads: vec![upload], ..Leftovers::default() });
    assert!(crashed.verdict("left-behind").passed);
}
