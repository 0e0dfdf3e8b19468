//! **The split reader mishandles watermark alignment's pauses**: the log source's split
//! reader drops every pause (`PauseBug::Ignores`), resumes every paused split when it is
//! told to resume one (`PauseBug::ResumesAll`), or forgets its pauses when it is given a
//! new split (`PauseBug::ForgetsPausesOnAssign`).
//!
//! Story (`Ignores`): a split reader whose `handle_splits_changes` matches only split
//! additions and silently drops the rest, as many connectors did before split-level
//! alignment (FLIP-217) asked them to pause. Alignment then only looks on: a split that runs
//! ahead keeps being fetched, event time drifts without bound, and the state of event-time
//! windows downstream grows with it. Nothing is lost or duplicated, so only the alignment
//! check sees it, whenever a pause is followed by a fetch.
//!
//! Story (`ResumesAll`): the reader resumes with the consumer's whole paused set (Kafka's
//! `consumer.resume(consumer.paused())`), so resuming one split resumes the others still
//! paused. It needs a reader with two splits paused at once, one of them resumed first,
//! and a fetch of the other before the next pause.
//!
//! Story (`ForgetsPausesOnAssign`): the reader re-subscribes with the new split set when a
//! split is added (Kafka's `consumer.assign(...)`), which clears the consumer's paused set,
//! and does not pause again. It needs a split added while another split of the same reader
//! is paused: partitions that appear while the job runs.
//!
//! Caught by: `watermark-alignment`, in a run read with alignment and skewed event time.

use crate::log_source::{LogEmitter, LogReading, LogSource, LogSourceReadBy, LogSourceSetup, LogSplit, LogSplitReader};
use connsim::api::{FetchedBatch, SplitId, SplitReader, SplitsChange};
use connsim::run::{SourceSetup, World};
use connsim::{ConnectorError, Record};
use std::collections::BTreeSet;

/// Which pause bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PauseBug {
    /// Pauses and resumes are dropped.
    Ignores,
    /// Resuming any split resumes every paused split.
    ResumesAll,
    /// Adding a split resumes every paused split.
    ForgetsPausesOnAssign,
}

/// The log source, with the bug.
pub type MishandlesPauseSource = LogSourceReadBy<PauseBug>;

/// The reference split reader, with the bug in front of its pauses.
pub struct MishandlesPauseReader {
    inner: LogSplitReader,
    bug: PauseBug,
    paused: BTreeSet<SplitId>,
}

impl SplitReader for MishandlesPauseReader {
    type Split = LogSplit;
    type Element = (u64, Record);

    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        self.inner.fetch().await
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<LogSplit>) {
        match (self.bug, change) {
            (PauseBug::Ignores, SplitsChange::PauseResume { .. }) => {} // the bug: dropped
            (PauseBug::ResumesAll, SplitsChange::PauseResume { pause, mut resume }) => {
                if !resume.is_empty() {
                    resume.extend(std::mem::take(&mut self.paused)); // the bug: every paused split
                }
                self.paused.extend(pause.iter().cloned());
                self.inner.handle_splits_changes(SplitsChange::PauseResume { pause, resume });
            }
            (PauseBug::ForgetsPausesOnAssign, SplitsChange::PauseResume { pause, resume }) => {
                self.paused.extend(pause.iter().cloned());
                for split in &resume {
                    self.paused.remove(split);
                }
                self.inner.handle_splits_changes(SplitsChange::PauseResume { pause, resume });
            }
            (PauseBug::ForgetsPausesOnAssign, SplitsChange::Add(splits)) => {
                self.inner.handle_splits_changes(SplitsChange::Add(splits));
                // The bug: the new subscription starts with nothing paused.
                let resume = std::mem::take(&mut self.paused).into_iter().collect();
                self.inner.handle_splits_changes(SplitsChange::PauseResume { pause: Vec::new(), resume });
            }
            (_, change) => self.inner.handle_splits_changes(change),
        }
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
}

impl LogReading for PauseBug {
    type SplitReader = MishandlesPauseReader;
    type Emitter = LogEmitter;
    fn split_reader(&self, reference: LogSplitReader) -> MishandlesPauseReader {
        MishandlesPauseReader { inner: reference, bug: *self, paused: BTreeSet::new() }
    }
    fn emitter(&self, source: &LogSource) -> LogEmitter {
        LogEmitter::new(source.watermarks)
    }
}

/// Sets up the buggy source like [`LogSourceSetup`].
#[derive(Clone, Debug)]
pub struct MishandlesPauseSetup(pub LogSourceSetup, pub PauseBug);

impl SourceSetup for MishandlesPauseSetup {
    type Source = MishandlesPauseSource;
    fn name(&self) -> String {
        let bug = match self.1 {
            PauseBug::Ignores => "ignores-pause",
            PauseBug::ResumesAll => "resumes-all-paused",
            PauseBug::ForgetsPausesOnAssign => "forgets-pauses-on-assign",
        };
        format!("mutant:{bug}({})", self.0.name())
    }
    fn build(&self, world: &mut World) -> MishandlesPauseSource {
        LogSourceReadBy(self.0.build(world), self.1)
    }
}
