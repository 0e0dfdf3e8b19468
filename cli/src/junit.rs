//! JUnit XML of a sweep (`connsim sweep --junit FILE`), the format CI systems show as test
//! results: a `<testsuite>` per target. A reference connector has a `<testcase>` per case,
//! failed when a seed failed, a seed's two runs differed or a required mark was never
//! reached; a mutant has one `<testcase>`, "caught by CHECK", failed when it survived.

use crate::summary::{Status, Summary, TargetRow};
use std::fmt::Write;

/// Escapes text for an XML attribute or element, dropping characters XML 1.0 forbids.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}

struct Case {
    name: String,
    secs: f64,
    skipped: Option<String>,
    failure: Option<(String, String, String)>,
}

fn cases(t: &TargetRow) -> Vec<Case> {
    match &t.expect_failed_check {
        Some(check) => {
            let failure = (t.status == Status::Survived).then(|| {
                let what = format!("no case failed {check} in {} seeds", t.seeds);
                ("survived".to_string(), what.clone(), what)
            });
            vec![Case { name: format!("caught by {check}"), secs: t.wall_secs, skipped: None, failure }]
        }
        None => t
            .cases
            .iter()
            .map(|c| {
                let failure = (!c.passed()).then(|| match c.first_failing_seed {
                    Some(seed) => (
                        c.failed_checks.join(","),
                        format!(
                            "{} of {} seeds failed {}; first: seed {seed}",
                            c.failures,
                            c.seeds,
                            c.failed_checks.join(", ")
                        ),
                        format!(
                            "replay: {}\n\n{}",
                            c.replay.as_deref().unwrap_or_default(),
                            c.first_failure.as_deref().unwrap_or_default()
                        ),
                    ),
                    None => {
                        let what =
                            format!("marks reached on too few of {} seeds: {}", c.seeds, c.missed_marks.join(", "));
                        ("coverage".to_string(), what.clone(), what)
                    }
                });
                Case { name: c.name.clone(), secs: c.wall_secs, skipped: c.skipped.clone(), failure }
            })
            .collect(),
    }
}

