//! Checkpoint notifications reach every component, as Flink's `CheckpointListener`: a
//! completed checkpoint's to the enumerator, the readers and the writers; an aborted one's
//! (declined, expired) too, and never a completion for it. With two checkpoints pending at
//! once, a writer may prepare `c + 1` before it hears that `c` completed; with one at a time
//! it never does.

use connsim::api::{
    Boundedness, EnumeratorContext, InputStatus, NoGlobalCommitter, ReaderContext, ReaderOutput, Sink, SinkWriter,
    Source, SourceReader, SplitEnumerator, WriterContext,
};
use connsim::history::CheckpointId;
use connsim::net::FaultRule;
use connsim::probes::{
    CollectorSetup, GenSplit, GeneratorSetup, GeneratorSource, GeneratorState, ProbeBatch, ProbeSink,
};
use connsim::run::{Control, FaultConfig, Script, ScriptFuture};
use connsim::{ConnectorError, Outcome, Pipeline, Record, Runner, SinkSetup, SourceSetup, World};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// What each component heard, in order: (component, what, checkpoint).
static HEARD: Mutex<Vec<(String, &'static str, CheckpointId)>> = Mutex::new(Vec::new());
/// Held by each test while it runs: `HEARD` is process-wide.
static SERIAL: Mutex<()> = Mutex::new(());

fn heard(who: String, what: &'static str, c: CheckpointId) {
    HEARD.lock().unwrap().push((who, what, c));
}

#[derive(Clone, Serialize, Deserialize)]
struct Src(GeneratorSource);

struct Enum(<GeneratorSource as Source>::Enumerator);
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
    fn notify_checkpoint_complete(&mut self, c: CheckpointId) {
        heard("enumerator".into(), "complete", c);
    }
    fn notify_checkpoint_aborted(&mut self, c: CheckpointId) {
        heard("enumerator".into(), "aborted", c);
    }
}

