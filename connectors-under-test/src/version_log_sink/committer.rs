//! The global committer: one version per checkpoint (a manifest of its data files, then a
//! version file naming it, published by a conditional put), and the versions read back to
//! tell what is published.

use super::{LOG, MANIFESTS};
use connsim::api::{CommitOutcome, CommitRequest, GlobalCommitter};
use connsim::history::CheckpointId;
use connsim_object_store::SimulatedS3;
use futures::TryStreamExt;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutMode};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What a checkpoint of a job publishes: its data files (the global committable).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    /// The job whose global committer combined it (a new job numbers its checkpoints again).
    pub job: String,
    /// The checkpoint it publishes.
    pub checkpoint: CheckpointId,
    /// The data files it adds.
    pub files: Vec<String>,
}

impl Version {
    /// The key of version `n`.
    pub fn key(n: usize) -> String {
        format!("{LOG}{n:08}")
    }

    /// The key of its manifest, the object listing its data files (regenerated from the
    /// committable whenever it is written).
    pub fn manifest(&self) -> String {
        format!("{MANIFESTS}{}-{}", self.job, self.checkpoint)
    }

    /// Its manifest's bytes: `add <key>` per file, a line each.
    pub fn encode_manifest(&self) -> Vec<u8> {
        self.files.iter().map(|f| format!("add {f}\n")).collect::<String>().into_bytes()
    }

    /// Its version file's bytes: `job <job>`, `checkpoint <n>`, `manifest <key>`, a line each.
    pub fn encode_head(&self) -> Vec<u8> {
        format!("job {}\ncheckpoint {}\nmanifest {}\n", self.job, self.checkpoint, self.manifest()).into_bytes()
    }
}

/// A published version as its file says: whose checkpoint, and where its manifest is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Published {
    /// The job.
    pub job: String,
    /// The checkpoint.
    pub checkpoint: CheckpointId,
    /// Its manifest's key.
    pub manifest: String,
}

impl Published {
    /// Reads back what [`Version::encode_head`] wrote.
    pub fn decode(bytes: &[u8]) -> Option<Published> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut lines = text.lines();
        let job = lines.next()?.strip_prefix("job ")?.to_string();
        let checkpoint = lines.next()?.strip_prefix("checkpoint ")?.parse().ok()?;
        let manifest = lines.next()?.strip_prefix("manifest ")?.to_string();
        Some(Published { job, checkpoint, manifest })
    }
}

/// The data files a manifest lists (what [`Version::encode_manifest`] wrote).
pub fn manifest_files(bytes: &[u8]) -> Option<Vec<String>> {
    let text = std::str::from_utf8(bytes).ok()?;
    text.lines().map(|l| l.strip_prefix("add ").map(str::to_string)).collect()
}

/// The global committer.
pub struct VersionCommitter {
    /// The store.
    pub store: Arc<SimulatedS3>,
    job: String,
    /// The versions read so far, from 0 (published versions never change).
    known: Vec<Published>,
}

impl VersionCommitter {
    /// The committer of job `job`'s checkpoints.
    pub fn new(store: Arc<SimulatedS3>, job: &str) -> Self {
        Self { store, job: job.to_string(), known: Vec::new() }
    }

    /// Reads the versions published since the last read, in order; stops at a gap.
    pub async fn refresh(&mut self) -> object_store::Result<()> {
        let listed: Vec<_> = self.store.list(Some(&Path::from(LOG))).try_collect().await?;
        let mut keys: Vec<String> = listed.into_iter().map(|m| m.location.to_string()).collect();
        keys.sort();
        for key in keys {
            if key != Version::key(self.known.len()) {
                continue;
            }
            let bytes = self.store.get(&Path::from(key.as_str())).await?.bytes().await?;
            let Some(version) = Published::decode(&bytes) else {
                return Err(object_store::Error::Generic {
                    store: "S3",
                    source: format!("{key} is no version").into(),
                });
            };
            self.known.push(version);
        }
        Ok(())
    }

    /// Whether a version read so far publishes `job`'s checkpoint `checkpoint`.
    pub fn published(&self, job: &str, checkpoint: CheckpointId) -> bool {
        self.known.iter().any(|v| v.job == job && v.checkpoint == checkpoint)
    }

    /// The number the next version takes.
    pub fn next(&self) -> usize {
        self.known.len()
    }

    /// Publishes `version` as the next version: writes its manifest, then puts the version
    /// file if none has the number yet. `Err`: a put failed, and the version's may still land
    /// (a lost answer, a timeout), or another put took the number.
    pub async fn publish(&mut self, version: &Version) -> object_store::Result<()> {
        let manifest = Path::from(version.manifest());
        self.store.put(&manifest, version.encode_manifest().into()).await?;
        let key = Path::from(Version::key(self.next()));
        self.store.put_opts(&key, version.encode_head().into(), PutMode::Create.into()).await?;
        self.known.push(Published {
            job: version.job.clone(),
            checkpoint: version.checkpoint,
            manifest: version.manifest(),
        });
        Ok(())
    }

    /// Commits `requests` in order with `publish`, each skipped if a version holds it.
    /// Once one must wait, the later ones wait too, so versions follow checkpoint order.
    pub async fn commit_with<F>(&mut self, requests: Vec<CommitRequest<Version>>, mut publish: F) -> Vec<CommitOutcome>
    where
        F: AsyncFnMut(&mut Self, &Version) -> CommitOutcome,
    {
        let mut out = Vec::with_capacity(requests.len());
        for r in requests {
            if out.last() == Some(&CommitOutcome::RetryLater) {
                out.push(CommitOutcome::RetryLater);
                continue;
            }
            if self.refresh().await.is_err() {
                out.push(CommitOutcome::RetryLater);
                continue;
            }
            if self.published(&r.committable.job, r.committable.checkpoint) {
                out.push(CommitOutcome::AlreadyCommitted);
                continue;
            }
            out.push(publish(self, &r.committable).await);
        }
        out
    }
}

impl GlobalCommitter for VersionCommitter {
    type Committable = String;
    type GlobalCommittable = Version;

    fn combine(&mut self, checkpoint: CheckpointId, files: Vec<String>) -> Version {
        Version { job: self.job.clone(), checkpoint, files }
    }

    async fn commit(&mut self, requests: Vec<CommitRequest<Version>>) -> Vec<CommitOutcome> {
        self.commit_with(requests, async |c: &mut Self, v: &Version| match c.publish(v).await {
            Ok(()) => CommitOutcome::Committed,
            // Taken by another put, or ambiguous (it may land later): the versions tell,
            // next time. The manifest and the data files stay: a version may list them.
            Err(_) => CommitOutcome::RetryLater,
        })
        .await
    }
}
