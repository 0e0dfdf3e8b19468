//! Requests of replaced attempts: the gateway records one that reaches an external system
//! only if it was sent after a newer attempt of its subtask had started.

use super::{Endpoint, FaultRule, Gateway, Refusal};
use crate::history::{EventKind, History};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use std::time::Duration;

/// Runs `f` against a gateway with a system "log" (served by a node that answers every
/// request) and a plain node "taskexecutor-9"; the zombie requests recorded.
fn zombies<F: std::future::Future<Output = ()> + 'static>(f: impl FnOnce(Gateway) -> F) -> Vec<(u64, String, bool)> {
    let rt = madsim::runtime::Runtime::with_seed_and_config(1, madsim::Config::default());
    let history = History::new();
    let gateway = Gateway::new(ChaCha8Rng::seed_from_u64(1), history.clone(), (1, 2));
    rt.block_on(async move {
        for (name, observed) in [("log", true), ("taskexecutor-9", false)] {
            let gw = gateway.clone();
            madsim::runtime::Handle::current().create_node().name(name).build().spawn(async move {
                let (_ep, mut inbox) = if observed { gw.bind_observed(name, Arc::new(|_| {})) } else { gw.bind(name) };
                while let Some(msg) = inbox.recv().await {
                    if let Some(r) = msg.replier {
                        r.reply(&0u64);
                    }
                }
            });
        }
        madsim::time::sleep(Duration::from_millis(1)).await;
        f(gateway).await;
        madsim::time::sleep(Duration::from_millis(50)).await;
    });
    history
        .events()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::ZombieRequest { attempt, to, refused, .. } => Some((attempt, to, refused)),
            _ => None,
        })
        .collect()
}

async fn call(ep: &Endpoint, to: &str) {
    let _ = ep.call::<u64, u64>(to, "log.produce", &1, Duration::from_millis(20)).await;
}

#[test]
fn a_request_sent_before_the_replacement_started_is_no_zombie_request() {
    let seen = zombies(|gw| async move {
        let (te, _inbox) = gw.bind("taskexecutor-0");
        let first = te.for_attempt(0, 1);
        // On its way (1 to 2 ms of latency) when attempt 2 starts: sent by the current attempt.
        first.send("log", "log.produce", &1u64);
        te.for_attempt(0, 2);
        // Another subtask's attempt 1 was never replaced.
        call(&te.for_attempt(1, 1), "log").await;
    });
    assert_eq!(seen, Vec::new());
}

#[test]
fn a_request_a_replaced_attempt_sends_is_recorded_once_per_system_served_or_refused() {
    let seen = zombies(|gw| async move {
        let (te, _inbox) = gw.bind("taskexecutor-0");
        let first = te.for_attempt(0, 1);
        te.for_attempt(0, 2);
        call(&first, "log").await;
        call(&first, "log").await;
        // A task executor is no external system.
        call(&first, "taskexecutor-9").await;
        // Attempt 2 replaced too, and refused by the system in its name.
        let second = te.for_attempt(0, 2);
        te.for_attempt(0, 3);
        gw.add_rule(FaultRule::refuse(1.0, Refusal::Unavailable));
        call(&second, "log").await;
    });
    assert_eq!(seen, vec![(1, "log".to_string(), false), (2, "log".to_string(), true)]);
}
