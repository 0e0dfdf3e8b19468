//! Deploying a subtask attempt: its restored state decoded, its operators created (the
//! reader, the writer and committer where it hosts them), recovered committables committed
//! again, and the reader registered with the enumerator.

use super::operators::{SinkOperator, SourceOperator};
use super::{crash_point, decode, exchanged, now_ms, Subtask, SubtaskSetup};
use crate::api::{
    CommitterContext, PauseLedger, ReaderContext, Sink, Source, SourceReader, WatermarkTracker, WriterContext,
};
use crate::cluster::exchange::Outbox;
use crate::cluster::hooks::Phase;
use crate::cluster::protocol::MasterMsg;
use crate::cluster::reader_alignment::ReaderAlignment;
use crate::cluster::uplink::Uplink;
use crate::error::ConnectorError;
use crate::history::{CheckpointId, EventKind};
use std::time::Duration;
use tokio::sync::mpsc;

impl<Src: Source, Snk: Sink> Subtask<Src, Snk> {
    /// Starts attempt `setup.attempt` of the subtask; on failure the uplink comes back, to
    /// report it.
    pub(super) async fn start(setup: SubtaskSetup<Src, Snk>, uplink: Uplink) -> Result<Self, (ConnectorError, Uplink)> {
        let node = setup.endpoint.addr().to_string();
        let restored_cp = setup.restore.as_ref().map_or(0, |(c, _)| *c);
        setup.history.record(
            &node,
            EventKind::Deployed { subtask: setup.subtask, attempt: setup.attempt, checkpoint: restored_cp },
        );
        let restored = match &setup.restore {
            Some((_, state)) => (|| {
                Ok((
                    decode::<Vec<Src::Split>>(&state.splits, "restored splits")?,
                    decode::<Vec<Snk::WriterState>>(&state.writer, "restored writer state")?,
                    decode::<Vec<(CheckpointId, Snk::Committable)>>(&state.committables, "restored committables")?,
                ))
            })(),
            None => Ok((Vec::new(), Vec::new(), Vec::new())),
        };
        let (splits, writer_state, committables): (Vec<Src::Split>, _, _) = match restored {
            Ok(r) => r,
            Err(e) => return Err((e, uplink)),
        };
        let (req_tx, requests) = mpsc::unbounded_channel();
        // What the connector sends is known to come from this attempt.
        let connector_endpoint = setup.endpoint.for_attempt(setup.subtask, setup.attempt);
        let pauses = PauseLedger::default();
        let reader = setup.source.create_reader(ReaderContext {
            subtask: setup.subtask,
            parallelism: setup.shape.parallelism,
            endpoint: connector_endpoint.clone(),
            requests: req_tx,
            pauses: pauses.clone(),
        });
        let wctx = WriterContext {
            subtask: setup.subtask,
            parallelism: setup.shape.writers,
            attempt: setup.attempt,
            restored_checkpoint: crate::history::local_checkpoint(restored_cp),
            job_id: crate::history::job_id(setup.shape.job),
            endpoint: connector_endpoint.clone(),
        };
        let mut reader = reader;
        let has_writer = setup.subtask < setup.shape.writers;
        let writer = if has_writer {
            match setup.sink.create_writer(wctx, writer_state).await {
                Ok(w) => Some(w),
                Err(e) => {
                    reader.close().await;
                    return Err((e, uplink));
                }
            }
        } else {
            None
        };
        // A writer's committer is chained to it unless the committers run as tasks of their own.
        let committer = (has_writer && setup.shape.committers == 0).then(|| {
            setup.sink.create_committer(CommitterContext {
                subtask: setup.subtask,
                attempt: setup.attempt,
                restored_checkpoint: crate::history::local_checkpoint(restored_cp),
                job_id: crate::history::job_id(setup.shape.job),
                endpoint: connector_endpoint.clone(),
            })
        });
        let has_reader = setup.subtask < setup.shape.parallelism;
        let mut task: Subtask<Src, Snk> = Subtask {
            id: setup.subtask,
            attempt: setup.attempt,
            node,
            history: setup.history,
            hooks: setup.hooks,
            uplink,
            control: setup.control,
            source: SourceOperator {
                reader,
                has_reader,
                ended: false,
                stopped: false,
                requests,
                requests_open: true,
                watermarks: setup.shape.watermarks.map(|w| {
                    WatermarkTracker::new(w, now_ms())
                        .with_bug(setup.shape.runtime_bug.and_then(crate::cluster::config::RuntimeBug::in_tracker))
                }),
                current_split: None,
                spare_records: Vec::new(),
                // Only readers report to watermark alignment.
                alignment: setup
                    .shape
                    .watermarks
                    .and_then(|w| w.alignment)
                    .filter(|_| setup.subtask < setup.shape.parallelism)
                    .map(|a| ReaderAlignment::new(a, now_ms())),
                tells_fetches: false,
                pauses,
            },
            sink: SinkOperator {
                writer,
                committer,
                pending: committables.into_iter().map(|(c, x)| (c, x, 0)).collect(),
                last_completed: restored_cp,
                last_prepared: 0,
                input_ended: false,
                snapshot_us: None,
                downstream: has_writer
                    .then(|| setup.shape.downstream(setup.sink.has_global_committer()))
                    .flatten()
                    .map(|(first, count)| {
                        Outbox::downstream(setup.subtask, setup.attempt, setup.endpoint.clone(), first, count)
                    }),
            },
            exchange: setup.shape.exchange.all_to_all().then(|| {
                exchanged::Exchanged::new(
                    setup.subtask,
                    setup.attempt,
                    &setup.endpoint,
                    setup.shape.exchange,
                    (setup.shape.parallelism, setup.shape.writers),
                    setup.shape.aligned_barriers,
                )
            }),
        };
        if !splits.is_empty() {
            task.track_splits(&splits);
            task.source.reader.add_splits(splits);
        }
        if !task.source.has_reader {
            task.without_reader();
        } else if let Err(e) = task.source.reader.start().await {
            task.close(true).await;
            return Err((e, task.uplink));
        }
        if restored_cp > 0 {
            // Restored: writer, reader and committer hold their state; nothing committed or polled yet.
            crash_point(&task.hooks, &task.node, task.id, Phase::AfterRestore, restored_cp).await;
        }
        // Recovered committables belong to a completed checkpoint: commit them again (idempotently).
        if let Err(e) = task.commit_due(true).await {
            task.close(true).await;
            return Err((e, task.uplink));
        }
        if let Some(ms) = task.hooks.start_stall(task.id) {
            madsim::time::sleep(Duration::from_millis(ms)).await; // a scenario made this start slow
        }
        if task.source.has_reader {
            task.uplink.send(MasterMsg::Register);
        }
        Ok(task)
    }
}
