//! The log's group coordinator: consumer groups as Kafka's classic protocol runs them.
//!
//! Members join (`JoinGroup`), the coordinator waits for every member to rejoin or for the
//! rebalance timeout (KIP-62's `max.poll.interval.ms`), hands the leader every member's
//! metadata, and answers each member's `SyncGroup` with the leader's assignment for it.
//! A member without a heartbeat for `session.timeout.ms` is removed; so is one that leaves.
//! Static members (`group.instance.id`, KIP-345) keep their assignment across a restart
//! without a rebalance, and a newer instance fences the older (`FENCED_INSTANCE_ID`).
//! Commits carry the member's generation and are refused from a stale one
//! (`ILLEGAL_GENERATION`, `UNKNOWN_MEMBER_ID`, `REBALANCE_IN_PROGRESS`), as the coordinator's
//! `validateOffsetCommit` refuses them. Answers to parked requests go out as the group moves;
//! the caller routes them after the log is unlocked.

mod state;
mod wire;

pub use wire::{
    DescribedGroup, DescribedMember, GroupRequest, GroupResponse, JoinRequest, Joined, JoinedMember, MemberIdentity,
};

use super::kafka::{KafkaCode, KafkaResponse};
use crate::net::Replier;
use state::{Group, GroupState, Member};
use std::collections::BTreeMap;

/// Kafka's `group.min.session.timeout.ms`: a shorter session timeout is refused.
pub const GROUP_MIN_SESSION_TIMEOUT_MS: u64 = 6_000;
/// Kafka's `group.max.session.timeout.ms`: a longer session timeout is refused.
pub const GROUP_MAX_SESSION_TIMEOUT_MS: u64 = 1_800_000;
/// Kafka's `group.initial.rebalance.delay.ms` (its default): an empty group's first
/// rebalance waits this long for more members.
pub const GROUP_INITIAL_REBALANCE_DELAY_MS: u64 = 3_000;

/// Answers to send once the log is unlocked.
pub(crate) type Replies = Vec<(Replier, KafkaResponse)>;

fn refuse(code: KafkaCode) -> KafkaResponse {
    KafkaResponse::Error(code)
}

fn answer(resp: GroupResponse) -> KafkaResponse {
    KafkaResponse::Group(resp)
}

/// Every group the coordinator knows.
pub(crate) struct Groups {
    groups: BTreeMap<String, Group>,
    next_member: u64,
    /// `group.initial.rebalance.delay.ms`.
    pub(crate) initial_delay_ms: u64,
}

impl Default for Groups {
    fn default() -> Self {
        Groups { groups: BTreeMap::new(), next_member: 0, initial_delay_ms: GROUP_INITIAL_REBALANCE_DELAY_MS }
    }
}

impl Groups {
    /// The groups that have members now.
    pub(crate) fn with_members(&self) -> impl Iterator<Item = &String> {
        self.groups.iter().filter(|(_, g)| !g.members.is_empty()).map(|(name, _)| name)
    }

    /// Serves one group request. `Some(answer)` goes to the caller now; a request that waits
    /// takes `replier` (its answer is among the `Replies` of a later call). `out` collects answers to
    /// other members that this request released.
    pub(crate) fn handle(
        &mut self,
        now_ms: u64,
        host: &str,
        req: GroupRequest,
        replier: &mut Option<Replier>,
        out: &mut Replies,
    ) -> Option<KafkaResponse> {
        match req {
            GroupRequest::Join(join) => self.join(now_ms, host, join, replier, out),
            GroupRequest::Sync { group, member, assignments } => {
                self.sync(now_ms, &group, member, assignments, replier, out)
            }
            GroupRequest::Heartbeat { group, member } => Some(self.heartbeat(now_ms, &group, &member)),
            GroupRequest::Leave { group, members } => Some(self.leave(now_ms, &group, members, out)),
            GroupRequest::List => Some(answer(GroupResponse::Listed(
                self.groups.iter().map(|(n, g)| (n.clone(), g.protocol_type.clone(), g.state.name().into())).collect(),
            ))),
            GroupRequest::Describe { groups } => {
                Some(answer(GroupResponse::Described(groups.iter().map(|n| self.describe(n)).collect())))
            }
            GroupRequest::Delete { groups } => {
                let deleted = groups.into_iter().map(|n| {
                    let code = self.delete(&n);
                    (n, code)
                });
                Some(answer(GroupResponse::Deleted(deleted.collect())))
            }
        }
    }

