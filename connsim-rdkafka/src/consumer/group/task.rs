//! The consumer group handler's loop (librdkafka's `rd_kafka_cgrp_serve`), as a task of the
//! consumer's node: join, sync, apply the assignment through the application's rebalance
//! callbacks, heartbeat, and rejoin when the coordinator says a rebalance runs, the
//! subscribed topics changed, or the member was removed.
//!
//! Eager assignors revoke everything before every join; cooperative ones (KIP-429) keep what
//! stays theirs, revoke only what moves, and rejoin at once after a revocation so the moved
//! partitions reach their new owner. A member that lost its membership (removed for a late
//! heartbeat, a stale generation, `max.poll.interval.ms`) revokes its assignment as lost. A
//! static member (`group.instance.id`, KIP-345) never sends `LeaveGroup` on close.

use super::assignor::{Assignor, MemberSub, Tp};
use super::protocol::{self, Assignment, Subscription, PROTOCOL_TYPE};
use super::{matches, GroupEvent};
use crate::consumer::core::ConsumerCore;
use crate::error::{KafkaError, RDKafkaErrorCode};
use crate::topic_partition_list::{Offset, TopicPartitionList};
use connsim::systems::MemberIdentity;
use connsim::systems::{GroupRequest, GroupResponse, JoinRequest, Joined, KafkaCode, KafkaRequest, KafkaResponse};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Weak};
use std::time::Duration;

/// Waits between retries of a group request that failed (librdkafka's `retry.backoff.ms`,
/// scaled to the simulated network).
const BACKOFF: Duration = Duration::from_millis(100);
/// How much longer than the rebalance timeout a `JoinGroup` waits for its answer
/// (librdkafka: `max.poll.interval.ms` plus a grace).
const JOIN_GRACE: Duration = Duration::from_millis(3_000);

/// Why the steady state ended.
enum Rejoin {
    /// The group rebalances (or the member's metadata changed): rejoin.
    Rebalance,
    /// The member is no longer in the group: revoke its partitions as lost, then rejoin.
    Lost,
    /// The subscription changed or the consumer closed.
    Stop,
}

/// Starts the handler of the subscription `epoch`.
pub(crate) fn start(core: &Arc<ConsumerCore>, epoch: u64) {
    let weak = Arc::downgrade(core);
    madsim::task::spawn(async move { run(weak, epoch).await });
}

fn stale(c: &ConsumerCore, epoch: u64) -> bool {
    let s = c.group.inner.lock().unwrap();
    s.closed || s.epoch != epoch
}

async fn run(core: Weak<ConsumerCore>, epoch: u64) {
    loop {
        let Some(c) = core.upgrade() else { return };
        if stale(&c, epoch) {
            // A closed consumer leaves from its own close; an unsubscribed one here.
            if !c.group.inner.lock().unwrap().closed {
                leave(&c).await;
            }
            return;
        }
        c.flush_commits().await;
        if !c.group.configured_cooperative() {
            // Eager: everything is given up before the join.
            let owned = std::mem::take(&mut c.group.inner.lock().unwrap().owned);
            if !owned.is_empty() && !revoke(&c, epoch, owned, false).await {
                continue;
            }
        }
        let outcome = match join_and_sync(&c, epoch).await {
            None => Rejoin::Stop,
            Some(Err(rejoin)) => rejoin,
            Some(Ok(target)) => match apply(&c, epoch, target).await {
                false => Rejoin::Stop,
                // KIP-429: after revoking, rejoin at once so the moved partitions reach
                // their new owner.
                true if std::mem::take(&mut c.group.inner.lock().unwrap().second_round) => Rejoin::Rebalance,
                true => steady(&c, epoch).await,
            },
        };
        if let Rejoin::Lost = outcome {
            let owned = std::mem::take(&mut c.group.inner.lock().unwrap().owned);
            revoke(&c, epoch, owned, true).await;
        }
    }
}

/// The subscription's topics now, regular expressions matched against the cluster's topics,
/// with their partition counts; `None` if the broker did not answer.
async fn subscribed_topics(c: &ConsumerCore) -> Option<BTreeMap<String, u32>> {
    let subscription = c.group.inner.lock().unwrap().subscription.clone();
    let req = KafkaRequest::Metadata { topics: None };
    let Ok(KafkaResponse::Metadata(all)) = c.wire.call(&req).await else { return None };
    Some(all.into_iter().filter(|(t, _)| subscription.iter().any(|e| matches(e, t))).collect())
}

