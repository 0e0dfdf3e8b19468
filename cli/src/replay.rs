//! `connsim replay <file>`: reruns a saved case against the catalogue target whose testbed
//! recorded it, and prints its report.

use crate::targets;
use connsim_scenarios::CaseFile;
use std::path::Path;

pub fn run(file: &str) -> Result<bool, String> {
    let case = CaseFile::load(Path::new(file)).map_err(|e| e.to_string())?;
    let targets = targets::all();
    let Some(target) = targets.iter().find(|t| t.testbed == case.testbed) else {
        return Err(format!(
            "case file {file}: its testbed {:?} is not in the catalogue; replay it from the test that recorded it: \
             CONNSIM_REPLAY={file} cargo test",
            case.testbed
        ));
    };
    let report = (target.replay)(&case);
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
