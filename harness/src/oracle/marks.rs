//! Coverage marks: which fault and recovery paths a run actually reached. A check that
//! passes because its path was never exercised proves nothing; tests require marks with
//! [`Outcome::assert_reached`](crate::run::Outcome::assert_reached).
//!
//! Marks are derived from the history after the run, so they cost nothing while it runs.

use crate::history::{AbortReason, CommitOutcome, Event, EventKind, FailoverScope, FaultKind};
use crate::record::RecordId;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Every mark connsim knows, with what it means.
pub const MARKS: &[(&str, &str)] = &[
    ("crash", "a task executor (a worker) was crashed; crashes of the job master and of external systems have marks of their own"),
    ("failover:region", "a region failover restarted some subtasks"),
    ("failover:global", "a global failover restarted everything"),
    ("restore-from-checkpoint", "a subtask was restored from a completed checkpoint"),
    ("splits-returned", "splits went back to the enumerator through add_splits_back"),
    ("checkpoint-aborted", "a checkpoint was aborted (declined, expired, subsumed by a later one, given up in a failover or when the job finished)"),
    ("message-dropped", "the gateway dropped a message"),
    ("notify-lost", "a checkpoint-complete notification was dropped"),
    ("commit-retried", "a commit came back retry-later"),
    ("commit-already-committed", "a commit found its committable already committed"),
    ("recovered-committables-committed", "a restored subtask committed recovered committables before reading (a restored global committer, what it recovered)"),
    ("crash-between-prepare-and-commit", "a subtask's executor crashed after prepare_commit, before its commit"),
    ("global-commit", "the global committer committed a checkpoint"),
    ("job-finished", "a bounded job finished with its final checkpoint"),
    ("valve-held-events", "the coordinator held enumerator events back until the barrier was sent"),
    ("crash:jobmaster", "the job master was crashed"),
    ("crash:system", "an external system was crashed"),
    ("failover:jobmaster", "a new job-master incarnation restored everything from the latest checkpoint"),
    ("rescale", "the job was restored with another parallelism"),
    ("savepoint-stop", "the job stopped at a savepoint (stop-with-savepoint)"),
    ("new-job:without-state", "a new job started without state against the output the last one left"),
    ("new-job:group-offsets", "a new job without state started from the offsets its source's consumer group had committed"),
    ("new-job:older-savepoint", "a new job started from a savepoint older than the latest completed checkpoint"),
    ("checkpoint-declined", "a subtask declined a checkpoint"),
    ("message-delayed", "the gateway delayed a message"),
    ("response-lost", "a request took effect but its response was lost"),
    ("partition", "a partition rule (every message on a link between two nodes) dropped a message"),
    ("crash-at:before-barrier", "a crash aimed before the reader's snapshot was hit"),
    ("crash-at:after-reader-snapshot", "a crash aimed after the reader's snapshot was hit"),
    ("crash-at:after-prepare-commit", "a crash aimed after prepare_commit was hit"),
    ("crash-at:after-ack", "a crash aimed after the ack, before the notification, was hit"),
    ("crash-at:inside-commit", "a crash aimed after the external commit, before the committer recorded it, was hit"),
    ("crash-at:inside-recovered-commit", "a crash aimed inside a restored attempt's commit of recovered committables was hit"),
    ("crash-at:after-restore", "a crash aimed after a restore, before the first poll, was hit"),
    ("crash-at:during-savepoint", "a crash aimed after a subtask acknowledged a stopping savepoint was hit"),
    ("crash-at:before-notify", "a crash aimed at the job master between storing a checkpoint and notifying was hit"),
    ("commit-request-lost", "a request to an external system was dropped while a committer was committing"),
    ("commit-request-timed-out", "a call to an external system timed out while a committer was committing"),
    ("system-request-lost", "a request to an external system was dropped"),
    ("request-refused", "an external system refused a request (unavailable, throttled, disk full)"),
    ("commit-request-refused", "an external system refused a request while a committer was committing"),
    ("commit-under-refusal", "a committer started a commit while a refusal rule was in force (its requests could be refused)"),
    ("transaction-timed-out", "the log aborted a transaction open longer than its transaction timeout"),
    ("append-torn", "the file system wrote only part of an append and did not answer"),
    ("s3-slow-down", "the bucket refused a request 503 SlowDown (throttled, not applied)"),
    ("s3-internal-error", "the bucket answered a request 500 InternalError (applied or not)"),
    ("upload-expired", "the bucket's lifecycle rule aborted a multipart upload that was not completed in time"),
    ("upload-started", "the bucket started a multipart upload (a lifecycle rule may expire it)"),
    ("closed:unsnapshotted-upload", "a subtask attempt closed in order (finished, cancelled or failed) after starting an upload no snapshot of it recorded, nothing between the bucket and it disturbed since: one it had to abort (what `left-behind` judges)"),
    ("loss-declared", "a system's own rule destroyed records no commit had made visible (an upload expired), and a commit failed with a known reason naming what was destroyed"),
    ("group-session-expired", "the log's group coordinator removed a consumer whose heartbeats stopped for its session timeout"),
    ("transaction-hanging", "a broker without partition verification wrote a transactional produce no transaction of its coordinator holds"),
    ("message-straggled", "a message arrived late, overtaken by the later messages of its link (a request on an abandoned connection)"),
    ("schema-altered", "a table's schema changed mid-run (a column added, a nullable flipped, a width changed): rows written since are decoded with the new one"),
    ("message-held", "a hold rule kept a message back until its sender's next message of a kind, or its latest time"),
    ("request-applied-late", "a held request landed right after its sender's next request of the releasing kind: the system applied it after the client's next step (an older attempt's commit after a newer attempt's read)"),
    ("unreplicated-lost", "a log leader crashed and lost acknowledged records not yet replicated (acks=1)"),
    ("request-outlived-its-sender", "a request to an external system was still on its way when its sender went down"),
    ("sequence-gap", "the log refused a produce that skipped a sequence number (an earlier batch was lost)"),
    ("produce-deduplicated", "the log acknowledged a retried batch it had appended without appending it again"),
    ("sequence-rejected", "the log refused a retried produce older than the producer's last five batches"),
    ("offset-out-of-range", "a reader fetched from an offset retention had deleted and was told it is out of range"),
    ("zombie-global-commit", "an attempt of the global committer's task committed after a newer attempt of it had been deployed (a zombie committer next to its replacement)"),
    ("zombie-commit", "an attempt of a committer's task (apart from the writers) committed after a newer attempt of it had been deployed (a zombie committer next to its replacement)"),
    ("zombie-wrote-after-replacement", "a request the connector code of a subtask attempt sent after a newer attempt of the subtask had started (a zombie, cut off from the job master) reached an external system, which served or refused it"),
    ("checkpoints-overlapped", "a checkpoint was triggered while an earlier one was still pending"),
    ("checkpoint-subsumed", "a pending checkpoint was aborted because a later one completed (an acknowledgement of it was lost)"),
    ("notified-after-later-barrier", "a subtask heard that a checkpoint completed after it had taken a later checkpoint's barrier"),
    ("watermark-advanced", "a subtask's combined watermark advanced while its input ran (not only at its end)"),
    ("split-idle", "a split that emitted nothing for the idle timeout was left out of the combined watermark"),
    ("split-marked-idle", "a split (or a reader) the connector marked idle was left out of a combined watermark that advanced"),
    ("split-paused", "watermark alignment paused a split that ran more than the maximum drift ahead of the group's minimum"),
    ("split-resumed", "watermark alignment resumed a paused split once the group's minimum caught up"),
    ("channel-blocked", "behind an exchange, a writer held back an input channel that delivered a barrier until every channel had (barrier alignment)"),
    ("alignment-aborted", "behind an exchange, a writer gave up aligning a checkpoint (a reader declined it, a newer barrier came first, or it was aborted)"),
    ("backpressure", "behind an exchange, a reader stopped because a writer had no room for more (its channel was full)"),
    ("backpressure-held", "behind an exchange, full channels held a reader back for 100 ms or more (a writer slower than its input)"),
    ("exchange-resent", "behind an exchange, a reader sent messages again that a writer had not acknowledged in time (lost or delayed)"),
    ("lease-expired", "a task executor cancelled an attempt the job master had stopped speaking about (its heartbeat timed out)"),
    ("paused", "a node was frozen for a while (a long GC pause) and then went on"),
    ("discovery-faulted", "a request from the job master to an external system was dropped, and a split never handed to a reader before was handed over afterwards (assigned, sent in a source event, held or read by a reader)"),
    ("discovery-overlapped", "a periodic call of the enumerator (split discovery) started a round before the enumerator had handled the previous round's result: two discovery rounds overlapped (a suite case asks the source to discover every TestData::discovery_interval_ms, 10 ms, which its context passes on to it; a source that does not discover periodically skips the case in its context's supports)"),
    ("enumerator-start-retried", "the enumerator's start failed with a retriable error and was retried beside the job master's loop until it started"),
    ("output-vanished", "records vanished from the output (a crash of its system, a delete)"),
    ("converged", "the output converged; from here on it must not change (a bounded job finished, an unbounded one showed everything)"),
];