/// One join and sync; the member's target assignment, or why to start over.
async fn join_and_sync(c: &ConsumerCore, epoch: u64) -> Option<Result<BTreeSet<Tp>, Rejoin>> {
    let settings = &c.settings;
    let group = settings.group_id.clone().expect("subscribed consumers have a group");
    let topics = loop {
        if stale(c, epoch) {
            return None;
        }
        if let Some(t) = subscribed_topics(c).await {
            break t;
        }
        madsim::time::sleep(BACKOFF).await;
    };
    let (member_id, generation, owned) = {
        let mut s = c.group.inner.lock().unwrap();
        s.known_topics = topics.clone();
        (s.member_id.clone(), s.generation, s.owned.iter().cloned().collect::<Vec<_>>())
    };
    let subscription = Subscription { topics: topics.keys().cloned().collect(), owned, generation };
    let metadata = protocol::encode(&subscription);
    let join = JoinRequest {
        group: group.clone(),
        member_id,
        instance_id: settings.group_instance_id.clone(),
        client_id: settings.client_id.clone(),
        protocol_type: PROTOCOL_TYPE.into(),
        protocols: settings.assignors.iter().map(|a| (a.name().to_string(), metadata.clone())).collect(),
        session_timeout_ms: settings.session_timeout.as_millis() as u64,
        rebalance_timeout_ms: settings.max_poll_interval.as_millis() as u64,
    };
    let req = KafkaRequest::Group(GroupRequest::Join(join));
    let joined = match c.wire.call_for(&req, settings.max_poll_interval + JOIN_GRACE).await {
        Ok(KafkaResponse::Group(GroupResponse::Joined(j))) => j,
        Ok(KafkaResponse::Error(code)) => return Some(Err(join_failed(c, code).await)),
        _ => {
            madsim::time::sleep(BACKOFF).await;
            return Some(Err(Rejoin::Rebalance));
        }
    };
    let assignor = Assignor::named(&joined.protocol);
    {
        let mut s = c.group.inner.lock().unwrap();
        s.member_id = joined.member_id.clone();
        s.generation = joined.generation;
        s.protocol = assignor;
    }
    let assignments = match joined.leader == joined.member_id && !joined.members.is_empty() {
        true => lead(c, &joined, assignor.unwrap_or(Assignor::Range)).await,
        false => Vec::new(),
    };
    let me = MemberIdentity {
        generation: joined.generation,
        member_id: joined.member_id.clone(),
        instance_id: settings.group_instance_id.clone(),
    };
    let req = KafkaRequest::Group(GroupRequest::Sync { group, member: me, assignments });
    match c.wire.call_for(&req, settings.max_poll_interval + JOIN_GRACE).await {
        Ok(KafkaResponse::Group(GroupResponse::Synced { assignment })) => {
            let a: Assignment = protocol::decode(&assignment);
            Some(Ok(a.partitions.into_iter().collect()))
        }
        Ok(KafkaResponse::Error(code)) => Some(Err(join_failed(c, code).await)),
        _ => Some(Err(Rejoin::Rebalance)),
    }
}

/// What a refused join or sync leads to.
async fn join_failed(c: &ConsumerCore, code: KafkaCode) -> Rejoin {
    match code {
        KafkaCode::UnknownMemberId => {
            c.group.inner.lock().unwrap().member_id.clear();
            Rejoin::Rebalance
        }
        KafkaCode::IllegalGeneration | KafkaCode::RebalanceInProgress => Rejoin::Rebalance,
        KafkaCode::FencedInstanceId => fenced(c),
        other => {
            // librdkafka hands the error to the application and tries again later.
            c.group.queue(GroupEvent::Error(KafkaError::MessageConsumption(other.into())));
            madsim::time::sleep(c.settings.heartbeat_interval.max(BACKOFF)).await;
            Rejoin::Rebalance
        }
    }
}

/// KIP-345: a newer instance with this `group.instance.id` fenced the consumer; librdkafka
/// raises a fatal error and the consumer leaves nothing behind.
fn fenced(c: &ConsumerCore) -> Rejoin {
    let mut s = c.group.inner.lock().unwrap();
    s.closed = true;
    s.fatal = true;
    drop(s);
    let why = "Fatal consumer error: static consumer fenced by other consumer with same group.instance.id";
    *c.fatal.lock().unwrap() = Some((RDKafkaErrorCode::FencedInstanceId, why.to_string()));
    c.group.queue(GroupEvent::Error(KafkaError::MessageConsumptionFatal(RDKafkaErrorCode::FencedInstanceId)));
    Rejoin::Stop
}

