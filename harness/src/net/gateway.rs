//! The shared network between simulated nodes: latency, per-link FIFO and fault rules.

use super::endpoint::{Endpoint, Inbox, ObserveHook};
use super::faults::{FaultAction, FaultRule, RuleId};
use super::mailbox::{Envelope, Mailbox, Tag};
use crate::history::{EventKind, FaultKind, History};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

struct State {
    mailboxes: BTreeMap<String, Arc<Mailbox>>,
    /// Delivery time of the last message per link, by sender then receiver: later messages
    /// never overtake it. (Two levels, so a message looks its link up without building a key.)
    link_last: BTreeMap<String, BTreeMap<String, Duration>>,
    rules: BTreeMap<RuleId, FaultRule>,
    next_rule: u64,
    rng: ChaCha8Rng,
    latency_ms: (u64, u64),
    seq: u64,
    next_call: u64,
    /// External systems' addresses (bound with [`Gateway::bind_observed`]).
    systems: std::collections::BTreeSet<String>,
    /// Per subtask, its newest attempt that has sent through the gateway.
    newest: BTreeMap<usize, u64>,
    /// Replaced attempts already recorded reaching a system, with the system.
    zombies_seen: std::collections::BTreeSet<(usize, u64, String)>,
    /// Messages a hold rule keeps until their sender's next message of a kind.
    held: Vec<Held>,
}

/// A message a [`FaultAction::Hold`] rule keeps back, queued at its latest delivery time.
struct Held {
    /// Its sender: the subtask whose code sent it, or else the node.
    sender: Sender,
    from: String,
    to: String,
    kind: String,
    call: Option<u64>,
    /// The kind prefix of the sender's message that releases it.
    until: String,
    /// Its place in the receiver's queue.
    seq: u64,
    /// When it lands if nothing releases it.
    deadline: Duration,
}

/// Who sent a message, for a hold rule: a subtask's attempts are one sender (a new attempt
/// runs the same code, maybe on another node); code outside a subtask is its node.
#[derive(PartialEq)]
enum Sender {
    Subtask(usize),
    Node(String),
}

impl Sender {
    fn of(env: &Envelope) -> Sender {
        match env.origin {
            Some((subtask, _)) => Sender::Subtask(subtask),
            None => Sender::Node(env.from.clone()),
        }
    }
}

/// The network all nodes of one run share. Cheap to clone.
#[derive(Clone)]
pub struct Gateway {
    state: Arc<Mutex<State>>,
    history: History,
}

impl Gateway {
    /// A network with per-message latency drawn uniformly from `latency_ms` (inclusive).
    pub fn new(rng: ChaCha8Rng, history: History, latency_ms: (u64, u64)) -> Self {
        let state = State {
            mailboxes: BTreeMap::new(),
            link_last: BTreeMap::new(),
            rules: BTreeMap::new(),
            next_rule: 0,
            rng,
            latency_ms,
            seq: 0,
            next_call: 0,
            systems: Default::default(),
            newest: BTreeMap::new(),
            zombies_seen: Default::default(),
            held: Vec::new(),
        };
        Self { state: Arc::new(Mutex::new(state)), history }
    }

    /// Binds `addr` to a fresh mailbox and starts its dispatcher on the *current* node.
    ///
    /// Call it from the node that owns `addr` (e.g. in its init task): when that node is
    /// crashed the dispatcher dies with it. Any earlier incarnation's queue is discarded.
    pub fn bind(&self, addr: &str) -> (Endpoint, Inbox) {
        let mailbox = Arc::new(Mailbox::default());
        let mut s = self.state.lock().unwrap();
        s.mailboxes.insert(addr.to_string(), mailbox.clone());
        // A new incarnation opens new connections: its messages do not queue behind what its
        // previous incarnation sent (still on its way), nor behind what was sent to it.
        s.link_last.remove(addr);
        for to in s.link_last.values_mut() {
            to.remove(addr);
        }
        drop(s);
        Endpoint::start(addr.to_string(), self.clone(), mailbox)
    }

    /// Like [`Gateway::bind`], for an external system's node: `observe` runs each time the
    /// inbox is asked for the next message after one was received, that is, right after the
    /// system handled it (the harness reads the outputs then).
    pub(crate) fn bind_observed(&self, addr: &str, observe: ObserveHook) -> (Endpoint, Inbox) {
        self.state.lock().unwrap().systems.insert(addr.to_string());
        let (endpoint, mut inbox) = self.bind(addr);
        inbox.observe = Some(observe);
        (endpoint, inbox)
    }

    /// The run's history.
    pub(crate) fn history(&self) -> &History {
        &self.history
    }

    /// Marks `addr` as down: queued and future messages to it are lost until it binds again.
    /// Requests it sent that are still on their way land without their sender; each is
    /// recorded ([`EventKind::Orphaned`]).
    pub fn node_down(&self, addr: &str) {
        let mut s = self.state.lock().unwrap();
        s.mailboxes.remove(addr);
        let orphans: Vec<(String, String, u64)> = s
            .mailboxes
            .iter()
            .flat_map(|(to, m)| m.requests_from(addr).into_iter().map(move |(kind, call)| (to.clone(), kind, call)))
            .collect();
        drop(s);
        for (to, kind, call) in orphans {
            self.history.record("gateway", EventKind::Orphaned { from: addr.to_string(), to, kind, call });
        }
    }

