//! Bad input from a connector never hangs or aborts the test run: it becomes a report with
//! its seed and a verdict that says what went wrong.

use connsim::api::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, NoGlobalCommitter, Sink, SinkWriter, WriterContext,
};
use connsim::history::CheckpointId;
use connsim::probes::{CollectorSetup, GeneratorSetup, ProbeBatch, ProbeSink};
use connsim::run::FaultConfig;
use connsim::{ConnectorError, Pipeline, Record, RunReport, Runner, SinkSetup, World};

/// A sink that wraps the probe sink and misbehaves in one way.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Misbehaving {
    inner: ProbeSink,
    how: How,
}

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
enum How {
    PanicInWrite,
    CommitFailsUnknown,
}

struct Writer<W> {
    inner: W,
    how: How,
    written: usize,
}

impl<W: SinkWriter<Committable = ProbeBatch, State = ()>> SinkWriter for Writer<W> {
    type Committable = ProbeBatch;
    type State = ();
    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        self.written += 1;
        if matches!(self.how, How::PanicInWrite) && self.written == 100 {
            panic!("writer bug: index out of range at record {}", record.id);
        }
        self.inner.write(record).await
    }
    async fn flush(&mut self, end: bool) -> Result<(), ConnectorError> {
        self.inner.flush(end).await
    }
    async fn prepare_commit(&mut self, c: CheckpointId) -> Result<Vec<ProbeBatch>, ConnectorError> {
        self.inner.prepare_commit(c).await
    }
}

struct FailingCommitter;

impl Committer for FailingCommitter {
    type Committable = ProbeBatch;
    async fn commit(&mut self, requests: Vec<CommitRequest<ProbeBatch>>) -> Vec<CommitOutcome> {
        requests.iter().map(|_| CommitOutcome::FailedUnknown("the broker said 42".into())).collect()
    }
}

impl Sink for Misbehaving {
    type Committable = ProbeBatch;
    type WriterState = ();
    type Writer = Writer<<ProbeSink as Sink>::Writer>;
    type Committer = either::Either;
    type GlobalCommitter = NoGlobalCommitter<Self::Committable>;
    async fn create_writer(&self, ctx: WriterContext, restored: Vec<()>) -> Result<Self::Writer, ConnectorError> {
        Ok(Writer { inner: self.inner.create_writer(ctx, restored).await?, how: self.how, written: 0 })
    }
    fn create_committer(&self, ctx: CommitterContext) -> Self::Committer {
        match self.how {
            How::CommitFailsUnknown => either::Either::Failing(FailingCommitter),
            How::PanicInWrite => either::Either::Probe(self.inner.create_committer(ctx)),
        }
    }
}

mod either {
    use super::*;
    pub enum Either {
        Failing(FailingCommitter),
        Probe(<ProbeSink as Sink>::Committer),
    }
    impl Committer for Either {
        type Committable = ProbeBatch;
        async fn commit(&mut self, requests: Vec<CommitRequest<ProbeBatch>>) -> Vec<CommitOutcome> {
            match self {
                Either::Failing(c) => c.commit(requests).await,
                Either::Probe(c) => c.commit(requests).await,
            }
        }
    }
}

struct MisbehavingSetup(How);

impl SinkSetup for MisbehavingSetup {
    type Sink = Misbehaving;
    fn name(&self) -> String {
        format!("misbehaving({:?})", self.0)
    }
    fn build(&self, world: &mut World) -> Misbehaving {
        Misbehaving { inner: CollectorSetup.build(world), how: self.0 }
    }
}

fn run_one(how: How) -> RunReport {
    let mut r = Runner::new(Pipeline(
        GeneratorSetup { splits: 4, records_per_split: 200, ..Default::default() },
        MisbehavingSetup(how),
    ));
    r.seeds(3).configure(|c| c.faults = FaultConfig::none());
    let out = r.run();
    assert_eq!(out.reports.len(), 3);
    assert_eq!(out.failures().len(), 3, "every seed must fail: {}", out.summary());
    out.reports[0].clone()
}

#[test]
fn a_panicking_connector_yields_a_report_with_its_seed() {
    let report = run_one(How::PanicInWrite);
    let v = report.verdict("liveness").unwrap();
    assert!(v.summary.contains("panicked") && v.summary.contains("writer bug"), "{v:?}");
    assert!(report.to_string().contains("replay: CONNSIM_SEED=1 "), "{report}");
}

#[test]
fn a_commit_failing_for_an_unknown_reason_fails_the_job_with_a_report() {
    let report = run_one(How::CommitFailsUnknown);
    let v = report.verdict("liveness").unwrap();
    assert!(v.summary.contains("job failed") && v.summary.contains("the broker said 42"), "{v:?}");
    assert!(v.first_bad_event.is_some());
}