/// The leader's assignment of every member, by the group's assignor.
async fn lead(c: &ConsumerCore, joined: &Joined, assignor: Assignor) -> Vec<(String, Vec<u8>)> {
    let members: Vec<MemberSub> = joined
        .members
        .iter()
        .map(|m| MemberSub {
            member_id: m.member_id.clone(),
            sort_key: m.instance_id.clone().unwrap_or_else(|| m.member_id.clone()),
            subscription: protocol::decode(&m.metadata),
        })
        .collect();
    let wanted: BTreeSet<String> = members.iter().flat_map(|m| m.subscription.topics.iter().cloned()).collect();
    let req = KafkaRequest::Metadata { topics: None };
    let partitions: BTreeMap<String, u32> = match c.wire.call(&req).await {
        Ok(KafkaResponse::Metadata(all)) => all.into_iter().filter(|(t, _)| wanted.contains(t)).collect(),
        _ => BTreeMap::new(),
    };
    assignor
        .assign(&members, &partitions)
        .into_iter()
        .map(|(id, partitions)| (id, protocol::encode(&Assignment { partitions })))
        .collect()
}

fn list(tps: &BTreeSet<Tp>) -> TopicPartitionList {
    let mut tpl = TopicPartitionList::new();
    for (t, p) in tps {
        let _ = tpl.add_partition_offset(t, *p as i32, Offset::Invalid);
    }
    tpl
}

/// Hands the application the new assignment (eager: all of it; cooperative: the revoked part
/// first, then the added part), waiting for each to be served; false if the consumer stopped.
async fn apply(c: &ConsumerCore, epoch: u64, target: BTreeSet<Tp>) -> bool {
    if !c.group.configured_cooperative() {
        c.group.inner.lock().unwrap().owned = target.clone();
        c.group.queue(GroupEvent::Assign(list(&target)));
        return wait_served(c, epoch).await;
    }
    let owned = c.group.inner.lock().unwrap().owned.clone();
    let revoked: BTreeSet<Tp> = owned.difference(&target).cloned().collect();
    let added: BTreeSet<Tp> = target.difference(&owned).cloned().collect();
    if !revoked.is_empty() {
        if !revoke(c, epoch, revoked.clone(), false).await {
            return false;
        }
        let mut s = c.group.inner.lock().unwrap();
        s.owned.retain(|tp| !revoked.contains(tp));
        s.second_round = true;
    }
    c.group.inner.lock().unwrap().owned.extend(added.iter().cloned());
    c.group.queue(GroupEvent::Assign(list(&added)));
    wait_served(c, epoch).await
}

/// Hands the application a revocation and waits until it was served and the commits it led
/// to went out; false if the consumer stopped meanwhile.
async fn revoke(c: &ConsumerCore, epoch: u64, tps: BTreeSet<Tp>, lost: bool) -> bool {
    if lost {
        c.group.inner.lock().unwrap().lost = true;
    }
    c.group.queue(GroupEvent::Revoke(list(&tps), lost));
    let served = wait_served(c, epoch).await;
    c.flush_commits().await;
    served
}

/// Waits until the application served every event queued, heartbeating meanwhile (a
/// rebalance under way changes nothing: the member rejoins next); false if the consumer
/// stopped.
async fn wait_served(c: &ConsumerCore, epoch: u64) -> bool {
    loop {
        {
            let s = c.group.inner.lock().unwrap();
            if s.served >= s.queued {
                return true;
            }
        }
        if stale(c, epoch) {
            return false;
        }
        tokio::select! {
            biased;
            _ = c.group.wake.notified() => {}
            _ = madsim::time::sleep(c.settings.heartbeat_interval) => {
                // librdkafka's `max.poll.interval.ms` timer runs whatever the handler waits
                // for: an application that does not poll to serve its rebalance leaves the
                // group (and is told at its next poll).
                let max_poll_ms = c.settings.max_poll_interval.as_millis() as u64;
                let exceeded = c.group.max_poll_exceeded(max_poll_ms).is_some()
                    && !std::mem::replace(&mut c.group.inner.lock().unwrap().poll_exceeded, true);
                if exceeded {
                    if c.settings.group_instance_id.is_none() {
                        send_leave(c).await;
                    }
                    c.group.inner.lock().unwrap().member_id.clear();
                    let e = KafkaError::MessageConsumption(RDKafkaErrorCode::PollExceeded);
                    c.group.queue(GroupEvent::Error(e));
                } else if !c.group.inner.lock().unwrap().poll_exceeded {
                    heartbeat(c).await;
                }
            }
        }
    }
}

