//! What both consumers share: the assignment, each partition's position and fetch buffer,
//! offset resets, end-of-partition events, and the group membership running beside them.

use super::group::Membership;
use crate::config::Settings;
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::message::{Message, OwnedHeaders, OwnedMessage, Timestamp};
use crate::topic_partition_list::{Offset, TopicPartitionList};
use crate::wire::Wire;
use connsim::systems::{KafkaCode, KafkaRequest, KafkaResponse, OffsetSpec};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

/// How long a consumer waits before fetching again from partitions that had nothing
/// (librdkafka's `fetch.wait.max.ms`, scaled to the simulated network).
const FETCH_WAIT: Duration = Duration::from_millis(5);
/// Most entries one fetch returns.
const FETCH_MAX: usize = 64;

/// A partition's place: where the application is, where fetching is, what was fetched.
#[derive(Default)]
pub(super) struct Place {
    /// The offset the next message returned has (`None`: to resolve from `start`).
    position: Option<u64>,
    /// How to resolve an unknown position.
    start: Option<Offset>,
    pub(super) fetch_at: u64,
    /// Where fetching starts again after a pause (librdkafka's `rktp_next_fetch_start`): the
    /// offset assigned, sought or resolved, or the application's position when it paused.
    restart_at: Option<u64>,
    /// Fetched messages, and the transaction markers among them.
    buffer: VecDeque<Fetched>,
    /// librdkafka's application position (`rktp_app_pos`, what `position()` answers): past
    /// the last message (or marker) returned since the partition was assigned or sought;
    /// `None` until then.
    pub(super) app_pos: Option<u64>,
    /// `auto.offset.reset=error` found no offset: the partition stopped fetching until a
    /// seek or a new assignment (librdkafka's `rd_kafka_offset_reset`).
    pub(super) stopped: bool,
    /// Since when the partition's topic is unknown to the broker: librdkafka waits
    /// `topic.metadata.propagation.max.ms` before it reports it.
    missing_since: Option<u64>,
    /// The log start, high watermark and last stable offset the last fetch answered (for
    /// statistics).
    pub(super) marks: Option<(u64, u64, u64)>,
    /// Messages (and their bytes) handed to the application (for statistics).
    pub(super) received: (u64, u64),
    /// The offset the next commit of the consumer's state commits (librdkafka's stored
    /// offset): past the last message returned, or what the application stored.
    pub(super) stored: Option<u64>,
    /// The offset this consumer last committed for the partition: a commit of its state
    /// leaves out a partition whose stored offset is not past it.
    pub(super) committed: Option<u64>,
    /// `enable.partition.eof`: the end was reached at this offset and the event waits
    /// behind the buffer.
    eof_pending: Option<u64>,
    /// The offset the last end-of-partition event was for: the next comes only once the
    /// end moved past it.
    eof_at: Option<u64>,
}

/// What a fetch buffered: a message, or the offset of a transaction marker (a control
/// record, never returned, passed by the position).
enum Fetched {
    Message(OwnedMessage),
    Marker(u64),
}

/// An automatic commit's outcome and the offsets it committed.
pub(crate) type CommitEvent = (KafkaResult<()>, Vec<(String, u32, u64)>);

/// What the next step of a poll found.
pub(crate) enum Next {
    /// A message.
    Message(OwnedMessage),
    /// An error for the application (`PartitionEOF` among them).
    Error(KafkaError),
    /// The group has an event for the application (a rebalance, an error): serve it.
    Event,
    /// Nothing before the deadline.
    Timeout,
}

#[derive(Default)]
pub(super) struct State {
    pub(super) assignment: Vec<(String, u32)>,
    /// The offset each partition was assigned at, as `assignment()` lists it (librdkafka's
    /// `rd_kafka_assignment_add` keeps it, `Invalid` turned into `Stored`).
    assigned_at: BTreeMap<(String, u32), Offset>,
    pub(super) places: BTreeMap<(String, u32), Place>,
    paused: BTreeSet<(String, u32)>,
    /// Partitions whose messages go to a partition queue of their own
    /// (`split_partition_queue`), not to the consumer's poll.
    pub(super) split: BTreeSet<(String, u32)>,
    next: usize,
    pub(super) last_auto_commit_ms: u64,
    /// Outcomes of automatic commits not yet handed to the context (at the next poll).
    pub(super) commit_events: Vec<CommitEvent>,
}

