//! Scenarios for connsim: blocks that compose like building blocks, generated scenarios that
//! shrink to a minimal failing script, and saved cases that rerun first and replay exactly.
//!
//! ```text
//!  Scenario::new("…").then(block).then(block)…      blocks: values (serde, Debug, to_rust)
//!        │ is a connsim::run::Script
//!        ▼
//!  Runner (seeds) ──▶ Block::run(&Control) per block ──▶ heal, liveness phase, checks
//!        │ failure                                          │
//!        ▼                                                  ▼
//!  CaseFile (seed + scenario + config) ◀── saved      generate::search ──▶ shrink (seed fixed)
//! ```
//!
//! A scenario aimed at a fault path, run over a few seeds against the reference pipeline:
//!
//! ```
//! use connsim_scenarios::prelude::*;
//! use connsim::probes::{CollectorSetup, GeneratorSetup};
//! use connsim::run::{Pipeline, Runner};
//!
//! let scenario = Scenario::new("crash after prepare")
//!     .then(checkpoint())
//!     .then(crash(Worker::Any).at(Phase::AfterPrepareCommit).restart_after(30))
//!     .then(wait(100))
//!     .requires("crash-at:after-prepare-commit");
//! let mut runner = Runner::new(Pipeline(
//!     GeneratorSetup { splits: 4, records_per_split: 1_000, ..Default::default() },
//!     CollectorSetup,
//! ));
//! runner.seeds(3);
//! scenario.run(&mut runner).assert_ok();
//! println!("{}", scenario.to_rust()); // the scenario as paste-able Rust
//! ```

#![deny(missing_docs)]

pub mod block;
pub mod generate;
mod interpret;
pub mod job;
pub mod replay;
mod rust;
mod scenario;
pub mod suites;

pub use block::{Block, Crash, Fault, NewJobFrom, Target, Worker};
pub use job::JobSettings;
pub use replay::{CaseFile, ReplayError};
pub use scenario::{Scenario, ScenarioOutcome};

/// Everything a scenario needs in scope; printed scenarios assume `use connsim_scenarios::prelude::*;`.
pub mod prelude {
    pub use crate::block::*;
    pub use crate::scenario::Scenario;
    pub use connsim::cluster::Exchange;
    pub use connsim::cluster::Phase;
    pub use connsim::net::Refusal;
    pub use connsim::record::DataKind;
    pub use connsim::run::Spread;
    pub use connsim::systems::{Alteration, Column, ColumnType, Setting, TxnProtocol};
}
