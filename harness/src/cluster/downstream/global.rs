//! The global committer as an operator: what the writers prepared for a checkpoint is
//! combined into one global committable, kept until the checkpoint completes, then
//! committed.

use crate::api::{CommitOutcome, CommitRequest, GlobalCommitter, Sink};
use crate::cluster::config::RuntimeBug;
use crate::cluster::hooks::{Hooks, Phase};
use crate::error::ConnectorError;
use crate::history::{CheckpointId, EventKind, History};

type Global<Snk> = <<Snk as Sink>::GlobalCommitter as GlobalCommitter>::GlobalCommittable;

/// The global committer operator's state: what it received and combined, and what it has
/// not committed yet.
pub(crate) struct GlobalOperator<Snk: Sink> {
    committer: Snk::GlobalCommitter,
    /// Received from the writers since the last aligned barrier, with the checkpoint that
    /// prepared each.
    received: Vec<(CheckpointId, Snk::Committable)>,
    /// Combined, not yet committed: (checkpoint, global committable, retries).
    pending: Vec<(CheckpointId, Global<Snk>, u32)>,
    last_completed: CheckpointId,
    /// The newest recovered global committable not committed since the restore.
    recovered_upto: CheckpointId,
    /// A runtime bug switched on (connsim's own tests).
    bug: Option<RuntimeBug>,
}

impl<Snk: Sink> GlobalOperator<Snk> {
    pub fn new(committer: Snk::GlobalCommitter, bug: Option<RuntimeBug>) -> Self {
        Self { committer, received: Vec::new(), pending: Vec::new(), last_completed: 0, recovered_upto: 0, bug }
    }

    /// Takes a writer's committables off the wire.
    pub fn receive(&mut self, bytes: &[u8]) -> Result<(), ConnectorError> {
        let prepared: Vec<(CheckpointId, Snk::Committable)> = crate::bytes::decode(bytes)
            .map_err(|e| ConnectorError::fail_job(format!("a writer's committables did not deserialize: {e}")))?;
        self.received.extend(prepared);
        Ok(())
    }

    /// Barrier `c` came from every writer: what they prepared up to `c` (a checkpoint
    /// aborted after the writers prepared hands its committables on with this one) is
    /// combined. Returns this operator's part of checkpoint `c`: the serialized pending list.
    pub fn combine(&mut self, c: CheckpointId) -> Result<Vec<u8>, ConnectorError> {
        let (mut due, later): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.received).into_iter().partition(|(p, _)| *p <= c);
        self.received = later;
        if self.bug == Some(RuntimeBug::CombinesOnlyTheCompletedCheckpoint) {
            due.retain(|(p, _)| *p == c);
        }
        if !due.is_empty() {
            let combined = self.committer.combine(c, due.into_iter().map(|(_, x)| x).collect());
            let (_, global) = crate::cluster::wall::round_trip(&combined, "the global committable")
                .map_err(ConnectorError::fail_job)?;
            self.pending.push((c, global, 0));
        }
        let list: Vec<(CheckpointId, &Global<Snk>)> = self.pending.iter().map(|(c, g, _)| (*c, g)).collect();
        Ok(bincode::serialize(&list).expect("global committables serialize"))
    }

    /// Restores the pending list checkpoint `c` stored; the committer keeps what still
    /// needs committing.
    pub async fn restore(&mut self, c: CheckpointId, state: &[u8]) -> Result<(), ConnectorError> {
        self.last_completed = c;
        let stored: Vec<(CheckpointId, Global<Snk>)> = crate::bytes::decode(state)
            .map_err(|e| ConnectorError::fail_job(format!("global committables did not deserialize: {e}")))?;
        let kept = self.committer.filter_recovered(stored).await?;
        self.pending = kept.into_iter().map(|(c, g)| (c, g, 0)).collect();
        self.recovered_upto = self.pending.last().map_or(0, |(c, _, _)| *c);
        Ok(())
    }

    /// Checkpoint `c` completed.
    pub fn completed(&mut self, c: CheckpointId) {
        self.last_completed = self.last_completed.max(c);
    }

    /// Something of a completed checkpoint is not committed yet.
    pub fn due(&self) -> bool {
        self.pending.iter().any(|(c, _, _)| *c <= self.last_completed)
    }

    /// Commits the pending ones of completed checkpoints, in checkpoint order; keeps those
    /// to retry. A scenario may crash the task executor inside the commit (`subtask` and
    /// `attempt`: this task's; a crash aimed at subtask 0, whose slot it shares, counts).
    pub async fn commit(
        &mut self,
        history: &History,
        node: &str,
        hooks: &Hooks,
        (subtask, attempt): (usize, u64),
    ) -> Result<(), ConnectorError> {
        let upto = self.last_completed;
        let n = self.pending.iter().take_while(|(c, _, _)| *c <= upto).count();
        if n == 0 {
            return Ok(());
        }
        let due: Vec<_> = self.pending.drain(..n).collect();
        let requests: Vec<CommitRequest<Global<Snk>>> =
            due.iter().map(|(c, g, r)| CommitRequest { committable: g.clone(), checkpoint: *c, retries: *r }).collect();
        let checkpoint = due.last().map_or(0, |(c, _, _)| *c);
        history.record(node, EventKind::GlobalCommitAttempt { subtask, attempt, checkpoint, requests: n });
        let outcomes = self.committer.commit(requests).await;
        let committed = due.iter().zip(&outcomes).filter(|(_, o)| matches!(o, CommitOutcome::Committed));
        if let Some(c) = committed.map(|((c, _, _), _)| *c).max() {
            let phase = if c <= self.recovered_upto { Phase::InsideRecoveredCommit } else { Phase::InsideCommit };
            if hooks.at_hosted(node, subtask, 0, phase, c) {
                std::future::pending::<()>().await; // a scenario crashes the task executor here
            }
        }
        if outcomes.len() != n {
            return Err(ConnectorError::fail_job(format!(
                "global committer returned {} outcomes for {n} requests; return exactly one per request",
                outcomes.len()
            )));
        }
        let mut retry = Vec::new();
        for ((c, g, retries), outcome) in due.into_iter().zip(outcomes) {
            history.record(node, EventKind::GlobalCommitOutcome { checkpoint: c, outcome: outcome.clone() });
            match outcome {
                CommitOutcome::Committed | CommitOutcome::AlreadyCommitted | CommitOutcome::FailedKnown(_) => {}
                CommitOutcome::RetryLater => retry.push((c, g, retries + 1)),
                CommitOutcome::FailedUnknown(reason) => {
                    return Err(ConnectorError::fail_job(format!(
                        "global commit of checkpoint {c} failed for an unknown reason: {reason}"
                    )))
                }
            }
        }
        retry.append(&mut self.pending);
        self.pending = retry;
        Ok(())
    }

    /// The bounded input ended and everything is committed.
    pub async fn end_of_input(&mut self) -> Result<(), ConnectorError> {
        self.committer.end_of_input().await
    }
}
