//! The example connector's tests other than its suites, in one ordinary test binary (a
//! module per concern): the suites run in `tests/suite.rs`, a `harness = false` binary with a
//! test per case; everything written as `#[test]` functions goes here, so the crate links two
//! test binaries, not one per file.

mod catches;
mod conformance;
mod event_time;
mod mutants;
