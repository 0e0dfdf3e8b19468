//! The feed source: a split per partition of the feed, assigned to reader `p mod parallelism`;
//! readers fetch through `SourceReaderBase` over the network, one partition after another,
//! and a split remembers the next position to read (its whole progress: a restore resumes
//! exactly there). It emits [`Event`]s, its own element type, decoded from the feed's
//! messages by its own deserializer ([`decode_message`]).

use crate::event::{Event, EventCodec, FeedMessage, FeedValue, EVENT_ID};
use crate::feed::{split_id, Feed, FeedRequest};
use connsim::api::{
    Boundedness, ElementSource, EnumeratorContext, EnumeratorState, FetchedBatch, FetcherMode, ReaderContext,
    ReaderOutput, RecordEmitter, Source, SourceReaderBase, Split, SplitEnumerator, SplitId, SplitReader, SplitState,
    SplitsChange,
};
use connsim::history::CheckpointId;
use connsim::run::{SourceSetup, World};
use connsim::systems::ModelClient;
use connsim::ConnectorError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

/// One partition of the feed and the next position to read.
///
/// Only what a restore needs is serialized: `emitted` is a metric of the reader holding the
/// split and is left out on purpose (`#[serde(skip)]`), so a restored or reassigned split
/// counts from 0 again. connsim's runtime goes on with the decoded split after every
/// checkpoint and hand-over, as a cluster does after a restore.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeedSplit {
    /// The partition.
    pub partition: u32,
    /// The next position to read.
    pub next: u64,
    /// Records emitted from this split since its reader got it (not checkpointed).
    #[serde(skip)]
    pub emitted: u64,
    /// The watermark a reader that announces its own keeps for the split, to announce again
    /// after a restore. The feed's reader leaves event time to the job's watermark strategy
    /// and never sets it.
    #[serde(default)]
    pub watermark: Option<i64>,
}

impl FeedSplit {
    /// Partition `partition`, from its first record.
    pub fn new(partition: u32) -> Self {
        Self { partition, next: 0, emitted: 0, watermark: None }
    }
}

impl Split for FeedSplit {
    fn id(&self) -> SplitId {
        split_id(self.partition)
    }
    fn position(&self) -> Option<u64> {
        Some(self.next)
    }
}

/// The enumerator's checkpointed state: splits not assigned yet.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FeedEnumState {
    /// Unassigned splits.
    pub pending: Vec<FeedSplit>,
    /// Splits this enumerator handed over since it started: a metric, not checkpointed.
    #[serde(skip)]
    pub handed_over: u64,
}

impl EnumeratorState for FeedEnumState {
    fn pending_splits(&self) -> Vec<SplitId> {
        self.pending.iter().map(Split::id).collect()
    }
}

/// The source: where the feed is and how many partitions it has.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FeedSource {
    /// The feed's node name.
    pub feed: String,
    /// Its partitions.
    pub partitions: u32,
    /// Whether the source keeps waiting for more records (never ends).
    pub unbounded: bool,
}

impl FeedSource {
    /// A reader whose records come out through `emitter` (the source's own reader uses
    /// [`FeedEmitter::default`]; a variant may swap the deserializer).
    pub fn reader_with(
        &self,
        ctx: ReaderContext,
        emitter: FeedEmitter,
    ) -> SourceReaderBase<FeedSplitReader, FeedEmitter, Event> {
        self.reader_around(ctx, |split_reader| split_reader, emitter)
    }

    /// A reader whose split readers are `wrap` of the feed's and whose records come out
    /// through `emitter`: what a variant that reads differently builds on.
    pub fn reader_around<SR, E>(
        &self,
        ctx: ReaderContext,
        wrap: impl Fn(FeedSplitReader) -> SR + Send + 'static,
        emitter: E,
    ) -> SourceReaderBase<SR, E, Event>
    where
        SR: SplitReader<Split = FeedSplit>,
        E: RecordEmitter<Event, Element = SR::Element, State = FeedSplit>,
    {
        let (feed, unbounded) = (ModelClient::new(ctx.endpoint().clone(), &self.feed), self.unbounded);
        let new_split_reader = move || wrap(FeedSplitReader::new(feed.clone(), unbounded));
        SourceReaderBase::new(ctx, new_split_reader, emitter, FetcherMode::Single)
    }
}

