//! The staging sink: exactly once by two-phase commit. Transaction names carry the subtask,
//! the attempt and the checkpoint, so a restarted attempt never adds to a transaction an
//! earlier attempt prepared. It takes [`Event`]s, its own element type, and writes them in
//! the store's binary layout with its own serializer ([`encode_event`]).

use crate::event::{Event, EventCodec};
use crate::store::{Store, StoreRequest, StoreResponse};
use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, ElementSink, NoGlobalCommitter, Sink, SinkWriter,
    WriterContext,
};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::ModelClient;
use connsim::ConnectorError;
use std::sync::Arc;

/// The sink: where the store is.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct StagingSink {
    /// The store's node name.
    pub store: String,
}

/// A committable: the name of a staged transaction. `records` is for logs and metrics only
/// and is left out of the serialized form on purpose (`#[serde(skip)]`): a committer that
/// gets the committable from a checkpoint or over the network sees 0 there.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Staged {
    /// The transaction's name in the store.
    pub txn: String,
    /// Records staged under it (not serialized).
    #[serde(skip)]
    pub records: usize,
}

/// The sink's serializer: `event` in the store's binary layout (`id`, `user`, `at_ms` as 8
/// bytes little-endian each, the body's length as 4, the body).
pub fn encode_event(event: &Event) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(28 + event.body.len());
    bytes.extend_from_slice(&event.id.to_le_bytes());
    bytes.extend_from_slice(&event.user.to_le_bytes());
    bytes.extend_from_slice(&event.at_ms.to_le_bytes());
    bytes.extend_from_slice(&(event.body.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&event.body);
    bytes
}

/// Its writer: buffers events until the barrier.
pub struct StagingWriter {
    store: ModelClient<StoreRequest>,
    prefix: String,
    buffer: Vec<Event>,
    /// The serializer ([`encode_event`]; another for a variant).
    pub encode: fn(&Event) -> Vec<u8>,
}

async fn call(store: &ModelClient<StoreRequest>, req: &StoreRequest) -> Result<StoreResponse, ConnectorError> {
    store.call(req).await.map_err(|e| ConnectorError::retry(format!("call to {}: {e}", store.node())))
}

impl SinkWriter<Event> for StagingWriter {
    type Committable = Staged;
    type State = ();

    async fn write(&mut self, event: Event) -> Result<(), ConnectorError> {
        self.buffer.push(event);
        Ok(())
    }

    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        Ok(()) // everything is staged on the barrier
    }

    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<Staged>, ConnectorError> {
        if self.buffer.is_empty() {
            return Ok(Vec::new());
        }
        let txn = format!("{}-{checkpoint}", self.prefix);
        let records = self.buffer.len();
        let entries = std::mem::take(&mut self.buffer).iter().map(self.encode).collect();
        let req = StoreRequest::Stage { txn: txn.clone(), entries };
        // Staging the same records twice under one name is harmless only if the store
        // deduplicates; it does not, so a failed stage fails the task (and it recovers).
        match call(&self.store, &req).await {
            Ok(StoreResponse::Ok) => Ok(vec![Staged { txn, records }]),
            Ok(other) => Err(ConnectorError::fail_task(format!("stage {txn}: {other:?}"))),
            Err(e) => Err(ConnectorError::fail_task(format!("stage {txn}: {e}"))),
        }
    }
}

/// Its committer: commits staged transactions; a repeated commit is recognised.
pub struct StagingCommitter {
    store: ModelClient<StoreRequest>,
}

impl Committer for StagingCommitter {
    type Committable = Staged;
    async fn commit(&mut self, requests: Vec<CommitRequest<Staged>>) -> Vec<CommitOutcome> {
        let mut out = Vec::new();
        for r in requests {
            let txn = &r.committable.txn;
            let req = StoreRequest::Commit { txn: txn.clone() };
            out.push(match call(&self.store, &req).await {
                Ok(StoreResponse::Ok) => CommitOutcome::Committed,
                Ok(StoreResponse::AlreadyCommitted) => CommitOutcome::AlreadyCommitted,
                Ok(StoreResponse::Unknown) => CommitOutcome::FailedKnown(format!("{txn} was never staged")),
                Err(_) => CommitOutcome::RetryLater,
            });
        }
        out
    }
}

impl Sink<Event> for StagingSink {
    type Committable = Staged;
    type WriterState = ();
    type Writer = StagingWriter;
    type Committer = StagingCommitter;
    type GlobalCommitter = NoGlobalCommitter<Staged>;

    async fn create_writer(&self, ctx: WriterContext, _restored: Vec<()>) -> Result<StagingWriter, ConnectorError> {
        let prefix = format!("txn-{}-{}", ctx.subtask(), ctx.attempt());
        let store = ModelClient::new(ctx.endpoint().clone(), &self.store);
        Ok(StagingWriter { store, prefix, buffer: Vec::new(), encode: encode_event })
    }

    fn create_committer(&self, ctx: CommitterContext) -> StagingCommitter {
        StagingCommitter { store: ModelClient::new(ctx.endpoint().clone(), &self.store) }
    }
}

/// Sets up a store node `store` and the sink writing to it; the store's committed
/// transactions are the output the checks read.
#[derive(Clone, Debug, Default)]
pub struct StagingSinkSetup;

impl SinkSetup for StagingSinkSetup {
    /// The sink, given the suites' test records as [`Event`]s by [`EventCodec`].
    type Sink = ElementSink<StagingSink, EventCodec>;
    fn name(&self) -> String {
        "staging-sink".into()
    }
    fn build(&self, world: &mut World) -> ElementSink<StagingSink, EventCodec> {
        let store = Store::new("store");
        world.set_output(store.output());
        world.add_system(Arc::new(store));
        ElementSink::new(StagingSink { store: "store".into() })
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
    }
}
