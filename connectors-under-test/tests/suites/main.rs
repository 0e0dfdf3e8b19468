//! The ready-made suites against every reference connector, and the mutant catalogue
//! against them. `CONNSIM_SEEDS=200 cargo test --release -p connectors-under-test --test suites`
//! runs 200 seeds per case (see the README).

mod alignment;
mod determinism;
mod event_time;
mod exchange;
mod kafka_mutants;
mod mutants;
mod new_jobs;
mod object_sink_mutants;
mod pacing;
mod reference;
mod runtime_mutants;
mod table_mutants;

/// Seeds allocate for every message and record; mimalloc serves them faster than the system
/// allocator, as in the `connsim` binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
