//! Saved failures: a case file holds the seed, the scenario, the configuration, the testbed's
//! name and the connsim version, plus what failed and the history hash. Commit case files
//! next to the test (like proptest-regressions); they rerun first on every later run, and
//! `CONNSIM_REPLAY=<file>` replays one. A checksum guards against edits and corruption.

use crate::scenario::Scenario;
use connsim::run::{AnyTestbed, RunConfig, RunReport, Runner};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The case-file format this connsim reads and writes.
pub const FORMAT: u32 = 1;

/// The environment variable naming one case file to replay.
pub const REPLAY_VAR: &str = "CONNSIM_REPLAY";

/// `CONNSIM_REPLAY`, if set.
pub fn env_file() -> Option<PathBuf> {
    std::env::var_os(REPLAY_VAR).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// A saved case could not be used; says which file and what is wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong, and what to do.
    pub problem: String,
}

/// Writes the HTML timeline of `report` beside the case file at `case` (same name, `.html`),
/// if the report kept its history; says on stderr if it could not. Returns the page's path.
pub fn save_timeline(case: &Path, report: &RunReport) -> Option<PathBuf> {
    let html = connsim::run::timeline_html(report)?;
    let path = case.with_extension("html");
    match std::fs::write(&path, html) {
        Ok(()) => Some(path),
        Err(e) => {
            eprintln!("connsim: could not write the timeline {}: {e}", path.display());
            None
        }
    }
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "connsim case file {}: {}", self.path.display(), self.problem)
    }
}

impl std::error::Error for ReplayError {}

/// What a case file records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseBody {
    /// The connsim version that recorded it.
    pub connsim_version: String,
    /// The testbed's name (a case reruns only against the same testbed).
    pub testbed: String,
    /// The seed.
    pub seed: u64,
    /// The scenario.
    pub scenario: Scenario,
    /// The configuration.
    pub config: RunConfig,
    /// Checks that failed when it was recorded.
    pub failed_checks: Vec<String>,
    /// The history hash when it was recorded (hex).
    pub history_hash: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct OnDisk {
    format: u32,
    checksum: String,
    case: CaseBody,
}

/// A saved case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseFile {
    /// What it records.
    pub body: CaseBody,
    /// Where it was loaded from, if it was.
    pub path: Option<PathBuf>,
}

impl std::ops::Deref for CaseFile {
    type Target = CaseBody;
    fn deref(&self) -> &CaseBody {
        &self.body
    }
}

