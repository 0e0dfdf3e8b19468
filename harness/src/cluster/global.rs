//! Hosting a sink's global committer on the job master.
//!
//! On every completed checkpoint the committables prepared since the last combined
//! checkpoint are decoded from the subtasks' acks (a real serialization round trip),
//! combined into one global committable, stored with the checkpoint and only then committed.
//! After a global failover the stored ones are filtered and committed again.

use super::config::RuntimeBug;
use super::hooks::{Hooks, Phase};
use super::protocol::SubtaskState;
use super::store::CompletedCheckpoint;
use crate::api::{CommitOutcome, CommitRequest, GlobalCommitter, Sink};
use crate::error::ConnectorError;
use crate::history::{CheckpointId, EventKind, History};

type Global<Snk> = <<Snk as Sink>::GlobalCommitter as GlobalCommitter>::GlobalCommittable;

pub(crate) struct GlobalHost<Snk: Sink> {
    committer: Snk::GlobalCommitter,
    /// Combined and stored, not yet committed: (checkpoint, global committable, retries).
    pending: Vec<(CheckpointId, Global<Snk>, u32)>,
    combined_upto: CheckpointId,
    /// The newest recovered global committable not committed since the restore.
    recovered_upto: CheckpointId,
    /// A runtime bug switched on (connsim's own tests).
    bug: Option<RuntimeBug>,
}

impl<Snk: Sink> GlobalHost<Snk> {
    pub fn new(committer: Snk::GlobalCommitter, bug: Option<RuntimeBug>) -> Self {
        Self { committer, pending: Vec::new(), combined_upto: 0, recovered_upto: 0, bug }
    }

    /// Combines what checkpoint `c` brought; returns the serialized pending list to store with it.
    pub fn combine(&mut self, c: CheckpointId, acks: &[SubtaskState]) -> Result<Vec<u8>, String> {
        let mut committables = Vec::new();
        for (subtask, ack) in acks.iter().enumerate() {
            let prepared: Vec<(CheckpointId, Snk::Committable)> = crate::bytes::decode(&ack.committables)
                .map_err(|e| format!("committables of subtask {subtask} did not deserialize: {e}"))?;
            // Everything prepared since the last combined checkpoint: a checkpoint that was
            // aborted after the writers prepared hands its committables on with this one.
            let from = match self.bug {
                Some(RuntimeBug::CombinesOnlyTheCompletedCheckpoint) => c.saturating_sub(1),
                _ => self.combined_upto,
            };
            committables.extend(prepared.into_iter().filter(|(p, _)| *p > from && *p <= c).map(|(_, x)| x));
        }
        self.combined_upto = c;
        if !committables.is_empty() {
            let (_, global) =
                super::wall::round_trip(&self.committer.combine(c, committables), "the global committable")?;
            self.pending.push((c, global, 0));
        }
        Ok(self.encoded())
    }

    fn encoded(&self) -> Vec<u8> {
        let list: Vec<(CheckpointId, Global<Snk>)> = self.pending.iter().map(|(c, g, _)| (*c, g.clone())).collect();
        bincode::serialize(&list).expect("global committables serialize")
    }

    /// Restores what `cp` stored, as after a job-master or global failover; `rescaled`: the
    /// job now runs with another parallelism than `cp` was taken with.
    pub async fn restore(&mut self, cp: Option<&CompletedCheckpoint>, rescaled: bool) -> Result<(), ConnectorError> {
        self.pending.clear();
        self.recovered_upto = 0;
        self.combined_upto = cp.map_or(0, |c| c.id);
        let Some(cp) = cp else { return Ok(()) };
        let stored: Vec<(CheckpointId, Global<Snk>)> = crate::bytes::decode(&cp.global)
            .map_err(|e| ConnectorError::fail_job(format!("global committables did not deserialize: {e}")))?;
        if rescaled && self.bug == Some(RuntimeBug::GlobalCommitterForgetsOnRescale) {
            return Ok(());
        }
        let kept = self.committer.filter_recovered(stored).await?;
        self.pending = kept.into_iter().map(|(c, g)| (c, g, 0)).collect();
        self.recovered_upto = self.pending.last().map_or(0, |(c, _, _)| *c);
        Ok(())
    }

    pub fn is_idle(&self) -> bool {
        self.pending.is_empty()
    }

    /// Commits in checkpoint order; `Err` means the job must fail.
    pub async fn commit(&mut self, history: &History, node: &str, hooks: &Hooks) -> Result<(), String> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let requests: Vec<CommitRequest<Global<Snk>>> = self
            .pending
            .iter()
            .map(|(c, g, r)| CommitRequest { committable: g.clone(), checkpoint: *c, retries: *r })
            .collect();
        let n = requests.len();
        let checkpoint = self.pending.last().map_or(0, |(c, _, _)| *c);
        history.record(node, EventKind::GlobalCommitAttempt { checkpoint, requests: n });
        let outcomes = self.committer.commit(requests).await;
        let committed =
            |(_, o): &(&(CheckpointId, Global<Snk>, u32), &CommitOutcome)| matches!(o, CommitOutcome::Committed);
        let newest = self.pending.iter().zip(&outcomes).filter(committed).map(|((c, _, _), _)| *c).max();
        if let Some(c) = newest {
            let recovered = c <= self.recovered_upto;
            let phase = if recovered { Phase::InsideRecoveredCommit } else { Phase::InsideCommit };
            if hooks.at_job_master(phase, c) {
                std::future::pending::<()>().await; // a scenario crashes the job master here
            }
        }
        if outcomes.len() != n {
            return Err(format!(
                "global committer returned {} outcomes for {n} requests; return exactly one per request",
                outcomes.len()
            ));
        }
        let mut keep = Vec::new();
        for ((c, g, retries), outcome) in std::mem::take(&mut self.pending).into_iter().zip(outcomes) {
            history.record(node, EventKind::GlobalCommitOutcome { checkpoint: c, outcome: outcome.clone() });
            match outcome {
                CommitOutcome::Committed | CommitOutcome::AlreadyCommitted | CommitOutcome::FailedKnown(_) => {}
                CommitOutcome::RetryLater => keep.push((c, g, retries + 1)),
                CommitOutcome::FailedUnknown(reason) => {
                    return Err(format!("global commit of checkpoint {c} failed for an unknown reason: {reason}"))
                }
            }
        }
        self.pending = keep;
        Ok(())
    }

    pub async fn end_of_input(&mut self) -> Result<(), ConnectorError> {
        self.committer.end_of_input().await
    }
}
