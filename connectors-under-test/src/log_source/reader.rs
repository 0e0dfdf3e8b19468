//! The log reader: one fetcher reads all assigned partitions round-robin, skipping the ones
//! watermark alignment paused (as Kafka's consumer skips paused partitions).

use super::LogSplit;
#[cfg(madsim)]
use super::OffsetReset;
#[cfg(madsim)]
use connsim::api::{FetchedBatch, SourceReaderBase, Split, SplitId, SplitsChange};
use connsim::api::{ReaderOutput, RecordEmitter, SplitState, WatermarkStrategy};
#[cfg(madsim)]
use connsim::net::Endpoint;
#[cfg(madsim)]
use connsim::systems::{LogClient, RecordLogFormat};
#[cfg(madsim)]
use connsim::ConnectorError;
use connsim::Record;
#[cfg(madsim)]
use std::collections::BTreeSet;

/// The log source's reader.
#[cfg(madsim)]
pub type LogReader = SourceReaderBase<LogSplitReader, LogEmitter>;

/// Fetches from the log; tracks its own fetch position per split (ahead of what was emitted).
#[cfg(madsim)]
pub struct LogSplitReader {
    client: LogClient,
    fetch_max: usize,
    splits: Vec<(LogSplit, u64)>,
    turn: usize,
    reset: OffsetReset,
    /// Splits paused by watermark alignment: not fetched until resumed.
    paused: BTreeSet<SplitId>,
    /// Whether a fetch that finds a partition caught up marks it idle.
    marks_idle: bool,
}

#[cfg(madsim)]
impl LogSplitReader {
    /// A split reader fetching at most `fetch_max` records per call.
    pub fn new(endpoint: Endpoint, log: &str, fetch_max: usize) -> Self {
        Self {
            client: LogClient::new(endpoint, log),
            fetch_max,
            splits: Vec::new(),
            turn: 0,
            reset: OffsetReset::Earliest,
            paused: BTreeSet::new(),
            marks_idle: false,
        }
    }

    /// Marks a partition idle whenever a fetch finds it caught up (see
    /// [`FetchedBatch::idle`]).
    pub fn marking_idle(mut self, marks_idle: bool) -> Self {
        self.marks_idle = marks_idle;
        self
    }

    /// Seeks to `reset` when retention deleted a split's position.
    pub fn resetting_to(mut self, reset: OffsetReset) -> Self {
        self.reset = reset;
        self
    }
}

#[cfg(madsim)]
impl connsim::api::SplitReader for LogSplitReader {
    type Split = LogSplit;
    type Element = (u64, Record);

    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        let mut batch = FetchedBatch::empty();
        // The next split in turn that is not paused.
        let n = self.splits.len();
        let Some(turn) = (1..=n).map(|k| (self.turn + k) % n).find(|&i| !self.paused.contains(&self.splits[i].0.id()))
        else {
            return Ok(batch);
        };
        self.turn = turn;
        let (split, position) = self.splits[self.turn].clone();
        let done = |pos: u64| split.stop.is_some_and(|stop| pos >= stop);
        if !done(position) {
            let fetched = self.client.fetch_retained(&split.topic, split.partition, position, self.fetch_max).await?;
            let (entries, next) = match fetched {
                Ok(fetched) => fetched,
                Err(gone) => {
                    // Retention deleted the position: seek as `auto.offset.reset` says; the
                    // next fetch reads from there (what was deleted is gone for every reader).
                    let to = match self.reset {
                        OffsetReset::Earliest => gone.log_start,
                        OffsetReset::Latest => {
                            let ends = self.client.end_offsets(&split.topic).await?;
                            ends.get(split.partition as usize).copied().unwrap_or(gone.log_start)
                        }
                    };
                    self.splits[self.turn].1 = to.max(position);
                    return Ok(batch);
                }
            };
            let id = split.id();
            if entries.is_empty() && self.marks_idle {
                // Caught up with the partition: nothing holds its event time back until its
                // next record, whose event time is at least the latest produced.
                batch.idle.push(id.clone());
            }
            for (offset, entry) in entries {
                if !done(offset) {
                    // The deserializer: bytes it cannot read fail the task, as Flink's
                    // deserialization schema does by throwing.
                    let record = RecordLogFormat::into_record(entry).map_err(|why| {
                        ConnectorError::fail_task(format!("{id} offset {offset} does not deserialize: {why}"))
                    })?;
                    batch.elements.push((id.clone(), (offset, record)));
                }
            }
            self.splits[self.turn].1 = next;
        }
        if done(self.splits[self.turn].1) {
            batch.finished.push(split.id());
            self.paused.remove(&split.id());
            self.splits.remove(self.turn);
        }
        Ok(batch)
    }

    fn handle_splits_changes(&mut self, change: SplitsChange<LogSplit>) {
        match change {
            SplitsChange::Add(splits) => self.splits.extend(splits.into_iter().map(|s| {
                let position = s.offset;
                (s, position)
            })),
            SplitsChange::PauseResume { pause, resume } => {
                self.paused.extend(pause);
                for split in resume {
                    self.paused.remove(&split);
                }
            }
        }
    }
}

/// Emits the record, moves the split past its offset and, when the job reads the topic with
/// a watermark strategy, keeps the split's watermark in its state.
#[derive(Clone, Copy, Debug, Default)]
pub struct LogEmitter {
    /// The strategy's out-of-orderness (`None`: no event time).
    delay_ms: Option<u64>,
}

impl LogEmitter {
    /// An emitter for a topic read with `strategy`.
    pub fn new(strategy: Option<WatermarkStrategy>) -> Self {
        Self { delay_ms: strategy.map(|s| s.max_out_of_orderness_ms) }
    }
}

/// A split being read: its progress, and the watermark a restored split still has to
/// announce (what its checkpoint promised), so event time resumes where it stood.
#[derive(Debug)]
pub struct LogSplitState {
    /// The split, with its next offset and watermark.
    pub split: LogSplit,
    /// The restored watermark, until the split's first record announces it.
    pub announce: Option<i64>,
}

/// A split as its own state (no watermark announced on restore), for emitters that need no more.
impl SplitState<LogSplit> for LogSplit {
    fn from_split(split: LogSplit) -> Self {
        split
    }
    fn to_split(&self) -> LogSplit {
        self.clone()
    }
}

impl SplitState<LogSplit> for LogSplitState {
    fn from_split(split: LogSplit) -> Self {
        Self { announce: split.watermark, split }
    }
    fn to_split(&self) -> LogSplit {
        self.split.clone()
    }
}

impl RecordEmitter for LogEmitter {
    type Element = (u64, Record);
    type State = LogSplitState;
    fn emit(&mut self, (offset, record): (u64, Record), output: &mut ReaderOutput, state: &mut LogSplitState) {
        if let Some(w) = state.announce.take() {
            output.emit_watermark(w);
        }
        if let Some(delay) = self.delay_ms {
            // Every later record of the split is above this (the strategy's promise).
            let w = record.event_time_ms.saturating_sub(delay as i64).saturating_sub(1);
            state.split.watermark = state.split.watermark.max(Some(w));
        }
        output.collect(record);
        state.split.offset = offset + 1;
    }
}
