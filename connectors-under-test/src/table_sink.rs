//! An exactly-once table sink (as Flink's Iceberg sink), of its own element, a [`Row`],
//! written in a binary layout by its own serializer ([`crate::row`]): each subtask writes one
//! data file per checkpoint; the global committer (a task of its own) combines all of a
//! checkpoint's files into one snapshot and commits it with the job id and checkpoint id as
//! properties, so a commit that already happened (recovered, or made by a cut-off committer's
//! replacement) is recognised and skipped. The lookup is by
//! the job that combined the committable (Iceberg's `flink.job-id`): a new job numbers its
//! checkpoints again, and another job's higher id says nothing about its commits.
//!
//! The table the setup creates has a schema ([`table_schema`]) that an `ALTER TABLE` may
//! change mid-run: a writer encodes its rows with the schema it last knew and names that
//! version in the write; the table refuses a write of a version that is not current and
//! answers with the current schema, which the writer encodes the file again with.
//!
//! For variants: [`TableCommitter::commit_stamped`] commits with a stamp of the variant's
//! choosing, and [`TableWriter::buffered`] shows what a writer holds for its next file.

use crate::retry::idempotent;
use crate::row::{encode_row_binary, Row, RowCodec};
use crate::row_schema::{encode_row_as, table_schema, SchemaRowFormat};
use connsim::api::ElementSink;
use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, GlobalCommitter, GlobalCommitterContext, Sink,
    SinkWriter, WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{Schema, SnapshotTable, TableClient, TableRequest, TableResponse};
use connsim::ConnectorError;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One checkpoint's data files, to be committed as one snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableCommit {
    /// The checkpoint the snapshot belongs to.
    pub checkpoint: CheckpointId,
    /// Data files it adds.
    pub files: Vec<String>,
    /// The job whose global committer combined it (restored with it from a savepoint).
    pub job: String,
}

/// The table sink.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct TableSink {
    /// Node name of the table.
    pub table: String,
    /// The table's schema as created (its DDL), which writers encode rows with until the
    /// table says it changed; `None`: a table without a schema, rows in the fixed binary
    /// layout ([`encode_row_binary`]).
    #[serde(default)]
    pub schema: Option<Schema>,
}

/// Its writer: buffers a checkpoint's rows and writes them as one data file on the barrier.
pub struct TableWriter {
    ctx: WriterContext,
    client: TableClient,
    buffer: Vec<Row>,
    /// The schema it encodes with: the last it knew.
    schema: Option<Schema>,
    /// Whether a write names its schema version (the table refuses a stale one).
    pub(crate) checks_schema: bool,
}

impl TableWriter {
    /// The rows written since the last `prepare_commit`: the next data file's content,
    /// written (and handed over as a committable) at the next barrier.
    pub fn buffered(&self) -> &[Row] {
        &self.buffer
    }
}

impl SinkWriter<Row> for TableWriter {
    type Committable = String;
    type State = ();
    async fn write(&mut self, row: Row) -> Result<(), ConnectorError> {
        self.buffer.push(row);
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
        let buffer = std::mem::take(&mut self.buffer);
        loop {
            let rows = match &self.schema {
                None => buffer.iter().map(encode_row_binary).collect(),
                Some(schema) => buffer
                    .iter()
                    .map(|r| encode_row_as(schema, r))
                    .collect::<Result<_, _>>()
                    .map_err(|why| ConnectorError::fail_job(format!("a row does not fit the table: {why}")))?,
            };
            let schema = self.schema.as_ref().filter(|_| self.checks_schema).map(|s| s.version);
            let req = TableRequest::WriteDataFile { path: path.clone(), rows, schema };
            match idempotent(20, || self.client.request(req.clone())).await? {
                // Altered since: encode the file again with the table's schema.
                TableResponse::SchemaChanged { current } => self.schema = Some(current),
                _ => return Ok(vec![path]),
            }
        }
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
    job: String,
    /// Look up what the committable's own job committed (the reference); `false`: the
    /// latest snapshot's checkpoint, whichever job committed it.
    pub by_job: bool,
}

impl TableCommitter {
    /// The current snapshot, and the last checkpoint `job` committed.
    async fn current(&self, job: &str) -> Result<(u64, CheckpointId), ConnectorError> {
        let job = self.by_job.then(|| job.to_string());
        match self.client.request(TableRequest::Current { job }).await? {
            TableResponse::Current { snapshot, checkpoint } => Ok((snapshot, checkpoint)),
            other => Err(ConnectorError::fail_task(format!("unexpected table response {other:?}"))),
        }
    }
}

impl GlobalCommitter for TableCommitter {
    type Committable = String;
    type GlobalCommittable = TableCommit;

