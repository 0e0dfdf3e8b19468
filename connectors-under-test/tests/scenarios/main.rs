//! Scenario blocks against the reference connectors: pinned scenarios with report
//! snapshots, generated scenarios, shrinking and saved cases.
//!
//! `CONNSIM_SEEDS` raises the seed count (e.g. 200 in release, see the README).

mod generated;
mod pinned;
mod reference;
mod saved;

/// Seeds allocate for every message and record; mimalloc serves them faster than the system
/// allocator, as in the `connsim` binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
