//! `SourceReaderBase`: the reader most connectors are built on (Flink's `SourceReaderBase`).
//!
//! The author writes three small things: a [`SplitReader`] that fetches batches from the
//! external system, a [`RecordEmitter`] that turns one fetched element into records and
//! advances the split's state, and the [`SplitState`] conversion. The base owns the rest:
//!
//! ```text
//!  fetcher task(s) ── SplitReader::fetch ──▶ bounded queue (capacity 2) ──▶ poll_next
//!       ▲ split changes                                                     │ RecordEmitter::emit
//!       └──────────────── add_splits ◀── enumerator            split states ┘──▶ snapshot_state
//! ```
//!
//! Split states advance only when records are *emitted*, never when fetched, so a snapshot
//! always matches what went downstream before the barrier. As Flink's, `poll_next` emits
//! one fetched element per call: a barrier can fall between any two records of a batch.

use super::source::{InputStatus, ReaderContext, ReaderOutput, SourceReader, Split, SplitId};
use crate::error::{ConnectorError, RetryHint};
use crate::history::CheckpointId;
use crate::record::Record;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// One fetched batch: elements tagged with their split, and splits that reached their end.
#[derive(Debug)]
pub struct FetchedBatch<E> {
    /// Elements in fetch order.
    pub elements: Vec<(SplitId, E)>,
    /// Splits that have no more data; their state is dropped after the elements are emitted.
    pub finished: Vec<SplitId>,
    /// Splits the fetch found with nothing to read for now (caught up with the external
    /// system): the reader marks each idle ([`ReaderOutput::mark_idle`]) until it emits again,
    /// so it does not hold the combined watermark back. Only for a split whose later records
    /// cannot fall behind the watermark the others then make: one that does is late.
    pub idle: Vec<SplitId>,
}

impl<E> FetchedBatch<E> {
    /// An empty batch.
    pub fn empty() -> Self {
        Self { elements: Vec::new(), finished: Vec::new(), idle: Vec::new() }
    }
    /// A batch of `elements` and the splits that ended with them.
    pub fn of(elements: Vec<(SplitId, E)>, finished: Vec<SplitId>) -> Self {
        Self { elements, finished, idle: Vec::new() }
    }
    fn is_empty(&self) -> bool {
        self.elements.is_empty() && self.finished.is_empty() && self.idle.is_empty()
    }
}

/// A change to the splits a fetcher reads.
#[derive(Debug)]
pub enum SplitsChange<S> {
    /// Start reading these splits.
    Add(Vec<S>),
    /// Pause and resume reading (watermark alignment).
    PauseResume {
        /// Splits to pause.
        pause: Vec<SplitId>,
        /// Splits to resume.
        resume: Vec<SplitId>,
    },
}

/// Reads batches from the external system. Runs on its own task (a fetcher).
pub trait SplitReader: Send + 'static {
    /// The split type.
    type Split: Split;
    /// What one fetch yields per position, before it becomes a record.
    type Element: Send + 'static;
    /// Fetches the next batch. A [`RetryHint::Retry`] error is retried by the base.
    fn fetch(&mut self) -> impl Future<Output = Result<FetchedBatch<Self::Element>, ConnectorError>> + Send;
    /// Applies a change of assigned splits.
    fn handle_splits_changes(&mut self, change: SplitsChange<Self::Split>);
    /// The split reader is done: its reader closes. Default: nothing to release.
    fn close(&mut self) -> impl Future<Output = ()> + Send {
        async {}
    }
}

/// The mutable, in-reader progress of one split.
pub trait SplitState<S>: Send + 'static {
    /// Starts tracking a split.
    fn from_split(split: S) -> Self;
    /// The split with its current progress, for a snapshot.
    fn to_split(&self) -> S;
}

