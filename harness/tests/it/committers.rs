//! Committers apart from the writers (`committer_parallelism`): `k` tasks after every reader
//! and writer, each with a channel from every writer. Writer `w`'s committables reach
//! committer `w mod k` through their serializer, every barrier reaches every committer, and
//! only the committers commit (the writers' chained committers are not used). Under crashes,
//! lost messages and failovers nothing is lost or duplicated, restored committers commit what
//! they restored, and a bad setting fails the job saying what to change.

use connsim::cluster::{Exchange, FailoverStrategy};
use connsim::history::{Event, EventKind};
use connsim::probes::{CollectorSetup, GeneratorSetup};
use connsim::{Outcome, Pipeline, Runner, SourceSetup, World};
use std::sync::Mutex;

/// Every run's history as it stood when the output converged, in the order the runs ended.
static HISTORIES: Mutex<Vec<Vec<Event>>> = Mutex::new(Vec::new());
/// One test at a time reads [`HISTORIES`].
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The generator, keeping each run's history for the test.
struct Recorded(GeneratorSetup);
impl SourceSetup for Recorded {
    type Source = <GeneratorSetup as SourceSetup>::Source;
    fn name(&self) -> String {
        self.0.name()
    }
    fn build(&self, world: &mut World) -> Self::Source {
        let history = world.history().clone();
        world.during_run(async move {
            let converged = || history.with_events(|e| e.iter().any(|e| matches!(e.kind, EventKind::Converged)));
            while !converged() {
                madsim::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            HISTORIES.lock().unwrap().push(history.events());
        });
        self.0.build(world)
    }
}

/// Runs `seeds` seeds of a generator into the collector with `k` committers apart; returns
/// the outcome and every run's history.
fn run(
    (readers, writers, k): (usize, Option<usize>, usize),
    exchange: Exchange,
    failover: FailoverStrategy,
    seeds: u64,
) -> (Outcome, Vec<Vec<Event>>) {
    HISTORIES.lock().unwrap().clear();
    let source = Recorded(GeneratorSetup { splits: 8, records_per_split: 200, ..Default::default() });
    let mut r = Runner::new(Pipeline(source, CollectorSetup));
    r.seeds(seeds).configure(|c| {
        c.job.parallelism = readers;
        c.job.sink.writers = writers;
        c.job.sink.committers = Some(k);
        c.job.exchange = exchange;
        c.job.failover = failover;
    });
    let out = r.run();
    (out, std::mem::take(&mut *HISTORIES.lock().unwrap()))
}

/// Who committed in a history: the subtasks of every commit attempt.
fn committing(history: &[Event]) -> std::collections::BTreeSet<usize> {
    history
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::CommitAttempt { subtask, .. } => Some(subtask),
            _ => None,
        })
        .collect()
}

#[test]
fn fewer_and_more_committers_than_writers_pass_under_faults_and_only_they_commit() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // (readers, writers, committers): fewer committers than writers, more, and one.
    for (shape, exchange) in
        [((4, None, 2), Exchange::Forward), ((3, Some(2), 5), Exchange::Rebalance), ((4, None, 1), Exchange::Forward)]
    {
        let (readers, writers, k) = shape;
        let (out, histories) = run(shape, exchange, FailoverStrategy::Region, 30);
        out.assert_ok();
        out.assert_reached(&["restore-from-checkpoint", "recovered-committables-committed", "failover:region"]);
        let first = readers.max(writers.unwrap_or(readers));
        let committers: std::collections::BTreeSet<usize> = (first..first + k).collect();
        assert_eq!(histories.len(), 30, "every run's history was kept");
        let mut seen = std::collections::BTreeSet::new();
        for h in &histories {
            let by = committing(h);
            assert!(by.is_subset(&committers), "{shape:?}: commits by {by:?}, committers are {committers:?}");
            seen.extend(by);
        }
        // Every committer gets committables: writer w's go to committer w mod k.
        let fed: std::collections::BTreeSet<usize> = (0..writers.unwrap_or(readers)).map(|w| first + w % k).collect();
        assert_eq!(seen, fed, "{shape:?}: the committers that committed");
    }
}

#[test]
fn committers_apart_pass_a_global_failover() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (out, _) = run((4, None, 3), Exchange::KeyBy, FailoverStrategy::Global, 30);
    out.assert_ok();
    out.assert_reached(&["restore-from-checkpoint", "recovered-committables-committed", "failover:global"]);
}

#[test]
fn no_committers_fails_the_job_saying_what_to_set() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (out, _) = run((4, None, 0), Exchange::Forward, FailoverStrategy::Region, 1);
    let v = out.reports[0].verdict("liveness").expect("liveness is checked");
    assert!(!v.passed && v.summary.contains("committer_parallelism is 0") && v.summary.contains("unset"), "{v:?}");
}
