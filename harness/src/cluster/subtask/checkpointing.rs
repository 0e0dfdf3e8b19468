//! A subtask's part of a checkpoint (the reader's split state at the barrier, the writer's
//! flush, committables and state, the acknowledgement) and committing what completed
//! checkpoints cover.

use super::{crash_point, encode, Subtask};
use crate::api::{CommitOutcome, CommitRequest, Committer, Sink, SinkWriter, Source, SourceReader, Split};
use crate::cluster::hooks::Phase;
use crate::cluster::protocol::{MasterMsg, Payload, SubtaskState};
use crate::error::ConnectorError;
use crate::history::{CheckpointId, EventKind};
use std::time::Duration;

impl<Src: Source, Snk: Sink> Subtask<Src, Snk> {
    /// The reader's splits at a barrier (none where the subtask hosts only a writer).
    fn reader_state(&mut self, c: CheckpointId) -> Vec<Src::Split> {
        if self.source.has_reader {
            self.source.reader.snapshot_state(c)
        } else {
            Vec::new()
        }
    }

    /// Takes this subtask's part of checkpoint `c`; `stop`: a stopping savepoint.
    pub(super) async fn checkpoint(&mut self, c: CheckpointId, stop: bool) -> Result<(), ConnectorError> {
        crash_point(&self.hooks, &self.node, self.id, Phase::BeforeBarrier, c).await;
        let wall = |e: String| ConnectorError::fail_job(e);
        // Across the serde wall: from here on the runtime holds what decoding gave back.
        let (splits_bytes, splits) =
            crate::cluster::wall::round_trip(&self.reader_state(c), "the reader's split state").map_err(wall)?;
        let ids = splits.iter().map(Split::id).collect();
        let positions = splits.iter().map(Split::position).collect();
        let (subtask, attempt) = (self.id, self.attempt);
        self.record(EventKind::Barrier { subtask, attempt, checkpoint: c, splits: ids, positions });
        crash_point(&self.hooks, &self.node, self.id, Phase::AfterReaderSnapshot, c).await;
        if let Some(x) = self.exchange.as_mut() {
            x.out.broadcast(Payload::Barrier(c));
            if self.sink.writer.is_some() {
                // The writer's half follows once the barrier came on all of its channels. A
                // subtask without a reader acknowledges then, with no split state: its
                // writer may align before this trigger arrives (no barrier of its own passes
                // its gate).
                if self.source.has_reader {
                    x.barriers.insert(c, (splits_bytes, self.source.ended, stop));
                }
                return Ok(());
            }
        }
        // Chained, or a subtask without a writer: acknowledged now.
        let ended = self.source.ended;
        self.snapshot_writer(c, splits_bytes, ended || self.sink.writer.is_none(), ended, stop).await
    }

    /// The writer's part of checkpoint `c`, sent with the reader's split state: flush,
    /// prepare, snapshot, acknowledge. `input_ended`: the writer's input ended before the
    /// barrier; `finished`: the whole subtask had.
    pub(super) async fn snapshot_writer(
        &mut self,
        c: CheckpointId,
        splits_bytes: Vec<u8>,
        input_ended: bool,
        finished: bool,
        stop: bool,
    ) -> Result<(), ConnectorError> {
        let wall = |e: String| ConnectorError::fail_job(e);
        let writer = match self.sink.writer.as_mut() {
            Some(w) => {
                if !input_ended {
                    w.flush(false).await?;
                }
                let committables = w.prepare_commit(c).await?;
                let (_, committables) =
                    crate::cluster::wall::round_trip(&committables, "the writer's committables").map_err(wall)?;
                self.sink.last_prepared = self.sink.last_prepared.max(c);
                crash_point(&self.hooks, &self.node, self.id, Phase::AfterPrepareCommit, c).await;
                match self.sink.downstream.as_mut() {
                    // Downstream, ahead of the barrier: from here on they are the global
                    // committer's (or writer w's committer's, w mod k), in its part of this
                    // checkpoint. The barrier goes to every task downstream.
                    Some(g) => {
                        let prepared: Vec<(CheckpointId, &Snk::Committable)> =
                            committables.iter().map(|x| (c, x)).collect();
                        let to = self.id % g.subtasks().len();
                        g.enqueue_on(to, Payload::Committables(encode(&prepared)));
                        g.broadcast(Payload::Barrier(c));
                    }
                    None => self.sink.pending.extend(committables.into_iter().map(|x| (c, x, 0))),
                }
                self.sink.snapshot_us = Some(crate::net::now().as_micros() as u64);
                crate::cluster::wall::encode_checked(&self.writer().snapshot_state(c), "the writer's state")
                    .map_err(wall)?
            }
            None => encode(&Vec::<Snk::WriterState>::new()), // a subtask that hosts only a reader
        };
        let pending: Vec<(CheckpointId, Snk::Committable)> =
            self.sink.pending.iter().map(|(c, x, _)| (*c, x.clone())).collect();
        let state = SubtaskState { splits: splits_bytes, writer, committables: encode(&pending), finished };
        if let Some(ms) = self.hooks.snapshot_stall(self.id) {
            madsim::time::sleep(Duration::from_millis(ms)).await; // a scenario made this snapshot slow
        }
        // Sent once, as Flink's: a lost acknowledgement lets the checkpoint expire.
        let delivered = self.uplink.send_once(MasterMsg::Ack { checkpoint: c, state });
        if self.hooks.crash_armed() {
            // Only worth waiting for when a crash may be aimed at the moment after the ack.
            // The phase means the job master has the ack: a lost one does not reach it.
            if delivered.await.is_ok() {
                crash_point(&self.hooks, &self.node, self.id, Phase::AfterAck, c).await;
                if stop {
                    crash_point(&self.hooks, &self.node, self.id, Phase::DuringSavepoint, c).await;
                }
            }
        }
        Ok(())
    }

