//! `close()` is called exactly once for every enumerator, reader, split reader, writer and
//! committer the runtime created, whether its attempt finished, was cancelled, or failed
//! over (no crash here: a crashed process closes nothing).

use connsim::api::{
    Boundedness, CommitOutcome, CommitRequest, Committer, CommitterContext, EnumeratorContext, FetchedBatch,
    FetcherMode, InputStatus, NoGlobalCommitter, ReaderContext, ReaderOutput, Sink, SinkWriter, Source, SourceReader,
    SourceReaderBase, SplitEnumerator, SplitReader, SplitsChange, WriterContext,
};
use connsim::cluster::FailoverStrategy;
use connsim::history::CheckpointId;
use connsim::probes::{
    CollectorSetup, GenSplit, GeneratorEmitter, GeneratorReader, GeneratorSetup, GeneratorSource, GeneratorState,
    ProbeBatch, ProbeSink,
};
use connsim::run::{Control, FaultConfig, Script, ScriptFuture};
use connsim::{ConnectorError, Pipeline, Record, Runner, SinkSetup, SourceSetup, World};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Per component kind: how many were created, how many closed. A component closed twice
/// panics on the spot.
static COUNTS: Mutex<BTreeMap<&'static str, (usize, usize)>> = Mutex::new(BTreeMap::new());

struct Tracked(&'static str, bool);

impl Tracked {
    fn new(kind: &'static str) -> Self {
        COUNTS.lock().unwrap().entry(kind).or_default().0 += 1;
        Tracked(kind, false)
    }
    fn close(&mut self) {
        assert!(!self.1, "a {} was closed twice", self.0);
        self.1 = true;
        COUNTS.lock().unwrap().entry(self.0).or_default().1 += 1;
    }
}

/// Fails its task once, on its 40th poll, when `fail` says so (a region failover that is no
/// crash: the failed attempt is still there to close).
#[derive(Clone, Serialize, Deserialize)]
struct Src {
    inner: GeneratorSource,
    fail_once: bool,
}

struct Enum(<GeneratorSource as Source>::Enumerator, Tracked);
impl SplitEnumerator for Enum {
    type Split = GenSplit;
    type State = GeneratorState;
    fn add_splits_back(&mut self, s: Vec<GenSplit>, t: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.0.add_splits_back(s, t, ctx)
    }
    fn add_reader(&mut self, t: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.0.add_reader(t, ctx)
    }
    fn snapshot_state(&mut self, c: CheckpointId) -> GeneratorState {
        self.0.snapshot_state(c)
    }
    async fn close(&mut self) {
        self.1.close()
    }
}

struct Split(GeneratorReader, Tracked);
impl SplitReader for Split {
    type Split = GenSplit;
    type Element = (u64, Record);
    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        self.0.fetch().await
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<GenSplit>) {
        self.0.handle_splits_changes(change)
    }
    async fn close(&mut self) {
        self.1.close()
    }
}

struct Reader(SourceReaderBase<Split, GeneratorEmitter>, Tracked, Option<usize>);
impl SourceReader for Reader {
    type Split = GenSplit;
    fn poll_next(&mut self, out: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
        if let Some(n) = &mut self.2 {
            *n += 1;
            if *n == 40 && FAILED.lock().unwrap().replace(()).is_none() {
                return Err(ConnectorError::fail_task("a reader fails once"));
            }
        }
        self.0.poll_next(out)
    }
    async fn available(&mut self) {
        self.0.available().await
    }
    fn add_splits(&mut self, s: Vec<GenSplit>) {
        self.0.add_splits(s)
    }
    fn notify_no_more_splits(&mut self) {
        self.0.notify_no_more_splits()
    }
    fn snapshot_state(&mut self, c: CheckpointId) -> Vec<GenSplit> {
        self.0.snapshot_state(c)
    }
    async fn close(&mut self) {
        self.0.close().await;
        self.1.close()
    }
}

static FAILED: Mutex<Option<()>> = Mutex::new(None);

impl Source for Src {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = Enum;
    type Reader = Reader;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Enum {
        Enum(self.inner.create_enumerator(ctx), Tracked::new("enumerator"))
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<GenSplit>, s: GeneratorState) -> Enum {
        Enum(self.inner.restore_enumerator(ctx, s), Tracked::new("enumerator"))
    }
    fn create_reader(&self, ctx: ReaderContext) -> Reader {
        let data = self.inner.data();
        let base = SourceReaderBase::new(
            ctx,
            move || Split(GeneratorReader::paced(data.clone(), 300, false), Tracked::new("split reader")),
            GeneratorEmitter,
            FetcherMode::PerSplit,
        );
        Reader(base, Tracked::new("reader"), self.fail_once.then_some(0))
    }
}

