//! **Ignores `add_splits_back`**: after a reader fails, the enumerator drops the splits the
//! runtime hands back to it.
//!
//! Story: the NATS connector's enumerator lost splits returned after a reader failure
//! (synadia-io/flink-connector-nats PR #93), as did Fluss's (apache/fluss #1929): splits
//! assigned since the last checkpoint were never read again.
//!
//! Caught by: `no-loss` (the records of the dropped splits never arrive) and
//! `split-accounting` (the split vanishes from the next completed checkpoint), under region
//! failover when a reader fails before its splits were checkpointed. Pinned seed: see the
//! mutants test.

use crate::log_source::{LogEnumState, LogEnumerator, LogReader, LogSource, LogSourceSetup, LogSplit};
use connsim::api::{Boundedness, EnumeratorContext, ReaderContext, Source, SplitEnumerator};
use connsim::history::CheckpointId;
use connsim::run::{SourceSetup, World};
use connsim::ConnectorError;

/// The log source, with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct IgnoresSplitsBackSource(pub LogSource);

/// A log enumerator that forgets returned splits.
pub struct IgnoresSplitsBack(LogEnumerator);

impl SplitEnumerator for IgnoresSplitsBack {
    type Split = LogSplit;
    type State = LogEnumState;
    async fn start(&mut self, ctx: &mut EnumeratorContext<LogSplit>) -> Result<(), ConnectorError> {
        self.0.start(ctx).await
    }
    fn add_splits_back(&mut self, _splits: Vec<LogSplit>, _subtask: usize, _ctx: &mut EnumeratorContext<LogSplit>) {
        // The bug: the returned splits are dropped on the floor.
    }
    fn add_reader(&mut self, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.0.add_reader(subtask, ctx)
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> LogEnumState {
        self.0.snapshot_state(checkpoint)
    }
    fn handle_async(&mut self, result: connsim::api::AsyncResult, ctx: &mut EnumeratorContext<LogSplit>) {
        self.0.handle_async(result, ctx)
    }
}

impl Source for IgnoresSplitsBackSource {
    type Split = LogSplit;
    type EnumState = LogEnumState;
    type Enumerator = IgnoresSplitsBack;
    type Reader = LogReader;
    fn boundedness(&self) -> Boundedness {
        self.0.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<LogSplit>) -> IgnoresSplitsBack {
        IgnoresSplitsBack(self.0.create_enumerator(ctx))
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> IgnoresSplitsBack {
        IgnoresSplitsBack(self.0.restore_enumerator(ctx, state))
    }
    fn watermark_strategy(&self) -> Option<connsim::api::WatermarkStrategy> {
        self.0.watermark_strategy()
    }
    fn create_reader(&self, ctx: ReaderContext) -> LogReader {
        self.0.create_reader(ctx)
    }
}

/// Sets up the buggy source like [`LogSourceSetup`].
#[derive(Clone, Debug)]
pub struct IgnoresSplitsBackSetup(pub LogSourceSetup);

impl SourceSetup for IgnoresSplitsBackSetup {
    type Source = IgnoresSplitsBackSource;
    fn name(&self) -> String {
        format!("mutant:ignores-add-splits-back({})", self.0.name())
    }
    fn build(&self, world: &mut World) -> IgnoresSplitsBackSource {
        IgnoresSplitsBackSource(self.0.build(world))
    }
}
