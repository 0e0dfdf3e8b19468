//! **Holds new splits until a checkpoint**: splits the reader gets while it already reads
//! others are held paused until the next checkpoint completes, then read as usual.
//!
//! Story: a reader that, to avoid reading a split "twice" after a failover, keeps a split
//! it is handed mid-run paused until a checkpoint has recorded the assignment. Under
//! watermark alignment that is a pause alignment never asked for: the held split's
//! watermark is within the drift, alignment thinks it runs, and the group minimum waits on
//! a split nobody reads. Nothing is lost: the next completed checkpoint resumes it, so no
//! record-level check fails.
//!
//! Caught by: `watermark-alignment` (paused without cause), only where a reader is handed
//! a split while it reads others and alignment pauses or resumes a split before the next
//! checkpoint completes.

use super::buggy_log_source::{BuggyReader, LogBug};
use crate::log_source::LogSplit;
use connsim::api::{SourceReader, Split, SplitId};
use connsim::history::CheckpointId;
use connsim::ConnectorError;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct HoldsNewSplits;

impl LogBug for HoldsNewSplits {
    const NAME: &'static str = "holds-new-splits";
    fn add_splits(&self, r: &mut BuggyReader<Self>, splits: Vec<LogSplit>) {
        let ids: Vec<SplitId> = splits.iter().map(Split::id).collect();
        r.inner.add_splits(splits);
        if r.additions > 0 {
            // The bug: a split handed over mid-run waits for a checkpoint.
            r.scratch.extend(ids.iter().cloned());
            let _ = r.inner.pause_or_resume_splits(ids, Vec::new());
        }
    }
    fn notify_checkpoint_complete(&self, r: &mut BuggyReader<Self>, checkpoint: CheckpointId) {
        r.inner.notify_checkpoint_complete(checkpoint);
        let held = std::mem::take(&mut r.scratch);
        let resume: Vec<SplitId> = held.into_iter().filter(|s| !r.aligned.contains(s)).collect();
        if !resume.is_empty() {
            let _ = r.inner.pause_or_resume_splits(Vec::new(), resume);
        }
    }
    fn pause_or_resume_splits(
        &self,
        r: &mut BuggyReader<Self>,
        pause: Vec<SplitId>,
        resume: Vec<SplitId>,
    ) -> Result<(), ConnectorError> {
        // Alignment's own pauses and resumes go through; a split alignment resumes is no
        // longer held.
        for split in &resume {
            r.scratch.remove(split);
        }
        r.inner.pause_or_resume_splits(pause, resume)
    }
}