/// Turns a fetched element into records and advances the split's state.
///
/// `T` is what the source emits (its element type; [`Record`] by default).
pub trait RecordEmitter<T = Record>: Send + 'static {
    /// What the split reader fetched.
    type Element;
    /// The split state it advances.
    type State;
    /// Emits the records of `element` and advances `state` past it.
    fn emit(&mut self, element: Self::Element, output: &mut ReaderOutput<T>, state: &mut Self::State);
}

/// The splits a [`SourceReaderBase`] has told its fetchers to hold paused, shared with its
/// subtask (one attempt, one node): after every pause or resume the runtime asks for, it
/// compares them with what it asked, so a reader that holds a split paused the runtime never
/// paused (or has resumed since) is seen at once. `None` until the base is told anything, or
/// for a reader not built on the base (it says nothing of its pauses).
#[derive(Clone, Debug, Default)]
pub(crate) struct PauseLedger(Arc<Mutex<Option<BTreeSet<SplitId>>>>);

impl PauseLedger {
    fn update(&self, change: impl FnOnce(&mut BTreeSet<SplitId>)) {
        change(self.0.lock().expect("one task uses the ledger at a time").get_or_insert_with(BTreeSet::new));
    }

    /// The splits held paused that are not in `asked` (the runtime's paused splits); `None`
    /// when the reader says nothing of its pauses.
    pub(crate) fn unasked(&self, asked: &BTreeSet<SplitId>) -> Option<Vec<SplitId>> {
        let held = self.0.lock().expect("one task uses the ledger at a time");
        held.as_ref().map(|held| held.difference(asked).cloned().collect())
    }
}

/// How many fetcher tasks read the splits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetcherMode {
    /// One fetcher (one split reader) for all splits.
    Single,
    /// One fetcher (one split reader) per split.
    PerSplit,
}

/// A fetched batch, with the splits the fetcher had been told to pause before the fetch began.
type Fetched<E> = Result<(FetchedBatch<E>, BTreeSet<SplitId>), ConnectorError>;

/// What the reader tells a fetcher.
enum FetcherCmd<S> {
    Change(SplitsChange<S>),
    /// Close the split reader, say so, and stop.
    Close(tokio::sync::oneshot::Sender<()>),
}

struct Fetcher<S> {
    changes: mpsc::UnboundedSender<FetcherCmd<S>>,
    task: madsim::task::JoinHandle<()>,
}

/// A [`SourceReader`] built from a [`SplitReader`] factory and a [`RecordEmitter`].
///
/// `T` is the element type the source emits ([`Record`] by default).
pub struct SourceReaderBase<SR: SplitReader, RE: RecordEmitter<T>, T: 'static = Record> {
    ctx: ReaderContext,
    new_split_reader: Box<dyn FnMut() -> SR + Send>,
    emitter: RE,
    mode: FetcherMode,
    states: BTreeMap<SplitId, <RE as RecordEmitter<T>>::State>,
    fetchers: Vec<Fetcher<SR::Split>>,
    queue_tx: mpsc::Sender<Fetched<SR::Element>>,
    queue_rx: mpsc::Receiver<Fetched<SR::Element>>,
    stash: Option<Fetched<SR::Element>>,
    /// The batch being emitted, one element per poll, and the splits it finishes.
    current: VecDeque<(SplitId, SR::Element)>,
    finishing: Vec<SplitId>,
    /// Splits paused before the current batch was fetched: its elements of them should not
    /// be there (the split reader ignored the pause).
    current_paused: BTreeSet<SplitId>,
    /// Splits the current batch's split reader found caught up: marked idle after its last
    /// element.
    idling: Vec<SplitId>,
    no_more_splits: bool,
    request_splits: bool,
}

/// The longest an idle fetcher waits before fetching again.
const IDLE_BACKOFF_MS_MAX: u64 = 10;

/// Capacity of the element queue between fetchers and the reader, in batches (Flink's default 2).
pub const DEFAULT_QUEUE_CAPACITY: usize = 2;

