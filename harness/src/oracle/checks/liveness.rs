//! Liveness: after faults heal, a bounded job finishes and an unbounded one shows every
//! expected record, within a virtual-time bound, and then keeps completing checkpoints (at
//! least [`SETTLE_CHECKPOINTS`] more with no new input). A hang is a verdict, never a hung test.

use super::{RunFacts, Verdict};
use crate::cluster::JobStatus;
use crate::history::EventKind;
use crate::record::IdSet;

/// Checkpoints an unbounded job must complete after its output converged.
pub const SETTLE_CHECKPOINTS: usize = 3;

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
    let stuck_evidence =
        vec![format!("last completed checkpoint: {}", last_completed.unwrap_or_else(|| "none".into()))];
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
    let visible: IdSet = f.visible_final.iter().map(|s| s.id).collect();
    let missing = f.expected.required.iter().filter(|id| !visible.contains(id)).count();
    if missing > 0 {
        return Verdict::fail(
            NAME,
            format!("{missing} expected records not visible within {} ms after faults healed", f.liveness_ms),
            stuck_evidence,
            None,
        );
    }
    let settled = match f.converged {
        Some(at) => f.completed.values().filter(|&&i| i > at).count(),
        None => 0,
    };
    if settled < SETTLE_CHECKPOINTS {
        let at = f.converged.map_or("never".to_string(), |i| f.describe(i));
        return Verdict::fail(
            NAME,
            format!(
                "after the output converged ({at}) only {settled} of {SETTLE_CHECKPOINTS} more checkpoints completed"
            ),
            stuck_evidence,
            f.converged,
        );
    }
    Verdict::pass(NAME, format!("everything expected is visible, and {settled} checkpoints completed after that"))
}