    pub(super) async fn completed(&mut self, c: CheckpointId) -> Result<(), ConnectorError> {
        if self.sink.last_prepared > c {
            let barrier = self.sink.last_prepared;
            self.record(EventKind::LateNotification {
                subtask: self.id,
                attempt: self.attempt,
                checkpoint: c,
                barrier,
            });
        }
        if self.source.has_reader {
            self.source.reader.notify_checkpoint_complete(c);
        }
        if let Some(w) = self.sink.writer.as_mut() {
            w.notify_checkpoint_complete(c).await?;
        }
        self.sink.last_completed = self.sink.last_completed.max(c);
        self.commit_due(false).await
    }

    /// Commits every committable of a completed checkpoint; keeps the ones to retry.
    /// `recovered`: the restored attempt commits what its checkpoint held, before reading.
    pub(super) async fn commit_due(&mut self, recovered: bool) -> Result<(), ConnectorError> {
        let (due, later): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.sink.pending).into_iter().partition(|(c, _, _)| *c <= self.sink.last_completed);
        self.sink.pending = later;
        if due.is_empty() {
            return Ok(());
        }
        let requests: Vec<CommitRequest<Snk::Committable>> =
            due.iter().map(|(c, x, r)| CommitRequest { committable: x.clone(), checkpoint: *c, retries: *r }).collect();
        let n = requests.len();
        self.record(EventKind::CommitAttempt {
            subtask: self.id,
            attempt: self.attempt,
            checkpoint: self.sink.last_completed,
            requests: n,
        });
        let Some(committer) = self.sink.committer.as_mut() else {
            return Err(ConnectorError::fail_job("committables reached a subtask without a writer (a connsim bug)"));
        };
        let outcomes = committer.commit(requests).await;
        if outcomes.iter().any(|o| matches!(o, CommitOutcome::Committed)) {
            let phase = if recovered { Phase::InsideRecoveredCommit } else { Phase::InsideCommit };
            crash_point(&self.hooks, &self.node, self.id, phase, self.sink.last_completed).await;
        }
        if outcomes.len() != n {
            return Err(ConnectorError::fail_job(format!(
                "committer returned {} outcomes for {n} requests; return exactly one per request",
                outcomes.len()
            )));
        }
        // Committables to retry go back before the newer ones, so commits stay in checkpoint
        // order (a sink that keeps split order relies on it).
        let mut retry = Vec::new();
        let mut failed = None;
        for ((c, x, retries), outcome) in due.into_iter().zip(outcomes) {
            self.record(EventKind::CommitOutcome {
                subtask: self.id,
                attempt: self.attempt,
                checkpoint: c,
                outcome: outcome.clone(),
            });
            match outcome {
                CommitOutcome::Committed | CommitOutcome::AlreadyCommitted | CommitOutcome::FailedKnown(_) => {}
                CommitOutcome::RetryLater => retry.push((c, x, retries + 1)),
                CommitOutcome::FailedUnknown(reason) => {
                    failed.get_or_insert(reason);
                }
            }
        }
        retry.append(&mut self.sink.pending);
        self.sink.pending = retry;
        match failed {
            Some(reason) => Err(ConnectorError::fail_job(format!("commit failed for an unknown reason: {reason}"))),
            None => Ok(()),
        }
    }
}
