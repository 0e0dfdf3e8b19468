//! The gateway's promises, tested directly: per-link FIFO under random latency, and each
//! fault verb (drop, delay, lose-response, refuse, partition, heal) doing exactly what it says.

use connsim::history::History;
use connsim::history::{EventKind, FaultKind};
use connsim::net::{now, FaultRule, Gateway, Refusal, RpcError};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

fn sim<F: std::future::Future<Output = ()> + 'static>(seed: u64, f: impl FnOnce(Gateway) -> F) {
    let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
    let gateway = Gateway::new(ChaCha8Rng::seed_from_u64(seed), History::new(), (1, 20));
    rt.block_on(f(gateway));
}

/// Starts a node `name` that answers every `u64` request with the value + 1 and counts them.
fn echo_server(gw: &Gateway, name: &'static str, handled: Arc<AtomicU64>) {
    let gw = gw.clone();
    madsim::runtime::Handle::current().create_node().name(name).build().spawn(async move {
        let (_ep, mut inbox) = gw.bind(name);
        while let Some(msg) = inbox.recv().await {
            let v: u64 = msg.decode().unwrap();
            handled.fetch_add(1, Ordering::Relaxed);
            if let Some(r) = msg.replier {
                r.reply(&(v + 1));
            }
        }
    });
}

#[test]
fn messages_on_one_link_arrive_in_send_order_despite_random_latency() {
    for seed in 1..=20 {
        sim(seed, |gw| async move {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let g = gw.clone();
            madsim::runtime::Handle::current().create_node().name("b").build().spawn(async move {
                let (_ep, mut inbox) = g.bind("b");
                while let Some(msg) = inbox.recv().await {
                    tx.send(msg.decode::<u64>().unwrap()).unwrap();
                }
            });
            madsim::time::sleep(Duration::from_millis(1)).await;
            let (a, _inbox) = gw.bind("a");
            for i in 0..200u64 {
                a.send("b", "seq", &i);
                if i % 7 == 0 {
                    madsim::time::sleep(Duration::from_millis(1)).await;
                }
            }
            for i in 0..200u64 {
                assert_eq!(rx.recv().await, Some(i), "seed {seed}");
            }
        });
    }
}

#[test]
fn a_partition_drops_everything_until_healed() {
    sim(1, |gw| async move {
        let handled = Arc::new(AtomicU64::new(0));
        echo_server(&gw, "server", handled.clone());
        madsim::time::sleep(Duration::from_millis(1)).await; // let the server bind
        let (client, _inbox) = gw.bind("client");
        gw.add_rule(FaultRule::partition("client", "server"));
        let r = client.call::<_, u64>("server", "inc", &1u64, Duration::from_millis(100)).await;
        assert!(r.is_err());
        assert_eq!(handled.load(Ordering::Relaxed), 0, "a dropped request never reaches the server");
        gw.heal();
        let r = client.call::<_, u64>("server", "inc", &1u64, Duration::from_millis(100)).await;
        assert_eq!(r, Ok(2));
    });
}

#[test]
fn a_lost_response_means_the_request_took_effect_but_the_caller_times_out() {
    sim(2, |gw| async move {
        let handled = Arc::new(AtomicU64::new(0));
        echo_server(&gw, "server", handled.clone());
        madsim::time::sleep(Duration::from_millis(1)).await; // let the server bind
        let (client, _inbox) = gw.bind("client");
        gw.add_rule(FaultRule::lose_response(1.0).kind("inc").from("client").to("server"));
        let r = client.call::<_, u64>("server", "inc", &1u64, Duration::from_millis(100)).await;
        assert!(r.is_err());
        assert_eq!(handled.load(Ordering::Relaxed), 1, "the request was handled");
        // Other kinds are not affected.
        assert_eq!(client.call::<_, u64>("server", "other", &5u64, Duration::from_millis(100)).await, Ok(6));
    });
}