/// Whether a node name is an external system's (not the job master, a task executor, or
/// the harness's own bookkeeping).
fn is_system(node: &str) -> bool {
    !(node == crate::cluster::JOB_MASTER
        || node.starts_with("taskexecutor-")
        || matches!(node, "gateway" | "harness" | "supervisor"))
}

/// The marks one history reached. Only the run up to convergence counts: what the harness
/// does afterwards (restarting every system) is not a fault the scenario reached. `exchanged`:
/// the job had an exchange, so a writer prepares when its barriers align, not when its
/// subtask's reader takes the barrier (a subtask may host only a reader, or only a writer).
pub fn reached(events: &[Event], exchanged: bool) -> BTreeSet<&'static str> {
    let mut marks = BTreeSet::new();
    let until = events.iter().position(|e| matches!(e.kind, EventKind::Converged)).unwrap_or(events.len());
    if !crate::oracle::declared::declared_losses(&events[..until]).is_empty() {
        marks.insert("loss-declared");
    }
    // Nodes with a commit in progress (between an attempt and its first outcome).
    let mut committing: BTreeSet<&str> = BTreeSet::new();
    let mut handed = HandedOver::new(events);
    let mut discovery_dropped = false;
    let mut restored: BTreeSet<(usize, u64)> = BTreeSet::new();
    // Per subtask, the newest attempt deployed and the checkpoint it restored.
    let mut newest: BTreeMap<usize, (u64, u64)> = BTreeMap::new();
    let mut read_since_restore: BTreeSet<(usize, u64)> = BTreeSet::new();
    // Per subtask: checkpoints prepared (barrier passed) but not yet seen committed.
    let mut prepared: BTreeMap<usize, BTreeSet<u64>> = BTreeMap::new();
    // Subtask attempts that ever took a barrier: readers and writers. An attempt that commits
    // and never takes one is a committer apart from the writers (or a writer's attempt that
    // committed what it recovered and was gone before its first barrier). Per attempt: a
    // rescale gives a subtask id another role.
    let took_barriers: BTreeSet<(usize, u64)> = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Barrier { subtask, attempt, .. } | EventKind::BarrierAligned { subtask, attempt, .. } => {
                Some((subtask, attempt))
            }
            _ => None,
        })
        .collect();
    // Task executor → the tasks deployed there last (a global committer shares subtask 0's slot).
    let mut hosted: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    // Checkpoints triggered by the current job-master incarnation, neither completed nor aborted.
    let mut open_checkpoints: BTreeSet<u64> = BTreeSet::new();
    // Refusal rules in force: a commit attempted under one may have its requests refused.
    let mut refusing = 0usize;
    // A connector's attempt started an upload: it may owe an abort when it closes.
    let mut owes_aborts = false;
    for e in events {
        match &e.kind {
            EventKind::CommitAttempt { .. } | EventKind::GlobalCommitAttempt { .. } => {
                committing.insert(&e.node);
                if refusing > 0 {
                    marks.insert("commit-under-refusal");
                }
            }
            EventKind::FaultRule { description } => match description.split_once(' ') {
                Some(("add", rule)) if rule.starts_with("Refuse") => {
                    refusing += 1;
                    if !committing.is_empty() {
                        marks.insert("commit-under-refusal");
                    }
                }
                Some(("remove", rule)) if rule.starts_with("Refuse") => refusing = refusing.saturating_sub(1),
                _ if description == "heal" => refusing = 0,
                _ => {}
            },
            EventKind::CommitOutcome { .. } | EventKind::GlobalCommitOutcome { .. } => {
                committing.remove(e.node.as_str());
            }
            EventKind::Fault { fault: FaultKind::Partition, .. } => {
                marks.insert("partition");
            }
            EventKind::UploadStarted { by, .. } => {
                marks.insert("upload-started");
                if by.is_some() {
                    owes_aborts = true;
                }
            }

            _ => {}
        }
        match &e.kind {
            EventKind::Converged => {
                marks.insert("converged");
                break;
            }
            EventKind::CallTimedOut { to, .. } if is_system(to) && committing.contains(e.node.as_str()) => {
                marks.insert("commit-request-timed-out");
            }
            EventKind::Fault { fault, from, to, .. } if fault.dropped() && is_system(to) && !is_system(from) => {
                marks.insert("system-request-lost");
                if committing.contains(from.as_str()) {
                    marks.insert("commit-request-lost");
                }
                if from == crate::cluster::JOB_MASTER {
                    discovery_dropped = true;
                }
            }
            EventKind::Fault { fault: FaultKind::Refuse(_), from, to, .. } if is_system(to) => {
                marks.insert("request-refused");
                if committing.contains(from.as_str()) {
                    marks.insert("commit-request-refused");
                }
            }
            EventKind::SplitsAssigned { splits, .. } => {
                let new = handed.any_new(splits.iter().map(String::as_str));
                if new && discovery_dropped {
                    marks.insert("discovery-faulted");
                }
            }
            EventKind::Vanished { .. } => {
                marks.insert("output-vanished");
            }
            EventKind::Crashed { node } => {
                if node == crate::cluster::JOB_MASTER {
                    marks.insert("crash:jobmaster");
                } else if is_system(node) {
                    marks.insert("crash:system");
                } else {
                    marks.insert("crash");
                }
                let subtasks = hosted.get(node.as_str()).into_iter().flatten();
                if subtasks.into_iter().any(|s| prepared.get(s).is_some_and(|p| !p.is_empty())) {
                    marks.insert("crash-between-prepare-and-commit");
                }
            }
            EventKind::Failover { strategy, .. } => {
                marks.insert(match strategy {
                    FailoverScope::Global => "failover:global",
                    FailoverScope::JobMaster => "failover:jobmaster",
                    FailoverScope::Rescale => "rescale",
                    FailoverScope::Region => "failover:region",
                });
            }
            EventKind::CrashPoint { phase, .. } => {
                marks.insert(phase.mark());
            }
            EventKind::Declined { .. } => {
                marks.insert("checkpoint-declined");
            }
            EventKind::JobStopped { .. } => {
                marks.insert("savepoint-stop");
            }
            EventKind::Deployed { subtask, attempt, checkpoint } => {
                // A task executor hosts several tasks (a global committer shares subtask 0's slot).
                for tasks in hosted.values_mut() {
                    tasks.remove(subtask);
                }
                hosted.entry(&e.node).or_default().insert(*subtask);
                newest.insert(*subtask, (*attempt, *checkpoint));
                prepared.remove(subtask);
                if *checkpoint > 0 {
                    marks.insert("restore-from-checkpoint");
                    restored.insert((*subtask, *attempt));
                }
            }
            EventKind::SplitsReturned { .. } => {
                marks.insert("splits-returned");
            }
            EventKind::CheckpointAborted { checkpoint, reason } => {
                marks.insert("checkpoint-aborted");
                if matches!(reason, AbortReason::SubsumedBy(_)) {
                    marks.insert("checkpoint-subsumed");
                }
                open_checkpoints.remove(checkpoint);
            }
            EventKind::CheckpointCompleted { checkpoint } => {
                open_checkpoints.remove(checkpoint);
            }
            EventKind::CheckpointTriggered { checkpoint, .. } => {
                if !open_checkpoints.is_empty() {
                    marks.insert("checkpoints-overlapped");
                }
                open_checkpoints.insert(*checkpoint);
            }
            EventKind::LateNotification { .. } => {
                marks.insert("notified-after-later-barrier");
            }
            EventKind::Watermark { watermark, idle, marked_idle, .. } => {
                if !marked_idle.is_empty() && watermark.is_some() {
                    marks.insert("split-marked-idle");
                }
                if watermark.is_some_and(|w| w < i64::MAX) {
                    marks.insert("watermark-advanced");
                }
                if *idle > 0 {
                    marks.insert("split-idle");
                }
            }
            EventKind::SplitsPaused { paused, resumed, .. } => {
                if !paused.is_empty() {
                    marks.insert("split-paused");
                }
                if !resumed.is_empty() {
                    marks.insert("split-resumed");
                }
            }
            EventKind::ChannelBlocked { .. } => {
                marks.insert("channel-blocked");
            }
            EventKind::AlignmentAborted { .. } => {
                marks.insert("alignment-aborted");
            }
            EventKind::Backpressured { .. } => {
                marks.insert("backpressure");
            }
            EventKind::BackpressureHeld { .. } => {
                marks.insert("backpressure-held");
            }
            EventKind::ExchangeResent { .. } => {
                marks.insert("exchange-resent");
            }
            EventKind::JobStarted { .. } => open_checkpoints.clear(),
            EventKind::NewJob { restored_from, .. } => {
                marks.insert(if *restored_from == 0 { "new-job:without-state" } else { "new-job:older-savepoint" });
            }
            EventKind::SchemaAltered { .. } => {
                marks.insert("schema-altered");
            }
            EventKind::GroupOffsets { offsets, .. } if !offsets.is_empty() => {
                marks.insert("new-job:group-offsets");
            }
            EventKind::Fault { fault, kind, .. } => {
                marks.insert(match fault {
                    FaultKind::Delay => "message-delayed",
                    FaultKind::LoseResponse => "response-lost",
                    FaultKind::Refuse(_) => "request-refused",
                    FaultKind::TxnTimeout => "transaction-timed-out",
                    FaultKind::TornAppend => "append-torn",
                    FaultKind::SlowDown => "s3-slow-down",
                    FaultKind::InternalError => "s3-internal-error",
                    FaultKind::UploadExpired => "upload-expired",
                    FaultKind::SessionExpired => "group-session-expired",
                    FaultKind::Straggle => "message-straggled",
                    FaultKind::Hold => "message-held",
                    FaultKind::AppliedLate => "request-applied-late",
                    FaultKind::HangingTransaction => "transaction-hanging",
                    FaultKind::DuplicateSequence => "produce-deduplicated",
                    FaultKind::StaleSequence => "sequence-rejected",
                    FaultKind::OutOfOrderSequence => "sequence-gap",
                    FaultKind::UnreplicatedLost => "unreplicated-lost",
                    FaultKind::Drop | FaultKind::Partition => "message-dropped",
                });
                if fault.dropped() && kind == "Notify" {
                    marks.insert("notify-lost");
                }
            }
            EventKind::Barrier { subtask, attempt, checkpoint, splits, .. } => {
                if handed.any_new(splits.iter().map(String::as_str)) && discovery_dropped {
                    marks.insert("discovery-faulted");
                }
                read_since_restore.insert((*subtask, *attempt));
                if !exchanged {
                    prepared.entry(*subtask).or_default().insert(*checkpoint);
                }
            }
            EventKind::BarrierAligned { subtask, checkpoint, .. } if exchanged => {
                prepared.entry(*subtask).or_default().insert(*checkpoint);
            }
            EventKind::Emitted { subtask, attempt, ids } => {
                if handed.any_new_emitted(ids) && discovery_dropped {
                    marks.insert("discovery-faulted");
                }
                read_since_restore.insert((*subtask, *attempt));
            }
            EventKind::ZombieRequest { .. } => {
                marks.insert("zombie-wrote-after-replacement");
            }
            EventKind::GlobalCommitAttempt { subtask, attempt, checkpoint, .. } => match newest.get(subtask) {
                Some((n, _)) if n > attempt => {
                    marks.insert("zombie-global-commit");
                }
                Some((n, restored_at)) if n == attempt && checkpoint <= restored_at => {
                    marks.insert("recovered-committables-committed");
                }
                _ => {}
            },
            EventKind::LeaseExpired { .. } => {
                marks.insert("lease-expired");
            }
            EventKind::OutOfRange { .. } => {
                marks.insert("offset-out-of-range");
            }
            EventKind::Orphaned { to, .. } if is_system(to) => {
                marks.insert("request-outlived-its-sender");
            }
            EventKind::Paused { .. } => {
                marks.insert("paused");
            }
            // A committer apart from the writers: its newest attempt committing what it restored.
            EventKind::CommitAttempt { subtask, attempt, checkpoint, .. }
                if !took_barriers.contains(&(*subtask, *attempt)) =>
            {
                match newest.get(subtask) {
                    Some((n, _)) if n > attempt => {
                        marks.insert("zombie-commit");
                    }
                    Some((n, at)) if n == attempt && *at > 0 && checkpoint <= at => {
                        marks.insert("recovered-committables-committed");
                    }
                    _ => {}
                }
            }
            EventKind::CommitAttempt { subtask, attempt, .. }
                if restored.contains(&(*subtask, *attempt)) && !read_since_restore.contains(&(*subtask, *attempt)) =>
            {
                marks.insert("recovered-committables-committed");
            }
            EventKind::CommitOutcome { subtask, attempt, checkpoint, outcome } => {
                outcome_marks(outcome, &mut marks);
                if *outcome != CommitOutcome::RetryLater {
                    // A committer apart from the writers commits for some of them: every
                    // writer's prepared checkpoint up to it counts as committed (a mark it
                    // clears is claimed less often, never more).
                    let served = if took_barriers.contains(&(*subtask, *attempt)) {
                        prepared.get_mut(subtask).into_iter().collect::<Vec<_>>()
                    } else {
                        prepared.values_mut().collect()
                    };
                    for p in served {
                        p.retain(|c| c > checkpoint);
                    }
                }
            }
            EventKind::ValveReleased { .. } => {
                marks.insert("valve-held-events");
            }
            EventKind::PeriodicCallOverlapped { .. } => {
                marks.insert("discovery-overlapped");
            }
            EventKind::EnumeratorStarted { .. } => {
                marks.insert("enumerator-start-retried");
            }
            EventKind::GlobalCommitOutcome { outcome, checkpoint } => {
                marks.insert("global-commit");
                if *outcome != CommitOutcome::RetryLater {
                    for p in prepared.values_mut() {
                        p.retain(|c| c > checkpoint);
                    }
                }
                outcome_marks(outcome, &mut marks);
            }
            EventKind::JobFinished => {
                marks.insert("job-finished");
            }
            _ => {}
        }
    }
    if owes_aborts && !crate::oracle::checks::left_behind::owed_aborts(events).is_empty() {
        marks.insert("closed:unsnapshotted-upload");
    }
    marks
}

