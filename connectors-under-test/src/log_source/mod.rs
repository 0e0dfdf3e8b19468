//! A log source (Kafka-like): one split per partition; bounded (stop at the end offsets seen
//! at start) or unbounded (periodic partition discovery).

mod enumerator;
mod reader;

pub use enumerator::{LogEnumState, LogEnumerator};
pub use reader::{LogEmitter, LogReader, LogSplitReader};

use connsim::api::{Boundedness, EnumeratorContext, FetcherMode, ReaderContext, Source, SourceReaderBase, Split, SplitId};
use connsim::run::{SourceSetup, World};
use connsim::systems::PartitionedLog;
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One partition of the topic, with the next offset to read and, when bounded, where to stop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogSplit {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: u32,
    /// Next offset to read.
    pub offset: u64,
    /// Stop before this offset (bounded reads).
    pub stop: Option<u64>,
}

impl Split for LogSplit {
    fn id(&self) -> SplitId {
        format!("{}-{}", self.topic, self.partition)
    }
}

/// The log source.
#[derive(Clone, Debug)]
pub struct LogSource {
    /// Node name of the log.
    pub log: String,
    /// Topic to read.
    pub topic: String,
    /// Bounded or unbounded.
    pub boundedness: Boundedness,
    /// Partition discovery interval for unbounded reads.
    pub discovery_interval_ms: u64,
    /// Records per fetch.
    pub fetch_max: usize,
}

impl Source for LogSource {
    type Split = LogSplit;
    type EnumState = LogEnumState;
    type Enumerator = LogEnumerator;
    type Reader = LogReader;

    fn boundedness(&self) -> Boundedness {
        self.boundedness
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<LogSplit>) -> LogEnumerator {
        LogEnumerator::new(self.clone(), ctx, LogEnumState::default())
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> LogEnumerator {
        LogEnumerator::new(self.clone(), ctx, state)
    }
    fn create_reader(&self, ctx: ReaderContext) -> LogReader {
        let (endpoint, log, fetch_max) = (ctx.endpoint().clone(), self.log.clone(), self.fetch_max);
        SourceReaderBase::new(
            ctx,
            move || LogSplitReader::new(endpoint.clone(), &log, fetch_max),
            LogEmitter,
            FetcherMode::Single,
        )
    }
}

/// Sets up a log with topic `input`, fills it and returns a [`LogSource`] reading it.
#[derive(Clone, Debug)]
pub struct LogSourceSetup {
    /// Partitions of `input`.
    pub partitions: u32,
    /// Records, spread randomly over partitions.
    pub records: u64,
    /// Bounded or unbounded read.
    pub boundedness: Boundedness,
}

impl LogSourceSetup {
    /// A bounded read of `records` records in `partitions` partitions.
    pub fn bounded(partitions: u32, records: u64) -> Self {
        Self { partitions, records, boundedness: Boundedness::Bounded }
    }
}

impl SourceSetup for LogSourceSetup {
    type Source = LogSource;
    fn name(&self) -> String {
        let kind = match self.boundedness {
            Boundedness::Bounded => "bounded",
            Boundedness::Unbounded => "unbounded",
        };
        format!("log-source({kind}, {}p, {} records)", self.partitions, self.records)
    }
    fn build(&self, world: &mut World) -> LogSource {
        let log = PartitionedLog::new("log", world.history().clone());
        log.create_topic("input", self.partitions);
        for _ in 0..self.records {
            let key = world.rng().gen_range(0..1_000u64);
            let partition = world.rng().gen_range(0..self.partitions);
            let record = world.new_record(key, format!("value-{key}").into_bytes());
            log.append("input", partition, vec![record]);
        }
        world.add_system(Arc::new(log));
        LogSource {
            log: "log".into(),
            topic: "input".into(),
            boundedness: self.boundedness,
            discovery_interval_ms: 50,
            fetch_max: 8,
        }
    }
}
