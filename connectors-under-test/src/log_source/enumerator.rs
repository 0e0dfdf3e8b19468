//! The log enumerator: partition p belongs to reader p mod parallelism (as Kafka's does).
//!
//! Its building blocks are public for variants: [`LogEnumerator::new`] builds it from a
//! [`LogSource`]; [`LogEnumerator::add_partitions`] takes in a discovery's result;
//! [`LogEnumerator::take_back`] and [`LogEnumerator::assign_pending`] (or
//! [`LogEnumerator::assign_pending_signalling`]) keep and hand over splits; and
//! [`LogEnumerator::handing_over`] chooses how splits reach a reader ([`HandOver`]: a split
//! assignment, or a connector-defined source event, as [`LogSourceByEvent`] sends them).
//!
//! [`LogSourceByEvent`]: super::LogSourceByEvent

use super::{LogSource, LogSplit, LogStart};
use connsim::api::{AsyncResult, Boundedness, EnumeratorContext, EnumeratorState, Split, SplitEnumerator, SplitId};
use connsim::history::CheckpointId;
#[cfg(madsim)]
use connsim::systems::LogClient;
use connsim::ConnectorError;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;
#[cfg(madsim)]
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

/// How the log enumerator hands splits over to their readers.
#[derive(Clone, Default)]
pub enum HandOver {
    /// In split assignments ([`EnumeratorContext::assign_splits`]), the default. The runtime
    /// tracks them: those a failed reader had not checkpointed come back through
    /// [`SplitEnumerator::add_splits_back`].
    #[default]
    Assign,
    /// In the connector-defined source event that the function makes of the splits
    /// ([`EnumeratorContext::send_event_to_reader`]); the reader must add them to itself
    /// ([`EventSplitsReader`](super::EventSplitsReader) does). The runtime does not know
    /// these are splits, so the enumerator tracks them until a checkpoint covering them
    /// completes, and takes those of a failed reader back in
    /// [`SplitEnumerator::reader_failed`].
    Event(EncodeSplits),
}

/// Makes the source event that hands the splits over.
type EncodeSplits = Arc<dyn Fn(&[LogSplit]) -> Vec<u8> + Send + Sync>;

impl fmt::Debug for HandOver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HandOver::Assign => "Assign",
            HandOver::Event(_) => "Event",
        })
    }
}

/// Splits handed over in source events, by subtask, that no completed checkpoint covers yet.
#[derive(Default)]
struct SentByEvent {
    /// Sent after the enumerator's last snapshot.
    current: BTreeMap<usize, Vec<LogSplit>>,
    /// Sent before the snapshot of each checkpoint not known to be completed.
    by_checkpoint: BTreeMap<CheckpointId, BTreeMap<usize, Vec<LogSplit>>>,
}

impl SentByEvent {
    /// Removes and returns what `subtask` was sent that no completed checkpoint covers.
    fn take(&mut self, subtask: usize) -> Vec<LogSplit> {
        let mut out: Vec<LogSplit> =
            self.by_checkpoint.values_mut().flat_map(|m| m.remove(&subtask)).flatten().collect();
        out.extend(self.current.remove(&subtask).unwrap_or_default());
        out
    }
}

/// The log enumerator.
pub struct LogEnumerator {
    source: LogSource,
    #[cfg(madsim)]
    client: LogClient,
    state: LogEnumState,
    hand_over: HandOver,
    sent: SentByEvent,
}

