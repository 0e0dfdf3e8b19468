//! **A restored watermark ahead of the replayed records**: the log source keeps each
//! split's watermark in its checkpointed state, so a restored reader resumes event time
//! where it stood. This one takes the watermark from the *fetch* (the largest event time of
//! the batch the record came in) instead of from the records it emitted.
//!
//! Story: a source that checkpoints "how far event time got" from the consumer's fetch
//! response (a broker's per-partition timestamp, a shard iterator's read-up-to time), as
//! Kinesis-style consumers persisting per-shard watermarks do. Within an attempt nothing is
//! wrong: the stored watermark is only announced after a restore. Flink's reader emits one
//! record per poll, so a barrier can fall inside a batch; the checkpoint then holds a
//! watermark above the records of the batch not yet emitted, and a restore from it replays
//! them behind a watermark their split already announced: late, so an event-time window
//! that closed at it drops them. Records themselves are never lost, duplicated or
//! reordered.
//!
//! Caught by: `event-time` (late records), only when a barrier falls inside a fetched batch
//! and a failover restores that checkpoint. Every other check passes.

use crate::log_source::{
    LogReading, LogSource, LogSourceReadBy, LogSourceSetup, LogSplit, LogSplitReader, LogSplitState,
};
use connsim::api::{FetchedBatch, ReaderOutput, RecordEmitter, SplitId, SplitReader, SplitsChange};
use connsim::run::{SourceSetup, World};
use connsim::{ConnectorError, Record};
use std::collections::BTreeMap;

/// How the buggy source reads: the reference split reader, each element told the latest
/// event time of its split in its batch, and an emitter that keeps that as the watermark.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct FetchTime;

/// The log source, with the bug.
pub type RestoresFetchedWatermarkSource = LogSourceReadBy<FetchTime>;

/// The reference split reader, telling each element the largest event time of its split in
/// the batch it came in.
pub struct FetchTimeReader(LogSplitReader);

impl SplitReader for FetchTimeReader {
    type Split = LogSplit;
    type Element = (u64, i64, Record);

    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, i64, Record)>, ConnectorError> {
        let batch = self.0.fetch().await?;
        let mut latest: BTreeMap<SplitId, i64> = BTreeMap::new();
        for (split, (_, record)) in &batch.elements {
            let t = latest.entry(split.clone()).or_insert(i64::MIN);
            *t = (*t).max(record.event_time_ms);
        }
        let elements = batch
            .elements
            .into_iter()
            .map(|(split, (offset, record))| (split.clone(), (offset, latest[&split], record)))
            .collect();
        Ok(FetchedBatch { elements, finished: batch.finished, idle: batch.idle })
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<LogSplit>) {
        self.0.handle_splits_changes(change)
    }
    async fn close(&mut self) {
        self.0.close().await
    }
}

/// The reference emitter, but the split's stored watermark follows the fetch.
pub struct FetchTimeEmitter {
    /// The strategy's out-of-orderness (`None`: no event time).
    pub delay_ms: Option<u64>,
}

impl RecordEmitter for FetchTimeEmitter {
    type Element = (u64, i64, Record);
    type State = LogSplitState;
    fn emit(
        &mut self,
        (offset, fetched_up_to, record): (u64, i64, Record),
        output: &mut ReaderOutput,
        state: &mut LogSplitState,
    ) {
        if let Some(w) = state.announce.take() {
            output.emit_watermark(w);
        }
        if let Some(delay) = self.delay_ms {
            // The bug: the batch's later records are not emitted yet.
            let w = fetched_up_to.saturating_sub(delay as i64).saturating_sub(1);
            state.split.watermark = state.split.watermark.max(Some(w));
        }
        output.collect(record);
        state.split.offset = offset + 1;
    }
}

impl LogReading for FetchTime {
    type SplitReader = FetchTimeReader;
    type Emitter = FetchTimeEmitter;
    fn split_reader(&self, reference: LogSplitReader) -> FetchTimeReader {
        FetchTimeReader(reference)
    }
    fn emitter(&self, source: &LogSource) -> FetchTimeEmitter {
        FetchTimeEmitter { delay_ms: source.watermarks.map(|w| w.max_out_of_orderness_ms) }
    }
}

/// Sets up the buggy source like [`LogSourceSetup`].
#[derive(Clone, Debug)]
pub struct RestoresFetchedWatermarkSetup(pub LogSourceSetup);

impl SourceSetup for RestoresFetchedWatermarkSetup {
    type Source = RestoresFetchedWatermarkSource;
    fn name(&self) -> String {
        format!("mutant:restores-fetched-watermark({})", self.0.name())
    }
    fn build(&self, world: &mut World) -> RestoresFetchedWatermarkSource {
        LogSourceReadBy(self.0.build(world), FetchTime)
    }
}
