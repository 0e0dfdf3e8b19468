//! The log reader: one fetcher reads all assigned partitions round-robin.

use super::{LogSplit, OffsetReset};
use connsim::api::{FetchedBatch, ReaderOutput, RecordEmitter, SourceReaderBase, Split, SplitState, SplitsChange};
use connsim::net::Endpoint;
use connsim::systems::LogClient;
use connsim::{ConnectorError, Record};

/// The log source's reader.
pub type LogReader = SourceReaderBase<LogSplitReader, LogEmitter>;

/// Fetches from the log; tracks its own fetch position per split (ahead of what was emitted).
pub struct LogSplitReader {
    client: LogClient,
    fetch_max: usize,
    splits: Vec<(LogSplit, u64)>,
    turn: usize,
    reset: OffsetReset,
}

impl LogSplitReader {
    /// A split reader fetching at most `fetch_max` records per call.
    pub fn new(endpoint: Endpoint, log: &str, fetch_max: usize) -> Self {
        Self { client: LogClient::new(endpoint, log), fetch_max, splits: Vec::new(), turn: 0, reset: OffsetReset::Earliest }
    }

    /// Seeks to `reset` when retention deleted a split's position.
    pub fn resetting_to(mut self, reset: OffsetReset) -> Self {
        self.reset = reset;
        self
    }
}

impl connsim::api::SplitReader for LogSplitReader {
    type Split = LogSplit;
    type Element = (u64, Record);

    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        let mut batch = FetchedBatch::empty();
        if self.splits.is_empty() {
            return Ok(batch);
        }
        self.turn = (self.turn + 1) % self.splits.len();
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
            for (offset, record) in entries {
                if !done(offset) {
                    batch.elements.push((split.id(), (offset, record)));
                }
            }
            self.splits[self.turn].1 = next;
        }
        if done(self.splits[self.turn].1) {
            batch.finished.push(split.id());
            self.splits.remove(self.turn);
        }
        Ok(batch)
    }

    fn handle_splits_changes(&mut self, change: SplitsChange<LogSplit>) {
        if let SplitsChange::Add(splits) = change {
            self.splits.extend(splits.into_iter().map(|s| {
                let position = s.offset;
                (s, position)
            }));
        }
    }
}

/// Emits the record and moves the split past its offset.
pub struct LogEmitter;

impl SplitState<LogSplit> for LogSplit {
    fn from_split(split: LogSplit) -> Self {
        split
    }
    fn to_split(&self) -> LogSplit {
        self.clone()
    }
}

impl RecordEmitter for LogEmitter {
    type Element = (u64, Record);
    type State = LogSplit;
    fn emit(&mut self, (offset, record): (u64, Record), output: &mut ReaderOutput, state: &mut LogSplit) {
        output.collect(record);
        state.offset = offset + 1;
    }
}