/// Assigns split `p` to reader `p mod parallelism` once that reader registered.
pub struct FeedEnumerator {
    pending: Vec<FeedSplit>,
    unbounded: bool,
    handed_over: u64,
}

impl FeedEnumerator {
    fn assign(&mut self, ctx: &mut EnumeratorContext<FeedSplit>) {
        let p = ctx.parallelism() as u32;
        let registered: BTreeSet<usize> = ctx.registered_readers().clone();
        for reader in registered {
            let (mine, rest) =
                std::mem::take(&mut self.pending).into_iter().partition(|s| (s.partition % p) as usize == reader);
            self.pending = rest;
            self.handed_over += mine.len() as u64;
            ctx.assign_splits(reader, mine);
            if !self.unbounded {
                ctx.signal_no_more_splits(reader);
            }
        }
    }
}

impl SplitEnumerator for FeedEnumerator {
    type Split = FeedSplit;
    type State = FeedEnumState;
    fn add_splits_back(&mut self, splits: Vec<FeedSplit>, _subtask: usize, ctx: &mut EnumeratorContext<FeedSplit>) {
        self.pending.extend(splits);
        self.assign(ctx);
    }
    fn add_reader(&mut self, _subtask: usize, ctx: &mut EnumeratorContext<FeedSplit>) {
        self.assign(ctx);
    }
    fn handle_split_request(&mut self, _subtask: usize, _ctx: &mut EnumeratorContext<FeedSplit>) {}
    fn snapshot_state(&mut self, _checkpoint: CheckpointId) -> FeedEnumState {
        FeedEnumState { pending: self.pending.clone(), handed_over: self.handed_over }
    }
}

/// Reads its splits in turn, up to 50 records per fetch, skipping those paused (watermark
/// alignment).
pub struct FeedSplitReader {
    feed: ModelClient<FeedRequest>,
    splits: Vec<FeedSplit>,
    paused: BTreeSet<SplitId>,
    turn: usize,
    unbounded: bool,
}

impl FeedSplitReader {
    /// A split reader of the feed behind `feed`, holding no splits yet.
    pub fn new(feed: ModelClient<FeedRequest>, unbounded: bool) -> Self {
        Self { feed, splits: Vec::new(), paused: BTreeSet::new(), turn: 0, unbounded }
    }
}

impl SplitReader for FeedSplitReader {
    type Split = FeedSplit;
    type Element = (u64, FeedMessage);
    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, FeedMessage)>, ConnectorError> {
        let mut batch = FetchedBatch::empty();
        if self.splits.iter().all(|s| self.paused.contains(&s.id())) {
            connsim::time::sleep(Duration::from_millis(10)).await;
            return Ok(batch);
        }
        // The next split in turn that is not paused.
        self.turn = (self.turn + 1) % self.splits.len();
        while self.paused.contains(&self.splits[self.turn].id()) {
            self.turn = (self.turn + 1) % self.splits.len();
        }
        let split = self.splits[self.turn].clone();
        let req = FeedRequest::Read { partition: split.partition, from: split.next, max: 50 };
        let Ok(got) = self.feed.call(&req).await else {
            return Ok(batch); // lost on the way: read the same positions again next time
        };
        let read = got.records.len() as u64;
        for (pos, message) in got.records {
            batch.elements.push((split.id(), (pos, message)));
        }
        self.splits[self.turn].next += read;
        if got.end && !self.unbounded {
            batch.finished.push(split.id());
            self.splits.remove(self.turn);
        } else if read == 0 {
            connsim::time::sleep(Duration::from_millis(5)).await; // nothing has arrived yet
        }
        Ok(batch)
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<FeedSplit>) {
        match change {
            SplitsChange::Add(splits) => self.splits.extend(splits),
            SplitsChange::PauseResume { pause, resume } => {
                self.paused.extend(pause);
                for split in &resume {
                    self.paused.remove(split);
                }
            }
        }
    }
}