    /// `JoinGroup`, as the classic coordinator's `handleJoinGroup`.
    fn join(
        &mut self,
        now_ms: u64,
        host: &str,
        req: JoinRequest,
        replier: &mut Option<Replier>,
        out: &mut Replies,
    ) -> Option<KafkaResponse> {
        if req.group.is_empty() {
            return Some(refuse(KafkaCode::InvalidGroupId));
        }
        if !(GROUP_MIN_SESSION_TIMEOUT_MS..=GROUP_MAX_SESSION_TIMEOUT_MS).contains(&req.session_timeout_ms) {
            return Some(refuse(KafkaCode::InvalidSessionTimeout));
        }
        let initial_delay = self.initial_delay_ms;
        let fresh_id = format!("{}-{}", if req.client_id.is_empty() { "rdkafka" } else { &req.client_id }, {
            self.next_member += 1;
            self.next_member
        });
        let group = self.groups.entry(req.group.clone()).or_insert_with(Group::new);
        if !group.supports(&req.member_id, &req.protocol_type, &req.protocols) {
            return Some(refuse(KafkaCode::InconsistentGroupProtocol));
        }
        let member_id = if req.member_id.is_empty() {
            let replaced = req.instance_id.as_ref().and_then(|i| group.statics.get(i).cloned());
            match replaced {
                // KIP-345: a static member restarting takes its old place under a new member
                // id; the old id is fenced.
                Some(old) => {
                    let mut member = group.members.remove(&old).expect("a static member is a member");
                    for parked in [member.awaiting_join.take(), member.awaiting_sync.take()].into_iter().flatten() {
                        out.push((parked, refuse(KafkaCode::FencedInstanceId)));
                    }
                    if group.leader.as_deref() == Some(old.as_str()) {
                        group.leader = Some(fresh_id.clone());
                    }
                    member.protocols = req.protocols.clone();
                    member.client_host = host.to_string();
                    member.heartbeat_deadline_ms = now_ms + req.session_timeout_ms;
                    group.members.insert(fresh_id.clone(), member);
                    group.statics.insert(req.instance_id.clone().expect("static"), fresh_id.clone());
                    // Kafka's `updateStaticMemberAndRebalance`: in a stable group, a static
                    // member that does not change the protocol the group would select next
                    // takes its place without a rebalance.
                    let same_protocol = group.select_protocol() == group.protocol;
                    if group.state == GroupState::Stable && same_protocol {
                        // No rebalance: it gets the current generation, as a follower, and
                        // its assignment from SyncGroup.
                        return Some(answer(GroupResponse::Joined(joined(group, &fresh_id, false))));
                    }
                    fresh_id
                }
                None => {
                    group.members.insert(fresh_id.clone(), new_member(&req, host, now_ms));
                    if let Some(i) = &req.instance_id {
                        group.statics.insert(i.clone(), fresh_id.clone());
                    }
                    fresh_id
                }
            }
        } else {
            let id = req.member_id.clone();
            if let Some(i) = &req.instance_id {
                if group.statics.get(i).is_some_and(|holder| *holder != id) {
                    return Some(refuse(KafkaCode::FencedInstanceId));
                }
            }
            let Some(member) = group.members.get_mut(&id) else { return Some(refuse(KafkaCode::UnknownMemberId)) };
            let unchanged = member.same_protocols(&req.protocols);
            member.session_timeout_ms = req.session_timeout_ms;
            member.rebalance_timeout_ms = req.rebalance_timeout_ms;
            member.client_host = host.to_string();
            member.protocols = req.protocols.clone();
            let leader = group.leader.as_deref() == Some(id.as_str());
            match group.state {
                // A rejoin of the current generation (its answer was lost): the same answer.
                GroupState::CompletingRebalance if unchanged => {
                    return Some(answer(GroupResponse::Joined(joined(group, &id, leader))))
                }
                GroupState::Stable if unchanged && !leader => {
                    return Some(answer(GroupResponse::Joined(joined(group, &id, false))))
                }
                _ => {}
            }
            id
        };
        // The member waits for the join phase: parked (a previous parked join of it is
        // replaced, as the coordinator completes the old callback).
        let member = group.members.get_mut(&member_id).expect("joined above");
        member.awaiting_join = replier.take();
        if group.state != GroupState::PreparingRebalance {
            prepare_rebalance(group, now_ms, initial_delay, out);
        }
        try_complete_join(group, now_ms, out);
        None
    }