    /// Installs a fault rule.
    pub fn add_rule(&self, rule: FaultRule) -> RuleId {
        self.history.record("gateway", EventKind::FaultRule { description: format!("add {rule}") });
        let mut s = self.state.lock().unwrap();
        let id = RuleId(s.next_rule);
        s.next_rule += 1;
        s.rules.insert(id, rule);
        id
    }

    /// Removes one rule.
    pub fn remove_rule(&self, id: RuleId) {
        if let Some(rule) = self.state.lock().unwrap().rules.remove(&id) {
            self.history.record("gateway", EventKind::FaultRule { description: format!("remove {rule}") });
        }
    }

    /// Removes every fault rule.
    pub fn heal(&self) {
        let had = std::mem::take(&mut self.state.lock().unwrap().rules);
        if !had.is_empty() {
            self.history.record("gateway", EventKind::FaultRule { description: "heal".into() });
        }
    }

    /// Subtask `subtask`'s attempt `attempt` starts sending: an older attempt of it that
    /// reaches a system afterwards is a replaced one (see [`Gateway::reached`]).
    pub(crate) fn attempt_started(&self, subtask: usize, attempt: u64) {
        let mut s = self.state.lock().unwrap();
        let newest = s.newest.entry(subtask).or_default();
        *newest = (*newest).max(attempt);
    }

    /// A message the connector code of attempt `origin` sent after a newer attempt of its
    /// subtask had started (a stale envelope) reached `to` (`refused`:
    /// the gateway refused it in `to`'s name). If `to` is an external system, the history
    /// records it, once per attempt and system: a zombie's request acting on (or refused by)
    /// the system, what fencing exists for.
    pub(crate) fn reached(&self, origin: (usize, u64), to: &str, kind: &str, refused: bool) {
        let (subtask, attempt) = origin;
        let mut s = self.state.lock().unwrap();
        let Some(&newest) = s.newest.get(&subtask) else { return };
        if !s.systems.contains(to) || !s.zombies_seen.insert((subtask, attempt, to.to_string())) {
            return;
        }
        drop(s);
        let event =
            EventKind::ZombieRequest { subtask, attempt, newest, to: to.to_string(), kind: kind.to_string(), refused };
        self.history.record(to, event);
    }

    pub(crate) fn next_call_id(&self) -> u64 {
        let mut s = self.state.lock().unwrap();
        s.next_call += 1;
        s.next_call
    }

