//! Run configuration: the job, the network and the fault profile. Serializable, so every
//! report prints exactly what ran.

use crate::cluster::JobConfig;
use crate::record::DataKind;
use serde::{Deserialize, Serialize};

/// Faults injected during the safety phase.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FaultConfig {
    /// Virtual duration of the safety phase, during which faults are injected.
    pub safety_ms: u64,
    /// Mean virtual time between task-executor crashes (0: no crashes).
    pub crash_interval_ms_mean: u64,
    /// A crashed task executor restarts after up to this long.
    pub restart_delay_ms_max: u64,
    /// Chance that any one message is dropped during the safety phase.
    pub rpc_drop_probability: f64,
}

impl FaultConfig {
    /// No faults at all.
    pub fn none() -> Self {
        Self { safety_ms: 0, crash_interval_ms_mean: 0, restart_delay_ms_max: 0, rpc_drop_probability: 0.0 }
    }
}

impl Default for FaultConfig {
    fn default() -> Self {
        Self { safety_ms: 1_500, crash_interval_ms_mean: 400, restart_delay_ms_max: 100, rpc_drop_probability: 0.02 }
    }
}

/// Everything that shapes one run besides the seed and the testbed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// The job.
    pub job: JobConfig,
    /// Smallest per-message network latency.
    pub latency_ms_min: u64,
    /// Largest per-message network latency.
    pub latency_ms_max: u64,
    /// The fault profile.
    pub faults: FaultConfig,
    /// Virtual time the job gets to converge after faults heal, before it counts as stuck.
    pub liveness_ms: u64,
    /// How much of the verification runs beside the engine (default: all of it).
    #[serde(default, skip_serializing_if = "Verification::is_full")]
    pub verification: Verification,
    /// Whether the run makes a loss unavoidable (a scenario's `loss_may_be_declared`): a loss
    /// the connector declares then passes `declared-loss`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub declared_loss_allowed: bool,
    /// Which data the run's records have (default: shaped as real systems hold it).
    #[serde(default, skip_serializing_if = "DataKind::is_real")]
    pub data: DataKind,
}

/// What runs beside the engine (the cluster, the systems, the gateway and the faults).
///
/// [`Verification::Off`] is a bench mode: it measures what the engine alone costs. A run
/// without verification keeps no history, reads no output and runs no check; its report says
/// only whether the run panicked, whether its job failed and whether a bounded job finished;
/// a fingerprint of how it ended stands in for the history hash.
/// It can never find a lost or duplicated record, so never test a connector with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verification {
    /// The history, the observed output and every check (what a test runs).
    #[default]
    Full,
    /// The engine alone: no history kept, no output observed, no checks; bounded jobs only.
    Off,
}

impl Verification {
    /// Whether everything is on (the default, left out of a saved configuration).
    pub fn is_full(&self) -> bool {
        *self == Verification::Full
    }
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            job: JobConfig::default(),
            latency_ms_min: 1,
            latency_ms_max: 3,
            faults: FaultConfig::default(),
            liveness_ms: 30_000,
            verification: Verification::Full,
            declared_loss_allowed: false,
            data: DataKind::Real,
        }
    }
}
