//! Every check on hand-built histories: each passes on a history that keeps its invariant
//! and fails, naming the evidence, on one that breaks it.

use super::{run_all, RunEnd, RunFacts, Verdict, EVIDENCE_MAX};
use crate::api::DeliveryGuarantee;
use crate::cluster::JobStatus;
use crate::history::{job_checkpoint, Cause, Event, EventKind};
use crate::record::{Record, RecordId, Seen};
use crate::run::StartPosition;
use crate::systems::Entry;

/// The record with id `id` as the tests produce it.
fn rec(id: u64) -> Record {
    Record { id: RecordId(id), key: id, event_time_ms: id as i64, payload: format!("p{id}").into_bytes() }
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
fn no_loss_fails_on_a_missing_expected_record_and_ignores_records_before_the_start() {
    let mut h = clean();
    h.visible(&[1, 3]);
    fails(h.verdict("no-loss"), "r2 (split s pos 1) lost");
    fails(h.verdict("no-loss"), "split last seen: in reader 0 attempt 0.1 at position 3 at checkpoint 1");
    h.end.starts.splits.insert("s".into(), StartPosition::Offset(2));
    h.visible(&[3]);
    assert!(h.verdict("no-loss").passed, "records 1 and 2 lie before the start");
}

#[test]
fn no_duplicates_fails_on_a_record_visible_twice_when_exactly_once_or_idempotent() {
    let mut h = clean();
    h.appeared(&[2]).visible(&[1, 2, 3, 2]);
    fails(h.verdict("no-duplicates"), "r2 (split s pos 1) visible 2 times");
    h.guarantee(DeliveryGuarantee::Idempotent);
    fails(h.verdict("no-duplicates"), "visible 2 times");
}

#[test]
fn at_least_once_duplicates_pass_only_where_a_restore_or_a_lost_response_explains_them() {
    let mut h = clean();
    h.guarantee(DeliveryGuarantee::AtLeastOnce).appeared(&[2]).visible(&[1, 2, 3, 2]);
    fails(h.verdict("no-duplicates"), "emitted 1 times, with 0 restores of a checkpoint covering it");
    // A failover of the record's subtask that restores a checkpoint covering it explains one
    // more copy (its writer may resend what its state held)...
    let failover = |subtasks: Vec<usize>, checkpoint| EventKind::Failover {
        strategy: "region".into(),
        subtasks,
        checkpoint,
        cause: "test".into(),
    };
    let mut restored = clean();
    restored.guarantee(DeliveryGuarantee::AtLeastOnce);
    restored.at("jobmaster", failover(vec![0], 1)).appeared(&[2]).visible(&[1, 2, 3, 2]);
    assert!(restored.verdict("no-duplicates").passed);
    // ...a failover of another subtask, or one restoring a checkpoint from before the record,
    // does not.
    let mut elsewhere = clean();
    elsewhere.guarantee(DeliveryGuarantee::AtLeastOnce);
    elsewhere.at("jobmaster", failover(vec![1], 1)).at("jobmaster", failover(vec![0], 0));
    elsewhere.appeared(&[2]).visible(&[1, 2, 3, 2]);
    fails(elsewhere.verdict("no-duplicates"), "with 0 restores of a checkpoint covering it");
    // After a rescale dealt the states out anew, another subtask's restore may resend it.
    let rescale =
        EventKind::Failover { strategy: "rescale".into(), subtasks: vec![0, 1], checkpoint: 1, cause: "test".into() };
    elsewhere.at("jobmaster", rescale).at("jobmaster", failover(vec![1], 1)).appeared(&[2]).visible(&[1, 2, 3, 2, 2]);
    assert!(elsewhere.verdict("no-duplicates").passed, "{:?}", elsewhere.verdict("no-duplicates"));
    // So does a copy whose request's caller timed out (it retried).
    let mut retried = clean();
    retried.guarantee(DeliveryGuarantee::AtLeastOnce);
    retried.appeared(&[2]);
    let Some(EventKind::Appeared { cause, .. }) = retried.events.last().map(|e| e.kind.clone()) else { unreachable!() };
    let Cause::Request { call: Some(call), .. } = *cause else { unreachable!() };
    retried.at("taskexecutor-0", EventKind::CallTimedOut { to: "fs".into(), kind: "fs.rename".into(), call });
    retried.appeared(&[2]).visible(&[1, 2, 3, 2, 2]);
    fails(retried.verdict("no-duplicates"), "1 copies from requests whose response was lost");
    retried.visible(&[1, 2, 3, 2]);
    assert!(retried.verdict("no-duplicates").passed);
}

#[test]
fn no_phantoms_fails_on_a_record_never_produced_or_before_its_start() {
    let mut h = clean();
    h.appeared(&[9]).visible(&[1, 2, 3, 9]);
    fails(h.verdict("no-phantoms"), "r9 is visible but was never produced");
    let mut early = clean();
    early.end.starts.default = StartPosition::Offset(1);
    fails(
        early.verdict("no-phantoms"),
        "r1 (split s pos 0) is visible but lies before its split's declared start (pos 1)",
    );
}

#[test]
fn no_corruption_fails_on_changed_content_and_on_garbage() {
    let mut h = clean();
    h.change(true, vec![Seen { id: RecordId(2), digest: 7 }], Cause::Setup);
    fails(h.verdict("no-corruption"), "r2 (split s pos 1) became visible with other content");
    let mut g = clean();
    g.end.visible = Ok(vec![Entry::Garbage("out/f: line 3 is not a record".into())]);
    fails(g.verdict("no-corruption"), "line 3 is not a record");
}

#[test]
fn exactly_once_fails_on_a_record_visible_before_its_checkpoint_completed_and_on_vanishing() {
    let mut h = H::new();
    h.produced(2)
        .emitted(1, &[1, 2])
        .triggered(1)
        .barrier(1, 1)
        .appeared(&[1])
        .completed(1)
        .appeared(&[2])
        .visible(&[1, 2]);
    fails(h.verdict("no-premature-visibility"), "r1 (split s pos 0) became visible");
    let mut late = H::new();
    late.produced(2).emitted(1, &[1]).triggered(1).barrier(1, 1).emitted(1, &[2]).completed(1).appeared(&[1, 2]);
    fails(late.verdict("no-premature-visibility"), "r2 (split s pos 1) became visible");
    let mut gone = clean();
    gone.vanished(&[3]).visible(&[1, 2]);
    fails(gone.verdict("no-premature-visibility"), "r3 (split s pos 2) vanished");
    gone.guarantee(DeliveryGuarantee::AtLeastOnce);
    fails(gone.verdict("no-premature-visibility"), "vanished");
}

#[test]
fn at_least_once_and_idempotent_may_show_records_early_but_idempotent_never_loses_one() {
    let mut h = H::new();
    h.produced(2).appeared(&[1, 2]).emitted(1, &[1, 2]).triggered(1).barrier(1, 1).completed(1).visible(&[1, 2]);
    h.guarantee(DeliveryGuarantee::AtLeastOnce);
    assert!(h.verdict("no-premature-visibility").passed);
    h.guarantee(DeliveryGuarantee::Idempotent);
    assert!(h.verdict("no-premature-visibility").passed);
    // A rewrite (another copy appears, the old one goes) is fine for an upsert...
    h.appeared(&[2]).vanished(&[2]);
    assert!(h.verdict("no-premature-visibility").passed);
    // ...losing the record altogether is not.
    h.vanished(&[2]).visible(&[1]);
    fails(h.verdict("no-premature-visibility"), "r2 (split s pos 1) vanished");
}

#[test]
fn per_split_order_fails_when_a_record_overtakes_an_earlier_one_of_its_split() {
    let mut h = clean();
    h.end.ordered = true;
    assert!(h.verdict("per-split-order").passed);
    h.visible(&[1, 3, 2]);
    fails(h.verdict("per-split-order"), "r2 (pos 1) is read at output position 2, after r3 (pos 2)");
}

#[test]
fn split_accounting_fails_on_a_split_in_two_places() {
    let mut h = clean();
    h.at("jobmaster", EventKind::CheckpointTriggered { checkpoint: 2, pending: vec!["s".into()] })
        .barrier(1, 2)
        .completed(2);
    fails(h.verdict("split-accounting"), "split s is in 2 places: enumerator, reader 0");
}

#[test]
fn liveness_fails_on_a_hang_and_on_an_unbounded_job_that_stops_checkpointing() {
    let mut h = clean();
    h.end.status = JobStatus::Running;
    fails(h.verdict("liveness"), "did not finish");
    h.end.bounded = false;
    h.visible(&[1, 2]);
    fails(h.verdict("liveness"), "1 expected records not visible");
    h.visible(&[1, 2, 3]).at("supervisor", EventKind::Converged).completed(2).completed(3);
    fails(h.verdict("liveness"), "only 2 of 3 more checkpoints completed");
    h.completed(4);
    assert!(h.verdict("liveness").passed);
}

#[test]
fn unobserved_visibility_fails_on_what_appeared_only_in_the_final_read_or_could_not_be_read() {
    let mut h = clean();
    h.change(true, vec![seen(3)], Cause::Final);
    fails(h.verdict("no-unobserved-visibility"), "r3 (split s pos 2) appeared, found only by the final read, in p");
    let mut audited = clean();
    audited.change(false, vec![seen(2)], Cause::Audit);
    fails(audited.verdict("no-unobserved-visibility"), "r2 (split s pos 1) vanished, found by an audit");
    let mut broken = clean();
    broken.at(
        "harness",
        EventKind::OutputUnreadable { output: "out".into(), error: "the output reader of out panicked: boom".into() },
    );
    fails(
        broken.verdict("no-unobserved-visibility"),
        "output out could not be read: the output reader of out panicked: boom",
    );
}

#[test]
fn stable_after_convergence_fails_on_any_change_after_it_and_at_least_once_only_on_vanishing() {
    let mut h = clean();
    h.at("supervisor", EventKind::Converged);
    assert!(h.verdict("stable-after-convergence").passed);
    h.appeared(&[3]);
    fails(h.verdict("stable-after-convergence"), "r3 (split s pos 2) appeared");
    h.guarantee(DeliveryGuarantee::AtLeastOnce);
    assert!(h.verdict("stable-after-convergence").passed, "a late explained duplicate is no-duplicates' business");
    h.vanished(&[3]);
    fails(h.verdict("stable-after-convergence"), "r3 (split s pos 2) vanished");
}

#[test]
fn event_time_fails_on_a_record_behind_its_splits_watermark_and_on_a_watermark_that_went_back() {
    let wm = |attempt: u64, watermark: Option<i64>, splits: &[(&str, i64)]| EventKind::Watermark {
        subtask: 0,
        attempt,
        watermark,
        splits: splits.iter().map(|(s, w)| (s.to_string(), *w)).collect(),
        idle: 0,
        marked_idle: Vec::new(),
    };
    assert!(clean().verdict("event-time").summary.contains("not claimed"), "no watermarks, nothing claimed");
    // Records 1..=5 of split "s" (event times 1..=5); a watermark at 2 after records 1..=3.
    let mut h = H::new();
    h.produced(5).emitted(1, &[1, 2, 3]).at("taskexecutor-0", wm(1, Some(2), &[("s", 2)])).emitted(1, &[4, 5]);
    assert!(h.verdict("event-time").passed, "{:?}", h.verdict("event-time"));
    // A restore replays record 2 in a new attempt: not late there (its watermark starts over).
    h.emitted(2, &[2]);
    assert!(h.verdict("event-time").passed);
    // Within the attempt, record 2 again after the watermark 2: late.
    let mut late = h;
    late.emitted(1, &[2]);
    fails(late.verdict("event-time"), "r2 of split s (event time 2)");
    // A reader-wide watermark ("") judges records of splits without their own.
    let mut wide = H::new();
    wide.produced(3).emitted(1, &[1, 2]).at("taskexecutor-0", wm(1, Some(2), &[("", 2)])).emitted(1, &[1]);
    fails(wide.verdict("event-time"), "r1 of split s (event time 1)");
    // A watermark that goes back, combined or per split.
    let mut back = H::new();
    back.produced(3).at("taskexecutor-0", wm(1, Some(3), &[("s", 3)])).at("taskexecutor-0", wm(1, Some(1), &[]));
    fails(back.verdict("event-time"), "the watermark went back from 3 to 1");
    back.at("taskexecutor-0", wm(1, None, &[("s", 2)]));
    fails(back.verdict("event-time"), "split \"s\"'s watermark went back from 3 to 2");
}

#[test]
fn event_time_fails_on_a_record_behind_the_combined_watermark_its_splits_idle_mark_let_through() {
    let wm = |watermark: i64, splits: &[(&str, i64)], marked: &[&str]| EventKind::Watermark {
        subtask: 0,
        attempt: 1,
        watermark: Some(watermark),
        splits: splits.iter().map(|(s, w)| (s.to_string(), *w)).collect(),
        idle: marked.len().max(1),
        marked_idle: marked.iter().map(|s| s.to_string()).collect(),
    };
    // Records 1..=5 of split "s"; s announced watermark 1 after its records 1 and 2. Then split
    // "t" ran ahead and the combined watermark reached 9 without s; then s gave records 3 and 4.
    let history = |own: &[(&str, i64)], marked: &[&str]| {
        let mut h = H::new();
        h.produced(5).emitted(1, &[1, 2]);
        if !own.is_empty() {
            h.at("taskexecutor-0", wm(1, own, &[]));
        }
        h.at("taskexecutor-0", wm(9, &[("t", 10)], marked)).emitted(1, &[3, 4]);
        h
    };
    // Left out by the strategy's idle timeout: the job's trade-off, not judged.
    let timed_out = history(&[("s", 1)], &[]).verdict("event-time");
    assert!(timed_out.passed, "{timed_out:?}");
    // Left out because the connector marked it idle while it had records to give: late.
    let marked = history(&[("s", 1)], &["s"]).verdict("event-time");
    fails(marked.clone(), "r3 of split s (event time 3)");
    assert!(marked.evidence[0].contains("while the connector had marked the split idle"), "{marked:?}");
    assert!(marked.summary.contains("2 records late at their subtask's output"), "{}", marked.summary);
    // A sink that accepts late records: not judged, and the verdict says so.
    let mut accepting = history(&[("s", 1)], &["s"]);
    accepting.end.late_accepted = true;
    let v = accepting.verdict("event-time");
    assert!(v.passed && v.summary.contains("2 records behind the combined watermark"), "{v:?}");
    assert!(v.summary.contains("the sink accepts late records"), "{v:?}");
    // Another split's idle mark says nothing about s.
    assert!(history(&[("s", 1)], &["u"]).verdict("event-time").passed);
    // The reader's own output marked idle stands for a split without watermarks of its own,
    // where the reader announced watermarks for itself.
    fails(history(&[("", 1)], &[""]).verdict("event-time"), "r3 of split s (event time 3)");
    assert!(history(&[("s", 1)], &[""]).verdict("event-time").passed, "s has its own watermark");
    assert!(history(&[], &[""]).verdict("event-time").passed, "no reader-wide watermark: not the reader's output");
}

#[test]
fn watermark_alignment_fails_on_a_paused_splits_records_fetched_after_the_pause() {
    assert!(clean().verdict("watermark-alignment").summary.contains("not claimed"), "no alignment, nothing claimed");
    let paused = |paused: &[(&str, i64)], resumed: &[&str]| EventKind::SplitsPaused {
        subtask: 1,
        attempt: 3,
        minimum: 40,
        max_allowed: 50,
        paused: paused.iter().map(|(s, w)| (s.to_string(), *w)).collect(),
        resumed: resumed.iter().map(|s| s.to_string()).collect(),
        observed: true,
    };
    let mut h = H::new();
    h.produced(5)
        .at("jobmaster", EventKind::WatermarkAlignment { minimum: 40, max_allowed: 50 })
        .at("taskexecutor-1", paused(&[("s", 70)], &[]))
        .emitted(3, &[1, 2]) // fetched before the pause: not judged
        .at("taskexecutor-1", paused(&[], &["s"]));
    let v = h.verdict("watermark-alignment");
    assert!(v.passed && v.summary.contains("1 splits paused, 1 resumed"), "{v:?}");
    h.at("taskexecutor-1", paused(&[("s", 90)], &[]));
    h.at(
        "taskexecutor-1",
        EventKind::PausedSplitRead { subtask: 1, attempt: 3, split: "s".into(), ids: vec![RecordId(3), RecordId(4)] },
    );
    let mut blind = H::new();
    blind.produced(1).at("jobmaster", EventKind::WatermarkAlignment { minimum: 40, max_allowed: 50 }).at(
        "taskexecutor-1",
        EventKind::SplitsPaused {
            subtask: 1,
            attempt: 3,
            minimum: 40,
            max_allowed: 50,
            paused: vec![("s".into(), 70)],
            resumed: vec![],
            observed: false,
        },
    );
    let v = blind.verdict("watermark-alignment");
    assert!(v.passed && v.summary.contains("1 of the pauses could not be judged"), "{v:?}");
    fails(
        h.verdict("watermark-alignment"),
        "split \"s\" was paused at event #9 at 0.009s on taskexecutor-1 with watermark 90, above the group minimum 40 plus the drift (50), yet its split reader returned r3, r4",
    );
}

#[test]
fn watermark_alignment_fails_on_a_split_paused_within_the_drift() {
    let paused = |w: i64| EventKind::SplitsPaused {
        subtask: 1,
        attempt: 3,
        minimum: 40,
        max_allowed: 50,
        paused: vec![("s".into(), w)],
        resumed: vec![],
        observed: true,
    };
    let unasked = |splits: Vec<(String, Option<i64>)>| EventKind::UnaskedPause {
        subtask: 1,
        attempt: 3,
        minimum: 40,
        max_allowed: 50,
        splits,
    };
    let base = || {
        let mut h = H::new();
        h.produced(2).at("jobmaster", EventKind::WatermarkAlignment { minimum: 40, max_allowed: 50 });
        h
    };
    // Alignment's own pause above the maximum has a cause; at the maximum it has none.
    let mut above = base();
    above.at("taskexecutor-1", paused(51));
    assert!(above.verdict("watermark-alignment").passed, "{:?}", above.verdict("watermark-alignment"));
    let mut at_max = base();
    at_max.at("taskexecutor-1", paused(50));
    let v = at_max.verdict("watermark-alignment");
    fails(
        v.clone(),
        "split \"s\" was paused without cause: alignment paused it with watermark 50, within the group minimum 40 plus the drift (10 ms, at most 50)",
    );
    assert!(v.summary.contains("1 splits paused without cause"), "{}", v.summary);
    // The reader holding a split paused that alignment never paused (or resumed).
    let mut held = base();
    held.at("taskexecutor-1", paused(70)).at("taskexecutor-1", unasked(vec![("u".into(), Some(45))]));
    fails(
        held.verdict("watermark-alignment"),
        "split \"u\" was paused without cause: its reader held it paused though alignment had not paused it (or had resumed it) with watermark 45, within the group minimum 40 plus the drift",
    );
    let mut fresh = base();
    fresh.at("taskexecutor-1", unasked(vec![("u".into(), None)]));
    fails(fresh.verdict("watermark-alignment"), "with no watermark yet");
}

#[test]
fn a_new_job_may_add_one_copy_to_what_the_jobs_before_it_left_visible() {
    // Job 0 made r1..r3 visible, then a new job started without state and read them again.
    let base = || {
        let mut h = clean();
        h.at("control", EventKind::NewJob { job: 1, restored_from: 0 });
        h.emitted(2, &[1, 2, 3]).triggered(job_checkpoint(1, 1)).barrier(2, job_checkpoint(1, 1));
        h.completed(job_checkpoint(1, 1));
        h
    };
    let mut again = base();
    again.appeared(&[1, 2, 3]).visible(&[1, 2, 3, 1, 2, 3]);
    let v = again.verdict("no-duplicates");
    assert!(v.passed && v.summary.contains("none more than once per job"), "{v:?}");
    assert!(again.verdict("split-accounting").passed, "{:?}", again.verdict("split-accounting"));
    // The new job made r2 visible twice: one copy more than it may add.
    let mut twice = base();
    twice.appeared(&[1, 2, 3]).appeared(&[2]).visible(&[1, 2, 3, 1, 2, 3, 2]);
    fails(twice.verdict("no-duplicates"), "r2 (split s pos 1) visible 3 times, 2 allowed for the jobs that read it");
    // The job before made r2 visible twice on its own: the new job's start forgives nothing.
    let mut own = clean();
    own.appeared(&[2]);
    own.at("control", EventKind::NewJob { job: 1, restored_from: 0 });
    own.emitted(2, &[1, 2, 3]).appeared(&[1, 2, 3]).visible(&[1, 2, 3, 2, 1, 2, 3]);
    fails(own.verdict("no-duplicates"), "r2 (split s pos 1) visible 3 times, 2 allowed");
    // From a savepoint whose barrier had passed r1..r3 (position 3): only r4 and r5 are
    // read again; a second copy of r2 is a savepoint committable committed twice.
    let older = |again: &[u64]| {
        let mut h = H::new();
        h.produced(5).emitted(1, &[1, 2, 3]).triggered(1).barrier(1, 1).completed(1);
        h.emitted(1, &[4, 5]).triggered(2).completed(2).appeared(&[1, 2, 3, 4, 5]);
        h.at("control", EventKind::NewJob { job: 1, restored_from: 1 });
        h.emitted(2, &[4, 5]).appeared(again);
        let mut visible = vec![1, 2, 3, 4, 5];
        visible.extend(again);
        h.visible(&visible);
        h.verdict("no-duplicates")
    };
    assert!(older(&[4, 5]).passed, "{:?}", older(&[4, 5]));
    fails(older(&[2, 4, 5]), "r2 (split s pos 1) visible 2 times");
    // A split that finished before the savepoint completed is passed whole.
    let finished = |again: &[u64]| {
        let mut h = H::new();
        h.produced(3).emitted(1, &[1, 2, 3]);
        h.at("taskexecutor-0", EventKind::SplitFinished { subtask: 0, attempt: 1, split: "s".into() });
        h.triggered(1).at(
            "taskexecutor-0",
            EventKind::Barrier { subtask: 0, attempt: 1, checkpoint: 1, splits: vec![], positions: vec![] },
        );
        h.completed(1).appeared(&[1, 2, 3]);
        h.at("control", EventKind::NewJob { job: 1, restored_from: 1 });
        h.emitted(2, again).appeared(again);
        let mut visible = vec![1, 2, 3];
        visible.extend(again);
        h.visible(&visible);
        h.verdict("no-duplicates")
    };
    assert!(finished(&[]).passed);
    fails(finished(&[3]), "r3 (split s pos 2) visible 2 times");
    // A new job's copies need its own completed checkpoints: r1..r3, covered by job 0's
    // checkpoint 1, appear again before any of job 1's completed.
    let mut early = clean();
    early.at("control", EventKind::NewJob { job: 1, restored_from: 0 });
    early.emitted(2, &[1, 2, 3]).appeared(&[1, 2, 3]).visible(&[1, 2, 3, 1, 2, 3]);
    fails(early.verdict("no-premature-visibility"), "r1 (split s pos 0) became visible");
    // From savepoint 1, what it covered stays covered.
    let mut from_savepoint = clean();
    from_savepoint.at("control", EventKind::NewJob { job: 1, restored_from: 1 });
    from_savepoint.appeared(&[2]).visible(&[1, 2, 3, 2]);
    assert!(from_savepoint.verdict("no-premature-visibility").passed);
    // Without a new job, the same output is a duplicate of every record.
    let mut plain = clean();
    plain.appeared(&[1, 2, 3]).visible(&[1, 2, 3, 1, 2, 3]);
    assert_eq!(plain.verdict("no-duplicates").violations, 3);
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
