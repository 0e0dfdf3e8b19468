//! The log enumerator: partition p belongs to reader p mod parallelism (as Kafka's does).

use super::{LogSource, LogSplit, LogStart};
use connsim::api::{AsyncResult, Boundedness, EnumeratorContext, EnumeratorState, Split, SplitEnumerator, SplitId};
use connsim::history::CheckpointId;
use connsim::systems::LogClient;
use connsim::ConnectorError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::time::Duration;

/// Checkpointed state: splits discovered but not yet assigned, and every partition seen.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LogEnumState {
    /// Unassigned splits.
    pub pending: Vec<LogSplit>,
    /// Partitions discovered so far (assigned or not).
    pub discovered: BTreeSet<u32>,
}

impl EnumeratorState for LogEnumState {
    fn pending_splits(&self) -> Vec<SplitId> {
        self.pending.iter().map(Split::id).collect()
    }
}

/// What a periodic discovery found: the end offsets of every partition.
pub struct Discovered(pub Result<Vec<u64>, ConnectorError>);

/// The log enumerator.
pub struct LogEnumerator {
    source: LogSource,
    client: LogClient,
    state: LogEnumState,
}

impl LogEnumerator {
    pub(crate) fn new(source: LogSource, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> Self {
        let client = LogClient::new(ctx.endpoint().clone(), &source.log);
        Self { source, client, state }
    }

    fn owner(&self, split: &LogSplit, parallelism: usize) -> usize {
        split.partition as usize % parallelism
    }

    /// Finds partitions not seen before and adds them as pending splits: the first
    /// discovery's partitions start where the source's start says, later ones at offset 0.
    async fn discover_partitions(&mut self) -> Result<(), ConnectorError> {
        let ends = self.client.end_offsets(&self.source.topic).await?;
        self.add_partitions(ends);
        Ok(())
    }

    /// Adds the partitions of `ends` (end offsets by partition) not seen before.
    fn add_partitions(&mut self, ends: Vec<u64>) {
        let bounded = self.source.boundedness == Boundedness::Bounded;
        let first = self.state.discovered.is_empty();
        for (partition, end) in ends.into_iter().enumerate() {
            let partition = partition as u32;
            if self.state.discovered.insert(partition) {
                let offset = match (&self.source.start, first) {
                    (LogStart::Latest, true) => end,
                    (LogStart::Offset(k), true) => *k,
                    _ => 0,
                };
                let stop = self.source.stop.as_ref().and_then(|s| s.get(partition as usize).copied()).unwrap_or(end);
                self.state.pending.push(LogSplit {
                    topic: self.source.topic.clone(),
                    partition,
                    offset,
                    stop: bounded.then_some(stop),
                    watermark: None,
                });
            }
        }
    }

    /// Hands every pending split to its owner if that reader is registered; bounded reads
    /// then tell each registered reader with nothing left pending that no more will come.
    pub(crate) fn assign_pending(&mut self, ctx: &mut EnumeratorContext<LogSplit>) {
        let bounded = self.source.boundedness == Boundedness::Bounded;
        self.assign_pending_signalling(ctx, bounded);
    }

    /// Puts splits back among the pending ones, assigning nothing.
    pub(crate) fn take_back(&mut self, splits: Vec<LogSplit>) {
        self.state.pending.extend(splits);
    }

    /// Assigns pending splits to their registered owners; `signal`: then tell each that no
    /// more splits will come.
    pub(crate) fn assign_pending_signalling(&mut self, ctx: &mut EnumeratorContext<LogSplit>, signal: bool) {
        let p = ctx.parallelism();
        for reader in ctx.registered_readers().clone() {
            let (mine, rest): (Vec<_>, Vec<_>) =
                std::mem::take(&mut self.state.pending).into_iter().partition(|s| self.owner(s, p) == reader);
            self.state.pending = rest;
            ctx.assign_splits(reader, mine);
            if signal {
                ctx.signal_no_more_splits(reader);
            }
        }
    }
}

impl SplitEnumerator for LogEnumerator {
    type Split = LogSplit;
    type State = LogEnumState;

    async fn start(&mut self, ctx: &mut EnumeratorContext<LogSplit>) -> Result<(), ConnectorError> {
        // Bounded reads fix their end offsets once, at the first start; a restored enumerator
        // already knows its partitions.
        if self.state.discovered.is_empty() {
            self.discover_partitions().await?;
        }
        if self.source.boundedness == Boundedness::Unbounded {
            // Discovery runs off the coordinator's loop; its result is handled on it.
            let (client, topic) = (self.client.clone(), self.source.topic.clone());
            ctx.call_async_periodically(Duration::from_millis(self.source.discovery_interval_ms), move || {
                let (client, topic) = (client.clone(), topic.clone());
                async move { Discovered(client.end_offsets(&topic).await) }
            });
        }
        self.assign_pending(ctx);
        Ok(())
    }

    fn add_splits_back(&mut self, splits: Vec<LogSplit>, _subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.state.pending.extend(splits);
        self.assign_pending(ctx);
    }

    fn add_reader(&mut self, _subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.assign_pending(ctx);
    }

    fn snapshot_state(&mut self, _checkpoint: CheckpointId) -> LogEnumState {
        self.state.clone()
    }

    fn handle_async(&mut self, result: AsyncResult, ctx: &mut EnumeratorContext<LogSplit>) {
        // A failed discovery is tried again at the next interval.
        if let Ok(Discovered(Ok(ends))) = result.downcast::<Discovered>().map(|d| *d) {
            self.add_partitions(ends);
            self.assign_pending(ctx);
        }
    }
}