    /// Routes one envelope: applies fault rules and latency, then queues it at the receiver.
    pub(crate) fn route(&self, mut env: Envelope) {
        let now = super::now();
        let now_ms = now.as_millis() as u64;
        let mut s = self.state.lock().unwrap();
        // A zombie's envelope: a newer attempt of its sender had started.
        if let Some((subtask, attempt)) = env.origin {
            env.stale = s.newest.get(&subtask).is_some_and(|&n| n > attempt);
        }
        let mut extra = Duration::ZERO;
        let mut straggle = None;
        let mut hold = None;
        let mut fault = None;
        let mut refused = None;
        let State { rules, rng, .. } = &mut *s;
        for rule in rules.values() {
            let (from, to) = match env.tag {
                // Lose-response rules name the request's direction (caller -> callee).
                Tag::Response(_) | Tag::Refused(_) => (&env.to, &env.from),
                _ => (&env.from, &env.to),
            };
            if !rule.matches(from, to, &env.kind, now_ms) {
                continue;
            }
            match (&rule.action, env.tag) {
                (FaultAction::Drop { probability }, _) if rng.gen_bool(*probability) => {
                    fault = Some(if rule.is_partition() { FaultKind::Partition } else { FaultKind::Drop });
                }
                (FaultAction::LoseResponse { probability }, Tag::Response(_)) if rng.gen_bool(*probability) => {
                    fault = Some(FaultKind::LoseResponse);
                }
                (FaultAction::Delay { delay_ms }, _) => extra += Duration::from_millis(*delay_ms),
                (FaultAction::Straggle { delay_ms }, _) => {
                    straggle = Some(straggle.unwrap_or(Duration::ZERO) + Duration::from_millis(*delay_ms))
                }
                (FaultAction::Hold { until, max_ms }, Tag::Request(_) | Tag::OneWay) if hold.is_none() => {
                    hold = Some((until.clone(), Duration::from_millis(*max_ms)));
                }
                (FaultAction::Refuse { probability, refusal }, Tag::Request(_))
                    if refused.is_none() && rng.gen_bool(*probability) =>
                {
                    refused = Some(*refusal);
                }
                _ => {}
            }
        }
        let call = match env.tag {
            Tag::Request(id) | Tag::Response(id) | Tag::Refused(id) => Some(id),
            Tag::OneWay => None,
        };
        if let Some(fault) = fault {
            drop(s);
            self.history
                .record("gateway", EventKind::Fault { fault, from: env.from, to: env.to, kind: env.kind, call });
            return;
        }
        // A callee that is down answers nothing, not even an error.
        let refused = refused.filter(|_| s.mailboxes.contains_key(&env.to));
        if let (Some(refusal), Tag::Request(id)) = (refused, env.tag) {
            // The callee answers with an error without acting on the request; the answer
            // travels back like a response (latency, FIFO, lose-response rules).
            drop(s);
            if let (Some(origin), true) = (env.origin, env.stale) {
                self.reached(origin, &env.to, &env.kind, true);
            }
            let fault = FaultKind::Refuse(refusal.to_string());
            let (from, to, kind) = (env.from.clone(), env.to.clone(), env.kind.clone());
            self.history.record("gateway", EventKind::Fault { fault, from, to, kind, call });
            let bytes = bincode::serialize(&refusal).expect("a refusal serializes");
            self.route(Envelope {
                from: env.to,
                to: env.from,
                kind: env.kind,
                tag: Tag::Refused(id),
                bytes,
                origin: None,
                stale: false,
            });
            return;
        }
        let Some(mailbox) = s.mailboxes.get(&env.to).cloned() else {
            return; // the receiver is down: the message is lost, as on a broken connection
        };
        let (lo, hi) = s.latency_ms;
        let latency = Duration::from_millis(s.rng.gen_range(lo..=hi)) + extra;
        if let Some((until, most)) = hold {
            // Queued at its latest time, off the link's order; the sender's next message of
            // kind `until` to the same receiver moves it to right behind that one.
            let deadline = now + latency + most;
            s.seq += 1;
            let seq = s.seq;
            let (from, to, kind) = (env.from.clone(), env.to.clone(), env.kind.clone());
            let sender = Sender::of(&env);
            s.held.push(Held {
                sender,
                from: from.clone(),
                to: to.clone(),
                kind: kind.clone(),
                call,
                until,
                seq,
                deadline,
            });
            drop(s);
            self.history.record("gateway", EventKind::Fault { fault: FaultKind::Hold, from, to, kind, call });
            mailbox.push(deadline, seq, env);
            return;
        }
        if let Some(late) = straggle {
            // Off the link's order: as if on another connection, it neither waits for the
            // link's earlier messages nor holds up its later ones.
            let at = now + latency + late;
            s.seq += 1;
            let seq = s.seq;
            let released = release(&mut s, &mailbox, &env, at, now);
            drop(s);
            let (from, to, kind) = (env.from.clone(), env.to.clone(), env.kind.clone());
            self.history.record("gateway", EventKind::Fault { fault: FaultKind::Straggle, from, to, kind, call });
            mailbox.push(at, seq, env);
            self.record_released(released);
            return;
        }
        let at = match s.link_last.get_mut(&env.from).and_then(|to| to.get_mut(&env.to)) {
            Some(last) => {
                *last = (now + latency).max(*last);
                *last
            }
            None => {
                let at = now + latency;
                s.link_last.entry(env.from.clone()).or_default().insert(env.to.clone(), at);
                at
            }
        };
        s.seq += 1;
        let seq = s.seq;
        let released = release(&mut s, &mailbox, &env, at, now);
        drop(s);
        if !extra.is_zero() {
            let (from, to, kind) = (env.from.clone(), env.to.clone(), env.kind.clone());
            self.history.record("gateway", EventKind::Fault { fault: FaultKind::Delay, from, to, kind, call });
        }
        mailbox.push(at, seq, env);
        self.record_released(released);
    }

    /// Records each held message a release moved behind its sender's message.
    fn record_released(&self, released: Vec<Held>) {
        for h in released {
            let event =
                EventKind::Fault { fault: FaultKind::AppliedLate, from: h.from, to: h.to, kind: h.kind, call: h.call };
            self.history.record("gateway", event);
        }
    }
}

/// Moves the messages held for `env` (same sender and receiver, a kind starting with their
/// `until`) to land right after it, at `at`; drops the entries of messages past their latest
/// time. Returns the moved ones.
fn release(s: &mut State, mailbox: &Mailbox, env: &Envelope, at: Duration, now: Duration) -> Vec<Held> {
    if s.held.is_empty() {
        return Vec::new();
    }
    s.held.retain(|h| h.deadline > now);
    let sender = Sender::of(env);
    let (mine, rest): (Vec<Held>, Vec<Held>) = std::mem::take(&mut s.held)
        .into_iter()
        .partition(|h| h.sender == sender && h.to == env.to && env.kind.starts_with(&h.until));
    s.held = rest;
    let mut moved = Vec::new();
    for h in mine {
        // After `env`'s own place in the queue (it is pushed with the current seq).
        s.seq += 1;
        if mailbox.reschedule(h.seq, at, s.seq) {
            moved.push(h);
        }
    }
    moved
}
