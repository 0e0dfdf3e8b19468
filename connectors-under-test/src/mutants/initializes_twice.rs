//! **A new partition initialized twice when discovery rounds overlap**: the enumerator finds
//! new partitions in two steps, as Flink's Kafka enumerator does: a periodic round lists the
//! partitions and picks those it does not know yet, then a second call per new partition
//! looks up where it starts, and only that call's result makes the partition known (a
//! pending split). While a partition's second step is still out, the next round finds it new
//! again and starts another; when both answer, the partition becomes two splits, read twice.
//!
//! Story: FLINK-40615 (apache/flink-connector-kafka PR #305): `KafkaSourceEnumerator`
//! assigned the same partition to two readers when the discovery interval was shorter than
//! the time split initialization took; its partition-change check deduplicated against
//! assigned and pending splits only, not against partitions still being initialized, and a
//! test read 120 records of 100. The fix keeps a set of partitions being initialized.
//!
//! Caught by: `no-duplicates`, in the case "discovery overlaps slow responses" only: with
//! discovery every 10 ms and the log answering the job master 20 ms late each way, the next
//! round's listing reaches the enumerator before the previous round's lookup. In the other
//! fixed cases a round ends long before the next begins (discovery every 50 ms, a lookup that
//! times out after 50 ms), so a second lookup does not find the partition unknown: a
//! 200-seed sweep of the whole source suite failed only this case, on 185 seeds (`connsim
//! sweep --target "initialized twice" --format json`). The swarm's random delays could, rarely,
//! overlap them too.

use crate::log_source::{Discovered, LogEnumState, LogEnumerator, LogReader, LogSource, LogSourceSetup, LogSplit};
use connsim::api::{AsyncResult, Boundedness, EnumeratorContext, ReaderContext, Source, SplitEnumerator};
use connsim::history::CheckpointId;
use connsim::run::{SourceSetup, World};
use connsim::systems::LogClient;
use connsim::ConnectorError;
use serde::{Deserialize, Serialize};

/// The log source with the two-step discovery.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InitializesTwiceSource(pub LogSource);

/// The second step's answer: partition `partition` starts at `start` (its first offset).
struct Initialized {
    partition: u32,
    start: Result<u64, ConnectorError>,
}

/// The reference enumerator, with discovery's second step in front of it.
pub struct InitializesTwice {
    source: LogSource,
    inner: LogEnumerator,
    client: LogClient,
}

impl InitializesTwice {
    fn new(source: &LogSource, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> Self {
        let client = LogClient::new(ctx.endpoint().clone(), &source.log);
        Self { source: source.clone(), inner: LogEnumerator::new(source.clone(), ctx, state), client }
    }

    /// A listing's new partitions: each gets a lookup of where it starts.
    fn listed(&mut self, ends: Vec<u64>, ctx: &mut EnumeratorContext<LogSplit>) {
        let known = self.inner.snapshot_state(0).discovered;
        for partition in (0..ends.len() as u32).filter(|p| !known.contains(p)) {
            let (client, topic) = (self.client.clone(), self.source.topic.clone());
            ctx.call_async(async move {
                let start = client.end_offsets(&topic).await.map(|_| 0);
                Initialized { partition, start }
            });
        }
    }

    /// A lookup's answer makes its partition a pending split.
    fn initialized(&mut self, partition: u32, start: u64, ctx: &mut EnumeratorContext<LogSplit>) {
        // The bug: nothing asks whether another round's lookup made it known meanwhile.
        let mut state = self.inner.snapshot_state(0);
        state.discovered.insert(partition);
        let topic = self.source.topic.clone();
        state.pending.push(LogSplit { topic, partition, offset: start, stop: None, watermark: None });
        self.inner = LogEnumerator::new(self.source.clone(), ctx, state);
        self.inner.assign_pending(ctx);
    }
}

impl SplitEnumerator for InitializesTwice {
    type Split = LogSplit;
    type State = LogEnumState;
    async fn start(&mut self, ctx: &mut EnumeratorContext<LogSplit>) -> Result<(), ConnectorError> {
        self.inner.start(ctx).await
    }
    fn handle_split_request(&mut self, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.inner.handle_split_request(subtask, ctx)
    }
    fn add_splits_back(&mut self, splits: Vec<LogSplit>, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.inner.add_splits_back(splits, subtask, ctx)
    }
    fn add_reader(&mut self, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.inner.add_reader(subtask, ctx)
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> LogEnumState {
        self.inner.snapshot_state(checkpoint)
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        self.inner.notify_checkpoint_complete(checkpoint)
    }
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId) {
        self.inner.notify_checkpoint_aborted(checkpoint)
    }
    fn handle_source_event(&mut self, subtask: usize, event: Vec<u8>, ctx: &mut EnumeratorContext<LogSplit>) {
        self.inner.handle_source_event(subtask, event, ctx)
    }
    fn reader_failed(&mut self, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.inner.reader_failed(subtask, ctx)
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
    fn handle_async(&mut self, result: AsyncResult, ctx: &mut EnumeratorContext<LogSplit>) {
        // The reference's periodic listing is the first step; a failed one is tried again at
        // the next interval, a failed lookup at the next listing.
        let result = match result.downcast::<Discovered>() {
            Ok(listed) => {
                if let Discovered(Ok(ends)) = *listed {
                    self.listed(ends, ctx);
                }
                return;
            }
            Err(other) => other,
        };
        if let Ok(lookup) = result.downcast::<Initialized>() {
            if let Initialized { partition, start: Ok(start) } = *lookup {
                self.initialized(partition, start, ctx);
            }
        }
    }
}

impl Source for InitializesTwiceSource {
    type Split = LogSplit;
    type EnumState = LogEnumState;
    type Enumerator = InitializesTwice;
    type Reader = LogReader;
    fn boundedness(&self) -> Boundedness {
        self.0.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<LogSplit>) -> InitializesTwice {
        InitializesTwice::new(&self.0, ctx, LogEnumState::default())
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> InitializesTwice {
        InitializesTwice::new(&self.0, ctx, state)
    }
    fn watermark_strategy(&self) -> Option<connsim::api::WatermarkStrategy> {
        self.0.watermark_strategy()
    }
    fn create_reader(&self, ctx: ReaderContext) -> LogReader {
        self.0.create_reader(ctx)
    }
}

/// Sets up the log like [`LogSourceSetup`], read by the buggy source.
#[derive(Clone, Debug)]
pub struct InitializesTwiceSetup(pub LogSourceSetup);

impl SourceSetup for InitializesTwiceSetup {
    type Source = InitializesTwiceSource;
    fn name(&self) -> String {
        format!("mutant:initializes-twice({})", self.0.name())
    }
    fn build(&self, world: &mut World) -> InitializesTwiceSource {
        InitializesTwiceSource(self.0.build(world))
    }
}
