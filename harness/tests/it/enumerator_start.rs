//! An enumerator whose start fails with a retriable error is retried beside the job master's
//! loop, not on it: the tasks deploy, readers register and failures are handled meanwhile,
//! and what the readers asked reaches the enumerator, in order, once it started (a replaced
//! attempt's requests dropped); no split is assigned and no checkpoint triggered before. A
//! global failover drops an enumerator still retrying, and only its successor hears readers.

use connsim::api::{EnumeratorContext, ReaderContext, Source, SplitEnumerator};
use connsim::cluster::FailoverStrategy;
use connsim::history::{CheckpointId, Event, EventKind};
use connsim::probes::{CollectorSetup, GenSplit, GeneratorSetup, GeneratorSource, GeneratorState};
use connsim::run::{Control, FaultConfig, RunReport, Script, ScriptFuture};
use connsim::{ConnectorError, Pipeline, Runner, SourceSetup, World};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// Until this virtual time the enumerator's start fails (its split store is unreachable).
const UNREACHABLE_MS: u64 = 600;

/// What an enumerator was told: its number, "add" or "request", the subtask.
type Told = (usize, &'static str, usize);

/// When a start fails.
#[derive(Clone, Copy, Default)]
enum Fails {
    /// Before [`UNREACHABLE_MS`].
    #[default]
    Early,
    /// Always for the run's first enumerator, never for the ones replacing it.
    FirstEnumerator,
}

/// What the test reads after the run: what the enumerators were told (`(instance, "add" or
/// "request", subtask)`, in order), and the history as it stood when the output converged
/// (the run takes it out at its end).
#[derive(Default)]
struct Seen {
    fails: Fails,
    enumerators: usize,
    told: Vec<Told>,
    events: Vec<Event>,
}

static SEEN: Mutex<Option<Arc<Mutex<Seen>>>> = Mutex::new(None);

fn seen() -> Arc<Mutex<Seen>> {
    SEEN.lock().unwrap().clone().expect("the test set it")
}

#[derive(Clone, Serialize, Deserialize)]
struct SlowToStart(GeneratorSource);

/// The generator's enumerator, numbered in the order the run made them.
struct Enum(<GeneratorSource as Source>::Enumerator, usize);

impl Enum {
    fn new(inner: <GeneratorSource as Source>::Enumerator) -> Self {
        let seen = seen();
        let mut seen = seen.lock().unwrap();
        seen.enumerators += 1;
        Enum(inner, seen.enumerators - 1)
    }
    fn told(&self, what: &'static str, subtask: usize) {
        seen().lock().unwrap().told.push((self.1, what, subtask));
    }
}

impl SplitEnumerator for Enum {
    type Split = GenSplit;
    type State = GeneratorState;
    async fn start(&mut self, ctx: &mut EnumeratorContext<GenSplit>) -> Result<(), ConnectorError> {
        let unreachable = match seen().lock().unwrap().fails {
            Fails::Early => (connsim::net::now().as_millis() as u64) < UNREACHABLE_MS,
            Fails::FirstEnumerator => self.1 == 0,
        };
        if unreachable {
            return Err(ConnectorError::retry("the split store is not reachable yet"));
        }
        self.0.start(ctx).await
    }
    fn add_splits_back(&mut self, s: Vec<GenSplit>, t: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.0.add_splits_back(s, t, ctx)
    }
    fn add_reader(&mut self, t: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.told("add", t);
        self.0.add_reader(t, ctx)
    }
    fn handle_split_request(&mut self, t: usize, ctx: &mut EnumeratorContext<GenSplit>) {
        self.told("request", t);
        self.0.handle_split_request(t, ctx)
    }
    fn snapshot_state(&mut self, c: CheckpointId) -> GeneratorState {
        self.0.snapshot_state(c)
    }
}

impl Source for SlowToStart {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = Enum;
    type Reader = <GeneratorSource as Source>::Reader;
    fn boundedness(&self) -> connsim::api::Boundedness {
        self.0.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Enum {
        Enum::new(self.0.create_enumerator(ctx))
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<GenSplit>, s: GeneratorState) -> Enum {
        Enum::new(self.0.restore_enumerator(ctx, s))
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        self.0.create_reader(ctx)
    }
}

struct Setup;
impl SourceSetup for Setup {
    type Source = SlowToStart;
    fn name(&self) -> String {
        "generator whose enumerator is slow to start".into()
    }
    fn build(&self, world: &mut World) -> SlowToStart {
        let (seen, history) = (seen(), world.history().clone());
        world.during_run(async move {
            let converged = || history.with_events(|e| e.iter().any(|e| matches!(e.kind, EventKind::Converged)));
            while !converged() {
                madsim::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            seen.lock().unwrap().events = history.events();
        });
        SlowToStart(
            GeneratorSetup { splits: 4, records_per_split: 50, on_request: true, ..Default::default() }.build(world),
        )
    }
}

/// Crashes task executor 1 (subtask 1's) while the enumerator is still starting.
struct CrashWhileStarting;
impl Script for CrashWhileStarting {
    fn describe(&self) -> String {
        "taskexecutor-1 crashed at 100 ms, back 100 ms later".into()
    }
    fn drive<'a>(&'a self, control: &'a Control) -> ScriptFuture<'a> {
        Box::pin(async move {
            control.sleep_ms(100).await;
            control.crash_for("taskexecutor-1", 100);
        })
    }
}

/// One seed with `failover`, its starts failing as `fails` says: its report, what the
/// enumerators were told, and the history.
fn run(failover: FailoverStrategy, fails: Fails) -> (RunReport, Vec<Told>, Vec<Event>) {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let state = Arc::new(Mutex::new(Seen { fails, ..Seen::default() }));
    *SEEN.lock().unwrap() = Some(state.clone());
    let mut r = Runner::new(Pipeline(Setup, CollectorSetup));
    r.seeds(1).ignore_env_seeds().configure(|c| {
        c.faults = FaultConfig::none();
        c.job.failover = failover;
    });
    let config = r.run_config().clone();
    let report = r.run_with(1, &config, Arc::new(CrashWhileStarting));
    let seen = std::mem::take(&mut *state.lock().unwrap());
    assert!(!seen.events.is_empty(), "the output converged: {report}");
    (report, seen.told, seen.events)
}

fn at_ms(events: &[Event], what: impl Fn(&EventKind) -> bool) -> Vec<u64> {
    events.iter().filter(|e| what(&e.kind)).map(|e| e.t_us / 1000).collect()
}

#[test]
fn a_retried_start_runs_beside_the_loop_and_the_requests_wait_for_it() {
    let (report, told, events) = run(FailoverStrategy::Region, Fails::Early);
    assert!(report.passed(), "{report}");
    assert!(report.marks.iter().any(|m| m == "enumerator-start-retried"), "{report}");
    let started = at_ms(&events, |k| matches!(k, EventKind::EnumeratorStarted { .. }));
    assert_eq!(started.len(), 1, "{started:?}");
    let started = started[0];
    assert!(started >= UNREACHABLE_MS, "it started once the store was reachable, at {started} ms");
    let failed = at_ms(&events, |k| matches!(k, EventKind::EnumeratorStartFailed { .. }));
    assert!(failed.first().is_some_and(|t| *t <= 5), "the first try failed as the job started: {failed:?}");
    assert!(failed.len() >= 20, "tried again every 20 ms: {failed:?}");
    // The loop went on meanwhile: every reader registered, and the crash was failed over.
    let registered = at_ms(&events, |k| matches!(k, EventKind::ReaderRegistered { .. }));
    assert!(registered.iter().filter(|t| **t < started).count() >= 5, "registered before the start: {registered:?}");
    let failovers = at_ms(&events, |k| matches!(k, EventKind::Failover { .. }));
    assert!(failovers.first().is_some_and(|t| *t < started), "failed over before the start: {failovers:?}");
    // Nothing the enumerator does happened before it started.
    let assigned = at_ms(&events, |k| matches!(k, EventKind::SplitsAssigned { .. }));
    let triggered = at_ms(&events, |k| matches!(k, EventKind::CheckpointTriggered { .. }));
    assert!(assigned.iter().chain(&triggered).all(|t| *t >= started), "{assigned:?} {triggered:?}");
    // The enumerator heard each live reader once, in the order they registered: subtask 1's
    // crashed attempt registered while it was away, and only its replacement reached it.
    let mut last = std::collections::BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        if let EventKind::ReaderRegistered { subtask, .. } = e.kind {
            last.insert(subtask, i);
        }
    }
    let mut live: Vec<(usize, usize)> = last.into_iter().map(|(s, i)| (i, s)).collect();
    live.sort_unstable();
    let live: Vec<usize> = live.into_iter().map(|(_, s)| s).collect();
    let added: Vec<usize> = told.iter().filter(|(_, what, _)| *what == "add").map(|(_, _, s)| *s).collect();
    assert_eq!(added, live, "told: {told:?}");
    assert_eq!(added.len(), 4, "{told:?}");
    // A reader's split requests reached the enumerator after its registration did.
    for &(_, what, s) in told.iter().filter(|(_, what, _)| *what == "request") {
        let add = told.iter().position(|t| *t == (0, "add", s)).unwrap_or(usize::MAX);
        let request = told.iter().position(|t| *t == (0, what, s)).expect("it is in the list");
        assert!(add < request, "subtask {s} asked for a split before it was added: {told:?}");
    }
    assert!(told.iter().filter(|(_, what, _)| *what == "request").count() >= 4, "{told:?}");
}

#[test]
fn a_global_failover_drops_a_start_being_retried_and_starts_the_new_enumerator() {
    let (report, told, events) = run(FailoverStrategy::Global, Fails::FirstEnumerator);
    assert!(report.passed(), "{report}");
    let failovers = at_ms(&events, |k| matches!(k, EventKind::Failover { .. }));
    let failed = at_ms(&events, |k| matches!(k, EventKind::EnumeratorStartFailed { .. }));
    assert!(failed.len() >= 3, "the first enumerator kept failing: {failed:?}");
    assert!(failed.iter().all(|t| *t <= failovers[0]), "and stopped at the failover: {failed:?} {failovers:?}");
    // The replacement started at its first try; the first enumerator never heard a reader.
    assert!(told.iter().all(|(instance, _, _)| *instance == 1), "{told:?}");
    let added = told.iter().filter(|(_, what, _)| *what == "add").count();
    assert_eq!(added, 4, "{told:?}");
}
