//! Run configuration: the job, the network and the fault profile. Serializable, so every
//! report prints exactly what ran.

use crate::cluster::JobConfig;
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
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            job: JobConfig::default(),
            latency_ms_min: 1,
            latency_ms_max: 3,
            faults: FaultConfig::default(),
            liveness_ms: 30_000,
        }
    }
}
