//! **The split state takes the fetch position**: the log source's record emitter moves a
//! split's offset to where the fetch that brought the record ended (the position of the
//! split reader, past the whole batch) instead of just past the record it emitted.
//!
//! Story: a source whose checkpointed position is the consumer's fetch position rather than
//! the position of the last record handed downstream (Kafka's `position()` against the
//! offset of the last emitted record; Flink's Kafka source records `offset + 1` per record
//! for this reason). It is invisible while a reader emits a whole fetched batch between two
//! barriers: after the batch, both positions agree. Flink's reader emits one record per
//! poll, so a barrier can fall inside a batch; the checkpoint then claims records that were
//! not emitted yet, and a restore from it skips them.
//!
//! Caught by: `no-loss`, when a barrier falls inside a fetched batch and a failover later
//! restores that checkpoint before the next one completes.

use crate::log_source::{LogReading, LogSource, LogSourceReadBy, LogSourceSetup, LogSplit, LogSplitReader};
use connsim::api::{FetchedBatch, ReaderOutput, RecordEmitter, SplitId, SplitReader, SplitsChange};
use connsim::run::{SourceSetup, World};
use connsim::{ConnectorError, Record};
use std::collections::BTreeMap;

/// How the buggy source reads: the reference split reader, each element told where its
/// fetch ended, and an emitter that moves the split there.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct FetchPosition;

/// The log source, with the bug.
pub type SnapshotsFetchPositionSource = LogSourceReadBy<FetchPosition>;

/// The reference split reader, telling each element where its fetch ended.
pub struct FetchPositionReader(LogSplitReader);

impl SplitReader for FetchPositionReader {
    type Split = LogSplit;
    type Element = (u64, u64, Record);

    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, u64, Record)>, ConnectorError> {
        let batch = self.0.fetch().await?;
        let mut ends: BTreeMap<SplitId, u64> = BTreeMap::new();
        for (split, (offset, _)) in &batch.elements {
            let end = ends.entry(split.clone()).or_default();
            *end = (*end).max(offset + 1);
        }
        let elements = batch
            .elements
            .into_iter()
            .map(|(split, (offset, record))| (split.clone(), (offset, ends[&split], record)))
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

/// Emits the record and moves the split to the end of its fetch.
pub struct FetchPositionEmitter;

impl RecordEmitter for FetchPositionEmitter {
    type Element = (u64, u64, Record);
    type State = LogSplit;
    fn emit(
        &mut self,
        (_offset, fetch_end, record): (u64, u64, Record),
        output: &mut ReaderOutput,
        state: &mut LogSplit,
    ) {
        output.collect(record);
        state.offset = fetch_end; // the bug: the records after this one in the batch are not emitted yet
    }
}

impl LogReading for FetchPosition {
    type SplitReader = FetchPositionReader;
    type Emitter = FetchPositionEmitter;
    fn split_reader(&self, reference: LogSplitReader) -> FetchPositionReader {
        FetchPositionReader(reference)
    }
    fn emitter(&self, _source: &LogSource) -> FetchPositionEmitter {
        FetchPositionEmitter
    }
}

/// Sets up the buggy source like [`LogSourceSetup`].
#[derive(Clone, Debug)]
pub struct SnapshotsFetchPositionSetup(pub LogSourceSetup);

impl SourceSetup for SnapshotsFetchPositionSetup {
    type Source = SnapshotsFetchPositionSource;
    fn name(&self) -> String {
        format!("mutant:snapshots-fetch-position({})", self.0.name())
    }
    fn build(&self, world: &mut World) -> SnapshotsFetchPositionSource {
        LogSourceReadBy(self.0.build(world), FetchPosition)
    }
}
