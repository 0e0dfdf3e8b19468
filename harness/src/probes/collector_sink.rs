//! The collecting sink: buffers what arrives between two barriers, prepares it as one
//! keyed batch, and commits it to the [`Collector`] (idempotent by key).

use crate::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext,
};
use crate::error::ConnectorError;
use crate::history::CheckpointId;
use crate::record::Record;
use crate::run::{SinkSetup, World};
use crate::systems::{Collector, CollectorClient};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One prepared batch.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProbeBatch {
    /// Unique per subtask, attempt and checkpoint.
    pub key: String,
    /// The records.
    pub records: Vec<Record>,
}

/// The collecting sink.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct ProbeSink {
    collector: String,
}

impl ProbeSink {
    /// The collecting sink committing to the collector on node `collector`.
    pub fn new(collector: &str) -> Self {
        Self { collector: collector.to_string() }
    }
}

/// Its writer.
pub struct ProbeWriter {
    ctx: WriterContext,
    buffer: Vec<Record>,
}

impl SinkWriter for ProbeWriter {
    type Committable = ProbeBatch;
    type State = ();
    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.buffer.push(record);
        Ok(())
    }
    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        Ok(())
    }
    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<ProbeBatch>, ConnectorError> {
        if self.buffer.is_empty() {
            return Ok(vec![]);
        }
        let key = format!("{}-{}-{checkpoint}", self.ctx.subtask(), self.ctx.attempt());
        Ok(vec![ProbeBatch { key, records: std::mem::take(&mut self.buffer) }])
    }
}

/// Its committer.
pub struct ProbeCommitter {
    client: CollectorClient,
}

impl Committer for ProbeCommitter {
    type Committable = ProbeBatch;
    async fn commit(&mut self, requests: Vec<CommitRequest<ProbeBatch>>) -> Vec<CommitOutcome> {
        // In order: after the first batch that must be retried, retry the rest too, so a
        // later batch never becomes visible before an earlier one.
        let mut out = Vec::new();
        for r in requests {
            let blocked = out.last() == Some(&CommitOutcome::RetryLater);
            out.push(match blocked {
                true => CommitOutcome::RetryLater,
                false => match self.client.commit(&r.committable.key, &r.committable.records).await {
                    Ok(true) => CommitOutcome::Committed,
                    Ok(false) => CommitOutcome::AlreadyCommitted,
                    Err(_) => CommitOutcome::RetryLater,
                },
            });
        }
        out
    }
}

impl Sink for ProbeSink {
    type Committable = ProbeBatch;
    type WriterState = ();
    type Writer = ProbeWriter;
    type Committer = ProbeCommitter;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;
    fn keeps_split_order(&self) -> bool {
        true
    }
    async fn create_writer(&self, ctx: WriterContext, _restored: Vec<()>) -> Result<ProbeWriter, ConnectorError> {
        Ok(ProbeWriter { ctx, buffer: Vec::new() })
    }
    fn create_committer(&self, ctx: CommitterContext) -> ProbeCommitter {
        ProbeCommitter { client: CollectorClient::new(ctx.endpoint().clone(), &self.collector) }
    }
}

/// Sets up the collector system and the collecting sink.
#[derive(Clone, Debug, Default)]
pub struct CollectorSetup;

impl SinkSetup for CollectorSetup {
    type Sink = ProbeSink;
    fn name(&self) -> String {
        "collector".into()
    }
    fn build(&self, world: &mut World) -> ProbeSink {
        let collector = Collector::new("collector");
        world.set_output(collector.output());
        world.add_system(Arc::new(collector));
        ProbeSink { collector: "collector".into() }
    }
}