pub(crate) struct ConsumerCore {
    pub(crate) wire: Wire,
    pub(crate) settings: Settings,
    pub(super) state: Mutex<State>,
    /// The group membership: subscription, generation, rebalance events.
    pub(crate) group: Membership,
    /// The error that finished the consumer (`Client::fatal_error`).
    pub(crate) fatal: crate::client::FatalError,
    /// When it hands its statistics to its context.
    pub(crate) stats: crate::stats_clock::StatsClock,
}

impl Place {
    /// A partition assigned or sought at `offset`: a concrete one is its position; any other
    /// is resolved on the first fetch.
    fn at(offset: Offset) -> Place {
        match offset {
            Offset::Offset(o) if o >= 0 => {
                let o = o as u64;
                Place { position: Some(o), fetch_at: o, restart_at: Some(o), ..Place::default() }
            }
            other => Place { start: Some(other), ..Place::default() },
        }
    }
}

pub(super) fn key(topic: &str, partition: i32) -> (String, u32) {
    (topic.to_string(), partition.max(0) as u32)
}

/// A librdkafka error's name as `rd_kafka_error_name` prints it, with its description, for
/// the calls rdkafka reports by text.
fn subscription_error(name: &str) -> KafkaError {
    KafkaError::Subscription(name.to_string())
}

/// How `assignment()` lists a partition assigned at `offset`: `Invalid` means the committed
/// offset, `Stored` for librdkafka.
fn as_assigned(offset: Offset) -> Offset {
    match offset {
        Offset::Invalid => Offset::Stored,
        other => other,
    }
}

/// `Local: Unknown group`: librdkafka keeps assignments in the consumer group, which only a
/// consumer with `group.id` has.
pub(crate) const UNKNOWN_GROUP: &str = "Local: Unknown group";

impl ConsumerCore {
    pub(crate) fn new(settings: Settings) -> KafkaResult<ConsumerCore> {
        let settings = settings.for_consumer()?;
        let (wire, group) = (Wire::new(&settings)?, Membership::new(&settings));
        let stats = crate::stats_clock::StatsClock::new(settings.statistics_interval);
        Ok(ConsumerCore { wire, group, settings, state: Mutex::default(), fatal: Default::default(), stats })
    }

    /// librdkafka's assignment calls need the consumer group (`group.id`).
    pub(crate) fn has_group(&self) -> bool {
        self.settings.group_id.is_some()
    }

    /// `assign`: the assignment becomes `tpl`, each partition at its offset.
    pub(crate) fn assign(&self, tpl: &TopicPartitionList) -> KafkaResult<()> {
        if !self.has_group() {
            return Err(KafkaError::Subscription(UNKNOWN_GROUP.into()));
        }
        if self.group.cooperative_in_group() {
            return Err(KafkaError::Subscription("Local: Erroneous state".into()));
        }
        self.set_assignment(tpl);
        Ok(())
    }

    /// The assignment becomes `tpl` (also what a group's eager rebalance does).
    pub(crate) fn set_assignment(&self, tpl: &TopicPartitionList) {
        let mut s = self.state.lock().unwrap();
        // librdkafka clears the old assignment before it adds the new: every partition of it
        // is removed, its stored offset with it.
        let old = std::mem::take(&mut s.places);
        s.assignment.clear();
        s.assigned_at.clear();
        for e in tpl.elements() {
            let k = key(e.topic(), e.partition());
            if s.places.contains_key(&k) {
                continue;
            }
            s.assignment.push(k.clone());
            s.assigned_at.insert(k.clone(), as_assigned(e.offset()));
            s.places.insert(k, Place::at(e.offset()));
        }
        let State { paused, places, .. } = &mut *s;
        paused.retain(|k| places.contains_key(k));
        s.next = 0;
        drop(s);
        self.removed(old.into_iter());
        // librdkafka clears `assignment_lost` in the unassignment itself.
        self.group.inner.lock().unwrap().lost = false;
    }

