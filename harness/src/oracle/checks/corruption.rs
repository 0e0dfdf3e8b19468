//! No corruption: every record that became visible holds exactly the content that was
//! produced (key, event time, payload, by digest), and nothing visible fails to decode as a
//! record. Judged at every appearance, so content that was wrong for a while counts too.

use super::{RunFacts, Verdict, EVIDENCE_MAX};

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    const NAME: &str = "no-corruption";
    let mut evidence = Vec::new();
    let (mut changed, mut garbage) = (0, 0);
    let mut ids = Vec::new();
    let mut first_bad = None;
    for c in f.changes().filter(|c| c.appeared) {
        for s in c.records {
            let Some(origin) = f.origin_of(s.id) else { continue }; // a phantom, not corruption
            if origin.digest != s.digest {
                changed += 1;
                ids.push(s.id);
                first_bad.get_or_insert(c.index);
                if evidence.len() < EVIDENCE_MAX {
                    evidence.push(format!(
                        "{} became visible with other content than was produced (digest {:016x}, produced {:016x}) at {}",
                        f.origin(s.id),
                        s.digest,
                        origin.digest,
                        f.describe_change(&c)
                    ));
                }
            }
        }
        for g in c.garbage {
            garbage += 1;
            first_bad.get_or_insert(c.index);
            if evidence.len() < EVIDENCE_MAX {
                evidence.push(format!("{g}: appeared at {}", f.describe_change(&c)));
            }
        }
    }
    // Garbage in the final read that was never seen appearing is still garbage.
    if garbage == 0 && !f.garbage_final.is_empty() {
        garbage = f.garbage_final.len();
        evidence.extend(f.garbage_final.iter().take(EVIDENCE_MAX).map(|g| format!("{g} (in the final output)")));
    }
    if changed + garbage == 0 {
        return Verdict::pass(NAME, "every visible record holds the content that was produced");
    }
    Verdict::fail(
        NAME,
        format!(
            "{changed} records became visible with changed content, and {garbage} pieces of visible content are not records (output {})",
            f.output_location
        ),
        evidence,
        first_bad,
    )
    .counting(changed + garbage, ids)
}
