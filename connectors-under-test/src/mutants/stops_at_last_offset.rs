//! **Stops at the last delivered offset** (Kafka source, bounded): a split counts as
//! finished once the reader delivered the record at its stopping offset − 1, not once the
//! consumer's position passed the stopping offset (the FLINK-34470 class: Flink's Kafka
//! source with a `latest` bound over a transactional topic hung for good). A partition that
//! ends in a transaction marker has its stopping offset one past the marker, and no record
//! sits at stopping offset − 1: the split never finishes and the bounded job never ends.
//!
//! Caught by `liveness` (the job hung) on the suites' real data, whose partitions end in a
//! control record; plain data has no markers, and it passes.

use crate::log_source::LogSplit;
use connsim::api::{FetchedBatch, Split, SplitId};
use connsim::Record;
use std::collections::BTreeMap;

/// What the buggy finish rule knows of each split: its stopping offset and the offset of the
/// last record delivered (or the one before its start).
#[derive(Default)]
pub struct LastOffsetStop {
    splits: BTreeMap<SplitId, (u64, Option<u64>)>,
}

impl LastOffsetStop {
    /// A bounded split was assigned.
    pub fn added(&mut self, split: &LogSplit) {
        if let Some(stop) = split.stop {
            self.splits.insert(split.id(), (stop, split.offset.checked_sub(1)));
        }
    }

    /// Applies the buggy rule to what the reference reader fetched: a split the reference
    /// finished (its position passed the stop) stays unfinished unless its last delivered
    /// record sits at the stop − 1 (or it started at its stop). Nothing more is fetched of
    /// it: the reader's consumer no longer reads it, and the split waits for good.
    pub fn apply(&mut self, batch: &mut FetchedBatch<(u64, Record)>) {
        for (id, (offset, _)) in &batch.elements {
            if let Some((_, last)) = self.splits.get_mut(id) {
                *last = Some(*offset);
            }
        }
        let splits = &mut self.splits;
        batch.finished.retain(|id| {
            let Some(&(stop, last)) = splits.get(id) else { return true };
            // The bug: `offset == stoppingOffset - 1` instead of `position >= stoppingOffset`.
            let finished = stop == 0 || last == Some(stop - 1) || last.is_some_and(|l| l + 1 > stop);
            if finished {
                splits.remove(id);
            }
            finished
        });
    }
}
