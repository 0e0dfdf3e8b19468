//! No phantoms: nothing in the output that was never produced, and nothing that is not a record.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::record::RecordId;

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    let phantoms: Vec<&RecordId> = f.visible_final.iter().filter(|id| !f.produced.contains_key(id)).collect();
    if phantoms.is_empty() && f.corrupt.is_empty() {
        return Verdict::pass("no-phantoms", "everything visible was produced");
    }
    let mut evidence: Vec<String> =
        phantoms.iter().take(EVIDENCE_MAX).map(|id| format!("{id} is visible but was never produced")).collect();
    evidence.extend(f.corrupt.iter().take(EVIDENCE_MAX).map(|c| format!("corrupt output: {c}")));
    Verdict::fail(
        "no-phantoms",
        format!("{} invented records, {} corrupt outputs", phantoms.len(), f.corrupt.len()),
        evidence,
        None,
    )
}
