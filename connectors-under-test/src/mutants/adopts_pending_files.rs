//! **Pending files adopted on restore**: a restored file-sink writer renames its subtask's
//! in-progress and pending files to names of its own attempt (so a zombie of an earlier
//! attempt cannot append to them), and its committer commits a recovered file under the
//! adopted name. The checkpoint still names the original files.
//!
//! Story: fencing by renaming, as file sinks on stores without leases do, and Flink's
//! recoverable writers that "recover for commit" into a new location (the S3 writer's
//! multipart recovery; FLINK-26064, FLINK-28513 for its edge cases). One restore works: the
//! writer adopts, the committer commits the adopted file. A second restore of the same
//! checkpoint, by an attempt that died after the first adopted and before it committed, finds
//! neither the original file nor one adopted under its own attempt, and the records are
//! gone.
//!
//! Caught by: `no-loss`, only by a crash right after a restore and before the recovered
//! commit ([`Phase::AfterRestore`]) of a checkpoint whose committables no one committed yet.
//!
//! [`Phase::AfterRestore`]: connsim::cluster::Phase::AfterRestore

use super::buggy_file_sink::FileBug;
use crate::file_sink::{FileCommittable, FileCommitter};
use connsim::api::CommitOutcome;
use connsim::systems::{FsClient, FsError, FsRequest, FsResponse};
use connsim::ConnectorError;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct AdoptsPendingFiles;

const ADOPTED: &str = ".adopted-by-";

fn adopted(path: &str, attempt: u64) -> String {
    format!("{path}{ADOPTED}{attempt}")
}

impl FileBug for AdoptsPendingFiles {
    const NAME: &'static str = "adopts-pending-files";
    async fn on_restore(
        &self,
        client: &FsClient,
        subtask: usize,
        attempt: u64,
        in_progress: &str,
    ) -> Result<(), ConnectorError> {
        let prefix = format!("{in_progress}part-{subtask}-");
        let listing = crate::file_sink::call(client, FsRequest::List { prefix }).await?;
        let Ok(FsResponse::Listing(paths)) = listing else {
            return Err(ConnectorError::fail_task(format!("listing in-progress files failed: {listing:?}")));
        };
        for path in paths.into_iter().filter(|p| !p.contains(ADOPTED)) {
            let rename = FsRequest::Rename { from: path.clone(), to: adopted(&path, attempt) };
            match crate::file_sink::call(client, rename).await? {
                Ok(_) | Err(FsError::NotFound(_)) | Err(FsError::AlreadyExists(_)) => {}
                Err(e) => return Err(ConnectorError::fail_task(format!("adopting {path}: {e:?}"))),
            }
        }
        Ok(())
    }
    async fn commit(&self, client: &FsClient, attempt: u64, _subtask: usize, c: &FileCommittable) -> CommitOutcome {
        let mine = FileCommittable { tmp: adopted(&c.tmp, attempt), dst: c.dst.clone() };
        match FileCommitter::commit_one(client, &mine).await {
            // Not adopted by this attempt (written by it, or by one that committed): as the reference.
            CommitOutcome::FailedKnown(_) => FileCommitter::commit_one(client, c).await,
            outcome => outcome,
        }
    }
}