    /// `SyncGroup`.
    fn sync(
        &mut self,
        now_ms: u64,
        name: &str,
        me: MemberIdentity,
        assignments: Vec<(String, Vec<u8>)>,
        replier: &mut Option<Replier>,
        out: &mut Replies,
    ) -> Option<KafkaResponse> {
        let Some(group) = self.groups.get_mut(name) else { return Some(refuse(KafkaCode::UnknownMemberId)) };
        if let Err(code) = check_member(group, &me) {
            return Some(refuse(code));
        }
        if me.generation != group.generation {
            return Some(refuse(KafkaCode::IllegalGeneration));
        }
        let member = group.members.get_mut(&me.member_id).expect("checked");
        member.heartbeat_deadline_ms = now_ms + member.session_timeout_ms;
        match group.state {
            GroupState::Empty => Some(refuse(KafkaCode::UnknownMemberId)),
            GroupState::PreparingRebalance => Some(refuse(KafkaCode::RebalanceInProgress)),
            GroupState::Stable => Some(answer(GroupResponse::Synced { assignment: member.assignment.clone() })),
            GroupState::CompletingRebalance => {
                member.awaiting_sync = replier.take();
                if group.leader.as_deref() == Some(me.member_id.as_str()) {
                    let mut given: BTreeMap<String, Vec<u8>> = assignments.into_iter().collect();
                    for (id, m) in group.members.iter_mut() {
                        m.assignment = given.remove(id).unwrap_or_default();
                        if let Some(parked) = m.awaiting_sync.take() {
                            out.push((parked, answer(GroupResponse::Synced { assignment: m.assignment.clone() })));
                        }
                    }
                    group.state = GroupState::Stable;
                }
                None
            }
        }
    }

    /// `Heartbeat`.
    fn heartbeat(&mut self, now_ms: u64, name: &str, me: &MemberIdentity) -> KafkaResponse {
        let Some(group) = self.groups.get_mut(name) else { return refuse(KafkaCode::UnknownMemberId) };
        if let Err(code) = check_member(group, me) {
            return refuse(code);
        }
        if me.generation != group.generation {
            return refuse(KafkaCode::IllegalGeneration);
        }
        let member = group.members.get_mut(&me.member_id).expect("checked");
        member.heartbeat_deadline_ms = now_ms + member.session_timeout_ms;
        match group.state {
            GroupState::PreparingRebalance => refuse(KafkaCode::RebalanceInProgress),
            GroupState::Empty => refuse(KafkaCode::UnknownMemberId),
            GroupState::CompletingRebalance | GroupState::Stable => answer(GroupResponse::Ok),
        }
    }

    /// `LeaveGroup`: each member named leaves (a static one only under its own member id, or
    /// by instance id alone, as an admin removes it).
    fn leave(
        &mut self,
        now_ms: u64,
        name: &str,
        members: Vec<(String, Option<String>)>,
        out: &mut Replies,
    ) -> KafkaResponse {
        let initial_delay = self.initial_delay_ms;
        let Some(group) = self.groups.get_mut(name) else { return refuse(KafkaCode::UnknownMemberId) };
        let mut left = false;
        let mut error = None;
        for (member_id, instance_id) in members {
            let id = match &instance_id {
                Some(i) => match group.statics.get(i) {
                    Some(holder) if member_id.is_empty() || *holder == member_id => holder.clone(),
                    Some(_) => {
                        error = Some(KafkaCode::FencedInstanceId);
                        continue;
                    }
                    None => {
                        error = Some(KafkaCode::UnknownMemberId);
                        continue;
                    }
                },
                None if group.members.contains_key(&member_id) => member_id,
                None => {
                    error = Some(KafkaCode::UnknownMemberId);
                    continue;
                }
            };
            remove_member(group, &id, out);
            left = true;
        }
        if left {
            member_left(group, now_ms, initial_delay, out);
        }
        match error {
            Some(code) if !left => refuse(code),
            _ => answer(GroupResponse::Ok),
        }
    }

