//! One consumer group at the coordinator: its state machine (Kafka's classic group states),
//! its members with their deadlines, and the answers parked while a rebalance runs.

use crate::net::Replier;
use std::collections::BTreeMap;

/// Kafka's classic group states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GroupState {
    /// No members (a group may still hold committed offsets).
    Empty,
    /// A rebalance waits for members to rejoin.
    PreparingRebalance,
    /// The join phase ended; the leader's assignment is awaited.
    CompletingRebalance,
    /// Every member has its assignment.
    Stable,
}

impl GroupState {
    pub(crate) fn name(self) -> &'static str {
        match self {
            GroupState::Empty => "Empty",
            GroupState::PreparingRebalance => "PreparingRebalance",
            GroupState::CompletingRebalance => "CompletingRebalance",
            GroupState::Stable => "Stable",
        }
    }
}

/// A member of a group.
pub(crate) struct Member {
    pub(crate) instance_id: Option<String>,
    pub(crate) client_id: String,
    /// The node it connects from.
    pub(crate) client_host: String,
    pub(crate) session_timeout_ms: u64,
    pub(crate) rebalance_timeout_ms: u64,
    pub(crate) protocol_type: String,
    /// Assignors with their metadata, most preferred first.
    pub(crate) protocols: Vec<(String, Vec<u8>)>,
    /// Its assignment in the current generation.
    pub(crate) assignment: Vec<u8>,
    /// No heartbeat (or join, sync) by then removes it, unless it awaits a join answer.
    pub(crate) heartbeat_deadline_ms: u64,
    /// Its `JoinGroup` waiting for the join phase to end.
    pub(crate) awaiting_join: Option<Replier>,
    /// Its `SyncGroup` waiting for the leader's assignment.
    pub(crate) awaiting_sync: Option<Replier>,
}

impl Member {
    /// The metadata it sent for `protocol`.
    pub(crate) fn metadata(&self, protocol: &str) -> Vec<u8> {
        self.protocols.iter().find(|(name, _)| name == protocol).map(|(_, m)| m.clone()).unwrap_or_default()
    }
    pub(crate) fn same_protocols(&self, protocols: &[(String, Vec<u8>)]) -> bool {
        self.protocols == protocols
    }
}

/// One group.
pub(crate) struct Group {
    pub(crate) state: GroupState,
    pub(crate) generation: i32,
    pub(crate) protocol_type: String,
    pub(crate) protocol: Option<String>,
    pub(crate) leader: Option<String>,
    pub(crate) members: BTreeMap<String, Member>,
    /// `group.instance.id` → the member id that holds it (KIP-345).
    pub(crate) statics: BTreeMap<String, String>,
    /// The join phase ends by then whoever has not rejoined (the members' largest
    /// rebalance timeout from its start).
    pub(crate) join_deadline_ms: u64,
    /// An empty group's first join phase lasts at least until then
    /// (`group.initial.rebalance.delay.ms`), so members starting together join one generation.
    pub(crate) join_not_before_ms: u64,
}

impl Group {
    pub(crate) fn new() -> Group {
        Group {
            state: GroupState::Empty,
            generation: 0,
            protocol_type: String::new(),
            protocol: None,
            leader: None,
            members: BTreeMap::new(),
            statics: BTreeMap::new(),
            join_deadline_ms: 0,
            join_not_before_ms: 0,
        }
    }

    /// Whether a member with these protocols may join: the group's protocol type, and an
    /// assignor every member supports (Kafka's `INCONSISTENT_GROUP_PROTOCOL` otherwise).
    pub(crate) fn supports(&self, member_id: &str, protocol_type: &str, protocols: &[(String, Vec<u8>)]) -> bool {
        if protocol_type.is_empty() || protocols.is_empty() {
            return false;
        }
        let others: Vec<&Member> = self.members.iter().filter(|(id, _)| *id != member_id).map(|(_, m)| m).collect();
        if others.is_empty() {
            return true;
        }
        protocol_type == self.protocol_type
            && protocols.iter().any(|(name, _)| others.iter().all(|m| m.protocols.iter().any(|(n, _)| n == name)))
    }

    /// The assignor the members vote for: of those every member supports, each member votes
    /// for its most preferred; the most votes win, ties to the first in the leader's order
    /// (Kafka's `selectProtocol`).
    pub(crate) fn select_protocol(&self) -> Option<String> {
        let first = self.members.values().next()?;
        let candidates: Vec<&String> = first
            .protocols
            .iter()
            .map(|(n, _)| n)
            .filter(|n| self.members.values().all(|m| m.protocols.iter().any(|(p, _)| p == *n)))
            .collect();
        let mut votes: BTreeMap<&String, usize> = BTreeMap::new();
        for m in self.members.values() {
            if let Some((vote, _)) = m.protocols.iter().find(|(n, _)| candidates.contains(&n)) {
                *votes.entry(vote).or_default() += 1;
            }
        }
        let most = votes.values().copied().max()?;
        candidates.into_iter().find(|c| votes.get(c) == Some(&most)).cloned()
    }

    /// Members that have rejoined in this rebalance (their `JoinGroup` is parked).
    pub(crate) fn all_rejoined(&self) -> bool {
        self.members.values().all(|m| m.awaiting_join.is_some())
    }

    /// When a timer of the group is next due, if any.
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        let join = (self.state == GroupState::PreparingRebalance).then(|| {
            if self.all_rejoined() {
                self.join_not_before_ms.min(self.join_deadline_ms)
            } else {
                self.join_deadline_ms
            }
        });
        let sessions =
            self.members.values().filter(|m| m.awaiting_join.is_none()).map(|m| m.heartbeat_deadline_ms).min();
        [join, sessions].into_iter().flatten().min()
    }
}
