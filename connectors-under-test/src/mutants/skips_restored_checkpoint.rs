//! **The restored checkpoint's snapshot taken as committed**: on restore, the table sink's
//! global committer drops the newest recovered global committable, the one of the checkpoint
//! it restored from, reasoning that a checkpoint the job master stored is one it committed.
//!
//! Story: Iceberg's Flink committer decides what to re-commit on restore by comparing the
//! restored checkpoint with the max committed checkpoint id it finds in the table
//! (`flink.max-committed-checkpoint-id`); an off-by-one there, or the shortcut of treating
//! the restored checkpoint itself as committed, is harmless whenever the job master died
//! after committing, which is nearly always. The job master stores a completed checkpoint
//! before it commits it; dying in between leaves a snapshot no one commits.
//!
//! Caught by: `no-loss`, in the job-master failover case, where the job master crashes
//! between storing a completed checkpoint and notifying ([`Phase::BeforeNotify`]).
//!
//! [`Phase::BeforeNotify`]: connsim::cluster::Phase::BeforeNotify

use super::buggy_table_sink::TableBug;
use crate::table_sink::TableCommit;
use connsim::history::CheckpointId;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SkipsRestoredCheckpoint;

impl TableBug for SkipsRestoredCheckpoint {
    const NAME: &'static str = "skips-restored-checkpoint";
    fn keep_recovered(&self, mut kept: Vec<(CheckpointId, TableCommit)>) -> Vec<(CheckpointId, TableCommit)> {
        let newest = kept.iter().map(|(c, _)| *c).max();
        kept.retain(|(c, _)| Some(*c) != newest); // the bug
        kept
    }
}