    fn describe(&self, name: &str) -> DescribedGroup {
        let Some(group) = self.groups.get(name) else {
            return DescribedGroup {
                name: name.to_string(),
                error: Some(KafkaCode::GroupIdNotFound),
                state: "Dead".into(),
                protocol_type: String::new(),
                protocol: String::new(),
                members: Vec::new(),
            };
        };
        let protocol = group.protocol.clone().unwrap_or_default();
        let members = group.members.iter().map(|(id, m)| DescribedMember {
            member_id: id.clone(),
            instance_id: m.instance_id.clone(),
            client_id: m.client_id.clone(),
            client_host: m.client_host.clone(),
            metadata: m.metadata(&protocol),
            assignment: m.assignment.clone(),
        });
        DescribedGroup {
            name: name.to_string(),
            error: None,
            state: group.state.name().into(),
            protocol_type: group.protocol_type.clone(),
            members: members.collect(),
            protocol,
        }
    }

    /// `DeleteGroups` of one group: only an empty one (`NON_EMPTY_GROUP`), known
    /// (`GROUP_ID_NOT_FOUND`). The caller drops its committed offsets.
    fn delete(&mut self, name: &str) -> Option<KafkaCode> {
        match self.groups.get(name) {
            None => Some(KafkaCode::GroupIdNotFound),
            Some(g) if g.state != GroupState::Empty => Some(KafkaCode::NonEmptyGroup),
            Some(_) => {
                self.groups.remove(name);
                None
            }
        }
    }

    /// `OffsetCommit`'s check of who commits (the coordinator's `validateOffsetCommit`): a
    /// simple commit (no member) only while the group is empty; a member's only in its
    /// current generation, and not while the leader's assignment is awaited. A simple commit
    /// to a group never seen creates it, empty.
    pub(crate) fn validate_commit(&mut self, name: &str, me: Option<&MemberIdentity>) -> Result<(), KafkaCode> {
        let Some(group) = self.groups.get(name) else {
            return match me {
                Some(m) if m.generation >= 0 => Err(KafkaCode::IllegalGeneration),
                _ => {
                    self.groups.insert(name.to_string(), Group::new());
                    Ok(())
                }
            };
        };
        validate_member_commit(group, me)?;
        if me.is_some() && group.state == GroupState::CompletingRebalance {
            return Err(KafkaCode::RebalanceInProgress);
        }
        Ok(())
    }

    /// `TxnOffsetCommit`'s check of the consumer's group metadata (KIP-447): a member's
    /// offsets only in its current generation; without a member, as a simple commit.
    pub(crate) fn validate_txn_commit(&mut self, name: &str, me: Option<&MemberIdentity>) -> Result<(), KafkaCode> {
        match self.groups.get(name) {
            None if me.is_some_and(|m| m.generation >= 0) => Err(KafkaCode::IllegalGeneration),
            None => {
                self.groups.insert(name.to_string(), Group::new());
                Ok(())
            }
            Some(group) => validate_member_commit(group, me),
        }
    }

    /// Runs the groups' timers due by `now_ms`: join phases that end, members whose session
    /// expired. Returns the answers they release.
    pub(crate) fn expire(&mut self, now_ms: u64, out: &mut Replies) -> Vec<(String, String)> {
        let initial_delay = self.initial_delay_ms;
        let mut expired = Vec::new();
        for (name, group) in self.groups.iter_mut() {
            let gone: Vec<String> = group
                .members
                .iter()
                .filter(|(_, m)| m.awaiting_join.is_none() && m.heartbeat_deadline_ms <= now_ms)
                .map(|(id, _)| id.clone())
                .collect();
            for id in &gone {
                remove_member(group, id, out);
                expired.push((name.clone(), id.clone()));
            }
            if !gone.is_empty() {
                member_left(group, now_ms, initial_delay, out);
            }
            try_complete_join(group, now_ms, out);
        }
        expired
    }

