//! The table sink with one bug in its global committer's recovery: each table-sink mutant is
//! a [`TableBug`] that overrides one step.

use crate::row::{Row, RowCodec};
use crate::table_sink::{NoSubtaskCommits, TableCommit, TableCommitter, TableSink, TableSinkSetup, TableWriter};
use connsim::api::{
    CommitOutcome, CommitRequest, CommitterContext, ElementSink, GlobalCommitter, GlobalCommitterContext, Sink,
    WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::ConnectorError;
use std::fmt::Debug;

/// One bug in the table sink's global committer. Every method defaults to the reference.
pub trait TableBug: Clone + Debug + Send + Sync + serde::Serialize + serde::de::DeserializeOwned + 'static {
    /// Name for reports.
    const NAME: &'static str;
    /// What the committer keeps of the recovered global committables the reference keeps.
    fn keep_recovered(&self, kept: Vec<(CheckpointId, TableCommit)>) -> Vec<(CheckpointId, TableCommit)> {
        kept
    }
    /// Whether the committer asks what the committable's own job committed (the reference),
    /// or what the table's latest snapshot says, whichever job committed it.
    fn by_job(&self) -> bool {
        true
    }
    /// The checkpoint stamped on the snapshot that commits `checkpoint`; `recovered`: it was
    /// recovered on restore; `current`: the table's stamp before the commit.
    fn stamp(&self, checkpoint: CheckpointId, recovered: bool, current: CheckpointId) -> CheckpointId {
        let _ = (recovered, current);
        checkpoint
    }
    /// Whether the committer asks the table if a request is committed already (the
    /// reference: always); `retries`: the request's; `recovered`: it was recovered on restore.
    fn asks_the_table(&self, retries: u32, recovered: bool) -> bool {
        let _ = (retries, recovered);
        true
    }
}

/// The global committer with the bug.
pub struct BuggyTableCommitter<B> {
    inner: TableCommitter,
    bug: B,
    /// The newest recovered global committable since the last restore.
    recovered_upto: CheckpointId,
}

impl<B: TableBug> GlobalCommitter for BuggyTableCommitter<B> {
    type Committable = String;
    type GlobalCommittable = TableCommit;
    fn combine(&mut self, checkpoint: CheckpointId, files: Vec<String>) -> TableCommit {
        self.inner.combine(checkpoint, files)
    }
    async fn commit(&mut self, requests: Vec<CommitRequest<TableCommit>>) -> Vec<CommitOutcome> {
        let (bug, upto) = (self.bug.clone(), self.recovered_upto);
        let b = self.bug.clone();
        let guard = move |r: &CommitRequest<TableCommit>| b.asks_the_table(r.retries, r.checkpoint <= upto);
        self.inner.commit_guarded(requests, move |c, current| bug.stamp(c, c <= upto, current), guard).await
    }
    async fn filter_recovered(
        &mut self,
        recovered: Vec<(CheckpointId, TableCommit)>,
    ) -> Result<Vec<(CheckpointId, TableCommit)>, ConnectorError> {
        let kept = self.bug.keep_recovered(self.inner.filter_recovered(recovered).await?);
        self.recovered_upto = kept.iter().map(|(c, _)| *c).max().unwrap_or(0);
        Ok(kept)
    }
}

/// The table sink with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BuggyTableSink<B> {
    inner: TableSink,
    bug: B,
}

impl<B: TableBug> Sink<Row> for BuggyTableSink<B> {
    type Committable = String;
    type WriterState = ();
    type Writer = TableWriter;
    type Committer = NoSubtaskCommits;
    type GlobalCommitter = BuggyTableCommitter<B>;
    fn keeps_split_order(&self) -> bool {
        false
    }
    async fn create_writer(&self, ctx: WriterContext, restored: Vec<()>) -> Result<TableWriter, ConnectorError> {
        self.inner.create_writer(ctx, restored).await
    }
    fn create_committer(&self, ctx: CommitterContext) -> NoSubtaskCommits {
        self.inner.create_committer(ctx)
    }
    fn has_global_committer(&self) -> bool {
        true
    }
    fn create_global_committer(&self, ctx: GlobalCommitterContext) -> Option<Self::GlobalCommitter> {
        let mut inner = self.inner.create_global_committer(ctx)?;
        inner.by_job = self.bug.by_job();
        Some(BuggyTableCommitter { inner, bug: self.bug.clone(), recovered_upto: 0 })
    }
}

/// Sets up the buggy sink like [`TableSinkSetup`].
#[derive(Clone, Debug, Default)]
pub struct BuggyTableSinkSetup<B>(pub B);

impl<B: TableBug> SinkSetup for BuggyTableSinkSetup<B> {
    type Sink = ElementSink<BuggyTableSink<B>, RowCodec>;
    fn name(&self) -> String {
        format!("mutant:{}(table-sink)", B::NAME)
    }
    fn build(&self, world: &mut World) -> Self::Sink {
        ElementSink::new(BuggyTableSink { inner: TableSinkSetup.table_sink(world), bug: self.0.clone() })
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
    }
}
