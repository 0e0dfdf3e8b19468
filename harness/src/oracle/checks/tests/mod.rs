//! Every check on hand-built histories: each passes on a history that keeps its invariant
//! and fails, naming the evidence, on one that breaks it. The history builder is here; the
//! checks of records, of event time and of new jobs have a file each.

mod declared;
mod event_time;
mod left_behind;
mod new_jobs;
mod records;

use super::{run_all, RunEnd, RunFacts, Verdict, EVIDENCE_MAX};
use crate::api::DeliveryGuarantee;
use crate::cluster::JobStatus;
use crate::history::{job_checkpoint, Cause, Event, EventKind};
use crate::oracle::StartPosition;
use crate::record::{Record, RecordId, Seen};
use crate::systems::Entry;

/// The record with id `id` as the tests produce it.
fn rec(id: u64) -> Record {
    Record { id: RecordId(id), key: id, event_time_ms: id as i64, payload: format!("p{id}").into_bytes(), extras: None }
}

fn seen(id: u64) -> Seen {
    Seen::of(&rec(id))
}

/// A history under construction, and how the run ended.
struct H {
    events: Vec<Event>,
    end: RunEnd,
}

impl H {
    fn new() -> Self {
        Self { events: Vec::new(), end: RunEnd::new("out") }
    }
    fn at(&mut self, node: &str, kind: EventKind) -> &mut Self {
        let t_us = self.events.len() as u64 * 1000;
        self.events.push(Event { t_us, node: node.into(), kind });
        self
    }
    /// Records 1..=n produced into split "s", positions 0..n.
    fn produced(&mut self, n: u64) -> &mut Self {
        for id in 1..=n {
            let r = rec(id);
            let kind = EventKind::Produced {
                id: r.id,
                split: "s".into(),
                pos: id - 1,
                digest: r.digest(),
                event_time_ms: r.event_time_ms,
            };
            self.at("log", kind);
        }
        self
    }
    fn emitted(&mut self, attempt: u64, ids: &[u64]) -> &mut Self {
        self.at(
            "taskexecutor-0",
            EventKind::Emitted { subtask: 0, attempt, ids: ids.iter().map(|i| RecordId(*i)).collect() },
        )
    }
    fn barrier(&mut self, attempt: u64, checkpoint: u64) -> &mut Self {
        self.at(
            "taskexecutor-0",
            EventKind::Barrier { subtask: 0, attempt, checkpoint, splits: vec!["s".into()], positions: vec![Some(3)] },
        )
    }
    fn triggered(&mut self, checkpoint: u64) -> &mut Self {
        self.at("jobmaster", EventKind::CheckpointTriggered { checkpoint, pending: vec![] })
    }
    fn completed(&mut self, checkpoint: u64) -> &mut Self {
        self.at("jobmaster", EventKind::CheckpointCompleted { checkpoint })
    }
    fn change(&mut self, appeared: bool, records: Vec<Seen>, cause: Cause) -> &mut Self {
        let (output, part, garbage) = ("out".to_string(), "p".to_string(), vec![]);
        let cause = Box::new(cause);
        let kind = match appeared {
            true => EventKind::Appeared { output, part, records, garbage, cause },
            false => EventKind::Vanished { output, part, records, garbage, cause },
        };
        self.at("harness", kind)
    }
    fn appeared(&mut self, ids: &[u64]) -> &mut Self {
        let call = Some(100 + self.events.len() as u64);
        let cause = Cause::Request { node: "fs".into(), from: "taskexecutor-0".into(), kind: "fs.rename".into(), call };
        self.change(true, ids.iter().map(|i| seen(*i)).collect(), cause)
    }
    fn vanished(&mut self, ids: &[u64]) -> &mut Self {
        self.change(false, ids.iter().map(|i| seen(*i)).collect(), Cause::Crash { node: "fs".into() })
    }
    /// The final output: these records, in this order.
    fn visible(&mut self, ids: &[u64]) -> &mut Self {
        self.end.visible = Ok(ids.iter().map(|i| Entry::Record(seen(*i))).collect());
        self
    }
    fn guarantee(&mut self, g: DeliveryGuarantee) -> &mut Self {
        self.end.guarantee = g;
        self
    }
    fn facts(&self) -> RunFacts {
        RunFacts::new(self.events.clone(), self.end.clone())
    }
    fn verdict(&self, check: &str) -> Verdict {
        run_all(&self.facts()).into_iter().find(|v| v.check == check).expect("a check of that name")
    }
}

/// Records 1..=3, emitted, covered by checkpoint 1, then visible: every check passes.
fn clean() -> H {
    let mut h = H::new();
    h.produced(3)
        .emitted(1, &[1, 2, 3])
        .triggered(1)
        .barrier(1, 1)
        .completed(1)
        .appeared(&[1, 2, 3])
        .visible(&[1, 2, 3]);
    h
}

fn fails(v: Verdict, evidence: &str) {
    assert!(!v.passed, "{v:?}");
    let all = format!("{} {}", v.summary, v.evidence.join(" "));
    assert!(all.contains(evidence), "{evidence:?} not in the evidence: {v:?}");
}

#[test]
fn a_clean_history_passes_every_check() {
    for v in run_all(&clean().facts()) {
        assert!(v.passed, "{v:?}");
    }
}

#[test]
fn verdicts_count_every_violation_and_name_every_record_while_the_evidence_is_capped() {
    let mut h = H::new();
    h.produced(25).emitted(1, &(1..=25).collect::<Vec<_>>()).triggered(1).barrier(1, 1).completed(1);
    h.appeared(&(1..=5).collect::<Vec<_>>()).visible(&[1, 2, 3, 4, 5, 5, 4]);
    let lost = h.verdict("no-loss");
    assert_eq!((lost.violations, lost.evidence.len(), lost.unshown()), (20, EVIDENCE_MAX, 20 - EVIDENCE_MAX));
    assert_eq!(lost.ids, (6..=25).map(RecordId).collect::<Vec<_>>());
    let dups = h.verdict("no-duplicates");
    assert_eq!((dups.violations, dups.unshown()), (2, 0));
    assert_eq!(dups.ids, vec![RecordId(4), RecordId(5)]);
    let passed = clean().verdict("no-loss");
    assert_eq!((passed.violations, passed.ids.len()), (0, 0));
    let hang = {
        let mut h = clean();
        h.end.status = JobStatus::Running;
        h.verdict("liveness")
    };
    assert_eq!(hang.violations, 1, "a check without records counts one violation: {hang:?}");
}

#[test]
fn evidence_and_timeline_show_attempts_as_epoch_dot_n() {
    let mut h = clean();
    h.visible(&[1, 3]);
    h.events.iter_mut().for_each(|e| {
        if let EventKind::Emitted { attempt, .. } | EventKind::Barrier { attempt, .. } = &mut e.kind {
            *attempt = (2 << 32) | 3;
        }
    });
    fails(h.verdict("no-loss"), "emitted by subtask 0 attempt 2.3");
    let json = serde_json::to_string(&h.events[3].kind).unwrap();
    assert!(json.contains(r#""attempt":"2.3""#), "{json}");
    let back: EventKind = serde_json::from_str(&json).unwrap();
    assert_eq!(back, h.events[3].kind);
    let bin = bincode::serialize(&h.events[3].kind).unwrap();
    let number = ((2u64 << 32) | 3).to_le_bytes();
    assert!(bin.windows(8).any(|w| w == number), "the hashed binary form keeps the number");
}
