//! Checks: one invariant per module. Each reads only the history and the sink's committed,
//! visible output, and returns a [`Verdict`] with evidence instead of panicking.

mod duplicates;
mod index;
mod liveness;
mod loss;
mod order;
mod phantoms;
mod premature;
mod split_accounting;

pub use index::RunFacts;

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
}

impl Verdict {
    pub(crate) fn pass(check: &str, summary: impl Into<String>) -> Self {
        Self { check: check.into(), passed: true, summary: summary.into(), evidence: vec![], first_bad_event: None }
    }
    pub(crate) fn fail(check: &str, summary: impl Into<String>, evidence: Vec<String>, first_bad_event: Option<usize>) -> Self {
        Self { check: check.into(), passed: false, summary: summary.into(), evidence, first_bad_event }
    }
}

/// How many pieces of evidence a verdict lists at most.
pub(crate) const EVIDENCE_MAX: usize = 10;

/// Runs every check.
pub fn run_all(facts: &RunFacts) -> Vec<Verdict> {
    vec![
        loss::check(facts),
        duplicates::check(facts),
        phantoms::check(facts),
        premature::check(facts),
        order::check(facts),
        split_accounting::check(facts),
        liveness::check(facts),
    ]
}