impl<SR, RE, T> SourceReaderBase<SR, RE, T>
where
    SR: SplitReader,
    RE: RecordEmitter<T, Element = SR::Element>,
    RE::State: SplitState<SR::Split>,
{
    /// A reader that creates split readers with `new_split_reader`.
    pub fn new(
        ctx: ReaderContext,
        new_split_reader: impl FnMut() -> SR + Send + 'static,
        emitter: RE,
        mode: FetcherMode,
    ) -> Self {
        Self::with_queue_capacity(ctx, new_split_reader, emitter, mode, DEFAULT_QUEUE_CAPACITY)
    }

    /// Like [`SourceReaderBase::new`] with a chosen element-queue capacity (in batches).
    pub fn with_queue_capacity(
        ctx: ReaderContext,
        new_split_reader: impl FnMut() -> SR + Send + 'static,
        emitter: RE,
        mode: FetcherMode,
        capacity: usize,
    ) -> Self {
        let (queue_tx, queue_rx) = mpsc::channel(capacity.max(1));
        Self {
            ctx,
            new_split_reader: Box::new(new_split_reader),
            emitter,
            mode,
            states: BTreeMap::new(),
            fetchers: Vec::new(),
            queue_tx,
            queue_rx,
            stash: None,
            current: VecDeque::new(),
            finishing: Vec::new(),
            current_paused: BTreeSet::new(),
            idling: Vec::new(),
            no_more_splits: false,
            request_splits: false,
        }
    }

    /// Pull-based assignment: ask for a split on start and whenever a split finishes.
    pub fn request_splits_when_idle(mut self) -> Self {
        self.request_splits = true;
        self
    }

    fn spawn_fetcher(&mut self) -> usize {
        let (changes, rx) = mpsc::unbounded_channel();
        let reader = (self.new_split_reader)();
        let fetcher = run_fetcher(reader, rx, self.queue_tx.clone());
        // The fetcher is connector code too: clients it builds send as this attempt.
        #[cfg(madsim)]
        let task = match crate::net::ambient::current() {
            Some(endpoint) => madsim::task::spawn(crate::net::ambient::scope(endpoint, fetcher)),
            None => madsim::task::spawn(fetcher),
        };
        #[cfg(not(madsim))]
        let task = madsim::task::spawn(fetcher);
        self.fetchers.push(Fetcher { changes, task });
        self.fetchers.len() - 1
    }

    fn idle_status(&self) -> InputStatus {
        if self.no_more_splits && self.states.is_empty() {
            InputStatus::EndOfInput
        } else {
            InputStatus::NothingAvailable
        }
    }
}

/// Runs one fetcher until the reader closes it (or goes away, or the split reader fails for
/// good); its split reader is closed on the way out, except when the task is aborted.
async fn run_fetcher<SR: SplitReader>(
    mut reader: SR,
    changes: mpsc::UnboundedReceiver<FetcherCmd<SR::Split>>,
    queue: mpsc::Sender<Fetched<SR::Element>>,
) {
    let closed = fetch_until_done(&mut reader, changes, queue).await;
    reader.close().await;
    if let Some(ack) = closed {
        let _ = ack.send(());
    }
}

