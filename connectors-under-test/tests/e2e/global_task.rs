//! The table sink's global committer runs as a task of its own: it is deployed on a task
//! executor (in subtask 0's slot), commits there, and is redeployed by failovers like any
//! task. The job master commits nothing.

use super::FAST_SEEDS;
use connectors_under_test::{LogSourceSetup, TableSinkSetup};
use connsim::history::EventKind;
use connsim::run::{SinkSetup, World};
use connsim::{Pipeline, Runner};
use std::sync::{Arc, Mutex};

/// Per seed: the nodes the global commits were made on, with the committing task's subtask
/// and attempt; the attempts of that subtask deployed, and of subtask 0 (a job with a global
/// committer is one failover region: both are redeployed together, with the same attempt).
#[derive(Debug, Default)]
struct Seen {
    commits: Vec<(String, usize, u64)>,
    deployed: Vec<(String, usize, u64)>,
    subtask_0: Vec<(String, u64)>,
}

/// The table sink, with the run's history read once the output converged.
#[derive(Clone, Default)]
struct Watched(Arc<Mutex<Vec<Seen>>>);

impl SinkSetup for Watched {
    type Sink = <TableSinkSetup as SinkSetup>::Sink;
    fn name(&self) -> String {
        TableSinkSetup.name()
    }
    fn build(&self, world: &mut World) -> Self::Sink {
        let (seen, history) = (self.0.clone(), world.history().clone());
        world.during_run(async move {
            let converged = || history.with_events(|e| e.iter().any(|e| matches!(e.kind, EventKind::Converged)));
            while !converged() {
                madsim::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            let mut s = Seen::default();
            history.with_events(|events| {
                for e in events {
                    match &e.kind {
                        EventKind::GlobalCommitAttempt { subtask, attempt, .. } => {
                            s.commits.push((e.node.clone(), *subtask, *attempt))
                        }
                        EventKind::Deployed { subtask: 0, attempt, .. } => s.subtask_0.push((e.node.clone(), *attempt)),
                        EventKind::Deployed { subtask: 4, attempt, .. } => {
                            s.deployed.push((e.node.clone(), 4, *attempt))
                        }
                        _ => {}
                    }
                }
            });
            seen.lock().unwrap().push(s);
        });
        TableSinkSetup.build(world)
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
    }
}

#[test]
fn the_global_committer_commits_on_a_task_executor_and_is_redeployed_by_failovers() {
    let watched = Watched::default();
    let seeds = FAST_SEEDS.min(40);
    let mut r = Runner::new(Pipeline(LogSourceSetup::bounded(8, 2000), watched.clone()));
    r.seeds(seeds);
    r.run().assert_ok();
    let seen = watched.0.lock().unwrap();
    // Every seed converged (CONNSIM_SEED, CONNSIM_SEEDS and the determinism check change the count).
    assert!(seen.len() >= r.seed_list().len(), "{} seeds converged of {:?}", seen.len(), r.seed_list());
    let (mut redeployed, mut beside) = (0, 0);
    for s in seen.iter() {
        assert!(!s.commits.is_empty(), "a global commit on every seed: {s:?}");
        // Subtask 4: after the four readers and writers of a job of parallelism 4.
        for (node, subtask, attempt) in &s.commits {
            assert!(node.starts_with("taskexecutor-"), "committed on {node}, not on a task executor: {s:?}");
            assert_eq!(*subtask, 4, "{s:?}");
            assert!(
                s.deployed.iter().any(|d| (&d.0, d.2) == (node, *attempt)),
                "committed by a deployed attempt: {s:?}"
            );
        }
        // In subtask 0's slot: deployed where subtask 0's attempt of the same round went.
        for (node, _, attempt) in &s.deployed {
            if let Some((host, _)) = s.subtask_0.iter().find(|(_, a)| a == attempt) {
                assert_eq!(node, host, "attempt {attempt} not beside subtask 0: {s:?}");
                beside += 1;
            }
        }
        // Redeployed, and a later attempt committed.
        let first = s.deployed.iter().map(|d| d.2).min();
        redeployed += usize::from(s.commits.iter().any(|c| Some(c.2) > first));
    }
    assert!(redeployed > 0, "no redeployed global committer committed in {seeds} seeds");
    assert!(beside > 0, "no attempt of the global committer was compared with subtask 0's");
    println!("a redeployed global committer committed on {redeployed} of {seeds} seeds");
}
