//! **Final file committed without fsync**: on the final checkpoint the file sink renames its
//! last part file into place without syncing it first.
//!
//! Story: committing a file by renaming it before its bytes are durable is a classic
//! data-loss bug (NebulousLabs/Sia issue #887, delta-io/delta-rs issue #142): the rename
//! shows the file at once, and a crash of the storage afterwards loses the bytes that were
//! still only in memory. Here only the last part file, written at the end of input, skips
//! the sync ("the job is ending anyway").
//!
//! Caught by: `stable-after-convergence` (and `no-loss`, and the vanishing side of
//! `no-premature-visibility`): after the job finished, the harness restarts every external
//! system, and the file system forgets the unsynced bytes of a committed file.

use super::buggy_file_sink::FileBug;
use crate::file_sink::{FileCommittable, FileWriter};
use connsim::ConnectorError;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct UnsyncedFinalFile;

impl FileBug for UnsyncedFinalFile {
    const NAME: &'static str = "unsynced-final-file";
    async fn prepare_commit(&self, w: &mut FileWriter, ended: bool) -> Result<Vec<FileCommittable>, ConnectorError> {
        w.roll(!ended).await // the bug: no sync for the final file
    }
}
