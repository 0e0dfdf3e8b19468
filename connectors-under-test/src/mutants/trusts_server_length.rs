//! **A longer file taken for a landed append**: when the file system rejects an append
//! because the file is longer than the writer thought, the file-sink writer concludes that
//! its earlier try landed and its answer was lost, and carries on from the file's end.
//!
//! Story: the recovery path of hand-written appenders (and of object stores' append-position
//! checks): "412, the blob is longer than expected: our last append must have gone through".
//! That holds for a lost answer, whose append is whole, and for nothing else: an append torn
//! by a server or connection that died mid-write left only a prefix of the bytes, so the
//! file now holds half a record, run together with the next batch. The reference writer
//! fails the task instead, and the torn file is never committed.
//!
//! Caught by: `no-loss` (and `no-corruption`: the torn line is visible garbage), only when
//! appends are torn (the `torn_appends(..)` block).

use super::buggy_file_sink::FileBug;
use crate::file_sink::{call, refused, FileWriter, BUFFER_RECORDS};
use connsim::systems::{FsError, FsRequest};
use connsim::{ConnectorError, Record};

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct TrustsServerLength;

impl TrustsServerLength {
    async fn write_buffer(w: &mut FileWriter) -> Result<(), ConnectorError> {
        if w.buffer.is_empty() {
            return Ok(());
        }
        if w.file.is_none() {
            let tmp = format!("{}{}", w.in_progress, w.name());
            call(&w.client, FsRequest::Create { path: tmp.clone() }).await?.map_err(refused)?;
            w.file = Some((tmp, 0));
        }
        let (path, at) = w.file.clone().expect("opened above");
        let bytes = std::mem::take(&mut w.buffer);
        let n = bytes.len() as u64;
        let end = match call(&w.client, FsRequest::Append { path, at, bytes }).await? {
            Ok(_) => at + n,
            // The bug: a longer file is not proof that the whole append landed.
            Err(FsError::WrongOffset { len }) if len > at => len,
            Err(e) => return Err(refused(e)),
        };
        w.file.as_mut().expect("opened above").1 = end;
        w.buffered = 0;
        Ok(())
    }
}

impl FileBug for TrustsServerLength {
    const NAME: &'static str = "trusts-server-length";
    async fn write(&self, w: &mut FileWriter, record: Record) -> Result<(), ConnectorError> {
        record.encode_line_into(&mut w.buffer);
        w.buffered += 1;
        if w.buffered >= BUFFER_RECORDS {
            Self::write_buffer(w).await?;
        }
        Ok(())
    }
    async fn flush(&self, w: &mut FileWriter, _end_of_input: bool) -> Result<(), ConnectorError> {
        Self::write_buffer(w).await
    }
    async fn prepare_commit(
        &self,
        w: &mut FileWriter,
        _ended: bool,
    ) -> Result<Vec<crate::file_sink::FileCommittable>, ConnectorError> {
        Self::write_buffer(w).await?;
        w.roll(true).await
    }
}