    /// When a group's timer is next due.
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        self.groups.values().filter_map(Group::next_deadline).min()
    }

    /// The coordinator's node crashed: parked answers die with their connections; the
    /// groups (kept in the offsets topic on a broker) stay, and every member's session
    /// counts again from `now_ms`, as a coordinator that loaded the group does.
    pub(crate) fn crash(&mut self, now_ms: u64) {
        for group in self.groups.values_mut() {
            for m in group.members.values_mut() {
                m.awaiting_join = None;
                m.awaiting_sync = None;
                m.heartbeat_deadline_ms = now_ms + m.session_timeout_ms;
            }
            if group.state == GroupState::PreparingRebalance {
                group.join_deadline_ms =
                    now_ms + group.members.values().map(|m| m.rebalance_timeout_ms).max().unwrap_or(0);
            }
        }
    }
}

fn new_member(req: &JoinRequest, host: &str, now_ms: u64) -> Member {
    Member {
        instance_id: req.instance_id.clone(),
        client_id: req.client_id.clone(),
        client_host: host.to_string(),
        session_timeout_ms: req.session_timeout_ms,
        rebalance_timeout_ms: req.rebalance_timeout_ms,
        protocol_type: req.protocol_type.clone(),
        protocols: req.protocols.clone(),
        assignment: Vec::new(),
        heartbeat_deadline_ms: now_ms + req.session_timeout_ms,
        awaiting_join: None,
        awaiting_sync: None,
    }
}

/// The join answer for `member_id` in the current generation; the leader's lists every
/// member with its metadata.
fn joined(group: &Group, member_id: &str, as_leader: bool) -> Joined {
    let protocol = group.protocol.clone().unwrap_or_default();
    let members = match as_leader {
        true => group
            .members
            .iter()
            .map(|(id, m)| JoinedMember {
                member_id: id.clone(),
                instance_id: m.instance_id.clone(),
                metadata: m.metadata(&protocol),
            })
            .collect(),
        false => Vec::new(),
    };
    Joined {
        generation: group.generation,
        protocol,
        leader: group.leader.clone().unwrap_or_default(),
        member_id: member_id.to_string(),
        members,
    }
}

/// `UNKNOWN_MEMBER_ID` for a member the group does not have, `FENCED_INSTANCE_ID` for a
/// static member whose instance id a newer member holds.
fn check_member(group: &Group, me: &MemberIdentity) -> Result<(), KafkaCode> {
    if let Some(i) = &me.instance_id {
        if group.statics.get(i).is_some_and(|holder| *holder != me.member_id) {
            return Err(KafkaCode::FencedInstanceId);
        }
    }
    if !group.members.contains_key(&me.member_id) {
        return Err(KafkaCode::UnknownMemberId);
    }
    Ok(())
}

fn validate_member_commit(group: &Group, me: Option<&MemberIdentity>) -> Result<(), KafkaCode> {
    match me {
        None if group.state == GroupState::Empty => Ok(()),
        None => Err(KafkaCode::UnknownMemberId),
        Some(m) if m.generation < 0 && m.member_id.is_empty() && m.instance_id.is_none() => {
            validate_member_commit(group, None)
        }
        Some(m) => {
            check_member(group, m)?;
            match m.generation == group.generation {
                true => Ok(()),
                false => Err(KafkaCode::IllegalGeneration),
            }
        }
    }
}

/// A rebalance starts: every member must rejoin by the largest rebalance timeout; an empty
/// group's first one waits `initial_delay` for others. Syncs still parked are refused.
fn prepare_rebalance(group: &mut Group, now_ms: u64, initial_delay: u64, out: &mut Replies) {
    for m in group.members.values_mut() {
        if let Some(parked) = m.awaiting_sync.take() {
            out.push((parked, refuse(KafkaCode::RebalanceInProgress)));
        }
    }
    let timeout = group.members.values().map(|m| m.rebalance_timeout_ms).max().unwrap_or(0);
    group.join_deadline_ms = now_ms + timeout;
    group.join_not_before_ms = match group.state {
        GroupState::Empty => now_ms + initial_delay.min(timeout),
        _ => now_ms,
    };
    group.state = GroupState::PreparingRebalance;
}

