//! The Kafka source: one split per partition, an offsets initializer, `read_committed`, and
//! the group's offsets committed when a checkpoint completes (as Flink's `KafkaSource`).

use super::{KafkaEnumerator, KafkaReader, KafkaSplitReader};
#[cfg(madsim)]
use crate::log_source::LogSourceSetup;
use crate::log_source::{LogEmitter, LogEnumState, LogSplit, LogStart};
use connsim::api::{
    Boundedness, EnumeratorContext, FetcherMode, ReaderContext, Source, SourceReaderBase, WatermarkStrategy,
};
#[cfg(madsim)]
use connsim::run::{SourceSetup, World};

/// The Kafka source.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct KafkaSource {
    /// `bootstrap.servers`: the log's node.
    pub bootstrap: String,
    /// Topic to read.
    pub topic: String,
    /// Bounded (stop at the offsets seen at the first discovery, or `stop`) or unbounded.
    pub boundedness: Boundedness,
    /// Partition discovery interval for unbounded reads.
    pub discovery_interval_ms: u64,
    /// Messages per fetch.
    pub fetch_max: usize,
    /// Where the partitions of the first discovery start (later ones at the earliest offset).
    pub start: LogStart,
    /// Whether the first discovery's partitions start at `group_id`'s committed offsets
    /// where the group has one (Flink's `OffsetsInitializer.committedOffsets`), and where
    /// `start` says otherwise. What a new job without state then reads is what the last job's
    /// completed checkpoints did not cover.
    pub committed_start: bool,
    /// Bounded reads: where each partition stops.
    pub stop: Option<Vec<u64>>,
    /// `isolation.level`.
    pub isolation_level: String,
    /// `group.id` offsets are committed to when a checkpoint completes (`None`: none).
    pub group_id: Option<String>,
    /// Further consumer properties (`enable.auto.commit` is `false` unless set here).
    pub properties: Vec<(String, String)>,
    /// The watermark strategy.
    pub watermarks: Option<WatermarkStrategy>,
}

impl KafkaSource {
    /// The consumer configuration of readers and the enumerator.
    pub fn consumer_config(&self) -> rdkafka::ClientConfig {
        let mut c = super::client_config(&self.bootstrap, &[("isolation.level", &self.isolation_level)]);
        c.set("enable.auto.commit", "false").set("auto.offset.reset", "earliest");
        if let Some(group) = &self.group_id {
            c.set("group.id", group.as_str());
        }
        for (k, v) in &self.properties {
            c.set(k.as_str(), v.as_str());
        }
        c
    }
}

impl Source for KafkaSource {
    type Split = LogSplit;
    type EnumState = LogEnumState;
    type Enumerator = KafkaEnumerator;
    type Reader = KafkaReader;

    fn boundedness(&self) -> Boundedness {
        self.boundedness
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<LogSplit>) -> KafkaEnumerator {
        KafkaEnumerator::new(self.clone(), ctx, LogEnumState::default())
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> KafkaEnumerator {
        KafkaEnumerator::new(self.clone(), ctx, state)
    }
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        self.watermarks
    }
    fn create_reader(&self, ctx: ReaderContext) -> KafkaReader {
        let source = self.clone();
        let base = SourceReaderBase::new(
            ctx,
            move || KafkaSplitReader::new(&source),
            LogEmitter::new(self.watermarks),
            FetcherMode::Single,
        );
        KafkaReader::new(base, self)
    }
}

/// The consumer group the setup's source commits its offsets to.
#[cfg(madsim)]
pub const SOURCE_GROUP: &str = "connsim-source";

/// The log source's data and setup, read by the Kafka source.
#[cfg(madsim)]
#[derive(Clone, Debug)]
pub struct KafkaSourceSetup {
    /// The data: the log source's setup fills the log the same way.
    pub data: LogSourceSetup,
    /// `isolation.level` of the source.
    pub isolation_level: &'static str,
}

#[cfg(madsim)]
impl KafkaSourceSetup {
    /// The Kafka source over `data`, reading committed.
    pub fn new(data: LogSourceSetup) -> Self {
        Self { data, isolation_level: "read_committed" }
    }
}

#[cfg(madsim)]
impl SourceSetup for KafkaSourceSetup {
    type Source = KafkaSource;
    fn name(&self) -> String {
        self.data.name().replacen("log-source", "kafka-source", 1)
    }
    fn build(&self, world: &mut World) -> KafkaSource {
        let log = self.data.build(world);
        // A new job without state starts from the group's committed offsets.
        world.declare_group_start(SOURCE_GROUP);
        KafkaSource {
            bootstrap: format!("{}:9092", log.log),
            topic: log.topic,
            boundedness: log.boundedness,
            discovery_interval_ms: log.discovery_interval_ms,
            fetch_max: log.fetch_max,
            start: log.start,
            committed_start: true,
            stop: log.stop,
            isolation_level: self.isolation_level.to_string(),
            group_id: Some(SOURCE_GROUP.into()),
            properties: Vec::new(),
            watermarks: log.watermarks,
        }
    }
}