/// The summary as a JUnit XML document.
pub fn render(s: &Summary) -> String {
    let suites: Vec<(&TargetRow, Vec<Case>)> = s.targets.iter().map(|t| (t, cases(t))).collect();
    let tests: usize = suites.iter().map(|(_, c)| c.len()).sum();
    let failures: usize = suites.iter().flat_map(|(_, c)| c).filter(|c| c.failure.is_some()).count();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"connsim sweep ({}, seeds {}..={})\" tests=\"{tests}\" failures=\"{failures}\" time=\"{:.3}\">",
        s.catalogue, s.first_seed, s.last_seed, s.wall_secs
    );
    for (t, cases) in &suites {
        let failed = cases.iter().filter(|c| c.failure.is_some()).count();
        let skipped = cases.iter().filter(|c| c.skipped.is_some()).count();
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" skipped=\"{skipped}\" time=\"{:.3}\">",
            escape(&t.name),
            cases.len(),
            t.wall_secs
        );
        for c in cases {
            let _ = write!(
                x,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                escape(&t.name),
                escape(&c.name),
                c.secs
            );
            match (&c.skipped, &c.failure) {
                (Some(why), _) => {
                    let _ = writeln!(x, ">\n      <skipped message=\"{}\"/>\n    </testcase>", escape(why));
                }
                (None, Some((kind, message, body))) => {
                    let _ = writeln!(
                        x,
                        ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>",
                        escape(kind),
                        escape(message),
                        escape(body)
                    );
                }
                (None, None) => x.push_str("/>\n"),
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::CaseRow;

    #[test]
    fn escapes_markup_and_drops_forbidden_characters() {
        assert_eq!(escape("a<b & \"c\" 'd'>\u{1b}[2K\n"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;[2K\n");
    }

    fn case(name: &str, failures: usize, missed: &[&str], skipped: Option<&str>) -> CaseRow {
        CaseRow {
            name: name.into(),
            skipped: skipped.map(String::from),
            seeds: 4,
            failures,
            failed_checks: if failures > 0 { vec!["no-loss".into()] } else { vec![] },
            first_failing_seed: (failures > 0).then_some(3),
            first_failure: (failures > 0).then(|| "report <with> markup & more".into()),
            replay: (failures > 0).then(|| "CONNSIM_SEED=3 cargo test".into()),
            missed_marks: missed.iter().map(|m| m.to_string()).collect(),
            wall_secs: 0.5,
        }
    }

    fn target(name: &str, expect: Option<&str>, status: Status, cases: Vec<CaseRow>) -> TargetRow {
        TargetRow {
            name: name.into(),
            suite: "sink".into(),
            expect_failed_check: expect.map(String::from),
            status,
            verdict: String::new(),
            seeds: 8,
            failures: 0,
            first_failing_seed: None,
            minimal_blocks: None,
            wall_secs: 1.0,
            cases,
            saved: vec![],
        }
    }

    #[test]
    fn a_testcase_per_reference_case_and_one_per_mutant_with_failures_where_they_belong() {
        let summary = Summary {
            catalogue: "suites",
            first_seed: 1,
            last_seed: 4,
            wall_secs: 3.0,
            ok: false,
            targets: vec![
                target(
                    "file-sink <ref>",
                    None,
                    Status::Failed,
                    vec![
                        case("passes", 0, &[], None),
                        case("loses", 2, &[], None),
                        case("misses", 0, &["crash-mid-commit"], None),
                        case("skipped", 0, &[], Some("no zombies here")),
                    ],
                ),
                target("mutant: caught", Some("no-loss"), Status::Caught, vec![case("a", 4, &[], None)]),
                target("mutant: survives", Some("no-duplicates"), Status::Survived, vec![case("a", 0, &[], None)]),
            ],
        };
        let xml = render(&summary);
        let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
        let root = doc.root_element();
        assert_eq!((root.attribute("tests"), root.attribute("failures")), (Some("6"), Some("3")), "{xml}");
        let failed: Vec<(&str, &str)> = doc
            .descendants()
            .filter(|n| n.has_tag_name("failure"))
            .map(|f| (f.parent().unwrap().attribute("name").unwrap(), f.attribute("type").unwrap()))
            .collect();
        assert_eq!(failed, vec![("loses", "no-loss"), ("misses", "coverage"), ("caught by no-duplicates", "survived")]);
        let loses = doc.descendants().find(|n| n.attribute("name") == Some("loses")).unwrap();
        let body = loses.first_element_child().unwrap().text().unwrap();
        assert!(body.contains("CONNSIM_SEED=3") && body.contains("report <with> markup & more"), "{body}");
        let skipped = doc.descendants().filter(|n| n.has_tag_name("skipped")).count();
        assert_eq!(skipped, 1);
        assert_eq!(
            doc.descendants().find(|n| n.has_tag_name("testsuite")).unwrap().attribute("name"),
            Some("file-sink <ref>")
        );
    }
    #[test]
    fn a_case_failing_only_on_determinism_says_which_seed_and_how_to_rerun_it() {
        let mut row = case("leaky", 0, &[], None);
        row.nondeterministic(&[2, 4]);
        let summary = Summary {
            catalogue: "suites",
            first_seed: 1,
            last_seed: 4,
            wall_secs: 1.0,
            ok: false,
            targets: vec![target("leaky source", None, Status::Failed, vec![row])],
        };
        let xml = render(&summary);
        let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
        let failure = doc.descendants().find(|n| n.has_tag_name("failure")).expect("the case failed");
        assert_eq!(failure.attribute("type"), Some("determinism"), "{xml}");
        let body = failure.text().unwrap_or_default();
        assert!(
            body.contains("seed 2 is not deterministic") && body.contains("CONNSIM_CHECK_DETERMINISM=1 CONNSIM_SEED=2"),
            "{body}"
        );
    }
}