/// Splits handed to a reader so far, however the source hands them over: assigned by the
/// coordinator, or sent in a connector-defined event (Flink's own sources do both), which the
/// runtime sees only once the reader holds the split at a barrier or emits its records.
struct HandedOver<'a> {
    splits: BTreeSet<&'a str>,
    /// The split each produced record belongs to, built only when some request of the job
    /// master to a system was dropped (otherwise nothing asks whether a split is new).
    split_of: Option<HashMap<RecordId, &'a str>>,
}

impl<'a> HandedOver<'a> {
    fn new(events: &'a [Event]) -> Self {
        let dropped = events.iter().any(|e| {
            matches!(&e.kind, EventKind::Fault { fault, from, to, .. }
                if fault.dropped() && from == crate::cluster::JOB_MASTER && is_system(to))
        });
        let split_of = dropped.then(|| {
            let mut map = HashMap::new();
            for e in events {
                if let EventKind::Produced { id, split, .. } = &e.kind {
                    map.insert(*id, split.as_str());
                }
            }
            map
        });
        Self { splits: BTreeSet::new(), split_of }
    }

    /// Notes `splits` as handed over; whether one of them was not before.
    fn any_new(&mut self, splits: impl Iterator<Item = &'a str>) -> bool {
        let mut new = false;
        for s in splits {
            new |= self.splits.insert(s);
        }
        new
    }

    /// Notes the splits of emitted records as handed over (records of one split come in runs,
    /// so a run costs one set look-up); whether one of them was not before.
    fn any_new_emitted(&mut self, ids: &[RecordId]) -> bool {
        let Some(split_of) = &self.split_of else { return false };
        let mut new = false;
        let mut last = None;
        for id in ids {
            let Some(&split) = split_of.get(id) else { continue };
            if last != Some(split) {
                last = Some(split);
                new |= self.splits.insert(split);
            }
        }
        new
    }
}

fn outcome_marks(outcome: &CommitOutcome, marks: &mut BTreeSet<&'static str>) {
    match outcome {
        CommitOutcome::RetryLater => {
            marks.insert("commit-retried");
        }
        CommitOutcome::AlreadyCommitted => {
            marks.insert("commit-already-committed");
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;
