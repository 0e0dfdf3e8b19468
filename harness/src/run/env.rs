//! Every environment variable connsim reads, in one place.
//!
//! | variable | meaning |
//! |---|---|
//! | `CONNSIM_SEED` | run only this seed (replay a failure) |
//! | `CONNSIM_SEEDS` | how many seeds to run (overrides the test's own count) |
//! | `CONNSIM_JOBS` | how many seeds run in parallel (default: available cores) |
//! | `CONNSIM_CHECK_DETERMINISM` | `1`: run every seed twice and compare history hashes |
//! | `CONNSIM_DUMP_DIR` | write the history of every failing seed there, as JSON lines |
//! | `CONNSIM_REPLAY` | run only this saved case file (read by the `connsim-scenarios` crate) |
//! | `CONNSIM_CASE` | run only the suite cases whose name contains this (`connsim-scenarios`) |

use std::path::PathBuf;

/// The environment's settings for a runner.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// `CONNSIM_SEED`.
    pub seed: Option<u64>,
    /// `CONNSIM_SEEDS`.
    pub seeds: Option<u64>,
    /// `CONNSIM_JOBS`.
    pub jobs: Option<usize>,
    /// `CONNSIM_CHECK_DETERMINISM`.
    pub check_determinism: bool,
    /// `CONNSIM_DUMP_DIR`.
    pub dump_dir: Option<PathBuf>,
}

fn parse<T: std::str::FromStr>(name: &str) -> Option<T> {
    let raw = std::env::var(name).ok()?;
    match raw.trim().parse() {
        Ok(v) => Some(v),
        Err(_) => panic!("{name}={raw:?} is not valid: expected a non-negative integer"),
    }
}

impl Env {
    /// Reads the process environment; a malformed value panics with a message naming it.
    pub fn from_env() -> Self {
        Self {
            seed: parse("CONNSIM_SEED"),
            seeds: parse("CONNSIM_SEEDS"),
            jobs: parse("CONNSIM_JOBS"),
            check_determinism: std::env::var("CONNSIM_CHECK_DETERMINISM").is_ok_and(|v| v != "0" && !v.is_empty()),
            dump_dir: std::env::var_os("CONNSIM_DUMP_DIR").map(PathBuf::from),
        }
    }
}
