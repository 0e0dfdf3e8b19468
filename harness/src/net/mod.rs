//! The gateway: the only way nodes talk to each other.
//!
//! ```text
//!  node A ── Endpoint::call/send ──▶ Gateway ──(faults, latency, FIFO per link)──▶ Mailbox(B)
//!                                                                                   │ dispatcher task on B
//!                                     Inbox(B) ◀── requests and one-way messages ──┤
//!                                     pending call on A ◀── responses ─────────────┘
//! ```
//!
//! Every message is serialized (bincode) by the sender and deserialized by the receiver,
//! so a serializer bug in a split, a state or a committable shows up as a failed run.
//!
//! Links are FIFO per incarnation, as TCP connections are: a node that restarts opens new
//! links, so what it sends does not queue behind what its previous incarnation sent and is
//! still on its way (a delayed request may land after its sender's next incarnation acted).

pub mod ambient;
mod endpoint;
mod faults;
mod gateway;
mod mailbox;

pub(crate) use endpoint::encode;
pub(crate) use endpoint::ObserveHook;
pub use endpoint::{Endpoint, Inbox, Incoming, Replier, RpcError};
pub use faults::{FaultAction, FaultRule, Refusal, RuleId};
pub use gateway::Gateway;

/// Virtual time elapsed since the simulation started.
pub fn now() -> std::time::Duration {
    madsim::time::TimeHandle::current().elapsed()
}

#[cfg(test)]
mod zombie_tests;
