//! What both consumers share: the assignment, each partition's position and fetch buffer,
//! offset resets, and the group's committed offsets.

use crate::config::Settings;
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::message::{OwnedHeaders, OwnedMessage, Timestamp};
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
    fetch_at: u64,
    buffer: VecDeque<OwnedMessage>,
    /// The offset the next commit of the consumer's state commits (librdkafka's stored
    /// offset): past the last message returned, or what the application stored.
    pub(super) stored: Option<u64>,
    /// The offset this consumer last committed for the partition: a commit of its state
    /// leaves out a partition whose stored offset is not past it.
    pub(super) committed: Option<u64>,
}

/// An automatic commit's outcome and the offsets it committed.
pub(crate) type CommitEvent = (KafkaResult<()>, Vec<(String, u32, u64)>);

#[derive(Default)]
pub(super) struct State {
    assignment: Vec<(String, u32)>,
    pub(super) places: BTreeMap<(String, u32), Place>,
    paused: BTreeSet<(String, u32)>,
    next: usize,
    pub(super) last_auto_commit_ms: u64,
    /// Outcomes of automatic commits not yet handed to the context (at the next poll).
    pub(super) commit_events: Vec<CommitEvent>,
}

pub(crate) struct ConsumerCore {
    pub(crate) wire: Wire,
    pub(crate) settings: Settings,
    pub(super) state: Mutex<State>,
}

impl Place {
    /// A partition assigned or sought at `offset`: a concrete one is its position; any other
    /// is resolved on the first fetch.
    fn at(offset: Offset) -> Place {
        match offset {
            Offset::Offset(o) if o >= 0 => Place { position: Some(o as u64), fetch_at: o as u64, ..Place::default() },
            other => Place { start: Some(other), ..Place::default() },
        }
    }
}

pub(super) fn key(topic: &str, partition: i32) -> (String, u32) {
    (topic.to_string(), partition.max(0) as u32)
}

impl ConsumerCore {
    pub(crate) fn new(settings: Settings) -> KafkaResult<ConsumerCore> {
        Ok(ConsumerCore { wire: Wire::new(&settings)?, settings, state: Mutex::default() })
    }

    pub(crate) fn assign(&self, tpl: &TopicPartitionList) {
        let mut s = self.state.lock().unwrap();
        s.assignment.clear();
        s.places.clear();
        for e in tpl.elements() {
            let k = key(e.topic(), e.partition());
            s.assignment.push(k.clone());
            s.places.insert(k, Place::at(e.offset()));
        }
    }

    /// `incremental_assign` (`add`) or `incremental_unassign`: a partition already assigned
    /// (adding) or not assigned (removing) is refused, as librdkafka refuses it
    /// (`_CONFLICT`), and then nothing changes.
    pub(crate) fn reassign(&self, tpl: &TopicPartitionList, add: bool) -> Result<(), String> {
        let mut s = self.state.lock().unwrap();
        for e in tpl.elements() {
            if s.places.contains_key(&key(e.topic(), e.partition())) == add {
                let what = if add { "is already part of" } else { "is not part of" };
                return Err(format!("_CONFLICT: {} [{}] {what} the current assignment", e.topic(), e.partition()));
            }
        }
        for e in tpl.elements() {
            let k = key(e.topic(), e.partition());
            if add {
                s.assignment.push(k.clone());
                s.places.insert(k, Place::at(e.offset()));
            } else {
                s.assignment.retain(|a| *a != k);
                s.places.remove(&k);
                s.paused.remove(&k);
            }
        }
        s.next = 0;
        Ok(())
    }

    pub(crate) fn assignment(&self) -> TopicPartitionList {
        let s = self.state.lock().unwrap();
        let mut tpl = TopicPartitionList::new();
        for (t, p) in &s.assignment {
            tpl.add_partition(t, *p as i32);
        }
        tpl
    }

    pub(crate) fn seek(&self, topic: &str, partition: i32, offset: Offset) -> KafkaResult<()> {
        let mut s = self.state.lock().unwrap();
        let Some(place) = s.places.get_mut(&key(topic, partition)) else {
            return Err(KafkaError::Seek(format!("{topic} [{partition}] is not assigned: assign it before seeking")));
        };
        // A seek moves where fetching goes on, not what was stored for the next commit.
        let stored = place.stored;
        *place = Place::at(offset);
        place.stored = stored;
        Ok(())
    }

    pub(crate) fn pause(&self, tpl: &TopicPartitionList, pause: bool) {
        let mut s = self.state.lock().unwrap();
        for e in tpl.elements() {
            let k = key(e.topic(), e.partition());
            if pause {
                // librdkafka drops what it fetched for a paused partition; resuming fetches
                // again from the position.
                if let Some(place) = s.places.get_mut(&k) {
                    place.buffer.clear();
                    if let Some(p) = place.position {
                        place.fetch_at = p;
                    }
                }
                s.paused.insert(k);
            } else {
                s.paused.remove(&k);
            }
        }
    }