/// Ends the join phase if every member rejoined (and an empty group's delay passed) or the
/// rebalance timeout passed: dynamic members that did not rejoin are removed (static ones
/// keep their place, KIP-345), the generation moves on, and every parked join is answered.
fn try_complete_join(group: &mut Group, now_ms: u64, out: &mut Replies) {
    if group.state != GroupState::PreparingRebalance {
        return;
    }
    let ready = group.all_rejoined() && now_ms >= group.join_not_before_ms;
    if !ready && now_ms < group.join_deadline_ms {
        return;
    }
    let late: Vec<String> = group
        .members
        .iter()
        .filter(|(_, m)| m.awaiting_join.is_none() && m.instance_id.is_none())
        .map(|(id, _)| id.clone())
        .collect();
    for id in late {
        remove_member(group, &id, out);
    }
    if !group.members.values().any(|m| m.awaiting_join.is_some()) {
        if !group.members.is_empty() {
            // Only static members are left and none rejoined: Kafka's `onCompleteJoin` waits
            // again, until they rejoin or their sessions expire.
            let timeout = group.members.values().map(|m| m.rebalance_timeout_ms).max().unwrap_or(0);
            group.join_deadline_ms = now_ms + timeout;
            return;
        }
        // Nobody is left: the group is empty now.
        group.generation += 1;
        group.state = GroupState::Empty;
        group.protocol = None;
        group.leader = None;
        return;
    }
    group.generation += 1;
    group.protocol_type = group.members.values().next().map(|m| m.protocol_type.clone()).unwrap_or_default();
    group.protocol = group.select_protocol();
    let leader_stays =
        group.leader.as_ref().is_some_and(|l| group.members.get(l).is_some_and(|m| m.awaiting_join.is_some()));
    if !leader_stays {
        group.leader = group.members.iter().find(|(_, m)| m.awaiting_join.is_some()).map(|(id, _)| id.clone());
    }
    group.state = GroupState::CompletingRebalance;
    let leader = group.leader.clone();
    let ids: Vec<String> = group.members.keys().cloned().collect();
    for id in ids {
        let answer_for = joined(group, &id, leader.as_deref() == Some(id.as_str()));
        let m = group.members.get_mut(&id).expect("listed");
        m.heartbeat_deadline_ms = now_ms + m.session_timeout_ms;
        if let Some(parked) = m.awaiting_join.take() {
            out.push((parked, answer(GroupResponse::Joined(answer_for))));
        }
    }
}

/// Takes a member out; its parked requests are refused `UNKNOWN_MEMBER_ID`.
fn remove_member(group: &mut Group, id: &str, out: &mut Replies) {
    if let Some(mut m) = group.members.remove(id) {
        for parked in [m.awaiting_join.take(), m.awaiting_sync.take()].into_iter().flatten() {
            out.push((parked, refuse(KafkaCode::UnknownMemberId)));
        }
        if let Some(i) = m.instance_id {
            if group.statics.get(&i).is_some_and(|holder| holder == id) {
                group.statics.remove(&i);
            }
        }
    }
    if group.leader.as_deref() == Some(id) {
        group.leader = None;
    }
}

/// After members left: a settled group rebalances; one preparing may be complete now.
fn member_left(group: &mut Group, now_ms: u64, initial_delay: u64, out: &mut Replies) {
    match group.state {
        GroupState::Stable | GroupState::CompletingRebalance => prepare_rebalance(group, now_ms, initial_delay, out),
        GroupState::PreparingRebalance | GroupState::Empty => {}
    }
    if group.members.is_empty() && group.state == GroupState::PreparingRebalance {
        group.generation += 1;
        group.state = GroupState::Empty;
        group.protocol = None;
        group.leader = None;
        return;
    }
    try_complete_join(group, now_ms, out);
}