/// Fetches until done; returns the close request if that is what ended it.
async fn fetch_until_done<SR: SplitReader>(
    reader: &mut SR,
    mut changes: mpsc::UnboundedReceiver<FetcherCmd<SR::Split>>,
    queue: mpsc::Sender<Fetched<SR::Element>>,
) -> Option<tokio::sync::oneshot::Sender<()>> {
    // The splits the split reader holds (added, not finished), and those it was told to
    // pause: a batch carries the latter, so the reader base can tell a paused split's
    // records that a fetch after the pause returned.
    let mut owned: BTreeSet<SplitId> = BTreeSet::new();
    let mut paused: BTreeSet<SplitId> = BTreeSet::new();
    // Consecutive empty fetches: an idle fetcher backs off (1, 2, 4, 8, 10 ms) instead of
    // asking the external system every millisecond.
    let mut idle = 0u32;
    // Splits the split reader said were idle, and have fetched nothing since: said once.
    let mut said_idle: BTreeSet<SplitId> = BTreeSet::new();
    let apply = |reader: &mut SR,
                 cmd: FetcherCmd<SR::Split>,
                 owned: &mut BTreeSet<SplitId>,
                 paused: &mut BTreeSet<SplitId>| match cmd {
        FetcherCmd::Change(SplitsChange::Add(splits)) => {
            owned.extend(splits.iter().map(Split::id));
            reader.handle_splits_changes(SplitsChange::Add(splits));
            None
        }
        FetcherCmd::Change(SplitsChange::PauseResume { pause, resume }) => {
            // Only splits this split reader holds (as Flink's fetcher manager filters them).
            let pause: Vec<SplitId> = pause.into_iter().filter(|s| owned.contains(s) && !paused.contains(s)).collect();
            let resume: Vec<SplitId> = resume.into_iter().filter(|s| paused.contains(s)).collect();
            paused.extend(pause.iter().cloned());
            for split in &resume {
                paused.remove(split);
            }
            if !pause.is_empty() || !resume.is_empty() {
                reader.handle_splits_changes(SplitsChange::PauseResume { pause, resume });
            }
            None
        }
        FetcherCmd::Close(ack) => Some(ack),
    };
    loop {
        while let Ok(cmd) = changes.try_recv() {
            if let Some(ack) = apply(reader, cmd, &mut owned, &mut paused) {
                return Some(ack);
            }
        }
        if owned.is_empty() {
            match changes.recv().await {
                Some(cmd) => {
                    if let Some(ack) = apply(reader, cmd, &mut owned, &mut paused) {
                        return Some(ack);
                    }
                }
                None => return None,
            }
            continue;
        }
        let fetched = reader.fetch().await.map(|mut batch| {
            for (split, _) in &batch.elements {
                said_idle.remove(split);
            }
            batch.idle.retain(|s| owned.contains(s) && said_idle.insert(s.clone()));
            batch
        });
        match fetched {
            Ok(batch) if batch.is_empty() => {
                // Nothing there: back off so an idle split never spins the simulation.
                madsim::time::sleep(Duration::from_millis((1u64 << idle.min(4)).min(IDLE_BACKOFF_MS_MAX))).await;
                idle += 1;
            }
            Ok(batch) => {
                idle = 0;
                for split in &batch.finished {
                    owned.remove(split);
                    paused.remove(split);
                    said_idle.remove(split);
                }
                let asked = paused.iter().filter(|s| batch.elements.iter().any(|(e, _)| e == *s)).cloned().collect();
                if queue.send(Ok((batch, asked))).await.is_err() {
                    return None;
                }
            }
            Err(e) if e.hint == RetryHint::Retry => madsim::time::sleep(Duration::from_millis(5)).await,
            Err(e) => {
                let _ = queue.send(Err(e)).await;
                return None;
            }
        }
    }
}

