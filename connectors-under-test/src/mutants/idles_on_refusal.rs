//! **A failed fetch taken for caught-up partitions**: the split reader marks its partitions
//! idle (`FetchedBatch::idle`) when a fetch fails with a retriable error (the log refused it,
//! or its answer never came), as if the partitions had nothing to read, so they stop holding
//! the combined watermark back.
//!
//! Story: a consumer that maps "no records returned" to idleness without telling an empty
//! answer from a throttled or failed one (a poll that timed out, a broker that answered
//! "unavailable"). While the log refuses, the partitions' backlog waits, the combined watermark
//! moves on with the partitions another fetch reached, and the backlog comes late once the
//! log answers again: an event-time window that closed drops it. No record is lost,
//! duplicated or reordered.
//!
//! Caught by: `event-time` (records late at the subtask's output behind the watermark their
//! split's idle mark let through), only in a case whose faults make fetches fail (lost
//! messages, refusals). Every other check passes; the reference, which never marks a
//! partition idle, passes the same seeds.

use crate::log_source::{LogEmitter, LogReading, LogSource, LogSourceReadBy, LogSourceSetup, LogSplit, LogSplitReader};
use connsim::api::{FetchedBatch, Split, SplitId, SplitReader, SplitsChange};
use connsim::error::RetryHint;
use connsim::run::{SourceSetup, World};
use connsim::{ConnectorError, Record};

/// How the buggy source reads: the reference split reader, its refusals turned into idleness.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct IdlesOnRefusal;

/// The log source, with the bug.
pub type IdlesOnRefusalSource = LogSourceReadBy<IdlesOnRefusal>;

/// The reference split reader; a fetch that failed comes back as "every partition idle".
pub struct RefusalIdleReader {
    inner: LogSplitReader,
    owned: Vec<SplitId>,
}

impl SplitReader for RefusalIdleReader {
    type Split = LogSplit;
    type Element = (u64, Record);

    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        match self.inner.fetch().await {
            Ok(batch) => {
                self.owned.retain(|s| !batch.finished.contains(s));
                Ok(batch)
            }
            // The bug: no records, so nothing to wait for.
            Err(e) if e.hint == RetryHint::Retry => {
                let mut batch = FetchedBatch::empty();
                batch.idle = self.owned.clone();
                Ok(batch)
            }
            Err(e) => Err(e),
        }
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<LogSplit>) {
        if let SplitsChange::Add(splits) = &change {
            self.owned.extend(splits.iter().map(Split::id));
        }
        self.inner.handle_splits_changes(change)
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
}

impl LogReading for IdlesOnRefusal {
    type SplitReader = RefusalIdleReader;
    type Emitter = LogEmitter;
    fn split_reader(&self, reference: LogSplitReader) -> RefusalIdleReader {
        RefusalIdleReader { inner: reference, owned: Vec::new() }
    }
    fn emitter(&self, source: &LogSource) -> LogEmitter {
        LogEmitter::new(source.watermarks)
    }
}

/// Sets up the buggy source like [`LogSourceSetup`].
#[derive(Clone, Debug)]
pub struct IdlesOnRefusalSetup(pub LogSourceSetup);

impl SourceSetup for IdlesOnRefusalSetup {
    type Source = IdlesOnRefusalSource;
    fn name(&self) -> String {
        format!("mutant:idles-on-refusal({})", self.0.name())
    }
    fn build(&self, world: &mut World) -> IdlesOnRefusalSource {
        LogSourceReadBy(self.0.build(world), IdlesOnRefusal)
    }
}
