//! The simulated cluster: a job master and task executors on madsim nodes, sharing no
//! memory; everything between them goes through the [`Gateway`](crate::net::Gateway).

mod config;
mod downlink;
mod downstream;
mod exchange;
mod heartbeat;
mod hooks;
pub(crate) mod jobmaster;
mod protocol;
mod reader_alignment;
mod rescale;
mod shape;
mod store;
mod subtask;
pub(crate) mod taskexecutor;
mod tracker;
mod uplink;
mod wall;

pub use config::{CheckpointConfig, Exchange, FailoverStrategy, HeartbeatConfig, JobConfig};
pub use config::{RuntimeBug, SinkParallelism};
pub use exchange::HELD_MS;
pub use hooks::Phase;
pub(crate) use hooks::{Hit, Hooks, JmCommand};
pub use jobmaster::{JobStatus, JobStatusCell};
pub use protocol::{task_executor, SubtaskState, JOB_MASTER};
pub use store::{CheckpointStore, CompletedCheckpoint, NewJobStart};
