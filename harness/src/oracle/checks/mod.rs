//! Checks: one invariant per module. Each reads only the history (which holds what the
//! harness observed of the output, content digests included) and the output as a downstream
//! reader saw it at the end, and returns a [`Verdict`] with evidence instead of panicking.
//!
//! | check | what fails it |
//! |---|---|
//! | `no-loss` | an expected record missing from the final output, unless the connector declared its loss |
//! | `declared-loss` | a record lost, its loss declared by the connector, where the case does not make it unavoidable |
//! | `no-duplicates` | a record visible twice (at-least-once: more often than the history explains) |
//! | `no-phantoms` | a record never produced, or from before its split's start, became visible |
//! | `no-corruption` | a record became visible with other content than was produced; visible garbage |
//! | `no-premature-visibility` | exactly-once: visible before a completed checkpoint covered it; any mode: a record vanished |
//! | `per-split-order` | where the sink claims it, a split's records read out of order |
//! | `split-accounting` | a split in two places, or vanished, in a completed checkpoint |
//! | `liveness` | the job failed, hung, or stopped checkpointing after converging |
//! | `no-unobserved-visibility` | output appeared outside any served request, or could not be read |
//! | `stable-after-convergence` | the output changed after it converged |
//! | `event-time` | with a watermark strategy: a watermark that went back, a record at or below a watermark its split already emitted (late), or one at or below the combined watermark its subtask passed on while the connector had marked its split idle |
//! | `left-behind` | more transactional ids or groups outlive the job than the sink declared; an upload a closed attempt started after its last snapshot and abandoned |
//! | `watermark-alignment` | with alignment: a paused split's records from a fetch that began after the pause reached its split reader |

mod alignment;
mod corruption;
mod declared_loss;
mod duplicates;
mod event_time;
mod index;
pub(crate) mod left_behind;
mod liveness;
mod loss;
mod observed;
mod order;
mod phantoms;
mod premature;
mod settled;
mod split_accounting;
#[cfg(test)]
mod tests;

pub use index::{Change, Origin, RunEnd, RunFacts};
pub use liveness::SETTLE_CHECKPOINTS;

use crate::record::RecordId;
use serde::{Deserialize, Serialize};

/// The outcome of one check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Which invariant.
    pub check: String,
    /// Whether it held.
    pub passed: bool,
    /// One line saying what was found.
    pub summary: String,
    /// Concrete evidence: record ids, splits, checkpoints, events.
    pub evidence: Vec<String>,
    /// Index of the first history event where things went wrong, if one can be named.
    pub first_bad_event: Option<usize>,
    /// How many violations the check found (records lost, copies too many, …), for a
    /// user's own assertions; 0 when it passed. The evidence shows at most
    /// [`EVIDENCE_MAX`] of them.
    #[serde(default)]
    pub violations: usize,
    /// The records involved, in id order, where the check is about records (every one, not
    /// only those in the evidence).
    #[serde(default)]
    pub ids: Vec<RecordId>,
}

impl Verdict {
    pub(crate) fn pass(check: &str, summary: impl Into<String>) -> Self {
        Self {
            check: check.into(),
            passed: true,
            summary: summary.into(),
            evidence: vec![],
            first_bad_event: None,
            violations: 0,
            ids: vec![],
        }
    }
    pub(crate) fn fail(
        check: &str,
        summary: impl Into<String>,
        evidence: Vec<String>,
        first_bad_event: Option<usize>,
    ) -> Self {
        let violations = evidence.len().max(1);
        Self {
            check: check.into(),
            passed: false,
            summary: summary.into(),
            evidence,
            first_bad_event,
            violations,
            ids: vec![],
        }
    }

    /// The number of violations and the records involved (sorted, each once).
    pub(crate) fn counting(mut self, violations: usize, ids: impl IntoIterator<Item = RecordId>) -> Self {
        let mut ids: Vec<RecordId> = ids.into_iter().collect();
        ids.sort();
        ids.dedup();
        self.violations = violations.max(self.evidence.len());
        self.ids = ids;
        self
    }

    /// Violations the evidence does not show.
    pub fn unshown(&self) -> usize {
        self.violations.saturating_sub(self.evidence.len())
    }
}

/// How many pieces of evidence a verdict lists at most.
pub const EVIDENCE_MAX: usize = 10;

/// Runs every check.
pub fn run_all(facts: &RunFacts) -> Vec<Verdict> {
    vec![
        loss::check(facts),
        declared_loss::check(facts),
        duplicates::check(facts),
        phantoms::check(facts),
        corruption::check(facts),
        premature::check(facts),
        order::check(facts),
        split_accounting::check(facts),
        liveness::check(facts),
        observed::check(facts),
        settled::check(facts),
        event_time::check(facts),
        alignment::check(facts),
        left_behind::check(facts),
    ]
}