struct Reader(<GeneratorSource as Source>::Reader, usize);
impl SourceReader for Reader {
    type Split = GenSplit;
    fn poll_next(&mut self, out: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
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
    fn notify_checkpoint_complete(&mut self, c: CheckpointId) {
        heard(format!("reader {}", self.1), "complete", c);
    }
    fn notify_checkpoint_aborted(&mut self, c: CheckpointId) {
        heard(format!("reader {}", self.1), "aborted", c);
    }
}

impl Source for Src {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = Enum;
    type Reader = Reader;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Enum {
        Enum(self.0.create_enumerator(ctx))
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<GenSplit>, s: GeneratorState) -> Enum {
        Enum(self.0.restore_enumerator(ctx, s))
    }
    fn create_reader(&self, ctx: ReaderContext) -> Reader {
        let subtask = ctx.subtask();
        Reader(self.0.create_reader(ctx), subtask)
    }
}

struct SrcSetup;
impl SourceSetup for SrcSetup {
    type Source = Src;
    fn name(&self) -> String {
        "listening source".into()
    }
    fn build(&self, world: &mut World) -> Src {
        Src(GeneratorSetup { splits: 4, records_per_split: 200, pace_ms: 1_000, ..Default::default() }.build(world))
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct Snk(ProbeSink);

struct Writer(<ProbeSink as Sink>::Writer, usize);
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
        heard(format!("writer {}", self.1), "prepare", c);
        self.0.prepare_commit(c).await
    }
    async fn notify_checkpoint_complete(&mut self, c: CheckpointId) -> Result<(), ConnectorError> {
        heard(format!("writer {}", self.1), "complete", c);
        Ok(())
    }
    async fn notify_checkpoint_aborted(&mut self, c: CheckpointId) -> Result<(), ConnectorError> {
        heard(format!("writer {}", self.1), "aborted", c);
        Ok(())
    }
}

impl Sink for Snk {
    type Committable = ProbeBatch;
    type WriterState = ();
    type Writer = Writer;
    type Committer = <ProbeSink as Sink>::Committer;
    type GlobalCommitter = NoGlobalCommitter<ProbeBatch>;
    async fn create_writer(&self, ctx: WriterContext, s: Vec<()>) -> Result<Writer, ConnectorError> {
        let subtask = ctx.subtask();
        Ok(Writer(self.0.create_writer(ctx, s).await?, subtask))
    }
    fn create_committer(&self, ctx: connsim::api::CommitterContext) -> Self::Committer {
        self.0.create_committer(ctx)
    }
}

struct SnkSetup;
impl SinkSetup for SnkSetup {
    type Sink = Snk;
    fn name(&self) -> String {
        "listening sink".into()
    }
    fn build(&self, world: &mut World) -> Snk {
        Snk(CollectorSetup.build(world))
    }
}

/// At 150 ms subtask 1 declines the next checkpoint; at 450 ms subtask 2's next snapshot
/// outlasts the checkpoint timeout; at 900 ms subtask 0's next two snapshots are slow.
struct Disturb;
impl Script for Disturb {
    fn describe(&self) -> String {
        "a declined checkpoint, an expired one, then slow snapshots".into()
    }
    fn drive<'a>(&'a self, control: &'a Control) -> ScriptFuture<'a> {
        Box::pin(async move {
            control.sleep_ms(150).await;
            control.decline_next(1);
            control.sleep_ms(300).await;
            let timeout = control.config().job.checkpoints.timeout_ms;
            control.slow_snapshot(2, timeout + 100);
            control.sleep_ms(timeout + 150).await;
            control.slow_snapshot(0, 250);
            control.sleep_ms(120).await;
            control.slow_snapshot(0, 200);
        })
    }
}

fn run(concurrent: usize, script: Arc<dyn Script>) -> (Outcome, Vec<(String, &'static str, CheckpointId)>) {
    HEARD.lock().unwrap().clear();
    let mut r = Runner::new(Pipeline(SrcSetup, SnkSetup));
    r.seeds(1).jobs(1).script(script).configure(|c| {
        c.faults = FaultConfig::none();
        c.job.checkpoints.max_concurrent = concurrent;
    });
    let out = r.run();
    let heard = HEARD.lock().unwrap().clone();
    (out, heard)
}

fn checkpoints(heard: &[(String, &'static str, CheckpointId)], who: &str, what: &str) -> Vec<CheckpointId> {
    heard.iter().filter(|(w, x, _)| w == who && *x == what).map(|(_, _, c)| *c).collect()
}

#[test]
fn aborted_and_completed_checkpoints_are_heard_and_overlap_only_when_allowed() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for concurrent in [1, 2] {
        let (out, heard) = run(concurrent, Arc::new(Disturb));
        out.assert_ok();
        out.assert_reached(&["checkpoint-declined", "checkpoint-aborted"]);
        let components: Vec<String> = ["enumerator".to_string()]
            .into_iter()
            .chain((0..4).flat_map(|k| [format!("reader {k}"), format!("writer {k}")]))
            .collect();
        let aborted = checkpoints(&heard, "enumerator", "aborted");
        assert!(aborted.len() >= 2, "the declined and the expired checkpoint were aborted: {heard:?}");
        for who in &components {
            let (done, gone) = (checkpoints(&heard, who, "complete"), checkpoints(&heard, who, "aborted"));
            assert_eq!(gone, aborted, "{who} heard every abort (no faults): {heard:?}");
            assert!(!done.is_empty(), "{who} heard completions");
            assert!(done.iter().all(|c| !gone.contains(c)), "{who} heard an aborted checkpoint complete: {heard:?}");
        }
        // A writer that prepared a later checkpoint before it heard of an earlier one's completion.
        let late = (0..4).any(|k| {
            let who = format!("writer {k}");
            let mine: Vec<&(String, &str, CheckpointId)> = heard.iter().filter(|(w, _, _)| *w == who).collect();
            mine.iter().enumerate().any(|(i, (_, what, c))| {
                *what == "complete" && mine[..i].iter().any(|(_, x, p)| *x == "prepare" && p > c)
            })
        });
        let marks = &out.reports[0].marks;
        let overlapped = marks.iter().any(|m| m == "checkpoints-overlapped");
        let notified_late = marks.iter().any(|m| m == "notified-after-later-barrier");
        if concurrent == 1 {
            assert!(!late && !overlapped && !notified_late, "one checkpoint at a time overlapped: {marks:?}");
        } else {
            assert!(late && overlapped && notified_late, "two at a time never overlapped: {marks:?} {heard:?}");
        }
    }
}

/// From 150 ms to 300 ms every acknowledgement from task executor 1 is lost.
struct LoseAcks;
impl Script for LoseAcks {
    fn describe(&self) -> String {
        "acknowledgements from taskexecutor-1 lost for 150 ms".into()
    }
    fn drive<'a>(&'a self, control: &'a Control) -> ScriptFuture<'a> {
        Box::pin(async move {
            control.sleep_ms(150).await;
            let rule = control.add_rule(FaultRule::drop(1.0).kind("Ack").from("taskexecutor-1"));
            control.sleep_ms(150).await;
            control.remove_rule(rule);
        })
    }
}

/// Retried, the acknowledgement would land at 300 ms, well within the checkpoint timeout;
/// sent once, its checkpoint expires (nothing else aborts one here: no declines, no crashes).
#[test]
fn a_lost_acknowledgement_is_not_retried_and_its_checkpoint_expires() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (out, heard) = run(1, Arc::new(LoseAcks));
    out.assert_ok();
    out.assert_reached(&["checkpoint-aborted", "message-dropped"]);
    let marks = &out.reports[0].marks;
    assert!(!marks.iter().any(|m| m == "checkpoint-declined" || m == "crash"), "{marks:?}");
    assert!(!checkpoints(&heard, "enumerator", "aborted").is_empty(), "no checkpoint expired: {heard:?}");
}

/// Random crashes and message loss with two checkpoints allowed at once (as the random
/// sweep's region targets run): a lost acknowledgement leaves a checkpoint pending while the
/// next one is triggered, completes and subsumes it. (A notification after a later barrier
/// needs a slow snapshot, not a lost message: the "overlapping checkpoints" case has one.)
#[test]
fn random_faults_with_two_checkpoints_at_once_overlap_and_subsume() {
    let mut r = Runner::new(Pipeline(
        GeneratorSetup { splits: 8, records_per_split: 300, ..Default::default() },
        CollectorSetup,
    ));
    r.seeds(50).configure(|c| c.job.checkpoints.max_concurrent = 2);
    let out = r.run();
    out.assert_ok();
    out.assert_reached(&["checkpoints-overlapped", "checkpoint-subsumed", "crash"]);
}
