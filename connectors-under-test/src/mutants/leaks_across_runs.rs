//! **State that outlives a run**: the source's fetch size comes from a process-wide
//! counter, so every run in the same process reads in batches of another size.
//!
//! Story: a connector that keeps something in a `static` (a client pool, a cache, a counter
//! for ids or backoff) carries it from one run into the next. Each run is still correct,
//! but a seed no longer describes the run: the same seed in a fresh process (the printed
//! rerun line) does something else, so a failure may not reproduce.
//!
//! Caught by: the determinism self-check (`CONNSIM_CHECK_DETERMINISM=1`, or
//! `Suite::check_determinism`), which runs every seed twice and compares the histories.
//! No check of the run fails: the records all arrive, once each.

use super::buggy_log_source::LogBug;
use crate::log_source::LogSource;
use std::sync::atomic::{AtomicUsize, Ordering};

static SOURCES_BUILT: AtomicUsize = AtomicUsize::new(0);

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct LeaksAcrossRuns;

impl LogBug for LeaksAcrossRuns {
    const NAME: &'static str = "leaks-across-runs";
    fn source(&self, mut source: LogSource) -> LogSource {
        // The bug: a process-wide count decides how the run reads.
        source.fetch_max = 1 + SOURCES_BUILT.fetch_add(1, Ordering::Relaxed) % 5;
        source
    }
}
