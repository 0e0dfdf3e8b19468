//! A sink bug only a new job (without state, or from an older savepoint) exposes.

use connsim::api::{CommitterContext, ElementSink, NoGlobalCommitter, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::ModelClient;
use connsim::ConnectorError;
use connsim_scenarios::prelude::{restart_from_older_savepoint, restart_without_state};
use connsim_scenarios::suites::{self, sink_from_setup};
use example_connector::event::{Event, EventCodec};
use example_connector::sink::{encode_event, Staged, StagingCommitter, StagingSink, StagingSinkSetup};
use example_connector::store::{StoreRequest, StoreResponse};

use super::caught;

/// The staging sink naming its transactions by subtask and checkpoint only, and taking a
/// stage the store refuses as already committed for one of its own that went through.
///
/// Story: within a job, checkpoint ids never repeat (a failover goes on past the highest id
/// ever issued), so the attempt in the name looks redundant, and "already committed" on a
/// stage looks like a retry of a stage that landed. A new job numbers its checkpoints again:
/// without state from 1, from an older savepoint on from there. Its transaction names are
/// the last job's, the store answers "already committed", and the new job's events are
/// dropped. Only a new job exposes it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct NamesByCheckpoint(StagingSink);

/// Its writer.
struct NamesByCheckpointWriter {
    store: ModelClient<StoreRequest>,
    subtask: usize,
    buffer: Vec<Event>,
}

impl SinkWriter<Event> for NamesByCheckpointWriter {
    type Committable = Staged;
    type State = ();
    async fn write(&mut self, event: Event) -> Result<(), ConnectorError> {
        self.buffer.push(event);
        Ok(())
    }
    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        Ok(())
    }
    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<Staged>, ConnectorError> {
        if self.buffer.is_empty() {
            return Ok(Vec::new());
        }
        let txn = format!("txn-{}-{checkpoint}", self.subtask); // the bug: no attempt, no job
        let records = self.buffer.len();
        let entries = std::mem::take(&mut self.buffer).iter().map(encode_event).collect();
        match self.store.call(&StoreRequest::Stage { txn: txn.clone(), entries }).await {
            Ok(StoreResponse::Ok) => Ok(vec![Staged { txn, records }]),
            Ok(StoreResponse::AlreadyCommitted) => Ok(Vec::new()), // the bug: taken for our own
            other => Err(ConnectorError::fail_task(format!("stage {txn}: {other:?}"))),
        }
    }
}

impl Sink<Event> for NamesByCheckpoint {
    type Committable = Staged;
    type WriterState = ();
    type Writer = NamesByCheckpointWriter;
    type Committer = StagingCommitter;
    type GlobalCommitter = NoGlobalCommitter<Staged>;
    async fn create_writer(&self, ctx: WriterContext, _: Vec<()>) -> Result<Self::Writer, ConnectorError> {
        let store = ModelClient::new(ctx.endpoint().clone(), &self.0.store);
        Ok(NamesByCheckpointWriter { store, subtask: ctx.subtask(), buffer: Vec::new() })
    }
    fn create_committer(&self, ctx: CommitterContext) -> StagingCommitter {
        self.0.create_committer(ctx)
    }
}

struct NamesByCheckpointSetup;

impl SinkSetup for NamesByCheckpointSetup {
    type Sink = ElementSink<NamesByCheckpoint, EventCodec>;
    fn name(&self) -> String {
        "staging-sink(names by checkpoint)".into()
    }
    fn build(&self, world: &mut World) -> Self::Sink {
        ElementSink::new(NamesByCheckpoint(StagingSinkSetup.build(world).inner().clone()))
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
    }
}

#[test]
fn transaction_names_without_the_job_collide_only_when_a_new_job_numbers_its_checkpoints_again() {
    let suite = || suites::sink(sink_from_setup(NamesByCheckpointSetup, &["store"]));
    let reference = || suites::sink(sink_from_setup(StagingSinkSetup, &["store"]));
    for (case, block) in [
        ("restart without state", restart_without_state()),
        ("restart from an older savepoint", restart_from_older_savepoint()),
    ] {
        let verdict = caught(suite().only(case), reference(), "no-loss");
        println!("{case}: {}", verdict.summary);
        // Every check passes with its new job taken out (the case then misses its mark).
        let without = suite().only(case).without(block).seeds(20).run();
        let failing = without.cases.iter().flat_map(|c| &c.reports).filter(|r| !r.failed_checks().is_empty()).count();
        assert_eq!(failing, 0, "{case} without its new job:\n{without}");
    }
    // No other case fails a check with it.
    let rest = suite().seeds(3).run();
    let failed: Vec<&str> = rest
        .cases
        .iter()
        .filter(|c| c.reports.iter().any(|r| !r.failed_checks().is_empty()))
        .map(|c| c.case.as_str())
        .collect();
    assert_eq!(failed, ["restart without state", "restart from an older savepoint"], "{rest}");
}