fn checksum(body: &CaseBody) -> String {
    let bytes = serde_json::to_vec(body).expect("case bodies serialize");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn slug(s: &str) -> String {
    let mut out: String =
        s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    while out.contains("--") {
        out = out.replace("--", "-");
    }
    out.trim_matches('-').chars().take(60).collect()
}

impl CaseFile {
    /// The case a failing report describes.
    pub fn from_report(scenario: &Scenario, report: &RunReport) -> Self {
        Self {
            body: CaseBody {
                connsim_version: env!("CARGO_PKG_VERSION").to_string(),
                testbed: report.testbed.clone(),
                seed: report.seed,
                scenario: scenario.clone(),
                config: report.config.clone(),
                failed_checks: report.failed_checks().iter().map(|s| s.to_string()).collect(),
                history_hash: format!("{:016x}", report.history_hash),
            },
            path: None,
        }
    }

    /// The file name it is saved under.
    pub fn file_name(&self) -> String {
        format!("{}--{}--seed-{}.json", slug(&self.scenario.name), slug(&self.testbed), self.seed)
    }

    /// The file's contents.
    pub fn to_json(&self) -> String {
        let disk = OnDisk { format: FORMAT, checksum: checksum(&self.body), case: self.body.clone() };
        serde_json::to_string_pretty(&disk).expect("case files serialize") + "\n"
    }

    /// Writes it into `dir` (created if missing); returns the path.
    pub fn save(&self, dir: &Path) -> Result<PathBuf, ReplayError> {
        let path = dir.join(self.file_name());
        if !self.config.verification.is_full() {
            let problem =
                "not saved: the run had verification off (a bench mode that checks nothing), and a replay of it \
                 would pass whatever the connector did; rerun the seed with verification on to record a case"
                    .to_string();
            return Err(ReplayError { path, problem });
        }
        let err = |e: std::io::Error| ReplayError { path: path.clone(), problem: format!("cannot write it: {e}") };
        std::fs::create_dir_all(dir).map_err(err)?;
        std::fs::write(&path, self.to_json()).map_err(err)?;
        Ok(path)
    }

    /// Reads a case file; every way it can be unusable gives an error naming the file and
    /// the problem.
    pub fn load(path: &Path) -> Result<Self, ReplayError> {
        let fail = |problem: String| ReplayError { path: path.to_path_buf(), problem };
        let text = std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read it: {e}")))?;
        Self::parse(&text)
            .map(|mut c| {
                c.path = Some(path.to_path_buf());
                c
            })
            .map_err(fail)
    }

    /// Parses a case file's contents.
    pub fn parse(text: &str) -> Result<Self, String> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            format!("it is not valid JSON ({e}); the file is corrupted or truncated: restore it from version control or delete it")
        })?;
        match value.get("format").and_then(|f| f.as_u64()) {
            Some(f) if f == FORMAT as u64 => {}
            Some(f) => {
                return Err(format!(
                    "it has case-file format {f}, but this connsim ({}) reads format {FORMAT}: rerun the scenario to record it again",
                    env!("CARGO_PKG_VERSION")
                ))
            }
            None => return Err("it has no \"format\" field: it is not a connsim case file".into()),
        }
        let disk: OnDisk = serde_json::from_value(value)
            .map_err(|e| format!("it does not describe a case this connsim understands ({e}): record it again"))?;
        let expected = checksum(&disk.case);
        if disk.checksum != expected {
            return Err(format!(
                "its checksum is {} but its contents hash to {expected}: the file was edited or corrupted; restore it, or \
                 delete it and record the case again",
                disk.checksum
            ));
        }
        disk.case.scenario.validate()?;
        if !disk.case.config.verification.is_full() {
            return Err("its configuration turns verification off (a bench mode that keeps no history and runs no \
                 check): a replay would pass whatever the connector did; remove \"verification\" from the \
                 configuration, or record the case again"
                .into());
        }
        Ok(Self { body: disk.case, path: None })
    }

    /// Every case file in `dir` (none if it does not exist), in name order.
    pub fn load_dir(dir: &Path) -> Result<Vec<Self>, ReplayError> {
        let Ok(entries) = std::fs::read_dir(dir) else { return Ok(Vec::new()) };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        paths.iter().map(|p| Self::load(p)).collect()
    }

    /// Runs the case with the runner's testbed (which must be the one it was recorded
    /// with), its own seed, configuration and scenario.
    pub fn replay<T: AnyTestbed + ?Sized>(&self, runner: &Runner<T>) -> RunReport {
        let testbed = runner.testbed_name();
        if testbed != self.testbed {
            let at = self.path.as_ref().map_or("<memory>".into(), |p| p.display().to_string());
            panic!(
                "connsim case file {at}: it was recorded against testbed {:?}, but this runner's testbed is {testbed:?}; \
                 replay it from the test that recorded it",
                self.testbed
            );
        }
        let mut report = runner.run_with(self.seed, &self.config, Arc::new(self.scenario.clone()));
        // What reruns this report is the case file, not its seed under today's scenario.
        if let (Some(path), Some(command)) = (&self.path, connsim::run::rerun_command()) {
            let path = connsim::run::shell_quote(&path.display().to_string());
            report.replay = format!("{REPLAY_VAR}={path} {command}");
        }
        report
    }
}
