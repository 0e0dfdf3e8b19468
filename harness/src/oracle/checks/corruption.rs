//! No corruption: every record that became visible holds exactly the content that was
//! produced (key, event time, value, headers, nulls included, by digest), and nothing
//! visible fails to decode as a record. Judged at every appearance, so content that was
//! wrong for a while counts too. Evidence names the fields that changed
//! ([`Field::differing`]) and counts each field's changed records.

use super::{RunFacts, Verdict, EVIDENCE_MAX};
use crate::record::Field;

/// Runs the check.
pub fn check(f: &RunFacts) -> Verdict {
    const NAME: &str = "no-corruption";
    let mut evidence = Vec::new();
    let (mut changed, mut garbage) = (0, 0);
    let mut ids = Vec::new();
    let mut first_bad = None;
    let mut by_field = [0usize; Field::ALL.len()];
    for c in f.changes().filter(|c| c.appeared) {
        for s in c.records {
            let Some(origin) = f.origin_of(s.id) else { continue }; // a phantom, not corruption
            if origin.digest != s.digest {
                changed += 1;
                ids.push(s.id);
                first_bad.get_or_insert(c.index);
                let fields = Field::differing(origin.digest, s.digest);
                for field in &fields {
                    by_field[Field::ALL.iter().position(|f| f == field).expect("a field")] += 1;
                }
                if evidence.len() < EVIDENCE_MAX {
                    evidence.push(format!(
                        "{} became visible with {} other than was produced (digest {:016x}, produced {:016x}) at {}",
                        f.origin(s.id),
                        names(&fields),
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
    let fields: Vec<String> = Field::ALL
        .iter()
        .zip(by_field)
        .filter(|(_, n)| *n > 0)
        .map(|(field, n)| format!("{} on {n}", field.name()))
        .collect();
    let mut fields = if fields.is_empty() { String::new() } else { format!(" ({})", fields.join(", ")) };
    if by_field[0] + by_field[2] + by_field[3] > 0 {
        // The key, value or headers: a sink whose element type cannot hold a null, a
        // tombstone or a header says so, and the data leaves them out.
        fields.push_str(
            "; a connector whose element type or format cannot hold null keys, tombstones or headers declares so \
             (SourceSetup::carries, SinkSetup::carries; docs/data.md)",
        );
    }
    Verdict::fail(
        NAME,
        format!(
            "{changed} records became visible with changed content{fields}, and {garbage} pieces of visible content are not records (output {})",
            f.output_location
        ),
        evidence,
        first_bad,
    )
    .counting(changed + garbage, ids)
}

/// "the headers", "the key and the value": the fields that changed, for evidence.
fn names(fields: &[Field]) -> String {
    let names: Vec<&str> = fields.iter().map(|f| f.name()).collect();
    match names.as_slice() {
        [] => "content whose digest changed".into(),
        [one] => format!("the {one}"),
        [rest @ .., last] => format!("the {} and the {last}", rest.join(", the ")),
    }
}
