//! No unobserved visibility: every change of the output was seen when it happened. The
//! harness reads the output after every request an external system served and at every
//! crash and restart of a system node, guided by the output's version; what shows up only
//! in a periodic audit (the version did not say it changed) or in the final read (it
//! changed outside any served request) could not be judged at the time it happened. An
//! output that could not be read at all fails here too, naming the output.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::history::{Cause, EventKind};

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    const NAME: &str = "no-unobserved-visibility";
    let unreadable = f.events.iter().enumerate().find_map(|(i, e)| match &e.kind {
        EventKind::OutputUnreadable { error, .. } => Some((i, error.clone())),
        _ => None,
    });
    if let Some((i, error)) = unreadable.or_else(|| f.unreadable.clone().map(|e| (f.events.len().saturating_sub(1), e)))
    {
        return Verdict::fail(
            NAME,
            format!("output {} could not be read: {error}", f.output_location),
            vec![],
            Some(i),
        );
    }
    let finals: Vec<_> =
        f.changes().filter(|c| *c.cause == Cause::Audit || (c.appeared && *c.cause == Cause::Final)).collect();
    let unseen: usize = finals.iter().map(|c| c.records.len() + c.garbage.len()).sum();
    if unseen == 0 {
        return Verdict::pass(NAME, "everything in the final output was seen appearing during the run");
    }
    let evidence = finals
        .iter()
        .flat_map(|c| {
            let how = match (c.appeared, c.cause) {
                (true, Cause::Final) => "appeared, found only by the final read",
                (true, _) => "appeared, found by an audit the output's version did not call for",
                (false, _) => "vanished, found by an audit the output's version did not call for",
            };
            let records = c.records.iter().map(move |s| format!("{} {how}, in {}", f.origin(s.id), c.part));
            records.chain(c.garbage.iter().cloned())
        })
        .take(EVIDENCE_MAX)
        .collect();
    Verdict::fail(
        NAME,
        format!(
            "{unseen} changes of output {} were not seen when they happened: its model changed outside a served request, or its reader's version did not say",
            f.output_location
        ),
        evidence,
        finals.first().map(|c| c.index),
    )
    .counting(unseen, finals.iter().flat_map(|c| c.records.iter().map(|s| s.id)))
}