    fn combine(&mut self, checkpoint: CheckpointId, files: Vec<String>) -> TableCommit {
        TableCommit { checkpoint, files, job: self.job.clone() }
    }

    async fn commit(&mut self, requests: Vec<CommitRequest<TableCommit>>) -> Vec<CommitOutcome> {
        self.commit_stamped(requests, |c, _| c).await
    }

    async fn filter_recovered(
        &mut self,
        recovered: Vec<(CheckpointId, TableCommit)>,
    ) -> Result<Vec<(CheckpointId, TableCommit)>, ConnectorError> {
        let mut kept = Vec::new();
        let mut committed: std::collections::BTreeMap<String, CheckpointId> = Default::default();
        for (c, commit) in recovered {
            if !committed.contains_key(&commit.job) {
                let (_, last) = idempotent(20, || self.current(&commit.job)).await?;
                committed.insert(commit.job.clone(), last);
            }
            if c > committed[&commit.job] {
                kept.push((c, commit));
            }
        }
        Ok(kept)
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
        self.commit_guarded(requests, stamp, |_| true).await
    }

    /// [`TableCommitter::commit_stamped`], asking the table whether a request is committed
    /// already only where `guard` says so (the reference always does: it is what makes a
    /// commit idempotent). For a [`GlobalCommitter::commit`] that trusts itself.
    pub async fn commit_guarded(
        &mut self,
        requests: Vec<CommitRequest<TableCommit>>,
        stamp: impl Fn(CheckpointId, CheckpointId) -> CheckpointId,
        guard: impl Fn(&CommitRequest<TableCommit>) -> bool,
    ) -> Vec<CommitOutcome> {
        let mut out = Vec::new();
        for r in requests {
            // In order: once one must wait, the later ones wait too.
            if out.last() == Some(&CommitOutcome::RetryLater) {
                out.push(CommitOutcome::RetryLater);
                continue;
            }
            let Ok((snapshot, committed)) = self.current(&r.committable.job).await else {
                out.push(CommitOutcome::RetryLater);
                continue;
            };
            if committed >= r.committable.checkpoint && guard(&r) {
                out.push(CommitOutcome::AlreadyCommitted);
                continue;
            }
            let req = TableRequest::Commit {
                parent: snapshot,
                files: r.committable.files.clone(),
                checkpoint: stamp(r.committable.checkpoint, committed),
                job: r.committable.job.clone(),
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

impl Sink<Row> for TableSink {
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
        Ok(TableWriter { ctx, client, buffer: Vec::new(), schema: self.schema.clone(), checks_schema: true })
    }
    fn create_committer(&self, _ctx: CommitterContext) -> NoSubtaskCommits {
        NoSubtaskCommits
    }
    fn has_global_committer(&self) -> bool {
        true
    }
    fn create_global_committer(&self, ctx: GlobalCommitterContext) -> Option<TableCommitter> {
        let client = TableClient::new(ctx.endpoint().clone(), &self.table);
        Some(TableCommitter { client, job: ctx.job_id().to_string(), by_job: true })
    }
}

/// Sets up a snapshot table `table` with the schema [`table_schema`] as the visible output,
/// its rows read by the schema each data file was written under ([`SchemaRowFormat`]).
#[derive(Clone, Debug, Default)]
pub struct TableSinkSetup;

impl TableSinkSetup {
    /// Sets up the table and returns the sink itself (what a variant wraps).
    pub fn table_sink(&self, world: &mut World) -> TableSink {
        let table = SnapshotTable::with_schema("table", table_schema(), Arc::new(SchemaRowFormat));
        world.set_output(table.output());
        world.add_system(Arc::new(table));
        TableSink { table: "table".into(), schema: Some(table_schema()) }
    }
}

impl SinkSetup for TableSinkSetup {
    /// The sink, given the suites' test records as [`Row`]s by [`RowCodec`].
    type Sink = ElementSink<TableSink, RowCodec>;
    fn name(&self) -> String {
        "table-sink".into()
    }
    fn build(&self, world: &mut World) -> Self::Sink {
        ElementSink::new(self.table_sink(world))
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
    }
}