#[test]
fn a_delay_rule_adds_latency_and_a_time_window_bounds_it() {
    sim(3, |gw| async move {
        let handled = Arc::new(AtomicU64::new(0));
        echo_server(&gw, "server", handled.clone());
        madsim::time::sleep(Duration::from_millis(1)).await; // let the server bind
        let (client, _inbox) = gw.bind("client");
        gw.add_rule(FaultRule::delay(300).to("server").window(0, 1_000));
        let t0 = now();
        assert_eq!(client.call::<_, u64>("server", "inc", &1u64, Duration::from_secs(2)).await, Ok(2));
        assert!(now() - t0 >= Duration::from_millis(300));
        madsim::time::sleep(Duration::from_millis(1_000)).await;
        let t1 = now();
        assert_eq!(client.call::<_, u64>("server", "inc", &1u64, Duration::from_secs(2)).await, Ok(2));
        assert!(now() - t1 < Duration::from_millis(100), "outside its window the rule does nothing");
    });
}

#[test]
fn a_drop_rule_drops_about_its_probability() {
    sim(4, |gw| async move {
        let handled = Arc::new(AtomicU64::new(0));
        echo_server(&gw, "server", handled.clone());
        madsim::time::sleep(Duration::from_millis(1)).await; // let the server bind
        let (client, _inbox) = gw.bind("client");
        gw.add_rule(FaultRule::drop(0.25).from("client"));
        for i in 0..400u64 {
            client.send("server", "inc", &i);
        }
        madsim::time::sleep(Duration::from_millis(100)).await;
        let n = handled.load(Ordering::Relaxed);
        assert!((250..=350).contains(&n), "{n} of 400 arrived with 25% drops");
    });
}

#[test]
fn a_refused_request_never_reaches_the_callee_and_the_caller_hears_so_at_once() {
    let rt = madsim::runtime::Runtime::with_seed_and_config(5, madsim::Config::default());
    let history = History::new();
    let gw = Gateway::new(ChaCha8Rng::seed_from_u64(5), history.clone(), (1, 20));
    rt.block_on(async move {
        let handled = Arc::new(AtomicU64::new(0));
        echo_server(&gw, "server", handled.clone());
        madsim::time::sleep(Duration::from_millis(1)).await; // let the server bind
        let (client, _inbox) = gw.bind("client");
        let rule = gw.add_rule(FaultRule::refuse(1.0, Refusal::Throttled).kind("inc").to("server"));
        let t0 = now();
        let r = client.call::<_, u64>("server", "inc", &1u64, Duration::from_secs(5)).await;
        assert_eq!(r, Err(RpcError::Refused { to: "server".into(), kind: "inc".into(), refusal: Refusal::Throttled }));
        assert!(
            now() - t0 < Duration::from_millis(100),
            "an error reply comes back like a response, not after the timeout"
        );
        assert_eq!(handled.load(Ordering::Relaxed), 0, "the callee never saw the request");
        // Other kinds pass; one-way messages are not refused.
        assert_eq!(client.call::<_, u64>("server", "other", &5u64, Duration::from_millis(100)).await, Ok(6));
        gw.remove_rule(rule);
        assert_eq!(client.call::<_, u64>("server", "inc", &1u64, Duration::from_millis(100)).await, Ok(2));
        let events = history.events();
        assert!(events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Fault { fault: FaultKind::Refuse(why), .. } if why == "throttled")));
        assert!(
            !events.iter().any(|e| matches!(&e.kind, EventKind::CallTimedOut { .. })),
            "a refused call was answered: it did not time out"
        );
    });
}

#[test]
fn a_callee_that_is_down_refuses_nothing_the_call_times_out() {
    sim(6, |gw| async move {
        let (client, _inbox) = gw.bind("client");
        // No node named "server" is up: a refuse rule aimed at it has no one to answer.
        gw.add_rule(FaultRule::refuse(1.0, Refusal::Unavailable).to("server"));
        let t0 = now();
        let r = client.call::<_, u64>("server", "inc", &1u64, Duration::from_millis(100)).await;
        assert!(matches!(r, Err(RpcError::Timeout { .. })), "{r:?}");
        assert!(now() - t0 >= Duration::from_millis(100), "no answer came back early");
    });
}

