//! The marks each history reaches.

use super::*;

fn at(node: &str, kind: EventKind) -> Event {
    Event { t_us: 0, node: node.to_string(), kind }
}

/// Subtask 0 hosts a reader and a writer on task executor 0; subtask 1 only a reader, on
/// task executor 1. Both took barrier 1; only subtask 0's writer aligned and prepared.
fn history(crashed: &str) -> Vec<Event> {
    vec![
        at("taskexecutor-0", EventKind::Deployed { subtask: 0, attempt: 1, checkpoint: 0 }),
        at("taskexecutor-1", EventKind::Deployed { subtask: 1, attempt: 1, checkpoint: 0 }),
        at(
            "taskexecutor-0",
            EventKind::Barrier { subtask: 0, attempt: 1, checkpoint: 1, splits: Vec::new(), positions: Vec::new() },
        ),
        at(
            "taskexecutor-1",
            EventKind::Barrier { subtask: 1, attempt: 1, checkpoint: 1, splits: Vec::new(), positions: Vec::new() },
        ),
        at("taskexecutor-0", EventKind::BarrierAligned { subtask: 0, attempt: 1, checkpoint: 1, aligned: true }),
        at("supervisor", EventKind::Crashed { node: crashed.to_string() }),
    ]
}

#[test]
fn behind_an_exchange_only_a_writer_that_aligned_has_prepared() {
    let mark = "crash-between-prepare-and-commit";
    assert!(reached(&history("taskexecutor-0"), true).contains(mark));
    assert!(!reached(&history("taskexecutor-1"), true).contains(mark), "a reader-only subtask prepares nothing");
    // Chained, the barrier is where the writer prepares.
    assert!(reached(&history("taskexecutor-1"), false).contains(mark));
}

fn produced(id: u64, split: &str) -> Event {
    let digest = 0;
    at("log", EventKind::Produced { id: RecordId(id), split: split.into(), pos: id, digest, event_time_ms: 0 })
}

fn emitted(ids: &[u64]) -> Event {
    at("taskexecutor-0", EventKind::Emitted { subtask: 0, attempt: 1, ids: ids.iter().map(|&i| RecordId(i)).collect() })
}

fn discovery_dropped() -> Event {
    let fault = EventKind::Fault {
        fault: FaultKind::Drop,
        from: crate::cluster::JOB_MASTER.into(),
        to: "log".into(),
        kind: "EndOffsets".into(),
        call: Some(1),
    };
    at("gateway", fault)
}

#[test]
fn a_split_handed_over_by_event_reaches_discovery_faulted_when_first_read_after_a_dropped_discovery() {
    let mark = "discovery-faulted";
    // Split b reaches the reader in a source event: the runtime first sees it in an emission.
    let by_event = vec![produced(1, "a"), produced(2, "b"), emitted(&[1]), discovery_dropped(), emitted(&[1, 2])];
    assert!(reached(&by_event, false).contains(mark));
    // A split the reader already read before the drop is not a new hand-over.
    let old = vec![produced(1, "a"), produced(2, "b"), emitted(&[1, 2]), discovery_dropped(), emitted(&[2])];
    assert!(!reached(&old, false).contains(mark));
    // A split held at a barrier was handed over, whether or not it was read.
    let barrier =
        EventKind::Barrier { subtask: 0, attempt: 1, checkpoint: 1, splits: vec!["b".into()], positions: Vec::new() };
    let held = vec![produced(2, "b"), discovery_dropped(), at("taskexecutor-0", barrier)];
    assert!(reached(&held, false).contains(mark));
    // Without a dropped request of the job master, nothing is discovery under faults.
    assert!(!reached(&[produced(2, "b"), emitted(&[2])], false).contains(mark));
}

fn fault(fault: &str, from: &str, to: &str, kind: &str) -> Event {
    let kind = kind.to_string();
    at(
        "gateway",
        EventKind::Fault {
            fault: FaultKind::parse(fault).unwrap(),
            from: from.into(),
            to: to.into(),
            kind,
            call: None,
        },
    )
}

#[test]
fn a_worker_crash_is_told_apart_from_a_system_or_job_master_crash() {
    let crashed = |node: &str| reached(&[at("supervisor", EventKind::Crashed { node: node.into() })], false);
    assert_eq!(crashed("taskexecutor-1").into_iter().collect::<Vec<_>>(), vec!["crash"]);
    assert_eq!(crashed("log").into_iter().collect::<Vec<_>>(), vec!["crash:system"]);
    assert_eq!(crashed(crate::cluster::JOB_MASTER).into_iter().collect::<Vec<_>>(), vec!["crash:jobmaster"]);
}

