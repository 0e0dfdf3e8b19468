//! Stable after convergence: once the output converged (a bounded job finished, or an
//! unbounded one showed every expected record), it does not change any more — not while the
//! job keeps checkpointing with no new input, and not when every external system restarts.
//! A late commit, a retry that lands after the fact, data that was never durable: all show
//! up here. For an at-least-once sink only vanishing counts (a late explained duplicate is the
//! duplicate check's business).

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::api::DeliveryGuarantee;

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    const NAME: &str = "stable-after-convergence";
    let Some(at) = f.converged else {
        return Verdict::pass(NAME, "not judged: the output never converged (see liveness)");
    };
    let late: Vec<_> = f
        .changes()
        .filter(|c| c.index > at && (!c.appeared || f.guarantee != DeliveryGuarantee::AtLeastOnce))
        .collect();
    if late.is_empty() {
        return Verdict::pass(NAME, format!("the output did not change after it converged ({})", f.describe(at)));
    }
    let evidence = late
        .iter()
        .flat_map(|c| {
            let what = if c.appeared { "appeared" } else { "vanished" };
            c.records
                .iter()
                .map(move |s| format!("{} {what} at {}", f.origin(s.id), f.describe_change(c)))
                .chain(c.garbage.iter().map(move |g| format!("{g} {what} at {}", f.describe_change(c))))
        })
        .take(EVIDENCE_MAX)
        .collect();
    let n: usize = late.iter().map(|c| c.records.len() + c.garbage.len()).sum();
    Verdict::fail(
        NAME,
        format!("{n} entries changed after the output converged ({})", f.describe(at)),
        evidence,
        late.first().map(|c| c.index),
    )
}
