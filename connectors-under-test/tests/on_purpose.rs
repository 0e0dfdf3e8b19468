//! A suite that fails on purpose, through the suite harness: the premature-commit mutant's
//! sink suite, its tests ignored. `scripts/check-replay-lines` (run by CI) runs one with
//! `--ignored`, checks that it saved one case file, and runs every rerun command the
//! failure printed, as printed, expecting the same seed to fail the same way.

use connectors_under_test::contexts;
use connectors_under_test::mutants::PrematureCommitSetup;
use connsim_scenarios::suites;

fn main() -> std::process::ExitCode {
    let dir = concat!(env!("CARGO_TARGET_TMPDIR"), "/on-purpose");
    let suite = suites::sink(contexts::sink(PrematureCommitSetup, &["fs"]))
        .named("premature_commit")
        .seeds(3)
        .save_failures(dir)
        .ignored();
    suites::harness::main(vec![suite])
}
