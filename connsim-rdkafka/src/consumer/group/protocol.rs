//! The consumer protocol inside a group's member metadata and assignments: what a member
//! subscribes to and owns (KIP-429's owned partitions, with the generation it owned them in),
//! and the partitions the leader assigns it. The coordinator never reads these bytes; only
//! members do, so connsim's clients write them in their own layout.

use serde::{Deserialize, Serialize};

/// The protocol type consumers join a group with.
pub(crate) const PROTOCOL_TYPE: &str = "consumer";

/// What a member tells the leader (`ConsumerProtocolSubscription`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Subscription {
    /// The topics it subscribes to, regular expressions resolved.
    pub(crate) topics: Vec<String>,
    /// The partitions it owns now (cooperative protocol; empty under eager).
    pub(crate) owned: Vec<(String, u32)>,
    /// The generation it owned them in (`ConsumerProtocolSubscription` v2): of two members
    /// claiming a partition, the newer generation's claim wins.
    pub(crate) generation: i32,
}

/// What the leader assigns a member (`ConsumerProtocolAssignment`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Assignment {
    /// Its partitions.
    pub(crate) partitions: Vec<(String, u32)>,
}

pub(crate) fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    bincode::serialize(value).expect("the consumer protocol serializes")
}

/// Decodes metadata or an assignment; bytes that do not decode (another client's layout) are
/// an empty one, as a member that sent nothing usable.
pub(crate) fn decode<T: for<'de> Deserialize<'de> + Default>(bytes: &[u8]) -> T {
    if bytes.is_empty() {
        return T::default();
    }
    bincode::deserialize(bytes).unwrap_or_default()
}
