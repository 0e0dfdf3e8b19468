//! `connsim replay <file>`: reruns a saved case against the catalogue target whose testbed
//! recorded it, and prints its report. `connsim timeline <file>` draws the rerun as an HTML
//! timeline.

use crate::args::{ReplayArgs, TimelineArgs};
use crate::random;
use connectors_under_test::catalogue as targets;
use connsim::RunReport;
use connsim_scenarios::CaseFile;
use std::path::Path;

/// Reruns the case file at `path` against its catalogue target.
fn rerun(path: &Path) -> Result<(CaseFile, RunReport), String> {
    let file = path.display().to_string();
    let case = CaseFile::load(path).map_err(|e| e.to_string())?;
    let from_suites = targets::all().into_iter().find_map(|t| (t.make)().replay(&case));
    let mut report = match from_suites {
        Some(r) => r,
        None => match random::all().into_iter().find(|t| t.testbed == case.testbed) {
            Some(t) => (t.replay)(&case),
            None => {
                return Err(format!(
                    "case file {file}: its testbed {:?} is not in the catalogue; replay it from the test that \
                     recorded it: CONNSIM_REPLAY={file} cargo test",
                    case.testbed
                ))
            }
        },
    };
    // What reruns it is this command again.
    report.replay = format!("cargo run --release -p connsim-cli -- replay {}", connsim::run::shell_quote(&file));
    Ok((case, report))
}

/// How the rerun's history compares with the recorded one.
fn hash_line(case: &CaseFile, report: &RunReport) -> String {
    let same = format!("{:016x}", report.history_hash) == case.history_hash;
    format!(
        "history hash {:016x} ({} the recorded {})",
        report.history_hash,
        if same { "identical to" } else { "DIFFERENT from" },
        case.history_hash
    )
}

pub fn run(args: ReplayArgs) -> Result<bool, String> {
    let (case, report) = rerun(&args.file)?;
    println!("{report}");
    println!("{}", hash_line(&case, &report));
    Ok(report.passed())
}

/// `connsim timeline <file> [--out PAGE]`: the rerun's HTML timeline, beside the case file
/// unless `--out` says where.
pub fn timeline(args: TimelineArgs) -> Result<bool, String> {
    let (case, report) = rerun(&args.file)?;
    let Some(html) = connsim::run::timeline_html(&report) else {
        return Err(format!(
            "case file {}: it passes now ({}), so there is no failing history to draw",
            args.file.display(),
            hash_line(&case, &report)
        ));
    };
    let out = match args.out {
        Some(out) => std::fs::write(&out, html).map(|()| out),
        None => connsim_scenarios::suites::write_timeline(&args.file, &html),
    };
    let out = out.map_err(|e| format!("{}: cannot write the timeline: {e}", args.file.display()))?;
    println!("{}", hash_line(&case, &report));
    println!("timeline: {}", out.display());
    Ok(true)
}
