//! Behind an exchange: a writer that snapshots at the first barrier, instead of once the
//! barrier came on every channel, puts records of slower channels into the next
//! checkpoint; their readers' positions are already past them, so a failover in between
//! loses them. With a single split only one channel carries records, and nothing is lost.
//!
//! A slow sink backpressures the source through the exchange: a reference source loses
//! nothing while held back (a mutant that does is in `mutants.rs`).

use crate::mutants::mutant;
use connectors_under_test::contexts;
use connsim_scenarios::suites;

#[test]
fn a_writer_snapshotting_at_the_first_barrier_loses_records() {
    // log-source -> txn-log-sink over a rebalance, with barriers taken unaligned.
    let unaligned = || mutant("mutant (runtime): writer snapshots at the first barrier", "no-loss");
    let outcome = unaligned().only("task failure mid-stream (region)").seeds(20).run();
    let (case, report) = outcome.caught_by("no-loss").unwrap_or_else(|| panic!("not caught:\n{outcome}"));
    assert_eq!(case, "task failure mid-stream (region)");
    assert_eq!(report.failed_checks(), ["no-loss"], "{report}");
    assert!(report.marks.iter().any(|m| m == "restore-from-checkpoint"), "{report}");
    // It needs records on more than one channel.
    let single = unaligned().only("single split").seeds(20).run();
    single.assert_ok();
}

/// The case a slow sink backpressures the source in.
pub const BACKPRESSURE: &str = "a slow sink backpressures the source";

#[test]
fn the_reference_log_source_loses_nothing_while_backpressured() {
    let outcome = suites::source(contexts::log_source()).only(BACKPRESSURE).seeds(20).run();
    print!("{outcome}");
    outcome.assert_ok();
    assert_eq!(outcome.cases.len(), 1, "the case ran");
    let marks = |m: &str| outcome.cases[0].reports.iter().filter(|r| r.marks.iter().any(|x| x == m)).count();
    assert_eq!(marks("backpressure-held"), 20, "every seed's readers were held back 100 ms or more");
}