/// Starts a node `b` that forwards the kind of every message it receives, in arrival order.
fn recorder(gw: &Gateway) -> tokio::sync::mpsc::UnboundedReceiver<(String, Duration)> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let g = gw.clone();
    madsim::runtime::Handle::current().create_node().name("b").build().spawn(async move {
        let (_ep, mut inbox) = g.bind("b");
        while let Some(msg) = inbox.recv().await {
            tx.send((msg.kind.clone(), now())).unwrap();
        }
    });
    rx
}

/// A held message lands right behind its sender's next message of the releasing kind, not
/// before, even when other kinds and other senders' messages of that kind came first.
#[test]
fn a_held_message_lands_right_after_its_senders_next_releasing_message() {
    for seed in 1..=10 {
        let history = History::new();
        held(seed, history.clone(), |gw| async move {
            let mut rx = recorder(&gw);
            madsim::time::sleep(Duration::from_millis(1)).await;
            gw.add_rule(FaultRule::hold("read", 5_000).kind("commit").to("b"));
            let (a, _ai) = gw.bind("a");
            let (c, _ci) = gw.bind("c");
            a.send("b", "commit", &1u64);
            madsim::time::sleep(Duration::from_millis(30)).await;
            a.send("b", "write", &2u64);
            c.send("b", "read", &3u64); // another sender's read releases nothing
            madsim::time::sleep(Duration::from_millis(30)).await;
            a.send("b", "read", &4u64);
            a.send("b", "write", &5u64);
            let mut kinds = Vec::new();
            for _ in 0..5 {
                kinds.push(rx.recv().await.unwrap());
            }
            let order: Vec<&str> = kinds.iter().map(|(k, _)| k.as_str()).collect();
            let read = order.iter().rposition(|k| *k == "read").unwrap();
            assert_eq!(order[read + 1], "commit", "seed {seed}: {order:?}");
            assert!(kinds[read + 1].1 < Duration::from_millis(1_000), "seed {seed}: released, not at its latest");
        });
        let marks = faults(&history);
        assert!(marks.contains(&FaultKind::Hold) && marks.contains(&FaultKind::AppliedLate), "seed {seed}: {marks:?}");
    }
}

/// Nothing releases it: it lands at its latest time, and is recorded held but not applied late.
#[test]
fn a_held_message_nothing_releases_lands_at_its_latest_time() {
    let history = History::new();
    held(3, history.clone(), |gw| async move {
        let mut rx = recorder(&gw);
        madsim::time::sleep(Duration::from_millis(1)).await;
        gw.add_rule(FaultRule::hold("read", 500).kind("commit").to("b"));
        let (a, _ai) = gw.bind("a");
        let sent = now();
        a.send("b", "commit", &1u64);
        let (kind, at) = rx.recv().await.unwrap();
        assert_eq!(kind, "commit");
        assert!(at >= sent + Duration::from_millis(500), "{at:?}");
    });
    let marks = faults(&history);
    assert!(marks.contains(&FaultKind::Hold) && !marks.contains(&FaultKind::AppliedLate), "{marks:?}");
}

/// Runs `f` on a gateway recording into `history`.
fn held<F: std::future::Future<Output = ()> + 'static>(seed: u64, history: History, f: impl FnOnce(Gateway) -> F) {
    let rt = madsim::runtime::Runtime::with_seed_and_config(seed, madsim::Config::default());
    let gateway = Gateway::new(ChaCha8Rng::seed_from_u64(seed), history, (1, 20));
    rt.block_on(f(gateway));
}

/// The faults `history` recorded.
fn faults(history: &History) -> Vec<FaultKind> {
    history
        .events()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::Fault { fault, .. } => Some(fault),
            _ => None,
        })
        .collect()
}