#[test]
fn a_partition_is_a_message_a_partition_rule_dropped_not_a_rule_installed() {
    let rule = at("gateway", EventKind::FaultRule { description: "add Drop { probability: 1.0 } a -> b".into() });
    assert!(!reached(&[rule], false).contains("partition"), "installing a rule drops nothing");
    // Every Notify dropped is no partition, though its rule drops with certainty.
    let notify = reached(&[fault("drop", crate::cluster::JOB_MASTER, "taskexecutor-0", "Notify")], false);
    assert!(notify.contains("notify-lost") && !notify.contains("partition"), "{notify:?}");
    let cut = reached(&[fault("partition", "taskexecutor-0", "log", "log.produce")], false);
    assert!(cut.contains("partition") && cut.contains("system-request-lost"), "{cut:?}");
    let cut = reached(&[fault("partition", "taskexecutor-0", crate::cluster::JOB_MASTER, "Ack")], false);
    assert!(cut.contains("partition") && cut.contains("message-dropped"), "{cut:?}");
}

#[test]
fn only_a_request_of_a_replaced_attempt_reaching_a_system_is_a_zombie_write() {
    let mark = "zombie-wrote-after-replacement";
    // The old proxy: a replaced attempt's reader emitting on another executor.
    let replaced = vec![
        at("taskexecutor-0", EventKind::Deployed { subtask: 0, attempt: 1, checkpoint: 0 }),
        at("taskexecutor-1", EventKind::Deployed { subtask: 0, attempt: 2, checkpoint: 0 }),
        at("taskexecutor-0", EventKind::Emitted { subtask: 0, attempt: 1, ids: vec![RecordId(1)] }),
    ];
    assert!(!reached(&replaced, false).contains(mark));
    let request = EventKind::ZombieRequest {
        subtask: 0,
        attempt: 1,
        newest: 2,
        to: "log".into(),
        kind: "log.produce".into(),
        refused: true,
    };
    assert!(reached(&[at("log", request)], false).contains(mark));
}

fn global_commit(node: &str, attempt: u64, checkpoint: u64) -> Event {
    at(node, EventKind::GlobalCommitAttempt { subtask: 4, attempt, checkpoint, requests: 1 })
}

#[test]
fn a_global_commit_by_a_replaced_committer_is_a_zombie_commit_and_a_restored_ones_first_is_recovered() {
    let (zombie, recovered) = ("zombie-global-commit", "recovered-committables-committed");
    let first = at("taskexecutor-0", EventKind::Deployed { subtask: 4, attempt: 1, checkpoint: 0 });
    let second = at("taskexecutor-4", EventKind::Deployed { subtask: 4, attempt: 2, checkpoint: 3 });
    // Its own attempt, never replaced: neither.
    let alone = reached(&[first.clone(), global_commit("taskexecutor-0", 1, 3)], false);
    assert!(!alone.contains(zombie) && !alone.contains(recovered), "{alone:?}");
    // The old attempt commits after the new one was deployed: a zombie commit.
    let late = reached(&[first.clone(), second.clone(), global_commit("taskexecutor-0", 1, 3)], false);
    assert!(late.contains(zombie), "{late:?}");
    // The restored attempt commits what it restored (up to checkpoint 3): recovered; a
    // later checkpoint's commit is not.
    let restored = reached(&[first.clone(), second.clone(), global_commit("taskexecutor-4", 2, 3)], false);
    assert!(restored.contains(recovered) && !restored.contains(zombie), "{restored:?}");
    let later = reached(&[first, second, global_commit("taskexecutor-4", 2, 4)], false);
    assert!(!later.contains(recovered), "{later:?}");
}

#[test]
fn a_task_executor_hosting_the_global_committer_beside_subtask_0_still_counts_subtask_0s_prepared_checkpoint() {
    let mut events = history("taskexecutor-0");
    // The committer is deployed into subtask 0's slot after subtask 0 took its barrier.
    events.insert(4, at("taskexecutor-0", EventKind::Deployed { subtask: 4, attempt: 1, checkpoint: 0 }));
    assert!(reached(&events, true).contains("crash-between-prepare-and-commit"));
    // Subtask 0 moved to another task executor: a crash of the old one is not its crash.
    events.insert(5, at("taskexecutor-2", EventKind::Deployed { subtask: 0, attempt: 2, checkpoint: 0 }));
    assert!(!reached(&events, true).contains("crash-between-prepare-and-commit"));
}

fn commit(node: &str, subtask: usize, attempt: u64, checkpoint: u64) -> [Event; 2] {
    let outcome = CommitOutcome::Committed;
    [
        at(node, EventKind::CommitAttempt { subtask, attempt, checkpoint, requests: 1 }),
        at(node, EventKind::CommitOutcome { subtask, attempt, checkpoint, outcome }),
    ]
}

