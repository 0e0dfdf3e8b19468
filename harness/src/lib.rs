//! connsim: deterministic simulation testing for stream-processing connectors.
//!
//! A connector author implements a [`api::Source`] and/or a [`api::Sink`] (the shape of
//! Flink's FLIP-27 Source API and its two-phase-commit Sink API), describes how to set it up
//! ([`SourceSetup`], [`SinkSetup`]), and runs it over many seeds with a [`Runner`]. Each seed
//! is one deterministic run of a simulated cluster — a job master and task executors on
//! madsim nodes that share no memory — with task-executor crashes and RPC drops, followed by
//! a liveness phase once faults heal. The harness reads the sink's output the way a
//! downstream reader would ([`systems::OutputReader`]) after every request an external
//! system serves, and records what appeared and vanished, content digests included; the
//! checks ([`checks`], in the [`oracle`]) judge the recorded [`history`] against the guarantee the sink
//! declares and return verdicts with evidence. A source read with a watermark strategy
//! ([`api::WatermarkStrategy`]) gets per-split watermarks from the runtime, and the checks
//! also find late records and watermarks that went back; with watermark alignment the
//! runtime pauses splits that run ahead of the slowest reader, and a check finds paused
//! splits that were read all the same.
//!
//! The smallest complete run pairs the two trusted probes:
//!
//! ```
//! use connsim::probes::{CollectorSetup, GeneratorSetup};
//! use connsim::{Pipeline, Runner};
//!
//! let mut runner = Runner::new(Pipeline(GeneratorSetup { splits: 4, records_per_split: 100, ..Default::default() }, CollectorSetup));
//! runner.seeds(3);
//! let outcome = runner.run();
//! outcome.assert_ok(); // panics with the first failing report and its replay line
//! assert!(outcome.reports.iter().all(|r| r.verdict("no-loss").unwrap().passed));
//! ```
//!
//! Replace the generator with your source, or the collector with your sink, to test one
//! connector against a trusted partner. Environment variables are listed in [`run::Env`].
//!
//! What a run does to the cluster is a [`run::Script`]: by default [`run::RandomFaults`]
//! (the configuration's fault profile); the `connsim-scenarios` crate builds scripts from
//! composable blocks. Scripts act through [`run::Control`]: crash and restart nodes (task
//! executors, the job master, external systems), aim crashes at protocol phases
//! ([`cluster::Phase`]), install network faults, trigger checkpoints, stop with a savepoint,
//! rescale, produce data.
//!
//! # A connector's production build
//!
//! Without `--cfg madsim`, the feature `production` builds the connector API alone, without
//! the simulator, so that a connector's crate compiles for production from the same source:
//! [`api`], [`error`], [`record`], [`bytes`], [`history`]'s checkpoint ids, [`time`] (the
//! operating system's clock there) and the log's formats ([`systems::LogEntry`],
//! [`systems::LogHeader`], [`systems::RecordLogFormat`]). The contexts' endpoints, the
//! cluster, the runner, the models and the checks are simulation only. Under madsim the
//! feature changes nothing.
//!
//! ```toml
//! [features]
//! production = ["connsim/production"]
//! ```
#![deny(missing_docs)]
// The connector API's plumbing for the cluster (pause ledgers, watermark trackers, enumerator
// actions) has no user in a production build.
#![cfg_attr(not(madsim), allow(dead_code, unused_imports))]

#[cfg(all(not(madsim), not(feature = "production")))]
compile_error!(
    "connsim only runs inside the madsim simulator. Turn it on with `--cfg madsim`: add \
     `[build] rustflags = [\"--cfg\", \"madsim\"]` and `rustdocflags = [\"--cfg\", \"madsim\"]` \
     to .cargo/config.toml (or set RUSTFLAGS=\"--cfg madsim\"). For a connector's production \
     build without the simulator, turn on connsim's feature `production` instead: it builds \
     the connector API alone (`connsim = { …, features = [\"production\"] }`)."
);

pub mod api;
pub mod bytes;
#[cfg(madsim)]
pub mod cluster;
#[cfg(madsim)]
mod erased;
pub mod error;
pub mod history;
#[cfg(madsim)]
pub mod net;
pub mod record;
#[cfg(madsim)]
pub mod systems;

/// The log's formats, what a connector of the log needs in its production build (the
/// external-system models are simulation only).
#[cfg(not(madsim))]
pub mod systems {
    mod log_entry;
    pub use log_entry::{LogEntry, LogFormat, LogHeader, RecordLogFormat};
}

/// Virtual time inside the simulation (madsim's): `sleep`, `timeout`, `Instant`. A connector
/// waits with these, never with the operating system's clock. (In a production build, without
/// madsim, they are tokio's, on that clock.)
pub mod time {
    pub use madsim::time::*;
}

pub use error::{ConnectorError, RetryHint};
pub use record::{Record, RecordId};
#[cfg(madsim)]
pub mod oracle;
#[cfg(madsim)]
pub use oracle::checks;
#[cfg(madsim)]
pub mod probes;
#[cfg(madsim)]
pub mod run;

#[cfg(madsim)]
pub use run::{Outcome, Pipeline, RunConfig, RunReport, Runner, SinkSetup, SourceSetup, Testbed, World};