    /// Partitions left the assignment: with `enable.auto.commit`, their stored offsets are
    /// committed (librdkafka's commit of "unassigned partitions"), unless the assignment was
    /// lost, when another member may own them already.
    fn removed(&self, places: impl Iterator<Item = ((String, u32), Place)>) {
        if !self.settings.auto_commit || self.group.inner.lock().unwrap().lost {
            return;
        }
        let offsets = places
            .filter_map(|((t, p), place)| match (place.stored, place.committed) {
                (Some(o), Some(c)) if o <= c => None,
                (Some(o), _) => Some((t, p, o)),
                (None, _) => None,
            })
            .collect();
        self.group.commit_later(offsets, true);
    }

    /// `incremental_assign` (`add`) or `incremental_unassign`, with librdkafka's checks
    /// (`rd_kafka_assignment_add` / `_subtract`): a partition twice in the list, an
    /// unassignment from an empty assignment, or of a partition not assigned is
    /// `_INVALID_ARG`; an assignment of one already assigned `_CONFLICT`; an incremental
    /// call in an eager group `_STATE`. Nothing changes then.
    pub(crate) fn reassign(&self, tpl: &TopicPartitionList, add: bool) -> KafkaResult<()> {
        if !self.has_group() {
            return Err(subscription_error("_UNKNOWN_GROUP"));
        }
        if self.group.eager_in_group() {
            return Err(subscription_error("_STATE"));
        }
        let mut s = self.state.lock().unwrap();
        let mut seen = BTreeSet::new();
        if !add && s.places.is_empty() && tpl.count() > 0 {
            return Err(subscription_error("_INVALID_ARG"));
        }
        for e in tpl.elements() {
            let k = key(e.topic(), e.partition());
            if add && !seen.insert(k.clone()) {
                return Err(subscription_error("_INVALID_ARG"));
            }
            match (add, s.places.contains_key(&k)) {
                (true, true) => return Err(subscription_error("_CONFLICT")),
                (false, false) => return Err(subscription_error("_INVALID_ARG")),
                _ => {}
            }
        }
        let mut removed = Vec::new();
        for e in tpl.elements() {
            let k = key(e.topic(), e.partition());
            if add {
                s.assignment.push(k.clone());
                s.assigned_at.insert(k.clone(), as_assigned(e.offset()));
                s.places.insert(k, Place::at(e.offset()));
            } else {
                s.assignment.retain(|a| *a != k);
                s.assigned_at.remove(&k);
                if let Some(place) = s.places.remove(&k) {
                    removed.push((k.clone(), place));
                }
                s.paused.remove(&k);
            }
        }
        s.next = 0;
        drop(s);
        self.removed(removed.into_iter());
        if !add {
            self.group.inner.lock().unwrap().lost = false;
        }
        Ok(())
    }

    pub(crate) fn assignment(&self) -> KafkaResult<TopicPartitionList> {
        if !self.has_group() {
            return Err(KafkaError::MetadataFetch(RDKafkaErrorCode::UnknownGroup));
        }
        let s = self.state.lock().unwrap();
        let mut tpl = TopicPartitionList::new();
        for k in &s.assignment {
            let offset = s.assigned_at.get(k).copied().unwrap_or(Offset::Stored);
            let _ = tpl.add_partition_offset(&k.0, k.1 as i32, offset);
        }
        Ok(tpl)
    }

    /// `seek`: an offset rdkafka cannot represent is refused before librdkafka sees it; a
    /// partition not assigned is `Local: Unknown partition` (librdkafka has no fetcher of it
    /// to move).
    pub(crate) fn seek(&self, topic: &str, partition: i32, offset: Offset) -> KafkaResult<()> {
        if offset.to_raw().is_none() {
            return Err(KafkaError::Seek("Local: Unrepresentable offset".into()));
        }
        let mut s = self.state.lock().unwrap();
        let Some(place) = s.places.get_mut(&key(topic, partition)) else {
            return Err(KafkaError::Seek("Local: Unknown partition".into()));
        };
        // A seek moves where fetching goes on, not what was stored for the next commit.
        let (stored, committed) = (place.stored, place.committed);
        *place = Place::at(offset);
        (place.stored, place.committed) = (stored, committed);
        Ok(())
    }

