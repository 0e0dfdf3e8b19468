//! The log's serve loop: requests of both families, and the broker's timers between them.
//!
//! A broker's timers run whether or not anyone calls: a transaction that outlives its
//! timeout is aborted at its deadline (Kafka's coordinator checks every
//! `transaction.abort.timed.out.transaction.cleanup.interval.ms`; here, at the deadline
//! itself), and followers copy entries after [`super::REPLICATION_LAG_MS`]. The loop sleeps
//! until the next timer when no request comes first, and the harness reads the outputs after
//! each timer as after each request.

use super::group::{GroupRequest, GroupResponse, Replies};
use super::kafka::{KafkaRequest, KafkaResponse};
use super::{LogRequest, PartitionedLog, State};
use crate::history::EventKind;
use crate::net::{Inbox, Replier};
use crate::systems::Caller;
use std::time::Duration;

impl PartitionedLog {
    /// Serves `inbox` until the node goes down, running the broker's timers in between.
    pub(super) async fn serve_loop(self, mut inbox: Inbox) {
        // Timers run at most once per virtual millisecond: a timer that did nothing at its
        // deadline does not spin the loop.
        let mut ran_at = None;
        loop {
            let due = self.state.lock().unwrap().next_due();
            let now_ms = crate::net::now().as_millis() as u64;
            let msg = match due {
                Some(at) if at <= now_ms && ran_at != Some(now_ms) => {
                    ran_at = Some(now_ms);
                    self.timers(now_ms);
                    inbox.observe_internal("log.timer");
                    continue;
                }
                Some(at) if at > now_ms => tokio::select! {
                    biased;
                    msg = inbox.recv() => msg,
                    _ = madsim::time::sleep(Duration::from_millis(at - now_ms)) => continue,
                },
                _ => inbox.recv().await,
            };
            let Some(msg) = msg else { return };
            let caller = Caller::of(&msg);
            if msg.kind.starts_with("kafka.") {
                let Ok(req) = msg.decode::<KafkaRequest>() else { continue };
                if let KafkaRequest::Group(req) = req {
                    self.handle_group(&caller, req, msg.replier);
                    continue;
                }
                let resp = self.handle_kafka_request(&caller, req);
                if let Some(replier) = msg.replier {
                    replier.reply(&resp);
                }
            } else {
                let Ok(req) = msg.decode::<LogRequest>() else { continue };
                self.handle_and_reply(&caller, req, msg.replier);
            }
        }
    }

    /// Runs the timers due by `now_ms`, recording what they did.
    fn timers(&self, now_ms: u64) {
        let mut s = self.state.lock().unwrap();
        let released = self.run_timers(&mut s, now_ms);
        drop(s);
        send(released);
    }

    /// Serves a group coordinator request after the timers due: answered now, or parked
    /// until the group moves on; the answers it releases go out once the log is unlocked.
    fn handle_group(&self, caller: &Caller, req: GroupRequest, replier: Option<Replier>) {
        let mut s = self.state.lock().unwrap();
        let now_ms = crate::net::now().as_millis() as u64;
        let mut out = self.run_timers(&mut s, now_ms);
        let mut replier = replier;
        let now = s.kafka.members.handle(now_ms, &caller.node, req, &mut replier, &mut out);
        if let Some(KafkaResponse::Group(GroupResponse::Deleted(results))) = &now {
            // A deleted group's committed offsets go with it.
            let gone: Vec<&String> = results.iter().filter(|(_, e)| e.is_none()).map(|(n, _)| n).collect();
            s.kafka.groups.retain(|(g, _, _), _| !gone.contains(&g));
        }
        drop(s);
        if let (Some(resp), Some(replier)) = (now, replier) {
            out.push((replier, resp));
        }
        send(out);
    }

    fn run_timers(&self, s: &mut State, now_ms: u64) -> Replies {
        let expired = s.expire(now_ms).into_iter().map(|t| (t.id, t.epoch));
        let expired: Vec<_> = expired.collect();
        let State { kafka, topics, txn_timeout_ms, .. } = s;
        let kafka_expired = kafka.expire(topics, now_ms, *txn_timeout_ms);
        if !kafka_expired.is_empty() {
            s.changes += 1;
        }
        for (id, epoch) in expired.into_iter().chain(kafka_expired) {
            let event = EventKind::Fault {
                fault: crate::history::FaultKind::TxnTimeout,
                from: self.name.clone(),
                to: id,
                kind: format!("epoch {epoch}"),
                call: None,
            };
            self.history.record(&self.name, event);
        }
        s.retain(now_ms);
        s.replicate(now_ms);
        let mut released = Replies::new();
        for (group, member) in s.kafka.members.expire(now_ms, &mut released) {
            let event = EventKind::Fault {
                fault: crate::history::FaultKind::SessionExpired,
                from: self.name.clone(),
                to: member,
                kind: format!("group {group}"),
                call: None,
            };
            self.history.record(&self.name, event);
        }
        released
    }

    /// Serves one [`LogRequest`] after the timers due, and answers it if the caller waits.
    fn handle_and_reply(&self, caller: &Caller, req: LogRequest, replier: Option<Replier>) {
        let mut s = self.state.lock().unwrap();
        let now_ms = crate::net::now().as_millis() as u64;
        let released = self.run_timers(&mut s, now_ms);
        if !released.is_empty() {
            drop(s);
            send(released);
            s = self.state.lock().unwrap();
        }
        if let Some(replier) = replier {
            // A fetch is written from the entries themselves, while the log is locked.
            if let Some(bytes) = super::fetch::borrowed(&s, &req).map(|f| crate::net::encode(&f)) {
                drop(s);
                return replier.reply_encoded(bytes);
            }
            let resp = self.handle_log(&mut s, caller, now_ms, req);
            drop(s);
            return replier.reply(&resp);
        }
        self.handle_log(&mut s, caller, now_ms, req);
    }

    /// Serves one [`KafkaRequest`] after the timers due.
    fn handle_kafka_request(&self, caller: &Caller, req: KafkaRequest) -> super::KafkaResponse {
        let mut s = self.state.lock().unwrap();
        let now_ms = crate::net::now().as_millis() as u64;
        let released = self.run_timers(&mut s, now_ms);
        let resp = self.handle_kafka(&mut s, caller, now_ms, req);
        drop(s);
        send(released);
        resp
    }
}

/// Routes answers released by the group coordinator (the log is unlocked).
fn send(replies: Replies) {
    for (replier, resp) in replies {
        replier.reply(&resp);
    }
}
