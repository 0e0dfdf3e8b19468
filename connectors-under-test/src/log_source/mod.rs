//! A log source (Kafka-like): one split per partition; bounded (stop at the end offsets seen
//! at start) or unbounded (periodic partition discovery).

mod enumerator;
mod reader;

pub use enumerator::{LogEnumState, LogEnumerator};
pub use reader::{LogEmitter, LogReader, LogSplitReader};

use connsim::api::{Boundedness, EnumeratorContext, FetcherMode, ReaderContext, Source, SourceReaderBase, Split, SplitId};
use connsim::run::{Producer, SourceSetup, World};
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

/// Lets scenario blocks produce into the topic and add partitions while an unbounded job runs.
struct LogProducer {
    log: PartitionedLog,
    topic: String,
}

impl Producer for LogProducer {
    fn produce(&self, records: Vec<(connsim::record::Record, u64)>) {
        let partitions = u64::from(self.log.partitions(&self.topic).max(1));
        for (record, hint) in records {
            self.log.append(&self.topic, (hint % partitions) as u32, vec![record]);
        }
    }
    fn splits(&self) -> u64 {
        u64::from(self.log.partitions(&self.topic))
    }
    fn add_splits(&self, n: u64) {
        let now = self.log.partitions(&self.topic);
        self.log.create_topic(&self.topic, now + n as u32);
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
    /// Unbounded only: partitions added while the job runs, with records produced into
    /// every partition during the first second.
    pub partitions_added: u32,
}

impl LogSourceSetup {
    /// A bounded read of `records` records in `partitions` partitions.
    pub fn bounded(partitions: u32, records: u64) -> Self {
        Self { partitions, records, boundedness: Boundedness::Bounded, partitions_added: 0 }
    }

    /// An unbounded read: half the records are there at the start, the rest arrive during
    /// the first second while `partitions_added` partitions are created.
    pub fn unbounded(partitions: u32, records: u64, partitions_added: u32) -> Self {
        Self { partitions, records, boundedness: Boundedness::Unbounded, partitions_added }
    }
}

impl SourceSetup for LogSourceSetup {
    type Source = LogSource;
    fn name(&self) -> String {
        let kind = match self.boundedness {
            Boundedness::Bounded => "bounded",
            Boundedness::Unbounded => "unbounded",
        };
        format!("log-source({kind}, {}p+{}, {} records)", self.partitions, self.partitions_added, self.records)
    }
    fn build(&self, world: &mut World) -> LogSource {
        let log = PartitionedLog::new("log", world.history().clone());
        log.create_topic("input", self.partitions);
        let upfront = match self.boundedness {
            Boundedness::Bounded => self.records,
            Boundedness::Unbounded => self.records / 2,
        };
        for _ in 0..upfront {
            let key = world.rng().gen_range(0..1_000u64);
            let partition = world.rng().gen_range(0..self.partitions);
            let record = world.new_record(key, format!("value-{key}").into_bytes());
            log.append("input", partition, vec![record]);
        }
        if self.boundedness == Boundedness::Unbounded {
            // An upstream producer: 20 rounds over the first second; new partitions appear halfway.
            let (log, maker, mut rng) = (log.clone(), world.record_maker(), world.rng().clone());
            let (rest, first, added) = (self.records - upfront, self.partitions, self.partitions_added);
            world.during_run(async move {
                let rounds = 20;
                for round in 0..rounds {
                    madsim::time::sleep(std::time::Duration::from_millis(50)).await;
                    if round == rounds / 2 {
                        log.create_topic("input", first + added);
                    }
                    let partitions = log.partitions("input");
                    for _ in 0..rest / rounds + u64::from(round < rest % rounds) {
                        let key = rng.gen_range(0..1_000u64);
                        let record = maker.make(key, format!("value-{key}").into_bytes());
                        log.append("input", rng.gen_range(0..partitions), vec![record]);
                    }
                }
            });
        }
        if self.boundedness == Boundedness::Unbounded {
            world.set_producer(Arc::new(LogProducer { log: log.clone(), topic: "input".into() }));
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