    pub(crate) fn pause(&self, tpl: &TopicPartitionList, pause: bool) {
        let mut s = self.state.lock().unwrap();
        for e in tpl.elements() {
            let k = key(e.topic(), e.partition());
            if pause {
                // librdkafka drops what it fetched for a paused partition, and the next fetch
                // starts at the application's position, or where fetching last started if
                // the application has none yet (`rd_kafka_toppar_pause_resume`): markers
                // fetched behind the last message returned are fetched again.
                if let Some(place) = s.places.get_mut(&k) {
                    place.buffer.clear();
                    if let Some(p) = place.app_pos.or(place.restart_at).or(place.position) {
                        place.fetch_at = p;
                        place.position = Some(p);
                        place.restart_at = Some(p);
                    }
                }
                s.paused.insert(k);
            } else {
                s.paused.remove(&k);
            }
        }
    }

    /// `position`: librdkafka's positions of the assignment (`UnknownGroup` without one).
    pub(crate) fn position(&self) -> KafkaResult<TopicPartitionList> {
        if !self.has_group() {
            return Err(KafkaError::MetadataFetch(RDKafkaErrorCode::UnknownGroup));
        }
        let s = self.state.lock().unwrap();
        let mut tpl = TopicPartitionList::new();
        for k in &s.assignment {
            let offset = s.places.get(k).and_then(|p| p.app_pos).map_or(Offset::Invalid, |o| Offset::Offset(o as i64));
            let _ = tpl.add_partition_offset(&k.0, k.1 as i32, offset);
        }
        Ok(tpl)
    }

    /// `seek_partitions`: each partition's seek, the first refusal ending it.
    pub(crate) fn seek_partitions(&self, tpl: TopicPartitionList) -> KafkaResult<TopicPartitionList> {
        for e in tpl.elements() {
            self.seek(e.topic(), e.partition(), e.offset())?;
        }
        Ok(tpl)
    }

    /// Routes a partition's messages to a queue of its own (`split_partition_queue`).
    pub(crate) fn split(&self, topic: &str, partition: i32) {
        self.state.lock().unwrap().split.insert(key(topic, partition));
    }

    /// The next message of the consumer (of `only`, for a partition queue), an error, a
    /// group event waiting for the application, or nothing before `deadline`.
    pub(crate) async fn next(&self, deadline: Option<madsim::time::Instant>, only: Option<&(String, u32)>) -> Next {
        loop {
            if only.is_none() && self.group.has_events() {
                return Next::Event;
            }
            self.auto_commit().await;
            let pick = {
                let mut s = self.state.lock().unwrap();
                let n = s.assignment.len();
                let mut ready = None;
                for i in 0..n {
                    let k = s.assignment[(s.next + i) % n].clone();
                    let mine = match only {
                        Some(o) => *o == k,
                        None => !s.split.contains(&k),
                    };
                    if !mine || s.paused.contains(&k) {
                        continue;
                    }
                    let place = s.places.get_mut(&k).expect("assigned");
                    while let Some(&Fetched::Marker(o)) = place.buffer.front() {
                        // librdkafka queues control messages: they move the position past
                        // them when reached, and are never returned.
                        place.app_pos = Some(place.app_pos.unwrap_or(0).max(o + 1));
                        place.buffer.pop_front();
                    }
                    if let Some(Fetched::Message(m)) = place.buffer.pop_front() {
                        // Past the message, and past what the fetch skipped after it (aborted
                        // messages, transaction markers), as Kafka's consumer position is.
                        let past = m.offset_u64() + 1;
                        if self.settings.auto_offset_store {
                            place.stored = Some(m.offset_u64() + 1);
                        }
                        place.app_pos = Some(place.app_pos.unwrap_or(0).max(past));
                        let size = m.payload().map_or(0, <[u8]>::len) + m.key().map_or(0, <[u8]>::len);
                        place.received = (place.received.0 + 1, place.received.1 + size as u64);
                        let drained = !place.buffer.iter().any(|f| matches!(f, Fetched::Message(_)));
                        place.position = Some(if drained { past.max(place.fetch_at) } else { past });
                        s.next = (s.next + i + 1) % n;
                        return Next::Message(m);
                    }
                    if place.eof_pending.take().is_some() {
                        s.next = (s.next + i + 1) % n;
                        return Next::Error(KafkaError::PartitionEOF(k.1 as i32));
                    }
                    if !place.stopped {
                        ready.get_or_insert(k);
                    }
                }
                ready
            };
            let fetched_any = match pick {
                Some(k) => match self.fetch(&k).await {
                    Ok(any) => any,
                    Err(e) => return Next::Error(e),
                },
                None => false,
            };
            {
                let mut s = self.state.lock().unwrap();
                let n = s.assignment.len().max(1);
                s.next = (s.next + 1) % n;
            }
            if !fetched_any {
                if deadline.is_some_and(|d| madsim::time::Instant::now() >= d) {
                    return Next::Timeout;
                }
                madsim::time::sleep(FETCH_WAIT).await;
            }
        }
    }

