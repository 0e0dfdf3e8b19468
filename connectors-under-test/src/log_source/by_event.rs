//! The log source handing splits over in connector-defined source events instead of split
//! assignments, as some of Flink's sources do: what a variant that changes only the event
//! format needs.
//!
//! ```text
//!  LogEnumerator ── send_event_to_reader(E::encode(splits)) ──▶ EventSplitsReader
//!   (HandOver::Event: tracks what it sent           handle_source_event: E::decode ──▶
//!    until a checkpoint covers it; reader_failed      add_splits of the reader it wraps
//!    takes a failed reader's back)
//! ```

use super::{LogEnumState, LogEnumerator, LogReader, LogSource, LogSplit};
use crate::log_source::HandOver;
use connsim::api::{
    Boundedness, EnumeratorContext, InputStatus, ReaderContext, ReaderOutput, Source, SourceReader, SplitId,
    WatermarkStrategy,
};
use connsim::history::CheckpointId;
use connsim::ConnectorError;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::sync::Arc;

/// The source events a variant of the log source hands splits over in: how the enumerator
/// writes them and how a reader reads them back.
pub trait SplitEvents: Clone + Debug + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// The source event that hands `splits` (never empty) over to a reader.
    fn encode(&self, splits: &[LogSplit]) -> Vec<u8>;
    /// The splits `event` hands over, or `None` when it is not a hand-over (the reader then
    /// passes it on to the reader it wraps).
    fn decode(&self, event: &[u8]) -> Option<Vec<LogSplit>>;
}

/// A reader that takes the splits handed over in source events (as `E` reads them) and adds
/// them to the reader it wraps; every other call goes to that reader unchanged.
pub struct EventSplitsReader<R, E> {
    inner: R,
    events: E,
}

impl<R: SourceReader<Split = LogSplit>, E: SplitEvents> EventSplitsReader<R, E> {
    /// `inner`, also taking the splits of events `events` reads.
    pub fn new(inner: R, events: E) -> Self {
        Self { inner, events }
    }
}

impl<R: SourceReader<Split = LogSplit>, E: SplitEvents> SourceReader for EventSplitsReader<R, E> {
    type Split = LogSplit;
    async fn start(&mut self) -> Result<(), ConnectorError> {
        self.inner.start().await
    }
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
        self.inner.poll_next(output)
    }
    async fn available(&mut self) {
        self.inner.available().await
    }
    fn add_splits(&mut self, splits: Vec<LogSplit>) {
        self.inner.add_splits(splits)
    }
    fn notify_no_more_splits(&mut self) {
        self.inner.notify_no_more_splits()
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<LogSplit> {
        self.inner.snapshot_state(checkpoint)
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        self.inner.notify_checkpoint_complete(checkpoint)
    }
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId) {
        self.inner.notify_checkpoint_aborted(checkpoint)
    }
    fn handle_source_event(&mut self, event: Vec<u8>) {
        match self.events.decode(&event) {
            Some(splits) => self.inner.add_splits(splits),
            None => self.inner.handle_source_event(event),
        }
    }
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        self.inner.pause_or_resume_splits(pause, resume)
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
}

/// The log source, its enumerator handing splits over in the source events `E` writes
/// ([`HandOver::Event`]) and its readers taking them ([`EventSplitsReader`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct LogSourceByEvent<E: SplitEvents>(pub LogSource, pub E);

impl<E: SplitEvents> Source for LogSourceByEvent<E> {
    type Split = LogSplit;
    type EnumState = LogEnumState;
    type Enumerator = LogEnumerator;
    type Reader = EventSplitsReader<LogReader, E>;
    fn boundedness(&self) -> Boundedness {
        self.0.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<LogSplit>) -> LogEnumerator {
        self.0.create_enumerator(ctx).handing_over(self.hand_over())
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> LogEnumerator {
        self.0.restore_enumerator(ctx, state).handing_over(self.hand_over())
    }
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        self.0.watermark_strategy()
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        EventSplitsReader::new(self.0.create_reader(ctx), self.1.clone())
    }
}

impl<E: SplitEvents> LogSourceByEvent<E> {
    fn hand_over(&self) -> HandOver {
        let events = self.1.clone();
        HandOver::Event(Arc::new(move |splits| events.encode(splits)))
    }
}
