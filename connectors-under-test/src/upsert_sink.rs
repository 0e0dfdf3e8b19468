//! An idempotent upsert sink (as a JDBC or Elasticsearch sink writing with a primary key):
//! it takes its own element, a [`Row`], and writes every row as a JSON document under its
//! own key, `r<id>`, straight away ([`crate::row`]). Rows are
//! visible before their checkpoint completes, and a record written again after a restore
//! replaces itself, so the output ends with every record exactly once: effectively once,
//! [`DeliveryGuarantee::Idempotent`]. Declared exactly-once it would be lying, and the
//! premature-visibility check says so.

use crate::retry::idempotent;
use crate::row::{encode_row, JsonRowFormat, Row, RowCodec};
use connsim::api::ElementSink;
use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, DeliveryGuarantee, NoGlobalCommitter, Sink, SinkWriter,
    WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{KvClient, KvStore};
use connsim::ConnectorError;
use std::sync::Arc;

const BUFFER_RECORDS: usize = 32;
const TRIES: u32 = 20;

/// The upsert sink.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct UpsertSink {
    /// Node name of the store.
    pub store: String,
    /// Declare exactly-once instead of idempotent (wrong: for showing the check catches it).
    pub claims_exactly_once: bool,
}

/// Its writer: buffers a few rows, upserts them, and flushes on the barrier.
pub struct UpsertWriter {
    client: KvClient,
    buffer: Vec<Row>,
}

impl UpsertWriter {
    async fn send(&mut self) -> Result<(), ConnectorError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let entries: Vec<(String, Vec<u8>)> =
            std::mem::take(&mut self.buffer).iter().map(|row| (format!("r{}", row.id), encode_row(row))).collect();
        idempotent(TRIES, || self.client.upsert(entries.clone())).await
    }
}

impl SinkWriter<Row> for UpsertWriter {
    type Committable = ();
    type State = ();
    async fn write(&mut self, row: Row) -> Result<(), ConnectorError> {
        self.buffer.push(row);
        if self.buffer.len() >= BUFFER_RECORDS {
            self.send().await?;
        }
        Ok(())
    }
    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        self.send().await
    }
    async fn prepare_commit(&mut self, _checkpoint: CheckpointId) -> Result<Vec<()>, ConnectorError> {
        Ok(Vec::new())
    }
}

/// Nothing to commit: every write is final.
pub struct NoCommits;

impl Committer for NoCommits {
    type Committable = ();
    async fn commit(&mut self, requests: Vec<CommitRequest<()>>) -> Vec<CommitOutcome> {
        requests.iter().map(|_| CommitOutcome::Committed).collect()
    }
}

impl Sink<Row> for UpsertSink {
    type Committable = ();
    type WriterState = ();
    type Writer = UpsertWriter;
    type Committer = NoCommits;
    type GlobalCommitter = NoGlobalCommitter<()>;

    fn delivery_guarantee(&self) -> DeliveryGuarantee {
        match self.claims_exactly_once {
            true => DeliveryGuarantee::ExactlyOnce,
            false => DeliveryGuarantee::Idempotent,
        }
    }
    async fn create_writer(&self, ctx: WriterContext, _restored: Vec<()>) -> Result<UpsertWriter, ConnectorError> {
        Ok(UpsertWriter { client: KvClient::new(ctx.endpoint().clone(), &self.store), buffer: Vec::new() })
    }
    fn create_committer(&self, _ctx: CommitterContext) -> NoCommits {
        NoCommits
    }
}

/// Sets up a key-value store `kv` as the visible output, its values read as JSON rows.
#[derive(Clone, Debug, Default)]
pub struct UpsertSinkSetup {
    /// Declare exactly-once (a false claim, for the check to catch).
    pub claims_exactly_once: bool,
}

impl SinkSetup for UpsertSinkSetup {
    /// The sink, given the suites' test records as [`Row`]s by [`RowCodec`].
    type Sink = ElementSink<UpsertSink, RowCodec>;
    fn name(&self) -> String {
        match self.claims_exactly_once {
            true => "upsert-sink(claims exactly-once)".into(),
            false => "upsert-sink".into(),
        }
    }
    fn build(&self, world: &mut World) -> Self::Sink {
        let kv = KvStore::with_format("kv", Arc::new(JsonRowFormat));
        world.set_output(kv.output());
        world.add_system(Arc::new(kv));
        ElementSink::new(UpsertSink { store: "kv".into(), claims_exactly_once: self.claims_exactly_once })
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
    }
}