    /// Fetches once from partition `k` into its buffer; whether anything came (an
    /// end-of-partition event counts).
    async fn fetch(&self, k: &(String, u32)) -> KafkaResult<bool> {
        let (position, start, fetch_at) = {
            let s = self.state.lock().unwrap();
            let p = &s.places[k];
            (p.position, p.start, p.fetch_at)
        };
        let fetch_at = match position {
            Some(_) => fetch_at,
            None => match self.resolve(k, start.unwrap_or(Offset::Stored)).await? {
                Some(o) => o,
                None => return Ok(false),
            },
        };
        let req = KafkaRequest::Fetch {
            topic: k.0.clone(),
            partition: k.1,
            offset: fetch_at,
            max: FETCH_MAX,
            read_committed: self.settings.read_committed,
        };
        match self.wire.call(&req).await {
            Ok(KafkaResponse::Fetched(f)) => {
                let mut s = self.state.lock().unwrap();
                let Some(place) = s.places.get_mut(k) else { return Ok(false) };
                if place.fetch_at != fetch_at && place.position.is_some() {
                    return Ok(false); // a seek happened meanwhile
                }
                place.position.get_or_insert(fetch_at);
                place.restart_at.get_or_insert(fetch_at); // a logical start, now resolved
                place.start = None;
                place.fetch_at = f.next_offset;
                place.missing_since = None;
                place.marks = Some((f.log_start, f.high_watermark, f.last_stable_offset));
                let mut any = !f.entries.is_empty();
                let mut markers = f.markers.into_iter().peekable();
                for (offset, e) in f.entries {
                    while let Some(m) = markers.next_if(|m| *m < offset) {
                        place.buffer.push_back(Fetched::Marker(m));
                    }
                    let headers = (!e.headers.is_empty()).then(|| OwnedHeaders::from_log(e.headers));
                    place.buffer.push_back(Fetched::Message(OwnedMessage::new(
                        e.value,
                        e.key,
                        k.0.clone(),
                        Timestamp::CreateTime(e.timestamp_ms),
                        k.1 as i32,
                        offset as i64,
                        headers,
                    )));
                }
                place.buffer.extend(markers.map(Fetched::Marker));
                if !place.buffer.iter().any(|f| matches!(f, Fetched::Message(_))) {
                    place.position = Some(f.next_offset);
                }
                // librdkafka: the end of the partition (the last stable offset for a
                // read-committed consumer, else the high watermark) reached, once per end.
                let end = if self.settings.read_committed { f.last_stable_offset } else { f.high_watermark };
                if self.settings.partition_eof && f.next_offset >= end && place.eof_at != Some(f.next_offset) {
                    place.eof_at = Some(f.next_offset);
                    place.eof_pending = Some(f.next_offset);
                    any = true;
                }
                Ok(any)
            }
            Ok(KafkaResponse::Error(KafkaCode::OffsetOutOfRange)) => {
                // auto.offset.reset decides, as after a position that retention deleted.
                let reset = match self.settings.reset_earliest {
                    Some(true) => Offset::Beginning,
                    Some(false) => Offset::End,
                    None => return Err(self.reset_refused(k)),
                };
                let mut s = self.state.lock().unwrap();
                if let Some(place) = s.places.get_mut(k) {
                    // The stored offset stays: librdkafka resets it only with the assignment.
                    *place = Place { start: Some(reset), stored: place.stored, ..Place::default() };
                }
                Ok(false)
            }
            Ok(KafkaResponse::Error(KafkaCode::UnknownTopicOrPartition)) => self.missing(k).map(|()| false),
            Ok(KafkaResponse::Error(code)) => Err(KafkaError::MessageConsumption(code.into())),
            Ok(_) | Err(_) => Ok(false), // no answer: fetch again later
        }
    }

