//! **Stale data file listed again on an idle checkpoint**: the table sink's writer, on a
//! checkpoint without new records, reports the data file of its previous checkpoint again,
//! and the global committer commits it in a second snapshot.
//!
//! Story: committers that commit on every checkpoint, empty ones included (to advance the
//! committed checkpoint id; discussed in apache/iceberg PR #1185), and state that is not
//! cleared once committed, so the same files are submitted again later (apache/iceberg
//! issue #10765). It only happens once the input has gone quiet, so a run that ends the
//! moment the output is complete never sees it.
//!
//! Caught by: `stable-after-convergence` (and `no-duplicates`): an unbounded job keeps
//! checkpointing after its output converged, and the old file appears a second time.

use crate::row::{Row, RowCodec};
use crate::table_sink::{NoSubtaskCommits, TableCommitter, TableSink, TableSinkSetup, TableWriter};
use connsim::api::ElementSink;
use connsim::api::{CommitterContext, GlobalCommitterContext, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::ConnectorError;

/// The table sink, with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RelistsStaleFileSink(pub TableSink);

/// A writer that remembers its last data file and reports it again when idle.
pub struct RelistsStaleFileWriter {
    inner: TableWriter,
    last: Option<String>,
    ended: bool,
}

impl SinkWriter<Row> for RelistsStaleFileWriter {
    type Committable = String;
    type State = ();
    async fn write(&mut self, row: Row) -> Result<(), ConnectorError> {
        self.inner.write(row).await
    }
    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        self.ended |= end_of_input;
        self.inner.flush(end_of_input).await
    }
    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<String>, ConnectorError> {
        let files = self.inner.prepare_commit(checkpoint).await?;
        match (files.last(), &self.last) {
            (Some(f), _) => self.last = Some(f.clone()),
            (None, Some(stale)) if !self.ended => return Ok(vec![stale.clone()]), // the bug
            _ => {}
        }
        Ok(files)
    }
    async fn close(&mut self) {
        self.inner.close().await
    }
}

impl Sink<Row> for RelistsStaleFileSink {
    type Committable = String;
    type WriterState = ();
    type Writer = RelistsStaleFileWriter;
    type Committer = NoSubtaskCommits;
    type GlobalCommitter = TableCommitter;
    async fn create_writer(&self, ctx: WriterContext, restored: Vec<()>) -> Result<Self::Writer, ConnectorError> {
        Ok(RelistsStaleFileWriter { inner: self.0.create_writer(ctx, restored).await?, last: None, ended: false })
    }
    fn create_committer(&self, ctx: CommitterContext) -> NoSubtaskCommits {
        self.0.create_committer(ctx)
    }
    fn has_global_committer(&self) -> bool {
        true
    }
    fn create_global_committer(&self, ctx: GlobalCommitterContext) -> Option<TableCommitter> {
        self.0.create_global_committer(ctx)
    }
}

/// Sets up the buggy sink like [`TableSinkSetup`].
#[derive(Clone, Debug, Default)]
pub struct RelistsStaleFileSetup;

impl SinkSetup for RelistsStaleFileSetup {
    type Sink = ElementSink<RelistsStaleFileSink, RowCodec>;
    fn name(&self) -> String {
        "mutant:relists-stale-file(table-sink)".into()
    }
    fn build(&self, world: &mut World) -> Self::Sink {
        ElementSink::new(RelistsStaleFileSink(TableSinkSetup.table_sink(world)))
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
    }
}
