//! Running a testbed over many seeds.
//!
//! ```text
//!  Runner ──one fresh thread per seed──▶ simulate(seed) ──▶ madsim runtime (seeded)
//!                                          │ builds World: external systems, data, connectors
//!                                          │ starts nodes, runs the Script through Control
//!                                          │ (RandomFaults by default; scenario blocks)
//!                                          │ heals, waits for convergence (liveness phase)
//!                                          ▼
//!                                       checks ──▶ RunReport (verdicts, timeline, replay line)
//! ```

mod any_testbed;
mod build_profile;
mod cargo_targets;
mod config;
mod control;
mod env;
mod html;
mod report;
mod rerun;
mod runner;
mod script;
mod shorten;
mod simulate;
mod testbed;

pub use crate::oracle::{marks, Expected, LeaveBehind, StartPosition, Starts};
pub use any_testbed::AnyTestbed;
pub use config::{FaultConfig, RunConfig, Verification};
pub use control::{Control, Spread, SETTLE_BOUNDED_MS};
pub use env::Env;
pub use html::timeline_html;
pub use report::{Cost, RunReport, RunStats};
pub use rerun::{cargo_test, rerun_command, set_rerun_command, shell_quote, with_rerun_command};
pub use runner::{Outcome, Runner};
pub use script::{RandomFaults, Script, ScriptFuture};
pub use simulate::{simulate, simulate_script};
pub use testbed::{
    declared_guarantee, declared_watermarks, has_global_committer, sink_systems, sink_systems_with, source_systems,
    source_systems_with, Pipeline, Producer, RecordMaker, SinkSetup, SourceSetup, Testbed, World,
};