    /// The broker does not know the partition's topic. librdkafka: it may not have
    /// propagated yet; only after `topic.metadata.propagation.max.ms` is it reported (at
    /// every poll from then on).
    fn missing(&self, k: &(String, u32)) -> KafkaResult<()> {
        let now_ms = connsim::net::now().as_millis() as u64;
        let mut s = self.state.lock().unwrap();
        let Some(place) = s.places.get_mut(k) else { return Ok(()) };
        let since = *place.missing_since.get_or_insert(now_ms);
        match now_ms.saturating_sub(since) >= self.settings.topic_propagation.as_millis() as u64 {
            true => Err(KafkaError::MessageConsumption(RDKafkaErrorCode::UnknownTopicOrPartition)),
            false => Ok(()),
        }
    }

    /// `auto.offset.reset=error` and no offset to reset to: the application is told once
    /// (`AutoOffsetReset`) and the partition stops fetching until it is sought or assigned
    /// again (librdkafka's `rd_kafka_offset_reset`).
    fn reset_refused(&self, k: &(String, u32)) -> KafkaError {
        if let Some(place) = self.state.lock().unwrap().places.get_mut(k) {
            place.stopped = true;
        }
        KafkaError::MessageConsumption(RDKafkaErrorCode::AutoOffsetReset)
    }

    /// Resolves a logical start offset; `None` if the broker did not answer.
    async fn resolve(&self, k: &(String, u32), start: Offset) -> KafkaResult<Option<u64>> {
        let start = match start {
            Offset::Stored | Offset::Invalid => match self.committed_one(k).await {
                Some(Some(o)) => Offset::Offset(o as i64),
                Some(None) => match self.settings.reset_earliest {
                    Some(true) => Offset::Beginning,
                    Some(false) => Offset::End,
                    None => return Err(self.reset_refused(k)),
                },
                None => return Ok(None),
            },
            other => other,
        };
        let list = |spec| KafkaRequest::ListOffsets {
            topic: k.0.clone(),
            partition: k.1,
            spec,
            read_committed: self.settings.read_committed,
        };
        let resolved = match start {
            Offset::Offset(o) => Some(o.max(0) as u64),
            Offset::Beginning => self.offset(k, list(OffsetSpec::Earliest)).await?,
            Offset::End => self.offset(k, list(OffsetSpec::Latest)).await?,
            Offset::OffsetTail(n) => {
                self.offset(k, list(OffsetSpec::Latest)).await?.map(|end| end.saturating_sub(n.max(0) as u64))
            }
            Offset::Stored | Offset::Invalid => unreachable!("resolved above"),
        };
        if let Some(o) = resolved {
            let mut s = self.state.lock().unwrap();
            if let Some(place) = s.places.get_mut(k) {
                place.position = Some(o);
                place.fetch_at = o;
                place.start = None;
            }
        }
        Ok(resolved)
    }

    async fn offset(&self, k: &(String, u32), req: KafkaRequest) -> KafkaResult<Option<u64>> {
        match self.wire.call(&req).await {
            Ok(KafkaResponse::Offset(o)) => Ok(Some(o)),
            Ok(KafkaResponse::Error(KafkaCode::UnknownTopicOrPartition)) => self.missing(k).map(|()| None),
            Ok(KafkaResponse::Error(code)) => Err(KafkaError::MessageConsumption(code.into())),
            _ => Ok(None),
        }
    }

    /// The group's committed offset of one partition: `Some(None)` if it has none, `None`
    /// if no stable answer came (KIP-447: a read-committed consumer waits while a
    /// transaction commits offsets of it).
    async fn committed_one(&self, k: &(String, u32)) -> Option<Option<u64>> {
        let group = self.settings.group_id.clone()?;
        let require_stable = self.settings.read_committed;
        let req = KafkaRequest::OffsetFetch { group, partitions: vec![k.clone()], require_stable };
        match self.wire.call(&req).await {
            Ok(KafkaResponse::Committed(c)) => c.into_iter().next(),
            _ => None,
        }
    }
}

impl OwnedMessage {
    fn offset_u64(&self) -> u64 {
        crate::message::Message::offset(self).max(0) as u64
    }
}
