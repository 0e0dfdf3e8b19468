//! The table sink's writer caching the table's schema (the RisingWave ClickHouse-sink class:
//! a writer that builds its row encoder once, from the schema it read at start, and inserts
//! `RowBinary` without naming a schema version).
//!
//! After an `ALTER TABLE` (a column added, a column made nullable, a column widened) the
//! table parses the writer's rows with its new schema, and they do not fit: every row
//! written since reads back as garbage, or as other values. Caught by `no-corruption` in
//! "the table's schema changes between checkpoints"; a table whose schema never changes
//! reads every row right, and the same case passes without its alterations.

use crate::row::{Row, RowCodec};
use crate::table_sink::{NoSubtaskCommits, TableCommitter, TableSink, TableSinkSetup, TableWriter};
use connsim::api::{CommitterContext, ElementSink, GlobalCommitterContext, Sink, WriterContext};
use connsim::run::{SinkSetup, World};
use connsim::ConnectorError;

/// The table sink whose writers cache the schema.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CachesSchema(TableSink);

impl Sink<Row> for CachesSchema {
    type Committable = String;
    type WriterState = ();
    type Writer = TableWriter;
    type Committer = NoSubtaskCommits;
    type GlobalCommitter = TableCommitter;
    fn keeps_split_order(&self) -> bool {
        false
    }
    async fn create_writer(&self, ctx: WriterContext, restored: Vec<()>) -> Result<TableWriter, ConnectorError> {
        let mut writer = self.0.create_writer(ctx, restored).await?;
        writer.checks_schema = false; // the bug: its inserts name no schema version
        Ok(writer)
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

/// Sets the mutant up like [`TableSinkSetup`].
#[derive(Clone, Debug, Default)]
pub struct CachesSchemaSetup;

impl SinkSetup for CachesSchemaSetup {
    type Sink = ElementSink<CachesSchema, RowCodec>;
    fn name(&self) -> String {
        "mutant:caches-schema(table-sink)".into()
    }
    fn build(&self, world: &mut World) -> Self::Sink {
        ElementSink::new(CachesSchema(TableSinkSetup.table_sink(world)))
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
    }
}
