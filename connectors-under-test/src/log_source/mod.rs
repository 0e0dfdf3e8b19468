//! A log source (Kafka-like): one split per partition; bounded (stop at the end offsets seen
//! at start, or at given offsets) or unbounded (periodic partition discovery). It starts
//! each partition present at its first discovery where [`LogStart`] says (earliest, latest,
//! or given offsets), and partitions discovered later from the earliest offset, as Flink's
//! Kafka source does.

#[cfg(madsim)]
mod by_event;
mod enumerator;
#[cfg(madsim)]
mod read_by;
mod reader;
#[cfg(madsim)]
mod upstream;

#[cfg(madsim)]
pub use by_event::{EventSplitsReader, LogSourceByEvent, SplitEvents};
pub use enumerator::{Discovered, HandOver, LogEnumState, LogEnumerator};
#[cfg(madsim)]
pub use read_by::{LogReading, LogSourceReadBy};
pub use reader::{LogEmitter, LogSplitState};
#[cfg(madsim)]
pub use reader::{LogReader, LogSplitReader};

use connsim::api::{Boundedness, Split, SplitId, WatermarkStrategy};
#[cfg(madsim)]
use connsim::api::{EnumeratorContext, FetcherMode, ReaderContext, Source, SourceReaderBase};
#[cfg(madsim)]
use connsim::run::{Producer, SourceSetup, StartPosition, World};
#[cfg(madsim)]
use connsim::systems::PartitionedLog;
#[cfg(madsim)]
use rand::Rng;
use serde::{Deserialize, Serialize};
#[cfg(madsim)]
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
    /// The split's watermark as of `offset` (when the job reads the topic with a watermark
    /// strategy): no record from `offset` on is at or below it. A restored reader announces
    /// it with the split's first record, so event time resumes where the checkpoint left it.
    #[serde(default)]
    pub watermark: Option<i64>,
}

impl Split for LogSplit {
    fn id(&self) -> SplitId {
        format!("{}-{}", self.topic, self.partition)
    }
    fn position(&self) -> Option<u64> {
        Some(self.offset)
    }
}

/// Where the source starts reading the partitions it finds at its first discovery (a Flink
/// `OffsetsInitializer`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LogStart {
    /// The first offset.
    Earliest,
    /// The end offset at discovery: what is there already is skipped.
    Latest,
    /// The same offset in every partition.
    Offset(u64),
}

/// Where a reader seeks when retention deleted its position (Kafka's `auto.offset.reset`,
/// used when a fetch is answered `OffsetOutOfRange`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OffsetReset {
    /// The log start offset: the oldest record retention kept. Only what was deleted is lost.
    #[default]
    Earliest,
    /// The end offset: skips every record still there.
    Latest,
}

/// The log source.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
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
    /// Where reading starts.
    pub start: LogStart,
    /// Bounded reads: where each partition stops (`None`: its end offset at discovery).
    pub stop: Option<Vec<u64>>,
    /// Where a reader seeks when retention deleted its position.
    pub on_out_of_range: OffsetReset,
    /// The watermark strategy the job reads the topic with (`None`: no event time).
    #[serde(default)]
    pub watermarks: Option<WatermarkStrategy>,
    /// Marks a partition idle when a fetch finds it caught up (`ReaderOutput::mark_idle`), so
    /// an empty partition does not hold the combined watermark back. Not safe even where event
    /// time follows production: a record appended to the partition right after the fetch
    /// found it empty can be fetched after a record appended later to another partition has
    /// raised the combined watermark past it, and is then late (the `event-time` check fails
    /// the run). The reference leaves it off; `tests/suites/event_time.rs` turns it on and
    /// shows it caught.
    #[serde(default)]
    pub idle_when_caught_up: bool,
}

#[cfg(madsim)]
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
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        self.watermarks
    }
    fn create_reader(&self, ctx: ReaderContext) -> LogReader {
        let (source, endpoint) = (self.clone(), ctx.endpoint().clone());
        SourceReaderBase::new(
            ctx,
            move || source.split_reader(endpoint.clone()),
            LogEmitter::new(self.watermarks),
            FetcherMode::Single,
        )
    }
}

#[cfg(madsim)]
impl LogSource {
    /// The reference split reader for this source, talking to the log from `endpoint`.
    pub fn split_reader(&self, endpoint: connsim::net::Endpoint) -> LogSplitReader {
        LogSplitReader::new(endpoint, &self.log, self.fetch_max)
            .resetting_to(self.on_out_of_range)
            .marking_idle(self.idle_when_caught_up)
    }
}