impl LogEnumerator {
    /// The enumerator of `source` with `state` (default: a fresh one that has discovered
    /// nothing), talking to the log from the job master's endpoint; it hands splits over in
    /// assignments until [`LogEnumerator::handing_over`] says otherwise. What
    /// [`Source::create_enumerator`](connsim::api::Source::create_enumerator) and
    /// `restore_enumerator` of a log source variant return.
    #[cfg_attr(not(madsim), allow(unused_variables))]
    pub fn new(source: LogSource, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> Self {
        #[cfg(madsim)]
        let client = LogClient::new(ctx.endpoint().clone(), &source.log);
        Self {
            source,
            #[cfg(madsim)]
            client,
            state,
            hand_over: HandOver::Assign,
            sent: SentByEvent::default(),
        }
    }

    /// Hands splits over as `how` says from now on (call it right after [`LogEnumerator::new`]).
    pub fn handing_over(mut self, how: HandOver) -> Self {
        self.hand_over = how;
        self
    }

    /// The subtask whose reader owns `split` among `parallelism` readers: its partition
    /// modulo the parallelism, so a partition always goes to the same reader.
    pub fn owner(&self, split: &LogSplit, parallelism: usize) -> usize {
        split.partition as usize % parallelism
    }

    /// Finds partitions not seen before and adds them as pending splits: the first
    /// discovery's partitions start where the source's start says, later ones at offset 0.
    #[cfg(madsim)]
    async fn discover_partitions(&mut self) -> Result<(), ConnectorError> {
        let ends = self.client.end_offsets(&self.source.topic).await?;
        self.add_partitions(ends);
        Ok(())
    }

    /// Adds the partitions of `ends` (end offsets by partition, what
    /// [`LogClient::end_offsets`] answers) not seen before as pending splits: those of the
    /// first discovery start where the source's start says, later ones at offset 0; bounded
    /// ones stop at the source's stop offsets, or else at `ends`. Hands nothing over: call
    /// [`LogEnumerator::assign_pending`] next.
    pub fn add_partitions(&mut self, ends: Vec<u64>) {
        self.add_partitions_from(ends, &[])
    }

    /// [`LogEnumerator::add_partitions`], where the first discovery's partition `p` starts at
    /// `starts[p]` if that is `Some` (a consumer group's committed offset, say), and where
    /// the source's start says otherwise.
    pub fn add_partitions_from(&mut self, ends: Vec<u64>, starts: &[Option<u64>]) {
        let bounded = self.source.boundedness == Boundedness::Bounded;
        let first = self.state.discovered.is_empty();
        for (partition, end) in ends.into_iter().enumerate() {
            let given = starts.get(partition).copied().flatten();
            let partition = partition as u32;
            if self.state.discovered.insert(partition) {
                let offset = match (&self.source.start, first, given) {
                    (_, true, Some(at)) => at,
                    (LogStart::Latest, true, None) => end,
                    (LogStart::Offset(k), true, None) => *k,
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

    /// Whether a discovery found partitions yet (a restored enumerator knows its partitions).
    pub fn has_discovered(&self) -> bool {
        !self.state.discovered.is_empty()
    }

    /// Hands every pending split to its owner if that reader is registered (the others stay
    /// pending until their reader registers); bounded reads then tell each registered reader
    /// that no more splits will come. Call it after anything that adds pending splits or
    /// registers a reader: the reference does at start, on a reader's registration, on
    /// splits coming back and after each discovery.
    pub fn assign_pending(&mut self, ctx: &mut EnumeratorContext<LogSplit>) {
        let bounded = self.source.boundedness == Boundedness::Bounded;
        self.assign_pending_signalling(ctx, bounded);
    }

    /// Puts splits back among the pending ones (they go into the next snapshot as pending),
    /// handing nothing over: for splits a failed reader returned, before
    /// [`LogEnumerator::assign_pending`].
    pub fn take_back(&mut self, splits: Vec<LogSplit>) {
        self.state.pending.extend(splits);
    }

    /// Hands pending splits over to their registered owners, as [`HandOver`] says; `signal`:
    /// then tells each registered reader that no more splits will come (only right for a
    /// bounded read, and only once every split is discovered).
    pub fn assign_pending_signalling(&mut self, ctx: &mut EnumeratorContext<LogSplit>, signal: bool) {
        let p = ctx.parallelism();
        for reader in ctx.registered_readers().clone() {
            let (mine, rest): (Vec<_>, Vec<_>) =
                std::mem::take(&mut self.state.pending).into_iter().partition(|s| self.owner(s, p) == reader);
            self.state.pending = rest;
            match &self.hand_over {
                HandOver::Assign => ctx.assign_splits(reader, mine),
                HandOver::Event(_) if mine.is_empty() => {}
                HandOver::Event(event) => {
                    ctx.send_event_to_reader(reader, event(&mine));
                    self.sent.current.entry(reader).or_default().extend(mine);
                }
            }
            if signal {
                ctx.signal_no_more_splits(reader);
            }
        }
    }
}

impl SplitEnumerator for LogEnumerator {
    type Split = LogSplit;
    type State = LogEnumState;

    #[cfg(madsim)]
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

    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> LogEnumState {
        // Splits sent by event before this snapshot reach their reader before its barrier.
        let sent = std::mem::take(&mut self.sent.current);
        if !sent.is_empty() {
            self.sent.by_checkpoint.insert(checkpoint, sent);
        }
        self.state.clone()
    }

    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        // Its readers' state holds what was sent before its snapshot.
        self.sent.by_checkpoint.retain(|&c, _| c > checkpoint);
    }

    fn reader_failed(&mut self, subtask: usize, _ctx: &mut EnumeratorContext<LogSplit>) {
        // The failed reader's replacement restores a checkpoint without the splits sent to it
        // since; they go to that replacement when it registers (`add_reader`).
        let sent = self.sent.take(subtask);
        self.take_back(sent);
    }

    fn handle_async(&mut self, result: AsyncResult, ctx: &mut EnumeratorContext<LogSplit>) {
        // A failed discovery is tried again at the next interval.
        if let Ok(Discovered(Ok(ends))) = result.downcast::<Discovered>().map(|d| *d) {
            self.add_partitions(ends);
            self.assign_pending(ctx);
        }
    }
}
