//! connsim: deterministic simulation testing for stream-processing connectors.
#![deny(missing_docs)]

#[cfg(not(madsim))]
compile_error!(
    "connsim only runs inside the madsim simulator. Turn it on with `--cfg madsim`: add \
     `[build] rustflags = [\"--cfg\", \"madsim\"]` and `rustdocflags = [\"--cfg\", \"madsim\"]` \
     to .cargo/config.toml (or set RUSTFLAGS=\"--cfg madsim\")."
);

pub mod api;
pub mod cluster;
pub mod error;
pub mod history;
pub mod net;
pub mod record;
pub mod systems;

pub use error::{ConnectorError, RetryHint};
pub use record::{Record, RecordId};
pub mod checks;
pub mod probes;
pub mod run;

pub use run::{Outcome, Pipeline, RunConfig, RunReport, Runner, SinkSetup, SourceSetup, Testbed, World};