/// Committers apart from the writers take no barrier: a replaced one committing is a zombie
/// commit, a restored one's first commit is recovered and a later one is not, whatever role
/// the subtask id had before a rescale (subtask 2 was a writer, attempt 1).
#[test]
fn a_committer_apart_is_known_by_its_attempt_taking_no_barrier() {
    let (zombie, recovered) = ("zombie-commit", "recovered-committables-committed");
    let barrier = |subtask, attempt| EventKind::Barrier {
        subtask,
        attempt,
        checkpoint: 1,
        splits: Vec::new(),
        positions: Vec::new(),
    };
    let writer = [
        at("taskexecutor-2", EventKind::Deployed { subtask: 2, attempt: 1, checkpoint: 0 }),
        at("taskexecutor-2", barrier(2, 1)),
    ];
    let first = at("taskexecutor-0", EventKind::Deployed { subtask: 2, attempt: 5, checkpoint: 3 });
    let second = at("taskexecutor-1", EventKind::Deployed { subtask: 2, attempt: 6, checkpoint: 3 });
    let run = |tail: &[Event]| reached(&[&writer[..], std::slice::from_ref(&first), tail].concat(), false);
    let own = run(&commit("taskexecutor-0", 2, 5, 3));
    assert!(own.contains(recovered) && !own.contains(zombie), "{own:?}");
    let later = run(&commit("taskexecutor-0", 2, 5, 4));
    assert!(!later.contains(recovered), "{later:?}");
    let late = run(&[&[second][..], &commit("taskexecutor-0", 2, 5, 4)].concat());
    assert!(late.contains(zombie), "{late:?}");
    // A writer's attempt that took barriers is not a committer apart.
    let chained = run(&[&[at("taskexecutor-2", barrier(2, 5))][..], &commit("taskexecutor-0", 2, 5, 4)].concat());
    assert!(!chained.contains(zombie), "{chained:?}");
}

/// A committer apart commits for writers: once it committed checkpoint 1, a crash of the
/// writer's task executor is not between its prepare and its commit.
#[test]
fn a_commit_by_a_committer_apart_covers_the_writers_prepared_checkpoints() {
    let mark = "crash-between-prepare-and-commit";
    let mut events = history("taskexecutor-0");
    let crash = events.pop().expect("the crash");
    events.push(at("taskexecutor-1", EventKind::Deployed { subtask: 4, attempt: 1, checkpoint: 0 }));
    assert!(reached(&[&events[..], std::slice::from_ref(&crash)].concat(), false).contains(mark));
    events.extend(commit("taskexecutor-1", 4, 1, 1));
    events.push(crash);
    assert!(!reached(&events, false).contains(mark), "the committer apart committed checkpoint 1");
}

/// `commit-under-refusal` is the path `commit-request-refused` needs: a commit started while a
/// refusal rule was in force, or a refusal rule installed while a commit was under way. A
/// commit before the rule, or after its removal or a heal, is not on it; nor is one under a
/// rule of another action.
#[test]
fn a_commit_is_under_refusal_only_while_a_refusal_rule_is_in_force() {
    let mark = "commit-under-refusal";
    let rule = |d: &str| at("gateway", EventKind::FaultRule { description: d.into() });
    // The descriptions as the gateway records them: "add {rule}", "remove {rule}", "heal".
    let refuse = crate::net::FaultRule::refuse(0.4, crate::net::Refusal::Unavailable).to("s3").to_string();
    let commit =
        || at("taskexecutor-0", EventKind::CommitAttempt { subtask: 0, attempt: 1, checkpoint: 2, requests: 1 });
    let done = || {
        let outcome = CommitOutcome::Committed;
        at("taskexecutor-0", EventKind::CommitOutcome { subtask: 0, attempt: 1, checkpoint: 2, outcome })
    };
    let add = rule(&format!("add {refuse}"));
    let remove = rule(&format!("remove {refuse}"));
    assert!(reached(&[add.clone(), commit()], false).contains(mark));
    assert!(reached(&[commit(), add.clone()], false).contains(mark), "installed while committing");
    assert!(!reached(&[commit(), done(), add.clone()], false).contains(mark), "the commit ended before");
    assert!(!reached(&[add.clone(), remove, commit()], false).contains(mark), "removed before the commit");
    assert!(!reached(&[add, rule("heal"), commit()], false).contains(mark), "healed before the commit");
    let drop = rule(&format!("add {}", crate::net::FaultRule::drop(1.0).to("s3")));
    assert!(!reached(&[drop, commit()], false).contains(mark), "a drop rule refuses nothing");
}

/// A bucket's `UploadStarted` is the path `upload-expired` needs.
#[test]
fn an_upload_a_bucket_started_is_the_path_its_expiry_needs() {
    let started = at("s3", EventKind::UploadStarted { key: "out/part-0".into(), upload: "upload-1".into(), by: None });
    assert!(reached(&[started], false).contains("upload-started"));
    assert!(!reached(&[], false).contains("upload-started"));
}
