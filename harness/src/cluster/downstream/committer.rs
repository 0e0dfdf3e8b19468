//! The committer as an operator of its own, when its parallelism is not the writers'
//! (`committer_parallelism`): what writer `w` prepared reaches committer `w mod k` through
//! the committables' serializer; an aligned barrier makes it this task's part of the
//! checkpoint; a completed checkpoint commits it.

use crate::api::{CommitOutcome, CommitRequest, Committer, Sink};
use crate::cluster::hooks::{Hooks, Phase};
use crate::error::ConnectorError;
use crate::history::{CheckpointId, EventKind, History};

/// The committer operator's state: what it received, and what it has not committed yet.
pub(crate) struct CommitterOperator<Snk: Sink> {
    committer: Snk::Committer,
    /// Received from the writers since the last aligned barrier, with the checkpoint that
    /// prepared each.
    received: Vec<(CheckpointId, Snk::Committable)>,
    /// Taken into a checkpoint, not yet committed: (checkpoint that prepared it,
    /// committable, retries).
    pending: Vec<(CheckpointId, Snk::Committable, u32)>,
    last_completed: CheckpointId,
    /// The checkpoint this attempt was restored from: its committables are the recovered ones.
    restored: CheckpointId,
}

impl<Snk: Sink> CommitterOperator<Snk> {
    pub fn new(committer: Snk::Committer) -> Self {
        Self { committer, received: Vec::new(), pending: Vec::new(), last_completed: 0, restored: 0 }
    }

    /// Takes a writer's committables off the wire.
    pub fn receive(&mut self, bytes: &[u8]) -> Result<(), ConnectorError> {
        let prepared: Vec<(CheckpointId, Snk::Committable)> = crate::bytes::decode(bytes)
            .map_err(|e| ConnectorError::fail_job(format!("a writer's committables did not deserialize: {e}")))?;
        self.received.extend(prepared);
        Ok(())
    }

    /// Barrier `c` came from every writer: what they prepared up to `c` (a checkpoint
    /// aborted after the writers prepared hands its committables on with this one) becomes
    /// pending. Returns this operator's part of checkpoint `c`: the serialized pending list,
    /// in the writers' format, so a rescale deals it out as theirs.
    pub fn aligned(&mut self, c: CheckpointId) -> Vec<u8> {
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.received).into_iter().partition(|(p, _)| *p <= c);
        self.received = later;
        self.pending.extend(due.into_iter().map(|(p, x)| (p, x, 0)));
        let list: Vec<(CheckpointId, &Snk::Committable)> = self.pending.iter().map(|(p, x, _)| (*p, x)).collect();
        bincode::serialize(&list).expect("committables serialize")
    }

    /// Restores the pending list checkpoint `c` stored: it belongs to a completed checkpoint.
    pub fn restore(&mut self, c: CheckpointId, state: &[u8]) -> Result<(), ConnectorError> {
        let stored: Vec<(CheckpointId, Snk::Committable)> = crate::bytes::decode(state)
            .map_err(|e| ConnectorError::fail_job(format!("restored committables did not deserialize: {e}")))?;
        self.pending = stored.into_iter().map(|(p, x)| (p, x, 0)).collect();
        self.last_completed = c;
        self.restored = c;
        Ok(())
    }

    /// Checkpoint `c` completed.
    pub fn completed(&mut self, c: CheckpointId) {
        self.last_completed = self.last_completed.max(c);
    }

    /// Something of a completed checkpoint is not committed yet.
    pub fn due(&self) -> bool {
        self.pending.iter().any(|(p, _, _)| *p <= self.last_completed)
    }

    /// Commits the pending committables of completed checkpoints, in checkpoint order; keeps
    /// those to retry. `host`: the subtask whose slot this task shares (a crash aimed at it
    /// counts).
    pub async fn commit(
        &mut self,
        history: &History,
        node: &str,
        hooks: &Hooks,
        (subtask, attempt, host): (usize, u64, usize),
    ) -> Result<(), ConnectorError> {
        let upto = self.last_completed;
        let (due, later): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.pending).into_iter().partition(|(p, _, _)| *p <= upto);
        self.pending = later;
        if due.is_empty() {
            return Ok(());
        }
        let n = due.len();
        let requests: Vec<CommitRequest<Snk::Committable>> =
            due.iter().map(|(c, x, r)| CommitRequest { committable: x.clone(), checkpoint: *c, retries: *r }).collect();
        history.record(node, EventKind::CommitAttempt { subtask, attempt, checkpoint: upto, requests: n });
        let outcomes = self.committer.commit(requests).await;
        if outcomes.iter().any(|o| matches!(o, CommitOutcome::Committed)) {
            let phase = if upto <= self.restored { Phase::InsideRecoveredCommit } else { Phase::InsideCommit };
            if hooks.at_hosted(node, subtask, host, phase, upto) {
                std::future::pending::<()>().await; // a scenario crashes the task executor here
            }
        }
        if outcomes.len() != n {
            return Err(ConnectorError::fail_job(format!(
                "committer returned {} outcomes for {n} requests; return exactly one per request",
                outcomes.len()
            )));
        }
        // Committables to retry go back before the newer ones, so commits stay in checkpoint
        // order.
        let mut retry = Vec::new();
        let mut failed = None;
        for ((c, x, retries), outcome) in due.into_iter().zip(outcomes) {
            history
                .record(node, EventKind::CommitOutcome { subtask, attempt, checkpoint: c, outcome: outcome.clone() });
            match outcome {
                CommitOutcome::Committed | CommitOutcome::AlreadyCommitted | CommitOutcome::FailedKnown(_) => {}
                CommitOutcome::RetryLater => retry.push((c, x, retries + 1)),
                CommitOutcome::FailedUnknown(reason) => {
                    failed.get_or_insert(reason);
                }
            }
        }
        retry.append(&mut self.pending);
        self.pending = retry;
        match failed {
            Some(reason) => Err(ConnectorError::fail_job(format!("commit failed for an unknown reason: {reason}"))),
            None => Ok(()),
        }
    }

    /// Closes the committer (it may hold connections).
    pub async fn close(&mut self) {
        self.committer.close().await;
    }
}
