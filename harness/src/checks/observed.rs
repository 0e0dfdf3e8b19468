//! No unobserved visibility: everything in the final output was seen appearing while the
//! run went on. The harness reads the output after every request an external system served
//! and at every crash and restart of a system node; what shows up only in the final read
//! changed some other way (a model that mutates outside its served requests), so the other
//! checks could not judge when it became visible. An output that could not be read at all
//! fails here too, naming the output.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::history::{Cause, EventKind};

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    const NAME: &str = "no-unobserved-visibility";
    let unreadable = f.events.iter().enumerate().find_map(|(i, e)| match &e.kind {
        EventKind::OutputUnreadable { error, .. } => Some((i, error.clone())),
        _ => None,
    });
    if let Some((i, error)) = unreadable.or_else(|| f.unreadable.clone().map(|e| (f.events.len().saturating_sub(1), e))) {
        return Verdict::fail(NAME, format!("output {} could not be read: {error}", f.output_location), vec![], Some(i));
    }
    let finals: Vec<_> = f.changes().filter(|c| c.appeared && *c.cause == Cause::Final).collect();
    let unseen: usize = finals.iter().map(|c| c.records.len() + c.garbage.len()).sum();
    if unseen == 0 {
        return Verdict::pass(NAME, "everything in the final output was seen appearing during the run");
    }
    let evidence = finals
        .iter()
        .flat_map(|c| c.records.iter().map(|s| format!("{} in {}", f.origin(s.id), c.part)).chain(c.garbage.iter().cloned()))
        .take(EVIDENCE_MAX)
        .collect();
    Verdict::fail(
        NAME,
        format!(
            "{unseen} entries of output {} appeared without being seen appearing: its model changed outside a served request",
            f.output_location
        ),
        evidence,
        finals.first().map(|c| c.index),
    )
}
