//! **Drops a stale prefetch**: the log source's split reader fetches the next batch ahead,
//! while the one it just returned is being handed over, and throws a prefetched batch away
//! as stale when it is asked for it more than [`STALE_MS`] later, without rewinding its
//! fetch position: the records of that batch are never read.
//!
//! Story: a client that keeps a prefetch buffer and expires old responses (so as not to
//! hand out data "too old to be current"), but whose position already moved past them, as
//! consumers with a fetch-session or buffer timeout can do when their caller stops asking
//! for a while. In a healthy job the fetcher asks every few milliseconds and nothing
//! expires. It only bites when the reader is held back: a slow sink backpressuring the
//! source through an exchange (the reader stops polling, the element queue fills, the
//! fetcher waits), or a subtask stalled by a slow snapshot or a frozen worker. The records
//! lost stay lost unless a failover restores a checkpoint taken before the drop.
//!
//! Caught by: `no-loss` in "a slow sink backpressures the source" (records of the dropped
//! batch never reach the output); the backpressure case without its slow sink passes.
//! Other stalls expose it too: in a 5-seed run of the whole source suite, "overlapping
//! checkpoints" (slow snapshots stall the reader) failed `no-loss` as well.

use crate::log_source::{LogEmitter, LogReading, LogSource, LogSourceReadBy, LogSourceSetup, LogSplit, LogSplitReader};
use connsim::api::{FetchedBatch, SplitReader, SplitsChange};
use connsim::run::{SourceSetup, World};
use connsim::{ConnectorError, Record};

/// A prefetched batch asked for later than this (virtual milliseconds) is dropped.
pub const STALE_MS: u64 = 100;

/// How the buggy source reads: the reference split reader behind a prefetch that expires.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct StalePrefetch;

/// The log source, with the bug.
pub type DropsStalePrefetchSource = LogSourceReadBy<StalePrefetch>;

/// The reference split reader, one batch ahead.
pub struct PrefetchingReader {
    inner: LogSplitReader,
    /// The batch fetched ahead, and when (virtual ms).
    ahead: Option<(FetchedBatch<(u64, Record)>, u64)>,
}

fn now_ms() -> u64 {
    connsim::net::now().as_millis() as u64
}

impl SplitReader for PrefetchingReader {
    type Split = LogSplit;
    type Element = (u64, Record);

    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        let batch = match self.ahead.take() {
            Some((batch, at)) if now_ms().saturating_sub(at) <= STALE_MS => batch,
            // The bug: the stale batch's records are dropped, and the position stays past them.
            Some((stale, _)) => FetchedBatch { elements: Vec::new(), finished: stale.finished, idle: stale.idle },
            None => self.inner.fetch().await?,
        };
        if let Ok(next) = self.inner.fetch().await {
            self.ahead = Some((next, now_ms()));
        }
        Ok(batch)
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<LogSplit>) {
        self.inner.handle_splits_changes(change)
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
}

impl LogReading for StalePrefetch {
    type SplitReader = PrefetchingReader;
    type Emitter = LogEmitter;
    fn split_reader(&self, reference: LogSplitReader) -> PrefetchingReader {
        PrefetchingReader { inner: reference, ahead: None }
    }
    fn emitter(&self, source: &LogSource) -> LogEmitter {
        LogEmitter::new(source.watermarks)
    }
}

/// Sets up the buggy source like [`LogSourceSetup`].
#[derive(Clone, Debug)]
pub struct DropsStalePrefetchSetup(pub LogSourceSetup);

impl SourceSetup for DropsStalePrefetchSetup {
    type Source = DropsStalePrefetchSource;
    fn name(&self) -> String {
        format!("mutant:drops-stale-prefetch({})", self.0.name())
    }
    fn build(&self, world: &mut World) -> DropsStalePrefetchSource {
        LogSourceReadBy(self.0.build(world), StalePrefetch)
    }
}
