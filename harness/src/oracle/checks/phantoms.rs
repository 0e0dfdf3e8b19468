//! No phantoms: the output holds nothing that was not expected — no record that was never
//! produced, and none from before its split's declared start.

use super::{RunFacts, Verdict, EVIDENCE_MAX};

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    const NAME: &str = "no-phantoms";
    let mut evidence = Vec::new();
    let (mut invented, mut early) = (0, 0);
    let mut ids = Vec::new();
    let mut first_bad = None;
    for c in f.changes().filter(|c| c.appeared) {
        for s in c.records {
            let why = match (f.origin_of(s.id), f.expected.before_start.get(&s.id)) {
                (None, _) => {
                    invented += 1;
                    format!("{} is visible but was never produced", s.id)
                }
                (Some(_), Some(start)) => {
                    early += 1;
                    format!("{} is visible but lies before its split's declared start (pos {start})", f.origin(s.id))
                }
                (Some(_), None) => continue,
            };
            first_bad.get_or_insert(c.index);
            ids.push(s.id);
            if evidence.len() < EVIDENCE_MAX {
                evidence.push(format!("{why}: appeared at {}", f.describe_change(&c)));
            }
        }
    }
    if invented + early == 0 {
        return Verdict::pass(NAME, "everything that appeared was produced, at or after its split's start");
    }
    Verdict::fail(
        NAME,
        format!(
            "{invented} records that were never produced and {early} from before their split's start became visible"
        ),
        evidence,
        first_bad,
    )
    .counting(invented + early, ids)
}
