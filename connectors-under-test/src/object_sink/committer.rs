//! The committer: completes uploads, puts small files and recovers files in progress,
//! idempotently.

use super::{InProgress, PartFile};
use connsim::api::{CommitOutcome, CommitRequest, Committer};
use connsim_object_store::SimulatedS3;
use object_store::multipart::{MultipartStore, PartId};
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutMode};
use std::sync::Arc;

/// The committer.
pub struct ObjectCommitter {
    /// The store.
    pub store: Arc<SimulatedS3>,
}

impl ObjectCommitter {
    /// Makes one part file visible, or recognises that it was.
    pub async fn commit_one(&self, file: &PartFile) -> CommitOutcome {
        let path = Path::from(file.key());
        match file {
            PartFile::Small { bytes, .. } => {
                match self.store.put_opts(&path, bytes.clone().into(), PutMode::Create.into()).await {
                    Ok(_) => CommitOutcome::Committed,
                    // Only this file is ever put at its key.
                    Err(object_store::Error::AlreadyExists { .. }) => CommitOutcome::AlreadyCommitted,
                    Err(_) => CommitOutcome::RetryLater,
                }
            }
            PartFile::Upload { upload, parts, .. } => {
                let ids = parts.iter().map(|p| PartId { content_id: p.clone() }).collect();
                match self.store.complete_multipart(&path, upload, ids).await {
                    Ok(_) => CommitOutcome::Committed,
                    Err(object_store::Error::NotFound { .. }) => self.completed_before(&path, upload).await,
                    Err(_) => CommitOutcome::RetryLater,
                }
            }
            PartFile::Recovered(f) => self.recover(f).await,
        }
    }

    /// Commits a file a restored checkpoint recorded in progress: its upload completed with
    /// the parts recorded, its tail copied beside it. If the upload is gone and the file is
    /// there, a later attempt rolled it (bigger than the recorded parts: the tail is inside)
    /// or a recovery completed it (as big: the tail goes beside it, if not there yet).
    pub async fn recover(&self, f: &InProgress) -> CommitOutcome {
        match self.complete_recorded(f).await {
            Ok(()) => self.publish_tail(f).await,
            Err(outcome) => outcome,
        }
    }

    /// The first half of [`ObjectCommitter::recover`]: completes a recovered file's upload
    /// with the parts recorded. `Err` is the commit's outcome when its tail must not be
    /// published (yet): the file was rolled later with its tail inside, or it is lost, or
    /// the store asks to retry.
    pub async fn complete_recorded(&self, f: &InProgress) -> Result<(), CommitOutcome> {
        let path = Path::from(f.key.as_str());
        let Some(upload) = &f.upload else { return Ok(()) };
        let ids = f.parts.iter().map(|p| PartId { content_id: p.clone() }).collect();
        match self.store.complete_multipart(&path, upload, ids).await {
            Ok(_) => Ok(()),
            Err(object_store::Error::NotFound { .. }) => match self.store.head(&path).await {
                Ok(meta) if meta.size > f.bytes => Err(CommitOutcome::AlreadyCommitted),
                Ok(_) => Ok(()),
                Err(object_store::Error::NotFound { .. }) => {
                    let why = format!("upload {upload} of {path} is gone and its object is not there");
                    Err(CommitOutcome::FailedKnown(why))
                }
                Err(_) => Err(CommitOutcome::RetryLater),
            },
            Err(_) => Err(CommitOutcome::RetryLater),
        }
    }

    /// The upload is gone: completed before if its object is there (only it writes the key).
    pub async fn completed_before(&self, path: &Path, upload: &str) -> CommitOutcome {
        match self.store.head(path).await {
            Ok(_) => CommitOutcome::AlreadyCommitted,
            Err(object_store::Error::NotFound { .. }) => {
                CommitOutcome::FailedKnown(format!("upload {upload} of {path} is gone and its object is not there"))
            }
            Err(_) => CommitOutcome::RetryLater,
        }
    }

    /// Makes a recovered file's tail visible: beside its parts (`<key>-tail`), or, if no part
    /// went up, as the file itself.
    pub async fn publish_tail(&self, f: &InProgress) -> CommitOutcome {
        let Some(tail) = &f.tail else { return CommitOutcome::Committed };
        let to = if f.upload.is_some() { f.visible_tail() } else { f.key.clone() };
        match self.store.copy_if_not_exists(&Path::from(tail.as_str()), &Path::from(to.as_str())).await {
            Ok(()) => CommitOutcome::Committed,
            // Only this file's tail is ever copied there, or (no parts) the file rolled whole.
            Err(object_store::Error::AlreadyExists { .. }) => CommitOutcome::AlreadyCommitted,
            Err(object_store::Error::NotFound { .. }) => {
                CommitOutcome::FailedKnown(format!("the tail {tail} of {} is gone", f.key))
            }
            Err(_) => CommitOutcome::RetryLater,
        }
    }
}

impl Committer for ObjectCommitter {
    type Committable = PartFile;
    async fn commit(&mut self, requests: Vec<CommitRequest<PartFile>>) -> Vec<CommitOutcome> {
        let mut out = Vec::with_capacity(requests.len());
        for r in requests {
            out.push(self.commit_one(&r.committable).await);
        }
        out
    }
}