/// Lets scenario blocks produce into the topic and add partitions while an unbounded job runs.
#[cfg(madsim)]
struct LogProducer {
    log: PartitionedLog,
    topic: String,
    skew_ms: u64,
}

#[cfg(madsim)]
impl Producer for LogProducer {
    fn produce(&self, records: Vec<(connsim::record::Record, u64)>) {
        let partitions = u64::from(self.log.partitions(&self.topic).max(1));
        for (record, hint) in records {
            let partition = (hint % partitions) as u32;
            self.log.append(&self.topic, partition, vec![skewed(record, partition, self.skew_ms)]);
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
#[cfg(madsim)]
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
    /// Bounded: the records arrive evenly over this much virtual time (0: all there at the
    /// start). Unbounded: half are there at the start, the rest arrive over this span.
    pub pace_ms: u64,
    /// Where the source starts reading.
    pub start: LogStart,
    /// Records written to every partition before any of the test data (and before the job
    /// starts): what a start position other than earliest skips.
    pub before_start: u64,
    /// The watermark strategy the job reads the topic with. A record's event time is its
    /// id, so every partition's event times only grow: monotonous holds.
    pub watermarks: Option<WatermarkStrategy>,
    /// Event-time skew: a record in partition `p` has event time `id + p × skew_ms`, so the
    /// partitions' event times drift apart (what watermark alignment holds together).
    pub skew_ms: u64,
    /// Records a split reader asks for per fetch (default 8).
    pub fetch_max: usize,
    /// Unbounded: how often the enumerator looks for new partitions (default 50 ms).
    pub discovery_interval_ms: u64,
    /// Marks a partition idle whenever a fetch finds it caught up ([`LogSource::idle_when_caught_up`]).
    pub idle_when_caught_up: bool,
    /// Entries of an aborted upstream transaction at the head of every partition: a
    /// read-committed reader skips them; one that reads uncommitted data invents records.
    pub aborted_before: u64,
    /// On real data, the test data is written as a transactional upstream writes it
    /// (`upstream.rs`): committed transactions with their markers, aborted ones between
    /// them, every partition ending in a control record and a transaction still open, and
    /// (unbounded) one open mid-stream for a while. Bounded reads over time are written
    /// plainly. On by default.
    pub transactional_upstream: bool,
}

#[cfg(madsim)]
impl LogSourceSetup {
    /// A bounded read of `records` records in `partitions` partitions, all there at the start.
    pub fn bounded(partitions: u32, records: u64) -> Self {
        Self {
            partitions,
            records,
            boundedness: Boundedness::Bounded,
            partitions_added: 0,
            pace_ms: 0,
            start: LogStart::Earliest,
            before_start: 0,
            watermarks: None,
            skew_ms: 0,
            fetch_max: 8,
            discovery_interval_ms: 50,
            idle_when_caught_up: false,
            aborted_before: 0,
            transactional_upstream: true,
        }
    }

    /// Writes the test data plainly, one committed record after another, even on real
    /// data: no transaction markers, no open transactions.
    pub fn plain_upstream(mut self) -> Self {
        self.transactional_upstream = false;
        self
    }

    /// Puts `n` entries of an aborted upstream transaction at the head of every partition.
    pub fn with_aborted_head(mut self, n: u64) -> Self {
        self.aborted_before = n;
        self
    }

    /// An unbounded read: half the records are there at the start, the rest arrive during
    /// the first second while `partitions_added` partitions are created.
    pub fn unbounded(partitions: u32, records: u64, partitions_added: u32) -> Self {
        Self {
            boundedness: Boundedness::Unbounded,
            partitions_added,
            pace_ms: 1_000,
            ..Self::bounded(partitions, records)
        }
    }

    /// Starts at `start`, with `before_start` records in every partition ahead of the test
    /// data (skipped unless `start` is earliest).
    pub fn starting(mut self, start: LogStart, before_start: u64) -> Self {
        self.start = start;
        self.before_start = before_start;
        self
    }

    /// Reads the topic with watermark strategy `strategy`.
    pub fn with_watermarks(mut self, strategy: WatermarkStrategy) -> Self {
        self.watermarks = Some(strategy);
        self
    }

    /// Marks a partition idle whenever a fetch finds it caught up (unsafe: see
    /// [`LogSource::idle_when_caught_up`]).
    pub fn marking_idle_when_caught_up(mut self) -> Self {
        self.idle_when_caught_up = true;
        self
    }

    /// Skews event time: partition `p`'s records are `p × skew_ms` ahead of their ids.
    pub fn skewed(mut self, skew_ms: u64) -> Self {
        self.skew_ms = skew_ms;
        self
    }

    /// Fetches up to `records` records per request (default 8).
    pub fn fetching(mut self, records: usize) -> Self {
        self.fetch_max = records.max(1);
        self
    }

    /// Unbounded: looks for new partitions every `ms` (default 50).
    pub fn discovering_every(mut self, ms: u64) -> Self {
        self.discovery_interval_ms = ms.max(1);
        self
    }

    /// Lets the records arrive over `pace_ms` of virtual time.
    pub fn paced(mut self, pace_ms: u64) -> Self {
        self.pace_ms = pace_ms;
        self
    }

    /// What the checks should expect of the start.
    fn declared_start(&self) -> StartPosition {
        match self.start {
            LogStart::Earliest => StartPosition::Earliest,
            LogStart::Latest => StartPosition::Latest,
            LogStart::Offset(k) => StartPosition::Offset(k),
        }
    }
}

#[cfg(madsim)]
impl SourceSetup for LogSourceSetup {
    type Source = LogSource;
    fn name(&self) -> String {
        let kind = match self.boundedness {
            Boundedness::Bounded => "bounded",
            Boundedness::Unbounded => "unbounded",
        };
        let mut name =
            format!("log-source({kind}, {}p+{}, {} records", self.partitions, self.partitions_added, self.records);
        if self.boundedness == Boundedness::Bounded && self.pace_ms > 0 {
            name.push_str(&format!(" over {} ms", self.pace_ms));
        }
        if self.start != LogStart::Earliest || self.before_start > 0 {
            name.push_str(&format!(", start {:?} after {} per partition", self.start, self.before_start));
        }
        if self.boundedness == Boundedness::Unbounded && self.discovery_interval_ms != 50 {
            name.push_str(&format!(", discovery every {} ms", self.discovery_interval_ms));
        }
        if self.skew_ms > 0 {
            name.push_str(&format!(", event time skewed {} ms per partition", self.skew_ms));
        }
        if self.aborted_before > 0 {
            name.push_str(&format!(", {} aborted ahead", self.aborted_before));
        }
        name + ")"
    }
    fn build(&self, world: &mut World) -> LogSource {
        let log = PartitionedLog::new("log", world.history().clone());
        log.create_topic("input", self.partitions);
        // The start applies to the partitions there at the first discovery; partitions that
        // appear later are read from their first record.
        for partition in 0..self.partitions {
            world.declare_split_start(&format!("input-{partition}"), self.declared_start());
        }
        for partition in 0..self.partitions {
            let aborted = (0..self.aborted_before)
                .map(|_| connsim::systems::RecordLogFormat::encode(&new_record(world)))
                .collect();
            log.append_aborted("input", partition, aborted);
        }
        let mut before = Vec::new();
        for partition in 0..self.partitions {
            for _ in 0..self.before_start {
                before.push((partition, skewed(new_record(world), partition, self.skew_ms)));
            }
        }
        log.append_each("input", before);
        let mut stop = None;
        let transactional = self.transactional_upstream && world.real_data();
        match (self.boundedness, self.pace_ms) {
            (Boundedness::Bounded, 0) => {
                let mut records = Vec::with_capacity(self.records as usize);
                for _ in 0..self.records {
                    let partition = world.rng().gen_range(0..self.partitions);
                    records.push((partition, skewed(new_record(world), partition, self.skew_ms)));
                }
                if transactional {
                    upstream::Plan::new(world, self.partitions, vec![records]).write_round(&log, 0, &mut None);
                } else {
                    log.append_each("input", records);
                }
            }
            (Boundedness::Bounded, pace_ms) => {
                // The records and their partitions are fixed now, so the source knows where to
                // stop; they arrive in rounds while the job runs.
                // From where each partition ends now (the aborted head and its marker, the
                // records before the start).
                let mut ends: Vec<u64> = (0..self.partitions).map(|p| log.end_offset("input", p)).collect();
                let mut data = Vec::new();
                for _ in 0..self.records {
                    let partition = world.rng().gen_range(0..self.partitions);
                    data.push((partition, skewed(new_record(world), partition, self.skew_ms)));
                }
                let rounds = (pace_ms / 10).max(1) as usize;
                let per_round = data.len().div_ceil(rounds).max(1);
                let mut chunks: Vec<Vec<(u32, connsim::Record)>> = Vec::with_capacity(rounds);
                while !data.is_empty() {
                    let rest = data.split_off(per_round.min(data.len()));
                    chunks.push(std::mem::replace(&mut data, rest));
                }
                let n_rounds = chunks.len();
                // Plain: one record after another; transactional: as the plan writes them.
                let mut plan = match transactional {
                    true => {
                        let rounds = std::mem::replace(&mut chunks, vec![Vec::new(); n_rounds]);
                        Some(upstream::Plan::new(world, self.partitions, rounds))
                    }
                    false => None,
                };
                match &plan {
                    Some(plan) => ends.iter_mut().zip(plan.offsets_taken(self.partitions)).for_each(|(e, t)| *e += t),
                    None => chunks.iter().flatten().for_each(|(p, _)| ends[*p as usize] += 1),
                }
                stop = Some(ends);
                let after_first_checkpoint = self.start == LogStart::Latest;
                let (log, history) = (log.clone(), world.history().clone());
                world.during_run(async move {
                    if after_first_checkpoint {
                        // Latest is looked up when the enumerator starts; a record written
                        // before the first checkpoint may be skipped by a restart that looks
                        // it up again (see StartPosition::Latest).
                        while history.last_completed() == 0 {
                            madsim::time::sleep(std::time::Duration::from_millis(5)).await;
                        }
                    }
                    let mut open = None;
                    for (round, chunk) in chunks.into_iter().enumerate() {
                        madsim::time::sleep(std::time::Duration::from_millis(pace_ms / rounds as u64)).await;
                        match plan.as_mut() {
                            Some(plan) => plan.write_round(&log, round, &mut open),
                            None => {
                                for (partition, record) in chunk {
                                    log.append("input", partition, vec![record]);
                                }
                            }
                        }
                    }
                });
            }
            (Boundedness::Unbounded, pace_ms) => {
                let upfront = self.records / 2;
                let mut records = Vec::with_capacity(upfront as usize);
                for _ in 0..upfront {
                    let partition = world.rng().gen_range(0..self.partitions);
                    records.push((partition, skewed(new_record(world), partition, self.skew_ms)));
                }
                log.append_each("input", records);
                // An upstream producer: rounds every 50 ms; new partitions appear halfway.
                let (upstream, maker, mut rng) = (log.clone(), world.record_maker(), world.rng().clone());
                let (rest, first, added, skew) =
                    (self.records - upfront, self.partitions, self.partitions_added, self.skew_ms);
                let mut txns = transactional.then(upstream::Rounds::new);
                world.during_run(async move {
                    let rounds = (pace_ms / 50).max(1);
                    for round in 0..rounds {
                        madsim::time::sleep(std::time::Duration::from_millis(50)).await;
                        if round == rounds / 2 {
                            upstream.create_topic("input", first + added);
                        }
                        let partitions = upstream.partitions("input");
                        let mut batch = Vec::new();
                        for _ in 0..rest / rounds + u64::from(round < rest % rounds) {
                            let key = rng.gen_range(0..1_000u64);
                            let record = maker.make(key, format!("value-{key}").into_bytes());
                            let partition = rng.gen_range(0..partitions);
                            batch.push((partition, skewed(record, partition, skew)));
                        }
                        match txns.as_mut() {
                            Some(txns) => txns.write(&upstream, &maker, &mut rng, round, partitions, batch),
                            None => {
                                for (partition, record) in batch {
                                    upstream.append("input", partition, vec![record]);
                                }
                            }
                        }
                    }
                    if let Some(txns) = txns {
                        txns.finish(&upstream);
                    }
                });
                world.set_producer(Arc::new(LogProducer {
                    log: log.clone(),
                    topic: "input".into(),
                    skew_ms: self.skew_ms,
                }));
            }
        }
        world.add_system(Arc::new(log));
        LogSource {
            log: "log".into(),
            topic: "input".into(),
            boundedness: self.boundedness,
            discovery_interval_ms: self.discovery_interval_ms,
            fetch_max: self.fetch_max,
            start: self.start.clone(),
            stop,
            on_out_of_range: OffsetReset::Earliest,
            watermarks: self.watermarks,
            idle_when_caught_up: self.idle_when_caught_up,
        }
    }
}

/// `record` in partition `partition`, its event time moved `partition × skew_ms` ahead.
#[cfg(madsim)]
fn skewed(mut record: connsim::Record, partition: u32, skew_ms: u64) -> connsim::Record {
    record.event_time_ms += i64::from(partition) * skew_ms as i64;
    record
}

#[cfg(madsim)]
fn new_record(world: &mut World) -> connsim::Record {
    let key = world.rng().gen_range(0..1_000u64);
    // `value-{key}`, written without the formatting machinery (this runs for every record).
    let mut value = Vec::with_capacity(16);
    value.extend_from_slice(b"value-");
    connsim::record::push_decimal(&mut value, key);
    world.new_record(key, value)
}
