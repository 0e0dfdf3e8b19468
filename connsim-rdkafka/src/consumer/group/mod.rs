//! A consumer's membership in its group, as librdkafka's consumer group handler keeps it:
//! the subscription, the member id and generation the coordinator gave, the partitions the
//! group assigned, and the events the application serves from `poll` (rebalances, errors).
//!
//! A task of the consumer's node ([`task`]) joins, syncs and heartbeats in the background, as
//! librdkafka's thread does; the application's `poll` serves what it queued: the rebalance
//! callbacks run there, as in rdkafka. The task waits for the application to have served a
//! revocation before it rejoins (librdkafka waits for the `unassign`/`incremental_unassign`
//! the rebalance callback makes), and the application's polls are what `max.poll.interval.ms`
//! counts.

pub(crate) mod assignor;
pub(crate) mod protocol;
pub(crate) mod task;

pub(crate) use assignor::Assignor;

use crate::config::Settings;
use crate::error::KafkaError;
use crate::topic_partition_list::TopicPartitionList;
use assignor::Tp;
use connsim::systems::MemberIdentity;
use std::collections::{BTreeSet, VecDeque};
use std::sync::Mutex;
use tokio::sync::Notify;

/// Offsets handed over to commit, and whether the outcome goes to the commit callback.
pub(crate) type HandedCommit = (Vec<(String, u32, u64)>, bool);

/// An event for the application, served by its next poll.
pub(crate) enum GroupEvent {
    /// The group assigned these partitions (all of them under eager, the added ones under
    /// cooperative).
    Assign(TopicPartitionList),
    /// The group takes these away (`lost`: the member was removed, so another may own them
    /// already).
    Revoke(TopicPartitionList, bool),
    /// An error the application sees from `poll` (`MaxPollExceeded`, a fatal fencing).
    Error(KafkaError),
}

/// The membership's state.
#[derive(Default)]
pub(crate) struct Inner {
    /// Bumped by every subscribe and unsubscribe: a task of an older subscription stops.
    pub(crate) epoch: u64,
    /// Subscribed topics and `^`-patterns, as given; empty: not subscribed.
    pub(crate) subscription: Vec<String>,
    pub(crate) member_id: String,
    pub(crate) generation: i32,
    /// The group's assignor once joined.
    pub(crate) protocol: Option<Assignor>,
    /// What the group assigned this member (librdkafka's group assignment).
    pub(crate) owned: BTreeSet<Tp>,
    pub(crate) events: VecDeque<GroupEvent>,
    /// Events queued and served so far: the task waits for the second to catch up.
    pub(crate) queued: u64,
    pub(crate) served: u64,
    /// `assignment_lost()`: set while a lost assignment is revoked, until the next assign.
    pub(crate) lost: bool,
    /// When the application last returned from a poll, and how many polls run now
    /// (librdkafka does not count time spent inside a poll against `max.poll.interval.ms`).
    pub(crate) last_poll_ms: u64,
    pub(crate) polling: u32,
    /// Offsets to commit that a callback or an unassignment handed over (sent by the task
    /// or the next poll): `(offsets, report to commit_callback)`.
    pub(crate) commits: Vec<HandedCommit>,
    /// The consumer is closed: the task leaves the group and stops.
    pub(crate) closed: bool,
    /// A newer instance fenced this static member (KIP-345): the consumer is done.
    pub(crate) fatal: bool,
    /// A cooperative assignment revoked partitions: rejoin at once (KIP-429).
    pub(crate) second_round: bool,
    /// `max.poll.interval.ms` passed while the handler waited for the application: it left
    /// the group already (cleared when the application polls again).
    pub(crate) poll_exceeded: bool,
    /// Assignments and revocations served, and when the last was (for statistics).
    pub(crate) rebalances: (i64, u64),
    /// The subscribed topics and their partition counts at the last join: a change starts a
    /// rebalance.
    pub(crate) known_topics: std::collections::BTreeMap<String, u32>,
}

/// A consumer's group membership.
pub(crate) struct Membership {
    pub(crate) inner: Mutex<Inner>,
    /// Wakes the task: an event was served, the application polled, the subscription
    /// changed.
    pub(crate) wake: Notify,
    cooperative: bool,
}

