//! **Copies on a first-try clash**: a committable's first commit that finds its file already
//! committed takes it for a leftover of an earlier run and writes the data again under a
//! second name. Retried and recovered committables are recognised as committed, as the
//! `Committer` contract asks: the committer guards idempotence only where it expects a
//! repeat.
//!
//! Story: the class of a committer that trusts its own first commits (the table sink's
//! "global committer trusts its own commits"): a cut-off committer that hears late that a
//! checkpoint completed commits, for the first time in its attempt, what its replacement has
//! already committed from the restored checkpoint.
//!
//! Caught by: `no-duplicates`, only where a committer is cut off and replaced and a
//! notification reaches it late ("committers apart, one cut off and replaced (zombie)"):
//! lost responses retry (no first try), and a crashed committer's replacement commits what
//! it recovered.

use super::buggy_file_sink::FileBug;
use super::non_idempotent_commit::copy_again;
use crate::file_sink::{FileCommittable, FileCommitter};
use connsim::api::CommitOutcome;
use connsim::systems::FsClient;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct CopiesOnFirstTryClash;

impl FileBug for CopiesOnFirstTryClash {
    const NAME: &'static str = "copies-on-first-try-clash";
    async fn commit_try(
        &self,
        client: &FsClient,
        _attempt: u64,
        _subtask: usize,
        c: &FileCommittable,
        retries: u32,
    ) -> CommitOutcome {
        match FileCommitter::commit_one(client, c).await {
            // The bug: on a first try the file cannot be there already, so it must be a
            // leftover; the data is copied into a second visible file.
            CommitOutcome::AlreadyCommitted if retries == 0 => copy_again(client, c).await,
            other => other,
        }
    }
}