/// The source's deserializer: the event a feed message carries (its id from the `event-id`
/// header, the rest from the JSON value).
pub fn decode_message(message: &FeedMessage) -> Result<Event, String> {
    let (_, id) = message
        .headers
        .iter()
        .find(|(name, _)| name == EVENT_ID)
        .ok_or_else(|| format!("no {EVENT_ID} header in {:?}", message.headers))?;
    let id = std::str::from_utf8(id).ok().and_then(|s| s.parse().ok()).ok_or("an event id that is no number")?;
    let value: FeedValue = serde_json::from_slice(&message.value).map_err(|e| format!("value: {e}"))?;
    Ok(Event { id, user: value.user, at_ms: value.at_ms, body: value.body.into_bytes() })
}

/// Emits the event a message carries and moves its split past it; a message that does not
/// decode is skipped (and the split moves past it too).
pub struct FeedEmitter {
    /// The deserializer.
    pub decode: fn(&FeedMessage) -> Result<Event, String>,
}

impl Default for FeedEmitter {
    fn default() -> Self {
        Self { decode: decode_message }
    }
}

impl SplitState<FeedSplit> for FeedSplit {
    fn from_split(split: FeedSplit) -> Self {
        split
    }
    fn to_split(&self) -> FeedSplit {
        self.clone()
    }
}

impl RecordEmitter<Event> for FeedEmitter {
    type Element = (u64, FeedMessage);
    type State = FeedSplit;
    fn emit(&mut self, (pos, message): (u64, FeedMessage), output: &mut ReaderOutput<Event>, state: &mut FeedSplit) {
        if let Ok(event) = (self.decode)(&message) {
            output.collect(event);
            state.emitted += 1;
        }
        state.next = pos + 1;
    }
}

impl Source<Event> for FeedSource {
    type Split = FeedSplit;
    type EnumState = FeedEnumState;
    type Enumerator = FeedEnumerator;
    type Reader = SourceReaderBase<FeedSplitReader, FeedEmitter, Event>;
    fn boundedness(&self) -> Boundedness {
        match self.unbounded {
            true => Boundedness::Unbounded,
            false => Boundedness::Bounded,
        }
    }
    fn create_enumerator(&self, _ctx: &EnumeratorContext<FeedSplit>) -> FeedEnumerator {
        let pending = (0..self.partitions).map(FeedSplit::new).collect();
        FeedEnumerator { pending, unbounded: self.unbounded, handed_over: 0 }
    }
    fn restore_enumerator(&self, _ctx: &EnumeratorContext<FeedSplit>, state: FeedEnumState) -> FeedEnumerator {
        FeedEnumerator { pending: state.pending, unbounded: self.unbounded, handed_over: 0 }
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        self.reader_with(ctx, FeedEmitter::default())
    }
}

/// Sets up a feed node `feed` with `records` records over `partitions` partitions, arriving
/// evenly over `pace_ms`, and the source reading it.
#[derive(Clone, Debug, Default)]
pub struct FeedSourceSetup {
    /// Partitions.
    pub partitions: u32,
    /// Records, dealt round-robin over the partitions.
    pub records: u64,
    /// The records arrive evenly over this much virtual time (0: all there at the start).
    pub pace_ms: u64,
    /// The source never ends.
    pub unbounded: bool,
    /// Partition `p`'s records carry event times `p × skew_ms` ahead of the rest.
    pub skew_ms: u64,
}

impl SourceSetup for FeedSourceSetup {
    /// The source, its events traced to the suites' test records by [`EventCodec`].
    type Source = ElementSource<FeedSource, EventCodec>;
    fn name(&self) -> String {
        let mode = if self.unbounded { ", unbounded" } else { "" };
        format!("feed-source({}p, {} records over {} ms{mode})", self.partitions, self.records, self.pace_ms)
    }
    fn build(&self, world: &mut World) -> ElementSource<FeedSource, EventCodec> {
        let feed = Feed::new("feed", self.partitions);
        for i in 0..self.records {
            let partition = (i % self.partitions as u64) as u32;
            let mut record = world.new_record(i % 1000, format!("feed {i}").into_bytes());
            record.event_time_ms += i64::from(partition) * self.skew_ms as i64;
            let at = Duration::from_micros(i * self.pace_ms * 1000 / self.records.max(1));
            feed.append(world.history(), partition, record, at);
        }
        world.add_system(Arc::new(feed));
        let (partitions, unbounded) = (self.partitions, self.unbounded);
        ElementSource::new(FeedSource { feed: "feed".into(), partitions, unbounded })
    }
    /// Its element type holds no null key or value, no headers, and text payloads only.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries::PLAIN
    }
}
