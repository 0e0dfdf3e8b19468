//! The harness's integration tests, one module per concern, in one test binary (one link
//! instead of one per file: a change relinks the simulated cluster once).
//! `cargo test -p connsim --test it <module>::` runs one module's tests.

mod alignment;
mod bad_input;
mod call_async;
mod checkpoint_notifications;
mod close;
mod committers;
mod common;
mod conformance;
mod determinism_check;
mod engine_only;
mod enumerator_contract;
mod enumerator_start;
mod erased_runner;
mod event_time;
mod exchange;
mod gateway;
mod layout;
mod models;
mod no_progress;
mod no_shared_memory;
mod output_readers;
mod periodic_calls;
mod serde_wall;
mod source_events;
mod valve;

/// Seeds allocate for every message and record; mimalloc serves them faster than the system
/// allocator, as in the `connsim` binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