impl<SR, RE, T> SourceReader<T> for SourceReaderBase<SR, RE, T>
where
    SR: SplitReader,
    RE: RecordEmitter<T, Element = SR::Element>,
    RE::State: SplitState<SR::Split>,
    T: Send + 'static,
{
    type Split = SR::Split;

    fn start(&mut self) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        if self.request_splits {
            self.ctx.send_split_request();
        }
        async { Ok(()) }
    }

    fn poll_next(&mut self, output: &mut ReaderOutput<T>) -> Result<InputStatus, ConnectorError> {
        output.tells_fetches = true;
        if self.current.is_empty() && self.finishing.is_empty() {
            let next = match self.stash.take() {
                Some(batch) => batch,
                None => match self.queue_rx.try_recv() {
                    Ok(batch) => batch,
                    Err(_) => return Ok(self.idle_status()),
                },
            };
            let (batch, paused) = next?;
            self.current = batch.elements.into();
            self.finishing = batch.finished;
            self.current_paused = paused;
            self.idling = batch.idle;
        }
        // One element per poll (elements of splits no longer assigned are skipped).
        while let Some((split, element)) = self.current.pop_front() {
            if let Some(state) = self.states.get_mut(&split) {
                output.for_split(&split);
                let start = output.records.len();
                self.emitter.emit(element, output, state);
                if self.current_paused.contains(&split) && output.records.len() > start {
                    output.paused_reads.push((start, output.records.len(), split));
                }
                break;
            }
        }
        // A batch's finished splits end, and its idle splits go idle, right after its last
        // element (a split reader may return a split's last records and call it caught up).
        if self.current.is_empty() {
            for split in std::mem::take(&mut self.idling) {
                if self.states.contains_key(&split) {
                    output.for_split(&split);
                    output.mark_idle();
                }
            }
            for split in std::mem::take(&mut self.finishing) {
                if self.states.remove(&split).is_some() {
                    self.ctx.pauses.update(|held| {
                        held.remove(&split);
                    });
                    output.finished_splits.push(split);
                    if self.request_splits {
                        self.ctx.send_split_request();
                    }
                }
            }
        }
        if !self.current.is_empty() || !self.queue_rx.is_empty() {
            Ok(InputStatus::MoreAvailable)
        } else {
            Ok(self.idle_status())
        }
    }

    async fn available(&mut self) {
        if self.stash.is_some() || !self.current.is_empty() {
            return;
        }
        match self.queue_rx.recv().await {
            Some(batch) => self.stash = Some(batch),
            None => std::future::pending().await,
        }
    }

    fn add_splits(&mut self, splits: Vec<Self::Split>) {
        for split in splits {
            self.states.insert(split.id(), RE::State::from_split(split.clone()));
            let fetcher = match (self.mode, self.fetchers.is_empty()) {
                (FetcherMode::Single, false) => 0,
                _ => self.spawn_fetcher(),
            };
            let _ = self.fetchers[fetcher].changes.send(FetcherCmd::Change(SplitsChange::Add(vec![split])));
        }
    }

    fn notify_no_more_splits(&mut self) {
        self.no_more_splits = true;
    }

    fn snapshot_state(&mut self, _checkpoint: CheckpointId) -> Vec<Self::Split> {
        self.states.values().map(SplitState::to_split).collect()
    }

    /// Tells every fetcher; each passes on only the splits its split reader holds.
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        // What the fetchers will hold paused (each keeps only the splits it reads).
        self.ctx.pauses.update(|held| {
            held.extend(pause.iter().filter(|s| self.states.contains_key(*s)).cloned());
            for split in &resume {
                held.remove(split);
            }
        });
        for f in &self.fetchers {
            let _ = f
                .changes
                .send(FetcherCmd::Change(SplitsChange::PauseResume { pause: pause.clone(), resume: resume.clone() }));
        }
        Ok(())
    }

    /// Closes every fetcher's split reader. A fetcher waiting to hand over a batch is let
    /// through (the batch is dropped) so it can see the request.
    async fn close(&mut self) {
        let mut acks = Vec::new();
        for f in &self.fetchers {
            let (tx, rx) = tokio::sync::oneshot::channel();
            if f.changes.send(FetcherCmd::Close(tx)).is_ok() {
                acks.push(rx);
            }
        }
        self.stash = None;
        self.current.clear();
        for mut ack in acks {
            loop {
                tokio::select! {
                    biased;
                    _ = &mut ack => break,
                    batch = self.queue_rx.recv() => if batch.is_none() { break },
                }
            }
        }
    }
}

impl<SR: SplitReader, RE: RecordEmitter<T>, T: 'static> Drop for SourceReaderBase<SR, RE, T> {
    fn drop(&mut self) {
        for f in &self.fetchers {
            f.task.abort();
        }
    }
}
