//! **Error replies taken for permanent failures**: the file-sink committer retries a rename
//! that timed out, but reports a rename the store answered with an error reply
//! (unavailable, throttled, disk full) as a committable that failed for a known reason, so
//! the runtime drops it and its file is never published.
//!
//! Story: a committer written against a client whose only transport error was a timeout.
//! When the client learns to surface HTTP 503 and S3's `SlowDown` as errors, they land in
//! the catch-all arm meant for "the source file is gone", which Flink's committers signal
//! with `signalFailedWithKnownReason`. Every error reply is transient; the data is lost.
//!
//! Caught by: `no-loss`, only when an external system refuses a commit's request
//! (the `refuse(..)` block); timeouts, lost requests and lost
//! responses still go through the retry path.

use super::buggy_file_sink::FileBug;
use crate::file_sink::{FileCommittable, FileCommitter};
use connsim::api::CommitOutcome;
use connsim::net::RpcError;
use connsim::systems::{FsClient, FsRequest};

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct GivesUpOnErrorReplies;

impl FileBug for GivesUpOnErrorReplies {
    const NAME: &'static str = "gives-up-on-error-replies";
    async fn commit(&self, client: &FsClient, _attempt: u64, _subtask: usize, c: &FileCommittable) -> CommitOutcome {
        let rename = FsRequest::Rename { from: c.tmp.clone(), to: c.dst.clone() };
        match client.send(rename).await {
            // The bug: an error reply is transient, not a known permanent failure.
            Err(RpcError::Refused { refusal, .. }) => {
                CommitOutcome::FailedKnown(format!("store refused the rename: {refusal}"))
            }
            // Anything else as the reference (which sends the rename again: it is idempotent).
            _ => FileCommitter::commit_one(client, c).await,
        }
    }
}