/// One heartbeat; its answer (`None`: no answer).
async fn heartbeat(c: &ConsumerCore) -> Option<KafkaResponse> {
    let group = c.settings.group_id.clone()?;
    let member = {
        let s = c.group.inner.lock().unwrap();
        MemberIdentity {
            generation: s.generation,
            member_id: s.member_id.clone(),
            instance_id: c.settings.group_instance_id.clone(),
        }
    };
    let req = KafkaRequest::Group(GroupRequest::Heartbeat { group, member });
    c.wire.call(&req).await.ok()
}

/// The member has its assignment: heartbeat, watch the application's polls and the
/// subscribed topics, until something asks for a rejoin.
async fn steady(c: &ConsumerCore, epoch: u64) -> Rejoin {
    let max_poll_ms = c.settings.max_poll_interval.as_millis() as u64;
    let mut next_refresh = c.settings.metadata_refresh_interval.map(|d| madsim::time::Instant::now() + d);
    let mut next_beat = madsim::time::Instant::now() + c.settings.heartbeat_interval;
    loop {
        let wake_at = next_refresh.map_or(next_beat, |r| r.min(next_beat));
        tokio::select! {
            biased;
            _ = c.group.wake.notified() => {}
            _ = madsim::time::sleep_until(wake_at) => {}
        }
        if stale(c, epoch) {
            return Rejoin::Stop;
        }
        c.flush_commits().await;
        if c.group.max_poll_exceeded(max_poll_ms).is_some() {
            return poll_exceeded(c, epoch).await;
        }
        let now = madsim::time::Instant::now();
        if next_refresh.is_some_and(|r| now >= r) {
            next_refresh = c.settings.metadata_refresh_interval.map(|d| now + d);
            let known = c.group.inner.lock().unwrap().known_topics.clone();
            if subscribed_topics(c).await.is_some_and(|topics| topics != known) {
                // A partition added to a subscribed topic, or a new topic matching a pattern.
                return Rejoin::Rebalance;
            }
        }
        if now < next_beat {
            continue;
        }
        next_beat = now + c.settings.heartbeat_interval;
        match heartbeat(c).await {
            Some(KafkaResponse::Error(KafkaCode::RebalanceInProgress)) => return Rejoin::Rebalance,
            Some(KafkaResponse::Error(KafkaCode::UnknownMemberId)) => {
                c.group.inner.lock().unwrap().member_id.clear();
                return Rejoin::Lost;
            }
            Some(KafkaResponse::Error(KafkaCode::IllegalGeneration)) => return Rejoin::Lost,
            Some(KafkaResponse::Error(KafkaCode::FencedInstanceId)) => return fenced(c),
            _ => {}
        }
    }
}

/// librdkafka's `max.poll.interval.ms` enforcement: the application did not poll in time, so
/// the consumer leaves the group (a static member only stops heartbeating), forgets its
/// member id, tells the application, and revokes its partitions as lost; it rejoins once the
/// application polls again.
async fn poll_exceeded(c: &ConsumerCore, epoch: u64) -> Rejoin {
    if c.settings.group_instance_id.is_none() {
        send_leave(c).await;
    }
    c.group.inner.lock().unwrap().member_id.clear();
    c.group.queue(GroupEvent::Error(KafkaError::MessageConsumption(RDKafkaErrorCode::PollExceeded)));
    let owned = std::mem::take(&mut c.group.inner.lock().unwrap().owned);
    if !revoke(c, epoch, owned, true).await {
        return Rejoin::Stop;
    }
    Rejoin::Rebalance
}

async fn send_leave(c: &ConsumerCore) {
    let Some(group) = c.settings.group_id.clone() else { return };
    let member_id = c.group.inner.lock().unwrap().member_id.clone();
    if member_id.is_empty() {
        return;
    }
    let req = KafkaRequest::Group(GroupRequest::Leave { group, members: vec![(member_id, None)] });
    let _ = c.wire.call(&req).await;
}

/// The subscription ended (unsubscribe, close): the member leaves the group, but for a
/// static member (KIP-345). Its partitions were revoked by the call that ended it.
pub(crate) async fn leave(c: &ConsumerCore) {
    c.flush_commits().await;
    if c.settings.group_instance_id.is_none() && !c.group.inner.lock().unwrap().fatal {
        send_leave(c).await;
    }
    let mut s = c.group.inner.lock().unwrap();
    s.member_id.clear();
    s.generation = -1;
    s.protocol = None;
}