    pub(crate) fn position(&self) -> TopicPartitionList {
        let s = self.state.lock().unwrap();
        let mut tpl = TopicPartitionList::new();
        for k in &s.assignment {
            let offset = s.places.get(k).and_then(|p| p.position).map_or(Offset::Invalid, |o| Offset::Offset(o as i64));
            let _ = tpl.add_partition_offset(&k.0, k.1 as i32, offset);
        }
        tpl
    }

    /// The next message, or `None` if none came before `deadline`.
    pub(crate) async fn next(&self, deadline: Option<madsim::time::Instant>) -> Option<KafkaResult<OwnedMessage>> {
        loop {
            self.auto_commit().await;
            let pick = {
                let mut s = self.state.lock().unwrap();
                let n = s.assignment.len();
                let mut ready = None;
                for i in 0..n {
                    let k = s.assignment[(s.next + i) % n].clone();
                    if s.paused.contains(&k) {
                        continue;
                    }
                    let place = s.places.get_mut(&k).expect("assigned");
                    if let Some(m) = place.buffer.pop_front() {
                        // Past the message, and past what the fetch skipped after it (aborted
                        // messages, transaction markers), as Kafka's consumer position is.
                        let past = m.offset_u64() + 1;
                        if self.settings.auto_offset_store {
                            place.stored = Some(m.offset_u64() + 1);
                        }
                        place.position = Some(if place.buffer.is_empty() { past.max(place.fetch_at) } else { past });
                        s.next = (s.next + i + 1) % n;
                        return Some(Ok(m));
                    }
                    ready.get_or_insert(k);
                }
                ready
            };
            let fetched_any = match pick {
                Some(k) => match self.fetch(&k).await {
                    Ok(any) => any,
                    Err(e) => return Some(Err(e)),
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
                    return None;
                }
                madsim::time::sleep(FETCH_WAIT).await;
            }
        }
    }

    /// Fetches once from partition `k` into its buffer; whether anything came.
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
                place.start = None;
                place.fetch_at = f.next_offset;
                let any = !f.entries.is_empty();
                for (offset, e) in f.entries {
                    let headers = (!e.headers.is_empty()).then(|| OwnedHeaders::from_log(e.headers));
                    place.buffer.push_back(OwnedMessage::new(
                        e.value,
                        e.key,
                        k.0.clone(),
                        Timestamp::CreateTime(e.timestamp_ms),
                        k.1 as i32,
                        offset as i64,
                        headers,
                    ));
                }
                if place.buffer.is_empty() {
                    place.position = Some(f.next_offset);
                }
                Ok(any)
            }
            Ok(KafkaResponse::Error(KafkaCode::OffsetOutOfRange)) => {
                // auto.offset.reset decides, as after a position that retention deleted.
                let reset = match self.settings.reset_earliest {
                    Some(true) => Offset::Beginning,
                    Some(false) => Offset::End,
                    None => return Err(KafkaError::MessageConsumption(RDKafkaErrorCode::OffsetOutOfRange)),
                };
                let mut s = self.state.lock().unwrap();
                if let Some(place) = s.places.get_mut(k) {
                    // The stored offset stays: librdkafka resets it only with the assignment.
                    *place = Place { start: Some(reset), stored: place.stored, ..Place::default() };
                }
                Ok(false)
            }
            Ok(KafkaResponse::Error(code)) => Err(KafkaError::MessageConsumption(code.into())),
            Ok(_) | Err(_) => Ok(false), // no answer: fetch again later
        }
    }

    /// Resolves a logical start offset; `None` if the broker did not answer.
    async fn resolve(&self, k: &(String, u32), start: Offset) -> KafkaResult<Option<u64>> {
        let start = match start {
            Offset::Stored | Offset::Invalid => match self.committed_one(k).await {
                Some(Some(o)) => Offset::Offset(o as i64),
                Some(None) => match self.settings.reset_earliest {
                    Some(true) => Offset::Beginning,
                    Some(false) => Offset::End,
                    None => return Err(KafkaError::MessageConsumption(RDKafkaErrorCode::OffsetOutOfRange)),
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
            Offset::Beginning => self.offset(list(OffsetSpec::Earliest)).await?,
            Offset::End => self.offset(list(OffsetSpec::Latest)).await?,
            Offset::OffsetTail(n) => {
                self.offset(list(OffsetSpec::Latest)).await?.map(|end| end.saturating_sub(n as u64))
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

    async fn offset(&self, req: KafkaRequest) -> KafkaResult<Option<u64>> {
        match self.wire.call(&req).await {
            Ok(KafkaResponse::Offset(o)) => Ok(Some(o)),
            Ok(KafkaResponse::Error(code)) => Err(KafkaError::MessageConsumption(code.into())),
            _ => Ok(None),
        }
    }

    async fn committed_one(&self, k: &(String, u32)) -> Option<Option<u64>> {
        let group = self.settings.group_id.clone()?;
        let req = KafkaRequest::OffsetFetch { group, partitions: vec![k.clone()] };
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
