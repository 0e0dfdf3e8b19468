//! Two transcripts compared line by line: equal, a known departure of the mock (`~`), an
//! open difference of the simulated half (`?`), or an unexplained difference (`!`), which
//! fails the comparison.

use super::transcript::{split, tag};

/// Set, the open differences of the simulated half ([`tag::OPEN`]) fail the comparison too.
#[cfg_attr(madsim, allow(dead_code))]
pub const STRICT_VAR: &str = "CONNSIM_COMPAT_STRICT";

/// A comparison's report, and whether it failed.
pub struct Outcome {
    /// An unexplained difference: lines that differ without a tag, tags that differ (the
    /// scripts went different ways), or transcripts of different lengths; with `strict`, an
    /// open difference of the simulated half too.
    pub failed: bool,
    /// Lines that differ under a known departure's tag only.
    pub departures: usize,
    /// Lines that differ under an open difference's tag.
    pub open: usize,
    /// The report: a summary line, then (if anything differs) every line of both.
    pub text: String,
}

/// Compares the simulated transcript `sim` with the mock's `mock`.
pub fn compare(name: &str, sim: &[String], mock: &[String], strict: bool) -> Outcome {
    let (mut failed, mut departures, mut open, mut first) = (false, 0, 0, None);
    let (mut body, mut fixed) = (Vec::new(), Vec::new());
    for i in 0..sim.len().max(mock.len()) {
        let n = i + 1;
        match (sim.get(i), mock.get(i)) {
            (Some(s), Some(m)) if s == m => {
                body.push(format!("{n:4} =  {s}"));
                let open_tags: Vec<&str> = split(s).0.into_iter().filter(|t| tag::open(t)).collect();
                if !open_tags.is_empty() {
                    fixed.push(format!("line {n} is equal under {}: fixed? drop the tag", open_tags.join(",")));
                }
            }
            (Some(s), Some(m)) => {
                let ((st, _), (mt, _)) = (split(s), split(m));
                let known = st == mt && !st.is_empty() && st.iter().all(|t| tag::known(t));
                let is_open = known && st.iter().any(|t| tag::open(t));
                let mark = match (known, is_open) {
                    (false, _) => '!',
                    (true, true) => '?',
                    (true, false) => '~',
                };
                match mark {
                    '!' => failed = true,
                    '?' => {
                        open += 1;
                        failed |= strict;
                    }
                    _ => departures += 1,
                }
                first.get_or_insert(n);
                body.push(format!("{n:4} {mark}  sim : {s}"));
                let why = if st != mt { "   (the tags differ: the scripts went different ways)" } else { "" };
                body.push(format!("     {mark}  mock: {m}{why}"));
            }
            (Some(s), None) => {
                failed = true;
                first.get_or_insert(n);
                body.push(format!("{n:4} !  sim : {s}"));
                body.push("     !  mock: (no line)".into());
            }
            (None, Some(m)) => {
                failed = true;
                first.get_or_insert(n);
                body.push(format!("{n:4} !  sim : (no line)"));
                body.push(format!("     !  mock: {m}"));
            }
            (None, None) => unreachable!(),
        }
    }
    let mut summary = match first {
        None => format!("== {name}: {} lines, equal", sim.len()),
        Some(at) => format!(
            "== {name}: {} lines (simulated) / {} (mock); first difference at line {at}; {departures} known \
             departures of the mock (~), {open} open differences of the simulated half (?){}",
            sim.len(),
            mock.len(),
            if failed { "; FAILED: UNEXPLAINED DIFFERENCES (!)" } else { "" }
        ),
    };
    for f in &fixed {
        summary.push_str(&format!("\n   note: {f}"));
    }
    let text = match first {
        None => summary,
        Some(_) => format!("{summary}\n{}", body.join("\n")),
    };
    Outcome { failed, departures, open, text }
}

#[test]
fn a_tagged_difference_is_known_or_open_and_an_untagged_one_fails() {
    let lines = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let sim = lines(&["a", &format!("[{}] offset 2", tag::TXN_MARKERS)]);
    let same = compare("s", &sim, &sim, false);
    assert!(!same.failed && same.departures == 0 && same.open == 0 && same.text.ends_with("equal"), "{}", same.text);
    let known = compare("s", &sim, &lines(&["a", &format!("[{}] offset 1", tag::TXN_MARKERS)]), true);
    assert!(!known.failed && known.departures == 1, "{}", known.text);
    let untagged = compare("s", &lines(&["a", "b"]), &lines(&["a", "c"]), false);
    assert!(untagged.failed && untagged.text.contains("first difference at line 2"), "{}", untagged.text);
    let shorter = compare("s", &lines(&["a"]), &lines(&["a", "b"]), false);
    assert!(shorter.failed);
    let unknown = compare("s", &lines(&["[mock:nothing] x"]), &lines(&["[mock:nothing] y"]), false);
    assert!(unknown.failed, "a tag no departure names explains nothing");
    // (Open differences of the simulated half are tagged `sim:…`; none is open now.)
}
