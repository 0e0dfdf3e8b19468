//! `connsim replay <file>`: reruns a saved case against the catalogue target whose testbed
//! recorded it, and prints its report.

use crate::args::ReplayArgs;
use crate::{random, targets};
use connsim_scenarios::CaseFile;

pub fn run(args: ReplayArgs) -> Result<bool, String> {
    let file = args.file.display().to_string();
    let case = CaseFile::load(&args.file).map_err(|e| e.to_string())?;
    let from_suites = targets::all().into_iter().find_map(|t| (t.make)().replay(&case));
    let report = match from_suites {
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
    println!("{report}");
    let same = format!("{:016x}", report.history_hash) == case.history_hash;
    println!(
        "history hash {:016x} ({} the recorded {})",
        report.history_hash,
        if same { "identical to" } else { "DIFFERENT from" },
        case.history_hash
    );
    Ok(report.passed())
}