impl Membership {
    pub(crate) fn new(settings: &Settings) -> Membership {
        let now = connsim::net::now().as_millis() as u64;
        let inner = Inner { generation: -1, last_poll_ms: now, ..Inner::default() };
        Membership { inner: Mutex::new(inner), wake: Notify::new(), cooperative: settings.cooperative() }
    }

    /// Whether an event waits for the application.
    pub(crate) fn has_events(&self) -> bool {
        !self.inner.lock().unwrap().events.is_empty()
    }

    /// The group follows the cooperative protocol (incremental assignment calls only).
    pub(crate) fn cooperative_in_group(&self) -> bool {
        self.inner.lock().unwrap().protocol.is_some_and(|p| p.cooperative())
    }

    /// The group follows the eager protocol (whole assignments only).
    pub(crate) fn eager_in_group(&self) -> bool {
        self.inner.lock().unwrap().protocol.is_some_and(|p| !p.cooperative())
    }

    /// Whether the configured assignors are cooperative.
    pub(crate) fn configured_cooperative(&self) -> bool {
        self.cooperative
    }

    /// Who the consumer is in its group now, for commits (none outside a group).
    pub(crate) fn identity(&self, instance_id: Option<&String>) -> Option<MemberIdentity> {
        let s = self.inner.lock().unwrap();
        (!s.subscription.is_empty() && s.generation >= 0).then(|| MemberIdentity {
            generation: s.generation,
            member_id: s.member_id.clone(),
            instance_id: instance_id.cloned(),
        })
    }

    /// Queues an event for the application's next poll.
    pub(crate) fn queue(&self, event: GroupEvent) {
        let mut s = self.inner.lock().unwrap();
        s.events.push_back(event);
        s.queued += 1;
    }

    /// The next event for the application, counted as served once its callback returned
    /// ([`Membership::served`]).
    pub(crate) fn take_event(&self) -> Option<GroupEvent> {
        self.inner.lock().unwrap().events.pop_front()
    }

    /// An event the application took has been served.
    pub(crate) fn served(&self) {
        self.inner.lock().unwrap().served += 1;
        self.wake.notify_one();
    }

    /// The application entered a poll.
    pub(crate) fn poll_started(&self) {
        let mut s = self.inner.lock().unwrap();
        s.polling += 1;
        s.poll_exceeded = false;
        drop(s);
        self.wake.notify_one();
    }

    /// The application returned from a poll.
    pub(crate) fn poll_ended(&self) {
        let mut s = self.inner.lock().unwrap();
        s.polling = s.polling.saturating_sub(1);
        s.last_poll_ms = connsim::net::now().as_millis() as u64;
    }

    /// How long past `max.poll.interval.ms` the application is, if it is (librdkafka's
    /// `rd_kafka_max_poll_exceeded`).
    pub(crate) fn max_poll_exceeded(&self, max_ms: u64) -> Option<u64> {
        let s = self.inner.lock().unwrap();
        let idle = (connsim::net::now().as_millis() as u64).saturating_sub(s.last_poll_ms);
        (s.polling == 0 && idle > max_ms).then(|| idle - max_ms)
    }

    /// Offsets handed over to commit, taken.
    pub(crate) fn take_commits(&self) -> Vec<HandedCommit> {
        std::mem::take(&mut self.inner.lock().unwrap().commits)
    }

    /// Hands offsets over to commit as soon as the consumer can.
    pub(crate) fn commit_later(&self, offsets: Vec<(String, u32, u64)>, report: bool) {
        if !offsets.is_empty() {
            self.inner.lock().unwrap().commits.push((offsets, report));
            self.wake.notify_one();
        }
    }
}

/// Whether `topic` matches a subscription entry: a name, or a `^`-prefixed regular
/// expression (librdkafka's pattern subscriptions).
pub(crate) fn matches(entry: &str, topic: &str) -> bool {
    match entry.starts_with('^') {
        true => regex::Regex::new(entry).is_ok_and(|r| r.is_match(topic)),
        false => entry == topic,
    }
}
