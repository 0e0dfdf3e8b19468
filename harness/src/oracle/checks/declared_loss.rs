//! Declared loss: an expected record missing from the output because a system's own rule
//! destroyed it, and the connector said so (see [`crate::oracle::declared`]). Where the
//! case makes such a loss unavoidable (its scenario says `loss_may_be_declared`: an upload
//! expires before its checkpoint's commit can run), the verdict passes and counts it; in
//! any other case the connector let a loss happen that it could have prevented, and it
//! fails. A loss the connector did not declare is `no-loss`'s, in every case.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::record::IdSet;

const NAME: &str = "declared-loss";

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    let visible: IdSet = f.visible_final.iter().map(|s| s.id).collect();
    let lost: Vec<_> =
        f.declared.iter().filter(|(id, _)| f.expected.required.contains(id) && !visible.contains(id)).collect();
    if lost.is_empty() {
        return Verdict::pass(NAME, "no loss was declared");
    }
    let evidence: Vec<String> =
        lost.iter().take(EVIDENCE_MAX).map(|(id, why)| format!("{} lost: {why}", f.origin(**id))).collect();
    if f.declared_loss_allowed {
        let mut v = Verdict::pass(
            NAME,
            format!("{} records lost where the case makes it unavoidable, each declared by the connector", lost.len()),
        );
        v.evidence = evidence;
        return v;
    }
    Verdict::fail(
        NAME,
        format!(
            "{} records lost, declared by the connector, where nothing in the case made the loss unavoidable",
            lost.len()
        ),
        evidence,
        None,
    )
    .counting(lost.len(), lost.iter().map(|(id, _)| **id))
}
