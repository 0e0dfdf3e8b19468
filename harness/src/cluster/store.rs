//! Durable job storage, outside every node: it survives any crash, including the job
//! master's. It holds the latest completed checkpoint and what Flink keeps in its
//! high-availability services: the leader epoch (so a new job-master incarnation fences the
//! old one's attempts), the checkpoint-id counter (ids are never reused) and the job's
//! parallelism (changed by a rescale).

use super::protocol::SubtaskState;
use crate::history::CheckpointId;
use std::sync::{Arc, Mutex};

/// One completed checkpoint.
#[derive(Clone, Debug)]
pub struct CompletedCheckpoint {
    /// Its id.
    pub id: CheckpointId,
    /// The enumerator's state (serialized `Source::EnumState`).
    pub enumerator: Vec<u8>,
    /// Per subtask, in subtask order; with a global committer, its task's state last
    /// (index `readers.max(writers)`).
    pub subtasks: Vec<SubtaskState>,
    /// How many of the subtasks had a reader (the rest only a writer).
    pub readers: usize,
    /// How many of the subtasks had a writer (the rest only a reader).
    pub writers: usize,
    /// Taken as a savepoint (stop-with-savepoint).
    pub savepoint: bool,
}

#[derive(Default)]
struct Durable {
    latest: Option<CompletedCheckpoint>,
    epoch: u64,
    last_checkpoint_id: CheckpointId,
    parallelism: Option<usize>,
    /// Every savepoint taken, oldest first (savepoints are kept until deleted by hand).
    savepoints: Vec<CompletedCheckpoint>,
    /// The index of the current job (0: the first).
    job: u64,
}

/// Where a new job starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewJobStart {
    /// Without state: its sources start where they declare, its checkpoints from 1.
    WithoutState,
    /// From the savepoint before the latest one (older than the latest completed checkpoint).
    OlderSavepoint,
}

/// Where completed checkpoints and the job's durable coordinates are kept.
#[derive(Clone, Default)]
pub struct CheckpointStore {
    inner: Arc<Mutex<Durable>>,
}

impl CheckpointStore {
    /// Stores a completed checkpoint as the latest.
    pub fn put(&self, cp: CompletedCheckpoint) {
        let mut d = self.inner.lock().unwrap();
        if cp.savepoint {
            d.savepoints.push(cp.clone());
        }
        d.latest = Some(cp);
    }
    /// The job is replaced by a new one, started as `start` says: what it restores (none
    /// without state), and its checkpoint ids go on from there, in its own job's numbering
    /// ([`crate::history::job_checkpoint`]). Returns the new job's index and the savepoint
    /// it restores (0: none), or why it cannot start so (no older savepoint).
    pub fn start_new_job(&self, start: NewJobStart) -> Result<(u64, CheckpointId), String> {
        let mut d = self.inner.lock().unwrap();
        let restore = match start {
            NewJobStart::WithoutState => None,
            NewJobStart::OlderSavepoint => {
                let latest = d.latest.as_ref().map_or(0, |c| c.id);
                let older = d.savepoints.iter().rev().find(|s| s.id < latest).cloned();
                Some(older.ok_or_else(|| {
                    format!("no savepoint older than the latest completed checkpoint ({latest}) was taken")
                })?)
            }
        };
        d.job += 1;
        let from = restore.as_ref().map_or(0, |c| c.id);
        d.last_checkpoint_id = crate::history::job_checkpoint(d.job, from);
        d.latest = restore;
        Ok((d.job, from))
    }
    /// The latest completed checkpoint.
    pub fn latest(&self) -> Option<CompletedCheckpoint> {
        self.inner.lock().unwrap().latest.clone()
    }
    /// A job-master incarnation starts: its epoch, higher than every earlier one.
    pub fn next_epoch(&self) -> u64 {
        let mut d = self.inner.lock().unwrap();
        d.epoch += 1;
        d.epoch
    }
    /// A fresh checkpoint id, never handed out before.
    pub fn next_checkpoint_id(&self) -> CheckpointId {
        let mut d = self.inner.lock().unwrap();
        d.last_checkpoint_id += 1;
        d.last_checkpoint_id
    }
    /// The index of the current job (0: the first; see [`CheckpointStore::start_new_job`]).
    pub fn job(&self) -> u64 {
        self.inner.lock().unwrap().job
    }
    /// The job's parallelism, when a rescale changed it from the configured one.
    pub fn parallelism(&self) -> Option<usize> {
        self.inner.lock().unwrap().parallelism
    }
    /// Sets the parallelism the next job-master incarnation runs with.
    pub fn set_parallelism(&self, p: usize) {
        self.inner.lock().unwrap().parallelism = Some(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{checkpoint_job, job_checkpoint, local_checkpoint};

    fn checkpoint(id: CheckpointId, savepoint: bool) -> CompletedCheckpoint {
        CompletedCheckpoint { id, enumerator: Vec::new(), subtasks: Vec::new(), readers: 1, writers: 1, savepoint }
    }

    #[test]
    fn a_new_job_numbers_its_checkpoints_again_as_flink_does() {
        let store = CheckpointStore::default();
        let err = store.start_new_job(NewJobStart::OlderSavepoint).unwrap_err();
        assert!(err.contains("no savepoint older"), "{err}");
        // Savepoints 3 and 7; the job stops with savepoint 10.
        for id in 1..=10 {
            let _ = store.next_checkpoint_id();
            store.put(checkpoint(id, [3, 7, 10].contains(&id)));
        }
        // From the savepoint before the latest one: ids go on from it, in job 1's numbering.
        assert_eq!(store.start_new_job(NewJobStart::OlderSavepoint), Ok((1, 7)));
        assert_eq!(store.latest().map(|c| c.id), Some(7));
        let next = store.next_checkpoint_id();
        assert_eq!((checkpoint_job(next), local_checkpoint(next)), (1, 8));
        assert!(next > 10, "every checkpoint of a run has its own id, later ones higher");
        // Without state: nothing to restore, and ids from 1 again.
        assert_eq!(store.start_new_job(NewJobStart::WithoutState), Ok((2, 0)));
        assert!(store.latest().is_none());
        assert_eq!(store.next_checkpoint_id(), job_checkpoint(2, 1));
        assert_eq!(store.job(), 2);
    }
}
