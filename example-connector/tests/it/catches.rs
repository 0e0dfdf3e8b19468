//! Proving the suites catch a bug of our own: a mutant of the staging sink, written here the
//! way a connector author would write down a bug they fear, must fail the check its story
//! predicts; and a case that never reached its fault path must not read as a catch.

use connsim::api::{CommitterContext, ElementSink, NoGlobalCommitter, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::ModelClient;
use connsim::ConnectorError;
use connsim_scenarios::suites::{self, sink_from_setup};
use example_connector::event::{Event, EventCodec};
use example_connector::sink::{Staged, StagingCommitter, StagingSink, StagingSinkSetup, StagingWriter};
use example_connector::store::StoreRequest;

/// The staging sink with one bug: its writer commits each transaction right after staging
/// it, on the checkpoint barrier, instead of leaving the commit to the committer once the
/// checkpoint completed. A downstream reader sees records the job may still roll back (the
/// story of every "commit in prepare" bug: visible too early, and duplicated when a failure
/// replays them).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct EagerSink(StagingSink);

/// The staging writer, committing what it staged at once; everything else is the writer's own.
struct EagerWriter {
    inner: StagingWriter,
    store: ModelClient<StoreRequest>,
}

impl SinkWriter<Event> for EagerWriter {
    type Committable = Staged;
    type State = ();

    async fn write(&mut self, event: Event) -> Result<(), ConnectorError> {
        self.inner.write(event).await
    }

    async fn flush(&mut self, end_of_input: bool) -> Result<(), ConnectorError> {
        self.inner.flush(end_of_input).await
    }

    async fn prepare_commit(&mut self, checkpoint: CheckpointId) -> Result<Vec<Staged>, ConnectorError> {
        let staged = self.inner.prepare_commit(checkpoint).await?;
        for s in &staged {
            // The bug: committed before the checkpoint completed.
            let _ = self.store.call(&StoreRequest::Commit { txn: s.txn.clone() }).await;
        }
        Ok(staged)
    }

    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<()> {
        self.inner.snapshot_state(checkpoint)
    }

    async fn close(&mut self) {
        self.inner.close().await
    }
}

impl Sink<Event> for EagerSink {
    type Committable = Staged;
    type WriterState = ();
    type Writer = EagerWriter;
    type Committer = StagingCommitter;
    type GlobalCommitter = NoGlobalCommitter<Staged>;

    async fn create_writer(&self, ctx: WriterContext, restored: Vec<()>) -> Result<EagerWriter, ConnectorError> {
        let store = ModelClient::new(ctx.endpoint().clone(), &self.0.store);
        Ok(EagerWriter { inner: self.0.create_writer(ctx, restored).await?, store })
    }

    /// The staging sink's own committer (it finds each transaction committed already).
    fn create_committer(&self, ctx: CommitterContext) -> StagingCommitter {
        self.0.create_committer(ctx)
    }
}

/// The store and the eager sink, built as [`StagingSinkSetup`] builds the correct one.
struct EagerSinkSetup;

impl SinkSetup for EagerSinkSetup {
    type Sink = ElementSink<EagerSink, EventCodec>;
    fn name(&self) -> String {
        "eager-staging-sink".into()
    }
    fn build(&self, world: &mut World) -> Self::Sink {
        ElementSink::new(EagerSink(StagingSinkSetup.build(world).inner().clone()))
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
    }
}

#[test]
fn a_writer_committing_on_the_barrier_is_caught_making_records_visible_too_early() {
    let outcome = suites::sink(sink_from_setup(EagerSinkSetup, &["store"])).only("single split").seeds(2).run();
    outcome.assert_caught("no-premature-visibility");
    let (case, _seed) = outcome.expect_caught("no-premature-visibility").expect("caught");
    assert_eq!(case, "single split");
    // The same outcome asked for a check the bug does not fail says what failed instead.
    let other = outcome.expect_caught("no-loss").expect_err("the eager sink loses nothing");
    assert!(
        other.contains("no seed failed no-loss; failed a different check: case \"single split\" seed 1 failed")
            && other.contains("no-premature-visibility"),
        "{other}"
    );
}

#[test]
fn a_case_that_never_reached_its_fault_path_is_not_a_catch() {
    // One checkpoint pending at a time: the overlapping-checkpoints case cannot reach what it
    // aims at. The case fails (it proved nothing), but no check failed: not a catch.
    let suite = suites::sink(sink_from_setup(StagingSinkSetup, &["store"])).only("overlapping checkpoints");
    let outcome = suite.concurrent_checkpoints(1).seeds(1).run();
    assert_eq!(outcome.failed_cases().len(), 1, "the case missed its marks:\n{outcome}");
    let why = outcome.expect_caught("no-duplicates").expect_err("nothing was caught");
    assert!(
        why.ends_with(
            "no seed failed no-duplicates; case \"overlapping checkpoints\" never reached its fault path (marks \
             checkpoints-overlapped 0/1 MISSED, notified-after-later-barrier 0/1 (needs 90%) MISSED)"
        ),
        "{why}"
    );
}

#[test]
fn a_correct_sink_is_not_caught_and_the_outcome_says_every_case_passed() {
    let outcome = suites::sink(sink_from_setup(StagingSinkSetup, &["store"])).only("single split").seeds(2).run();
    let why = outcome.expect_caught("no-premature-visibility").expect_err("the staging sink is correct");
    assert!(
        why.ends_with(
            "no seed failed no-premature-visibility; every case that ran passed (2 seeds in 1 cases): the suite does \
             not catch it with these seeds"
        ),
        "{why}"
    );
}
