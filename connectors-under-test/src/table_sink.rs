//! An exactly-once table sink (as Flink's Iceberg sink): each subtask writes one data file
//! per checkpoint; the global committer on the job master combines all of a checkpoint's
//! files into one snapshot and commits it with the checkpoint id as a property, so a
//! recovered commit that already happened is recognised and skipped.
//!
//! For variants: [`TableCommitter::commit_stamped`] commits with a stamp of the variant's
//! choosing, and [`TableWriter::buffered`] shows what a writer holds for its next file.

use crate::retry::idempotent;
use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, GlobalCommitter, GlobalCommitterContext, Sink,
    SinkWriter, WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{SnapshotTable, TableClient, TableRequest, TableResponse};
use connsim::{ConnectorError, Record};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One checkpoint's data files, to be committed as one snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableCommit {
    /// The checkpoint the snapshot belongs to.
    pub checkpoint: CheckpointId,
    /// Data files it adds.
    pub files: Vec<String>,
}

/// The table sink.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct TableSink {
    /// Node name of the table.
    pub table: String,
}

/// Its writer: buffers a checkpoint's records and writes them as one data file on the barrier.
pub struct TableWriter {
    ctx: WriterContext,
    client: TableClient,
    buffer: Vec<Record>,
}

impl TableWriter {
    /// The records written since the last `prepare_commit`: the next data file's content,
    /// written (and handed over as a committable) at the next barrier.
    pub fn buffered(&self) -> &[Record] {
        &self.buffer
    }
}

impl SinkWriter for TableWriter {
    type Committable = String;
    type State = ();
    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.buffer.push(record);
        Ok(())
    }
    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        Ok(())
    }
    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<String>, ConnectorError> {
        if self.buffer.is_empty() {
            return Ok(vec![]);
        }
        let path = format!("data/{}-{}-{checkpoint}", self.ctx.subtask(), self.ctx.attempt());
        let records = std::mem::take(&mut self.buffer);
        let req = TableRequest::WriteDataFile { path: path.clone(), records };
        idempotent(20, || self.client.request(req.clone())).await?;
        Ok(vec![path])
    }
}

/// Subtask committers do nothing: the global committer commits.
pub struct NoSubtaskCommits;

impl Committer for NoSubtaskCommits {
    type Committable = String;
    async fn commit(&mut self, requests: Vec<CommitRequest<String>>) -> Vec<CommitOutcome> {
        requests.iter().map(|_| CommitOutcome::Committed).collect()
    }
}

/// The global committer: one snapshot per checkpoint.
pub struct TableCommitter {
    client: TableClient,
}

impl TableCommitter {
    async fn current(&self) -> Result<(u64, CheckpointId), ConnectorError> {
        match self.client.request(TableRequest::Current).await? {
            TableResponse::Current { snapshot, checkpoint } => Ok((snapshot, checkpoint)),
            other => Err(ConnectorError::fail_task(format!("unexpected table response {other:?}"))),
        }
    }
}

impl GlobalCommitter for TableCommitter {
    type Committable = String;
    type GlobalCommittable = TableCommit;

    fn combine(&mut self, checkpoint: CheckpointId, files: Vec<String>) -> TableCommit {
        TableCommit { checkpoint, files }
    }

    async fn commit(&mut self, requests: Vec<CommitRequest<TableCommit>>) -> Vec<CommitOutcome> {
        self.commit_stamped(requests, |c, _| c).await
    }

    async fn filter_recovered(
        &mut self,
        recovered: Vec<(CheckpointId, TableCommit)>,
    ) -> Result<Vec<(CheckpointId, TableCommit)>, ConnectorError> {
        let (_, committed) = idempotent(20, || self.current()).await?;
        Ok(recovered.into_iter().filter(|(c, _)| *c > committed).collect())
    }
}

impl TableCommitter {
    /// Commits `requests` in order, one snapshot each, stamped with `stamp(its checkpoint,
    /// the table's current stamp)` (the reference stamps the checkpoint itself, which is
    /// what lets `filter_recovered` and this method skip what is already committed: a
    /// request whose checkpoint is at or below the table's stamp is `AlreadyCommitted`).
    /// Once one must wait (the table is unreachable, or a concurrent commit won), the later
    /// ones wait too (`RetryLater`), so snapshots never commit out of order. For a
    /// [`GlobalCommitter::commit`] that stamps differently.
    pub async fn commit_stamped(
        &mut self,
        requests: Vec<CommitRequest<TableCommit>>,
        stamp: impl Fn(CheckpointId, CheckpointId) -> CheckpointId,
    ) -> Vec<CommitOutcome> {
        let mut out = Vec::new();
        for r in requests {
            // In order: once one must wait, the later ones wait too.
            if out.last() == Some(&CommitOutcome::RetryLater) {
                out.push(CommitOutcome::RetryLater);
                continue;
            }
            let Ok((snapshot, committed)) = self.current().await else {
                out.push(CommitOutcome::RetryLater);
                continue;
            };
            if committed >= r.committable.checkpoint {
                out.push(CommitOutcome::AlreadyCommitted);
                continue;
            }
            let req = TableRequest::Commit {
                parent: snapshot,
                files: r.committable.files.clone(),
                checkpoint: stamp(r.committable.checkpoint, committed),
            };
            out.push(match self.client.request(req).await {
                Ok(TableResponse::Ok) => CommitOutcome::Committed,
                Ok(TableResponse::Conflict { .. }) | Err(_) => CommitOutcome::RetryLater,
                Ok(other) => CommitOutcome::FailedUnknown(format!("{other:?}")),
            });
        }
        out
    }
}

impl Sink for TableSink {
    type Committable = String;
    type WriterState = ();
    type Writer = TableWriter;
    type Committer = NoSubtaskCommits;
    type GlobalCommitter = TableCommitter;

    fn keeps_split_order(&self) -> bool {
        false
    }
    async fn create_writer(&self, ctx: WriterContext, _restored: Vec<()>) -> Result<TableWriter, ConnectorError> {
        let client = TableClient::new(ctx.endpoint().clone(), &self.table);
        Ok(TableWriter { ctx, client, buffer: Vec::new() })
    }
    fn create_committer(&self, _ctx: CommitterContext) -> NoSubtaskCommits {
        NoSubtaskCommits
    }
    fn has_global_committer(&self) -> bool {
        true
    }
    fn create_global_committer(&self, ctx: GlobalCommitterContext) -> Option<TableCommitter> {
        Some(TableCommitter { client: TableClient::new(ctx.endpoint().clone(), &self.table) })
    }
}

/// Sets up a snapshot table `table` as the visible output.
#[derive(Clone, Debug, Default)]
pub struct TableSinkSetup;

impl SinkSetup for TableSinkSetup {
    type Sink = TableSink;
    fn name(&self) -> String {
        "table-sink".into()
    }
    fn build(&self, world: &mut World) -> TableSink {
        let table = SnapshotTable::new("table");
        world.set_output(table.output());
        world.add_system(Arc::new(table));
        TableSink { table: "table".into() }
    }
}
