//! Job configuration.

use serde::{Deserialize, Serialize};

/// How the job master recovers from a failed subtask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailoverStrategy {
    /// Restart only the failed subtasks from the last completed checkpoint; splits assigned
    /// to them since then go back through `add_splits_back`.
    Region,
    /// Restart every subtask and the enumerator from the last completed checkpoint.
    Global,
}

/// Settings of the simulated job. Documented field by field; printed in every report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobConfig {
    /// Number of subtasks (one task executor each).
    pub parallelism: usize,
    /// Virtual time between checkpoint triggers.
    pub checkpoint_interval_ms: u64,
    /// A checkpoint not complete after this long is aborted.
    pub checkpoint_timeout_ms: u64,
    /// Recovery strategy.
    pub failover: FailoverStrategy,
    /// Virtual time between heartbeats to each task executor.
    pub heartbeat_interval_ms: u64,
    /// Consecutive missed heartbeats after which a task executor counts as lost.
    pub heartbeat_misses_max: u32,
    /// Hold back enumerator events between its snapshot and the barrier (always on in real
    /// use). Off only in connsim's own tests, to show the split-accounting check catches
    /// what the valve prevents.
    #[serde(default = "yes")]
    pub coordinator_valve: bool,
}

fn yes() -> bool {
    true
}

impl Default for JobConfig {
    fn default() -> Self {
        Self {
            parallelism: 4,
            checkpoint_interval_ms: 100,
            checkpoint_timeout_ms: 400,
            failover: FailoverStrategy::Region,
            heartbeat_interval_ms: 50,
            heartbeat_misses_max: 3,
            coordinator_valve: true,
        }
    }
}
