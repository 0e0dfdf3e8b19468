//! **Non-idempotent commit**: committing a committable that was already committed applies
//! it again.
//!
//! Story: FLINK-36517 (apache/flink-cdc PR #3639) — a committer re-applied recovered
//! committables instead of recognising them, writing their data twice; Flink's `Committer`
//! contract requires commits to be idempotent because recovered committables are always
//! committed again.
//!
//! Caught by: `no-duplicates` whenever a commit is repeated: a commit whose response was
//! lost, or a restored subtask re-committing what its previous attempt already committed.

use super::buggy_file_sink::FileBug;
use crate::file_sink::{call, FileCommittable, FileCommitter};
use connsim::api::CommitOutcome;
use connsim::systems::{FsClient, FsRequest, FsResponse};

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct NonIdempotentCommit;

impl FileBug for NonIdempotentCommit {
    const NAME: &'static str = "non-idempotent-commit";
    async fn commit(&self, client: &FsClient, _attempt: u64, _subtask: usize, c: &FileCommittable) -> CommitOutcome {
        match FileCommitter::commit_one(client, c).await {
            // The bug: "already committed" is taken as "do it again" — the data is copied
            // into a second visible file.
            CommitOutcome::AlreadyCommitted => copy_again(client, c).await,
            other => other,
        }
    }
}

/// Copies a committed file's data into a second visible file.
pub(super) async fn copy_again(client: &FsClient, c: &FileCommittable) -> CommitOutcome {
    let Ok(Ok(FsResponse::Data(bytes))) = call(client, FsRequest::Read { path: c.dst.clone() }).await else {
        return CommitOutcome::RetryLater;
    };
    let (tmp, dst) = (format!("{}.again", c.tmp), format!("{}.again", c.dst));
    let len = bytes.len() as u64;
    for req in [
        FsRequest::Create { path: tmp.clone() },
        FsRequest::Append { path: tmp.clone(), at: 0, bytes },
        FsRequest::Sync { path: tmp.clone(), len },
        FsRequest::Rename { from: tmp, to: dst },
    ] {
        if call(client, req).await.is_err() {
            return CommitOutcome::RetryLater;
        }
    }
    CommitOutcome::Committed
}
