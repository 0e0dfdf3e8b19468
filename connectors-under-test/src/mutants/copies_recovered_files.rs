//! **Recovered files published by copying**: a restored file-sink committer cannot rename a
//! pending file another attempt wrote, so it copies a recovered file's bytes to a final file
//! named for its own attempt and leaves the pending file behind (nothing will commit it
//! again once a newer checkpoint completes). Regular commits still rename.
//!
//! Story: object stores and file systems without cross-writer rename make sinks publish
//! recovered files by copy (Flink's S3 recoverable writer completes a recovered multipart
//! upload under the target name; hand-written sinks copy), and the copy is idempotent only
//! if its target name is. Published once, a recovered file is fine; but an attempt that dies
//! after publishing and before a newer checkpoint completes leaves the same committable to
//! be recovered again, and the next attempt publishes a second copy under its own name.
//!
//! Caught by: `no-duplicates`, only by a crash inside the commit of recovered committables
//! ([`Phase::InsideRecoveredCommit`]).
//!
//! [`Phase::InsideRecoveredCommit`]: connsim::cluster::Phase::InsideRecoveredCommit

use super::buggy_file_sink::FileBug;
use crate::file_sink::{call, FileCommittable, FileCommitter};
use connsim::api::CommitOutcome;
use connsim::systems::{FsClient, FsError, FsRequest, FsResponse};

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct CopiesRecoveredFiles;

impl FileBug for CopiesRecoveredFiles {
    const NAME: &'static str = "copies-recovered-files";
    async fn commit_recovered(
        &self,
        client: &FsClient,
        attempt: u64,
        _subtask: usize,
        c: &FileCommittable,
    ) -> CommitOutcome {
        let target = format!("{}-recovered-by-{attempt}", c.dst); // the bug: a name per attempt
        let bytes = match call(client, FsRequest::Read { path: c.tmp.clone() }).await {
            Ok(Ok(FsResponse::Data(bytes))) => bytes,
            // Renamed by a regular commit before the restore: as the reference.
            Ok(Err(FsError::NotFound(_))) => return FileCommitter::commit_one(client, c).await,
            _ => return CommitOutcome::RetryLater,
        };
        let len = bytes.len() as u64;
        let steps = [
            FsRequest::Create { path: target.clone() },
            FsRequest::Append { path: target.clone(), at: 0, bytes },
            FsRequest::Sync { path: target.clone(), len },
        ];
        for step in steps {
            match call(client, step).await {
                Ok(Ok(_)) => {}
                _ => return CommitOutcome::RetryLater,
            }
        }
        CommitOutcome::Committed
    }
}
