//! What outlives a job: how an attempt closed, and what a system still holds for the job
//! when the run ends (transactional ids, groups, open transactions, incomplete uploads).

use serde::{Deserialize, Serialize};

/// How a subtask attempt ended when it closed its reader, writer and committer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Closing {
    /// Its input had ended (it sent its writer the end of input) before it was cancelled: a
    /// finished attempt, released when the job finished or stopped.
    Finished,
    /// It was cancelled while its input ran (a failover elsewhere, a stop, a rescale).
    Cancelled,
    /// Its connector failed it.
    Failed,
}

/// What an external system still holds for the job when the run ends. A real system keeps
/// each for long after the job: a broker a transactional id for
/// `transactional.id.expiration.ms` (seven days by default) and a group's offsets for
/// `offsets.retention.minutes` (seven days); a bucket an incomplete upload's parts (billed)
/// until a lifecycle rule or an abort removes them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leftovers {
    /// Transactional ids the system has state for.
    pub transactional_ids: u64,
    /// Consumer groups the system has state for (members or committed offsets).
    pub groups: u64,
    /// Transactional ids whose transaction is still open.
    pub open_transactions: Vec<String>,
    /// Multipart uploads neither completed nor aborted.
    pub uploads: Vec<LeftUpload>,
}

impl Leftovers {
    /// Whether the system holds nothing for the job.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// An incomplete multipart upload left when the run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftUpload {
    /// The key it was started for.
    pub key: String,
    /// Its upload id (its [`EventKind::UploadStarted`](crate::history::EventKind::UploadStarted)
    /// says when and by whom it was started).
    pub upload: String,
}
