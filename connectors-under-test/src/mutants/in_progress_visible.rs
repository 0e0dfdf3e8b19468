//! **In-progress files in the visible directory**: the file sink writes its in-progress part
//! files into the output directory under a name a reader does not skip.
//!
//! Story: Flink's file sink keeps in-progress and pending part files hidden (a `.` prefix)
//! because "only finished files are safe to read by downstream systems" (its documentation);
//! a part-file naming that drops the hidden prefix, or a partition committed while its
//! in-progress file is still there (FLINK-22472, apache/flink PR #16027), lets a reader see
//! records that no completed checkpoint covers, and see them vanish when the file is renamed.
//!
//! Caught by: `no-premature-visibility` on a fault-free seed, as soon as the first records
//! are appended. Before observed visibility the model only announced renames, so this sink
//! passed every check.

use super::buggy_file_sink::FileBug;
use crate::file_sink::FileSink;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct InProgressVisible;

impl FileBug for InProgressVisible {
    const NAME: &'static str = "in-progress-visible";
    fn in_progress(&self, sink: &FileSink) -> String {
        format!("{}inprogress-", sink.dir) // the bug: no leading '.', so readers list it
    }
}
