//! The group coordinator's requests and answers, as Kafka's classic group protocol has them
//! (`JoinGroup`, `SyncGroup`, `Heartbeat`, `LeaveGroup`, `ListGroups`, `DescribeGroups`,
//! `DeleteGroups`). Member metadata and assignments are bytes the coordinator never reads:
//! the consumer protocol inside them is the clients' business, as on a broker.

use super::super::KafkaCode;
use serde::{Deserialize, Serialize};

/// Who a request speaks for: a member of a group in a generation (what `OffsetCommit`,
/// `TxnOffsetCommit`, `SyncGroup` and `Heartbeat` carry). A commit without one is a simple
/// commit (generation -1, no member id), allowed only while the group has no members.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberIdentity {
    /// The generation the member believes the group is in.
    pub generation: i32,
    /// The member id the coordinator handed out.
    pub member_id: String,
    /// `group.instance.id` of a static member (KIP-345).
    pub instance_id: Option<String>,
}

/// A `JoinGroup` request.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JoinRequest {
    /// The group.
    pub group: String,
    /// Empty for a member joining for the first time; else the id it was given.
    pub member_id: String,
    /// `group.instance.id` (KIP-345).
    pub instance_id: Option<String>,
    /// `client.id`.
    pub client_id: String,
    /// `"consumer"` for consumers.
    pub protocol_type: String,
    /// The assignors the member supports, most preferred first, each with its metadata.
    pub protocols: Vec<(String, Vec<u8>)>,
    /// `session.timeout.ms`: no heartbeat for this long removes the member.
    pub session_timeout_ms: u64,
    /// `max.poll.interval.ms` for consumers (KIP-62): how long a rebalance waits for it.
    pub rebalance_timeout_ms: u64,
}

/// Requests to the group coordinator.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum GroupRequest {
    /// `JoinGroup`: joins, or rejoins for a rebalance. The answer waits until the rebalance's
    /// join phase ends (every member rejoined, or the rebalance timeout passed).
    Join(JoinRequest),
    /// `SyncGroup`: the leader hands in every member's assignment; each member gets its own.
    /// A follower's answer waits for the leader's.
    Sync {
        /// The group.
        group: String,
        /// The member and the generation its join answer gave.
        member: MemberIdentity,
        /// From the leader: `(member id, assignment)`; from the others: empty.
        assignments: Vec<(String, Vec<u8>)>,
    },
    /// `Heartbeat`: the member is alive; the answer says whether a rebalance is under way.
    Heartbeat {
        /// The group.
        group: String,
        /// The member.
        member: MemberIdentity,
    },
    /// `LeaveGroup` (v3+: several members at once, KIP-345).
    Leave {
        /// The group.
        group: String,
        /// `(member id, group.instance.id)` of each member leaving.
        members: Vec<(String, Option<String>)>,
    },
    /// `ListGroups`.
    List,
    /// `DescribeGroups`.
    Describe {
        /// The groups.
        groups: Vec<String>,
    },
    /// `DeleteGroups`: an empty group and its committed offsets.
    Delete {
        /// The groups.
        groups: Vec<String>,
    },
}

impl GroupRequest {
    /// The message kind fault rules and the history name the request by.
    pub fn kind(&self) -> &'static str {
        match self {
            GroupRequest::Join(_) => "kafka.join_group",
            GroupRequest::Sync { .. } => "kafka.sync_group",
            GroupRequest::Heartbeat { .. } => "kafka.heartbeat",
            GroupRequest::Leave { .. } => "kafka.leave_group",
            GroupRequest::List => "kafka.list_groups",
            GroupRequest::Describe { .. } => "kafka.describe_groups",
            GroupRequest::Delete { .. } => "kafka.delete_groups",
        }
    }
}

/// One member in the leader's `JoinGroup` answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinedMember {
    /// Its member id.
    pub member_id: String,
    /// Its `group.instance.id`.
    pub instance_id: Option<String>,
    /// Its metadata for the chosen protocol.
    pub metadata: Vec<u8>,
}

/// A `JoinGroup` answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Joined {
    /// The new generation.
    pub generation: i32,
    /// The protocol (assignor) the group chose.
    pub protocol: String,
    /// The leader's member id.
    pub leader: String,
    /// The member's own id (new for a first join).
    pub member_id: String,
    /// Every member with its metadata, for the leader only; empty for the others.
    pub members: Vec<JoinedMember>,
}

/// One member of a described group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DescribedMember {
    /// Its member id.
    pub member_id: String,
    /// Its `group.instance.id`.
    pub instance_id: Option<String>,
    /// Its `client.id`.
    pub client_id: String,
    /// Where it connects from (its node).
    pub client_host: String,
    /// Its metadata for the group's protocol.
    pub metadata: Vec<u8>,
    /// Its assignment in the current generation.
    pub assignment: Vec<u8>,
}

/// A described group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DescribedGroup {
    /// The group.
    pub name: String,
    /// Refused for this group (`GROUP_ID_NOT_FOUND` when describing, as `DescribeGroups` v5
    /// answers a group the coordinator does not know: `Dead`).
    pub error: Option<KafkaCode>,
    /// Kafka's state name: `Empty`, `PreparingRebalance`, `CompletingRebalance`, `Stable`,
    /// `Dead`.
    pub state: String,
    /// `"consumer"`, or empty for a group that only committed offsets.
    pub protocol_type: String,
    /// The chosen protocol, empty when none.
    pub protocol: String,
    /// Its members.
    pub members: Vec<DescribedMember>,
}

/// The group coordinator's answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GroupResponse {
    /// `JoinGroup`.
    Joined(Joined),
    /// `SyncGroup`: the member's assignment.
    Synced {
        /// The assignment's bytes.
        assignment: Vec<u8>,
    },
    /// `Heartbeat`, `LeaveGroup`: done.
    Ok,
    /// `ListGroups`: `(group, protocol type, state)`.
    Listed(Vec<(String, String, String)>),
    /// `DescribeGroups`.
    Described(Vec<DescribedGroup>),
    /// `DeleteGroups`: per group, refused with a code or deleted.
    Deleted(Vec<(String, Option<KafkaCode>)>),
}