struct SrcSetup(bool);
impl SourceSetup for SrcSetup {
    type Source = Src;
    fn name(&self) -> String {
        "counting source".into()
    }
    fn build(&self, world: &mut World) -> Src {
        let inner = GeneratorSetup { splits: 4, records_per_split: 100, ..Default::default() }.build(world);
        Src { inner, fail_once: self.0 }
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct Snk(ProbeSink);

struct Writer(<ProbeSink as Sink>::Writer, Tracked);
impl SinkWriter for Writer {
    type Committable = ProbeBatch;
    type State = ();
    async fn write(&mut self, r: Record) -> Result<(), ConnectorError> {
        self.0.write(r).await
    }
    async fn flush(&mut self, end: bool) -> Result<(), ConnectorError> {
        self.0.flush(end).await
    }
    async fn prepare_commit(&mut self, c: CheckpointId) -> Result<Vec<ProbeBatch>, ConnectorError> {
        self.0.prepare_commit(c).await
    }
    async fn close(&mut self) {
        self.1.close()
    }
}

struct Comm(<ProbeSink as Sink>::Committer, Tracked);
impl Committer for Comm {
    type Committable = ProbeBatch;
    async fn commit(&mut self, r: Vec<CommitRequest<ProbeBatch>>) -> Vec<CommitOutcome> {
        self.0.commit(r).await
    }
    async fn close(&mut self) {
        self.1.close()
    }
}

impl Sink for Snk {
    type Committable = ProbeBatch;
    type WriterState = ();
    type Writer = Writer;
    type Committer = Comm;
    type GlobalCommitter = NoGlobalCommitter<ProbeBatch>;
    async fn create_writer(&self, ctx: WriterContext, s: Vec<()>) -> Result<Writer, ConnectorError> {
        Ok(Writer(self.0.create_writer(ctx, s).await?, Tracked::new("writer")))
    }
    fn create_committer(&self, ctx: CommitterContext) -> Comm {
        Comm(self.0.create_committer(ctx), Tracked::new("committer"))
    }
}

struct SnkSetup;
impl SinkSetup for SnkSetup {
    type Sink = Snk;
    fn name(&self) -> String {
        "counting sink".into()
    }
    fn build(&self, world: &mut World) -> Snk {
        Snk(CollectorSetup.build(world))
    }
}

/// Stops the job with a savepoint and resumes it.
struct StopAndResume;
impl Script for StopAndResume {
    fn describe(&self) -> String {
        "stop with a savepoint at 150 ms, resume".into()
    }
    fn drive<'a>(&'a self, control: &'a Control) -> ScriptFuture<'a> {
        Box::pin(async move {
            control.sleep_ms(150).await;
            control.stop_with_savepoint(3_000).await.expect("the savepoint completes");
            control.resume(control.parallelism()).await;
        })
    }
}

fn run(
    fail_once: bool,
    failover: FailoverStrategy,
    script: Option<Arc<dyn Script>>,
) -> BTreeMap<&'static str, (usize, usize)> {
    COUNTS.lock().unwrap().clear();
    *FAILED.lock().unwrap() = None;
    let mut r = Runner::new(Pipeline(SrcSetup(fail_once), SnkSetup));
    r.seeds(1).jobs(1).configure(|c| {
        c.faults = FaultConfig::none();
        c.job.failover = failover;
    });
    if let Some(s) = script {
        r.script(s);
    }
    r.run().assert_ok();
    COUNTS.lock().unwrap().clone()
}

fn every_one_closed(counts: &BTreeMap<&'static str, (usize, usize)>, what: &str) {
    for kind in ["enumerator", "reader", "split reader", "writer", "committer"] {
        let (created, closed) = counts.get(kind).copied().unwrap_or_default();
        assert!(created > 0, "{what}: no {kind} was created: {counts:?}");
        assert_eq!(created, closed, "{what}: {created} {kind}s created, {closed} closed: {counts:?}");
    }
}

/// One test, in order: the counters are process-wide.
#[test]
fn every_created_component_is_closed_exactly_once_on_finish_failover_and_stop() {
    let finish = run(false, FailoverStrategy::Region, None);
    every_one_closed(&finish, "a job that finished");
    assert_eq!(finish["reader"].0, 4);
    let region = run(true, FailoverStrategy::Region, None);
    every_one_closed(&region, "a region failover");
    assert_eq!(region["reader"].0, 5, "the failed attempt and its replacement: {region:?}");
    let global = run(true, FailoverStrategy::Global, None);
    every_one_closed(&global, "a global failover");
    assert_eq!(global["enumerator"].0, 2, "the enumerator is replaced: {global:?}");
    let stopped = run(false, FailoverStrategy::Region, Some(Arc::new(StopAndResume)));
    every_one_closed(&stopped, "stop-with-savepoint and resume");
    assert_eq!(stopped["reader"].0, 8, "two jobs' readers: {stopped:?}");
}
