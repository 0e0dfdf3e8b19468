//! `rdkafka::groups`: the cluster's consumer groups and their members, as
//! `fetch_group_list` answers them (`ListGroups`, then `DescribeGroups`).

use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::util::Timeout;
use crate::wire::{deadline, Wire};
use connsim::systems::{DescribedGroup, DescribedMember, GroupRequest, GroupResponse, KafkaRequest, KafkaResponse};

/// A member of a group (`rdkafka::groups::GroupMemberInfo`).
#[derive(Debug)]
pub struct GroupMemberInfo(DescribedMember);

impl GroupMemberInfo {
    /// Its member id.
    pub fn id(&self) -> &str {
        &self.0.member_id
    }
    /// Its `client.id`.
    pub fn client_id(&self) -> &str {
        &self.0.client_id
    }
    /// The host it connects from.
    pub fn client_host(&self) -> &str {
        &self.0.client_host
    }
    /// Its metadata for the group's protocol.
    pub fn metadata(&self) -> Option<&[u8]> {
        (!self.0.metadata.is_empty()).then_some(self.0.metadata.as_slice())
    }
    /// Its assignment.
    pub fn assignment(&self) -> Option<&[u8]> {
        (!self.0.assignment.is_empty()).then_some(self.0.assignment.as_slice())
    }
}

/// A group (`rdkafka::groups::GroupInfo`).
#[derive(Debug)]
pub struct GroupInfo {
    group: DescribedGroup,
    members: Vec<GroupMemberInfo>,
}

impl GroupInfo {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.group.name
    }
    /// Its members.
    pub fn members(&self) -> &[GroupMemberInfo] {
        &self.members
    }
    /// Its state (`Stable`, `PreparingRebalance`, `Empty`, …).
    pub fn state(&self) -> &str {
        &self.group.state
    }
    /// Its protocol (assignor).
    pub fn protocol(&self) -> &str {
        &self.group.protocol
    }
    /// Its protocol type (`consumer`).
    pub fn protocol_type(&self) -> &str {
        &self.group.protocol_type
    }
}

/// The groups `fetch_group_list` found (`rdkafka::groups::GroupList`). Like rdkafka's it is
/// not `Send`: take what you need from it before an `.await` in a task that must be.
#[derive(Debug)]
pub struct GroupList(Vec<GroupInfo>, std::marker::PhantomData<*const ()>);

impl GroupList {
    /// The groups.
    pub fn groups(&self) -> &[GroupInfo] {
        &self.0
    }
}

/// librdkafka's `rd_kafka_list_groups`: every group (or the one named), described.
pub(crate) async fn fetch(wire: &Wire, group: Option<&str>, timeout: Timeout) -> KafkaResult<GroupList> {
    let until = deadline(timeout);
    let failed = |code| Err(KafkaError::GroupListFetch(code));
    let names = match group {
        Some(g) => vec![g.to_string()],
        None => match wire.call_until(&KafkaRequest::Group(GroupRequest::List), until).await {
            Some(KafkaResponse::Group(GroupResponse::Listed(groups))) => {
                groups.into_iter().map(|(n, _, _)| n).collect()
            }
            Some(KafkaResponse::Error(code)) => return failed(code.into()),
            _ => return failed(RDKafkaErrorCode::OperationTimedOut),
        },
    };
    let req = KafkaRequest::Group(GroupRequest::Describe { groups: names });
    match wire.call_until(&req, until).await {
        Some(KafkaResponse::Group(GroupResponse::Described(groups))) => Ok(GroupList(
            groups
                .into_iter()
                // librdkafka leaves out a group the coordinator does not know.
                .filter(|g| g.error.is_none())
                .map(|mut g| {
                    let members = std::mem::take(&mut g.members).into_iter().map(GroupMemberInfo).collect();
                    GroupInfo { group: g, members }
                })
                .collect(),
            std::marker::PhantomData,
        )),
        Some(KafkaResponse::Error(code)) => failed(code.into()),
        _ => failed(RDKafkaErrorCode::OperationTimedOut),
    }
}
