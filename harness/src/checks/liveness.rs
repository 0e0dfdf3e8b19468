//! Liveness: after faults heal, a bounded job finishes and an unbounded one commits
//! everything produced, within a virtual-time bound. A hang is a verdict, never a hung test.

use super::{RunFacts, Verdict};
use crate::cluster::JobStatus;
use crate::history::EventKind;
use crate::record::RecordId;
use std::collections::BTreeSet;

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    const NAME: &str = "liveness";
    if let Some(p) = &f.panic {
        return Verdict::fail(NAME, format!("the run panicked: {p}"), vec![], None);
    }
    if let JobStatus::Failed(reason) = &f.status {
        let at = f.events.iter().position(|e| matches!(e.kind, EventKind::JobFailed { .. }));
        return Verdict::fail(NAME, format!("the job failed: {reason}"), vec![], at);
    }
    let last_completed = f.completed.iter().next_back().map(|(c, &i)| format!("checkpoint {c} at {}", f.describe(i)));
    let stuck_evidence = vec![format!("last completed checkpoint: {}", last_completed.unwrap_or_else(|| "none".into()))];
    if f.bounded {
        if f.status == JobStatus::Finished {
            return Verdict::pass(NAME, "the bounded job finished");
        }
        return Verdict::fail(
            NAME,
            format!("the bounded job did not finish within {} ms after faults healed", f.liveness_ms),
            stuck_evidence,
            None,
        );
    }
    let visible: BTreeSet<RecordId> = f.visible_final.iter().copied().collect();
    let missing = f.produced.keys().filter(|id| !visible.contains(id)).count();
    if missing == 0 {
        Verdict::pass(NAME, "everything produced was committed")
    } else {
        Verdict::fail(
            NAME,
            format!("{missing} produced records not committed within {} ms after faults healed", f.liveness_ms),
            stuck_evidence,
            None,
        )
    }
}
