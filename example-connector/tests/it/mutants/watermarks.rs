//! A reader that keeps its own watermark per split, checkpoints it, and announces it again
//! after a restore, but takes it from the batch it fetched instead of from what it emitted.
//!
//! Story: the reader stores "how far event time got" as the largest event time of the last
//! fetch (a broker's per-partition timestamp, a shard iterator's read-up-to time). Within an
//! attempt nothing is wrong: the stored watermark is announced only after a restore. The
//! reader base emits one record per poll, so a barrier can fall inside a fetched batch; the
//! checkpoint then holds a watermark above the batch's records not emitted yet, and a restore
//! from it replays them behind a watermark their split already announced: late. Nothing is
//! lost, duplicated or invented.

use connsim::api::{
    ElementSource, FetchedBatch, ReaderOutput, RecordEmitter, SourceReaderBase, SplitId, SplitReader, SplitsChange,
};
use connsim::run::{SourceSetup, World};
use connsim::ConnectorError;
use connsim_scenarios::prelude::stop_with_savepoint;
use connsim_scenarios::suites::{self, source_from_setup};
use example_connector::event::{Event, EventCodec, FeedMessage};
use example_connector::source::{decode_message, FeedEmitter, FeedSource, FeedSourceSetup, FeedSplit, FeedSplitReader};
use std::collections::{BTreeMap, BTreeSet};

use super::{caught_report, feed};

/// The feed's split reader, telling each element the largest event time of its split in the
/// batch it came in.
struct BatchTimeReader(FeedSplitReader);

impl SplitReader for BatchTimeReader {
    type Split = FeedSplit;
    type Element = (u64, i64, FeedMessage);
    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, i64, FeedMessage)>, ConnectorError> {
        let batch = self.0.fetch().await?;
        let mut latest: BTreeMap<SplitId, i64> = BTreeMap::new();
        for (split, (_, message)) in &batch.elements {
            if let Ok(event) = decode_message(message) {
                let t = latest.entry(split.clone()).or_insert(i64::MIN);
                *t = (*t).max(event.at_ms);
            }
        }
        let up_to = |split: &SplitId| latest.get(split).copied().unwrap_or(i64::MIN);
        let elements =
            batch.elements.into_iter().map(|(split, (pos, m))| (split.clone(), (pos, up_to(&split), m))).collect();
        Ok(FetchedBatch { elements, finished: batch.finished, idle: batch.idle })
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<FeedSplit>) {
        self.0.handle_splits_changes(change)
    }
}

/// The feed's emitter, announcing each split's stored watermark the first time it emits from
/// the split, and storing the batch's event time as the split's watermark.
struct BatchTimeEmitter {
    inner: FeedEmitter,
    announced: BTreeSet<u32>,
}

impl RecordEmitter<Event> for BatchTimeEmitter {
    type Element = (u64, i64, FeedMessage);
    type State = FeedSplit;
    fn emit(&mut self, (pos, up_to, message): Self::Element, output: &mut ReaderOutput<Event>, state: &mut FeedSplit) {
        if self.announced.insert(state.partition) {
            if let Some(w) = state.watermark {
                output.emit_watermark(w);
            }
        }
        // The bug: the batch's later records are not emitted yet.
        state.watermark = state.watermark.max(Some(up_to.saturating_sub(1)));
        self.inner.emit((pos, message), output, state);
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct BatchTimeSource(FeedSource);

feed_source_variant!(BatchTimeSource, SourceReaderBase<BatchTimeReader, BatchTimeEmitter, Event>, |this, ctx| {
    let emitter = BatchTimeEmitter { inner: FeedEmitter::default(), announced: BTreeSet::new() };
    this.0.reader_around(ctx, BatchTimeReader, emitter)
});

struct BatchTimeSetup(FeedSourceSetup);

impl SourceSetup for BatchTimeSetup {
    type Source = ElementSource<BatchTimeSource, EventCodec>;
    fn name(&self) -> String {
        format!("restores-batch-watermark({})", self.0.name())
    }
    fn build(&self, world: &mut World) -> Self::Source {
        ElementSource::new(BatchTimeSource(self.0.build(world).inner().clone()))
    }
    /// Its element type holds no null key or value, no headers, and text payloads only.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries::PLAIN
    }
}

#[test]
fn a_reader_that_restores_its_watermark_from_the_fetched_batch_replays_records_late() {
    let suite_of_mutant = || suites::source(source_from_setup("feed-source", &["feed"], |d| BatchTimeSetup(feed(d))));
    let suite = suite_of_mutant();
    let reference = suites::source(source_from_setup("feed-source", &["feed"], feed));
    let (case, report) = caught_report(suite, reference, "event-time");
    assert_eq!(report.failed_checks(), vec!["event-time"], "only event time is wrong\n{report}");
    let verdict = report.verdict("event-time").expect("the check ran");
    assert!(verdict.summary.contains("late records"), "{verdict:?}");
    assert!(report.marks.iter().any(|m| m == "restore-from-checkpoint"), "late only after a restore\n{report}");
    // The case of savepoints (a subtask lost during the first, the second going through):
    // with its savepoints taken out there is no restore, and its seeds pass.
    assert_eq!(case, "stop-with-savepoint and resume", "caught where a savepoint restores\n{report}");
    assert!(report.marks.iter().any(|m| m == "savepoint-stop"), "caught after a savepoint\n{report}");
    let without =
        suite_of_mutant().only("stop-with-savepoint and resume").without(stop_with_savepoint()).seeds(20).run();
    assert!(without.caught_by("event-time").is_none(), "late without a savepoint's restore\n{without}");
}
