//! **Recovered committables dropped**: the committer commits only what its own attempt
//! prepared; committables restored from a checkpoint are reported committed and forgotten.
//!
//! Story: delta-io/connectors PR #473 — committables restored from a checkpoint were never
//! committed, losing the data of the last checkpoint before a failure whenever the commit
//! had not happened yet (a lost notification, a crash right after the checkpoint).
//!
//! Caught by: `no-loss` after a failure between a checkpoint's completion and its commit.

use super::buggy_file_sink::FileBug;
use crate::file_sink::{FileCommittable, FileCommitter};
use connsim::api::CommitOutcome;
use connsim::systems::FsClient;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DropsRecoveredCommittables;

impl FileBug for DropsRecoveredCommittables {
    const NAME: &'static str = "drops-recovered-committables";
    async fn commit(&self, client: &FsClient, attempt: u64, subtask: usize, c: &FileCommittable) -> CommitOutcome {
        if !c.tmp.contains(&format!("part-{subtask}-{attempt}-")) {
            return CommitOutcome::Committed; // the bug: not ours, so "nothing to do"
        }
        FileCommitter::commit_one(client, c).await
    }
}
