//! `rdkafka::topic_partition_list`: [`TopicPartitionList`] and [`Offset`], with librdkafka's
//! rules: entries in insertion order (a partition may be listed twice; lookups find the first),
//! offsets stored as librdkafka's numbers, and the list's capacity grown as
//! `rd_kafka_topic_partition_list_grow` grows it.

use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// librdkafka's partition of a topic without one (`RD_KAFKA_PARTITION_UA`).
const PARTITION_UNASSIGNED: i32 = -1;
/// librdkafka's logical offsets.
const OFFSET_BEGINNING: i64 = -2;
const OFFSET_END: i64 = -1;
const OFFSET_STORED: i64 = -1000;
const OFFSET_INVALID: i64 = -1001;
const OFFSET_TAIL_BASE: i64 = -2000;

/// A position in a partition (`rdkafka::Offset`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Offset {
    /// The partition's first offset.
    Beginning,
    /// Its end.
    End,
    /// The group's committed offset.
    Stored,
    /// None or invalid.
    Invalid,
    /// This offset; librdkafka refuses a negative one.
    Offset(i64),
    /// This many before the end; librdkafka refuses less than 1.
    OffsetTail(i64),
}

impl Offset {
    /// From librdkafka's number (`-2` beginning, `-1` end, `-1000` stored, `-1001` invalid,
    /// `-2000 - n` the `n`th before the end).
    pub fn from_raw(raw_offset: i64) -> Offset {
        match raw_offset {
            OFFSET_BEGINNING => Offset::Beginning,
            OFFSET_END => Offset::End,
            OFFSET_STORED => Offset::Stored,
            OFFSET_INVALID => Offset::Invalid,
            n if n <= OFFSET_TAIL_BASE => Offset::OffsetTail(OFFSET_TAIL_BASE - n),
            n => Offset::Offset(n),
        }
    }

    /// librdkafka's number for it; `None` for an offset it cannot represent: a negative
    /// [`Offset::Offset`], an [`Offset::OffsetTail`] below 1.
    pub fn to_raw(self) -> Option<i64> {
        match self {
            Offset::Beginning => Some(OFFSET_BEGINNING),
            Offset::End => Some(OFFSET_END),
            Offset::Stored => Some(OFFSET_STORED),
            Offset::Invalid => Some(OFFSET_INVALID),
            Offset::Offset(n) if n >= 0 => Some(n),
            Offset::OffsetTail(n) if n > 0 => Some(OFFSET_TAIL_BASE - n),
            Offset::Offset(_) | Offset::OffsetTail(_) => None,
        }
    }
}

/// What an entry's handles may change through a shared list, as rdkafka's elements write
/// through librdkafka's pointer.
#[derive(Clone)]
struct State {
    /// librdkafka's number.
    offset: i64,
    metadata: Arc<str>,
    error: RDKafkaErrorCode,
}

/// One entry (librdkafka's `rd_kafka_topic_partition_t`).
struct Entry {
    topic: String,
    partition: i32,
    state: Mutex<State>,
}

impl Entry {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Clone for Entry {
    fn clone(&self) -> Entry {
        Entry { topic: self.topic.clone(), partition: self.partition, state: Mutex::new(self.state().clone()) }
    }
}

/// One entry of a [`TopicPartitionList`] (`rdkafka::topic_partition_list::TopicPartitionListElem`).
/// As rdkafka's, it writes into the list even when the list was only borrowed (from
/// [`TopicPartitionList::elements`] or [`TopicPartitionList::find_partition`]), and its
/// offset reads the list; its metadata is the one it was made with or set.
pub struct TopicPartitionListElem<'a> {
    entry: &'a Entry,
    metadata: Arc<str>,
}

impl<'a> TopicPartitionListElem<'a> {
    fn of(entry: &'a Entry) -> TopicPartitionListElem<'a> {
        let metadata = entry.state().metadata.clone();
        TopicPartitionListElem { entry, metadata }
    }

    /// The topic.
    pub fn topic(&self) -> &str {
        &self.entry.topic
    }

    /// The error the call that returned the list met on this partition, as an
    /// [`KafkaError::OffsetFetch`].
    pub fn error(&self) -> KafkaResult<()> {
        match self.entry.state().error {
            RDKafkaErrorCode::NoError => Ok(()),
            code => Err(KafkaError::OffsetFetch(code)),
        }
    }

    /// The partition.
    pub fn partition(&self) -> i32 {
        self.entry.partition
    }

    /// The offset.
    pub fn offset(&self) -> Offset {
        Offset::from_raw(self.entry.state().offset)
    }

    /// Sets the offset; one librdkafka cannot represent is an
    /// [`KafkaError::SetPartitionOffset`] of [`RDKafkaErrorCode::InvalidArgument`].
    pub fn set_offset(&mut self, offset: Offset) -> KafkaResult<()> {
        let raw = offset.to_raw().ok_or(KafkaError::SetPartitionOffset(RDKafkaErrorCode::InvalidArgument))?;
        self.entry.state().offset = raw;
        Ok(())
    }

    /// The metadata committed with the offset (empty for none).
    pub fn metadata(&self) -> &str {
        &self.metadata
    }

    /// Sets the metadata committed with the offset.
    pub fn set_metadata<M>(&mut self, metadata: M)
    where
        M: AsRef<str>,
    {
        self.metadata = Arc::from(metadata.as_ref());
        self.entry.state().metadata = self.metadata.clone();
    }

    /// Sets the error a call met on this partition (librdkafka's `err` of the entry).
    #[allow(dead_code)] // For the clients' per-partition results.
    pub(crate) fn set_error(&mut self, code: RDKafkaErrorCode) {
        self.entry.state().error = code;
    }
}

impl PartialEq for TopicPartitionListElem<'_> {
    /// The same topic, partition, offset and metadata (errors aside), as rdkafka's.
    fn eq(&self, other: &TopicPartitionListElem<'_>) -> bool {
        (self.topic(), self.partition(), self.offset(), self.metadata())
            == (other.topic(), other.partition(), other.offset(), other.metadata())
    }
}

impl fmt::Debug for TopicPartitionListElem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TopicPartitionListElem")
            .field("topic", &self.topic())
            .field("partition", &self.partition())
            .field("offset", &self.offset())
            .field("metadata", &self.metadata())
            .field("error", &self.error())
            .finish()
    }
}

/// Partitions with offsets (`rdkafka::TopicPartitionList`), in insertion order.
#[derive(Clone)]
pub struct TopicPartitionList {
    list: Vec<Entry>,
    /// librdkafka's `size`: how many entries fit before the list grows.
    size: usize,
}

/// Panics as rdkafka does on a topic that is no C string (it holds a NUL).
fn check_topic(topic: &str) {
    std::ffi::CString::new(topic).expect("Topic name is not UTF-8");
}

impl TopicPartitionList {
    /// An empty list, with room for 5.
    pub fn new() -> TopicPartitionList {
        TopicPartitionList::with_capacity(5)
    }

    /// An empty list with room for `capacity` (librdkafka takes an `int`: a capacity past
    /// `i32::MAX` wraps, and none is made for a negative one).
    pub fn with_capacity(capacity: usize) -> TopicPartitionList {
        let size = (capacity as i32).max(0) as usize;
        TopicPartitionList { list: Vec::new(), size }
    }

    /// The list of a map's partitions with their offsets (in the order of their topics and
    /// partitions: rdkafka's follows the map's, which is arbitrary); an offset librdkafka
    /// cannot represent fails it.
    pub fn from_topic_map(topic_map: &HashMap<(String, i32), Offset>) -> KafkaResult<TopicPartitionList> {
        let mut entries: Vec<_> = topic_map.iter().collect();
        entries.sort_by(|a, b| a.0.cmp(b.0));
        let mut tpl = TopicPartitionList::with_capacity(topic_map.len());
        for ((topic, partition), offset) in entries {
            tpl.add_partition_offset(topic, *partition, *offset)?;
        }
        Ok(tpl)
    }

    /// How many entries.
    pub fn count(&self) -> usize {
        self.list.len()
    }

    /// How many entries fit before the list grows: as librdkafka, by the larger of its size and
    /// 32 when it is full, by one when that is more (a list made with room for none).
    pub fn capacity(&self) -> usize {
        self.size
    }

    /// Adds a topic without a partition (partition -1, `RD_KAFKA_PARTITION_UA`).
    pub fn add_topic_unassigned<'a>(&'a mut self, topic: &str) -> TopicPartitionListElem<'a> {
        self.add_partition(topic, PARTITION_UNASSIGNED)
    }

    /// Adds a partition with an invalid offset, after the others (even if it is listed).
    pub fn add_partition<'a>(&'a mut self, topic: &str, partition: i32) -> TopicPartitionListElem<'a> {
        check_topic(topic);
        if self.list.len() == self.size {
            self.size += if self.size > 1 { self.size.max(32) } else { 1 };
        }
        let state = State { offset: OFFSET_INVALID, metadata: Arc::from(""), error: RDKafkaErrorCode::NoError };
        self.list.push(Entry { topic: topic.to_owned(), partition, state: Mutex::new(state) });
        TopicPartitionListElem::of(self.list.last().expect("just pushed"))
    }

    /// Adds partitions `start_partition..=stop_partition`.
    pub fn add_partition_range(&mut self, topic: &str, start_partition: i32, stop_partition: i32) {
        check_topic(topic);
        for partition in start_partition..=stop_partition {
            self.add_partition(topic, partition);
        }
    }

    /// Sets the offset of a listed partition: [`KafkaError::SetPartitionOffset`] of
    /// [`RDKafkaErrorCode::InvalidArgument`] for an offset librdkafka cannot represent, of
    /// [`RDKafkaErrorCode::UnknownPartition`] for a partition not in the list.
    pub fn set_partition_offset(&mut self, topic: &str, partition: i32, offset: Offset) -> KafkaResult<()> {
        check_topic(topic);
        let raw = offset.to_raw().ok_or(KafkaError::SetPartitionOffset(RDKafkaErrorCode::InvalidArgument))?;
        let entry =
            self.find(topic, partition).ok_or(KafkaError::SetPartitionOffset(RDKafkaErrorCode::UnknownPartition))?;
        entry.state().offset = raw;
        Ok(())
    }

    /// Adds a partition, then sets its offset (it stays listed, with an invalid offset, if
    /// that fails).
    pub fn add_partition_offset(&mut self, topic: &str, partition: i32, offset: Offset) -> KafkaResult<()> {
        self.add_partition(topic, partition);
        self.set_partition_offset(topic, partition, offset)
    }

    /// The first entry of a partition.
    pub fn find_partition(&self, topic: &str, partition: i32) -> Option<TopicPartitionListElem<'_>> {
        check_topic(topic);
        self.find(topic, partition).map(TopicPartitionListElem::of)
    }

    fn find(&self, topic: &str, partition: i32) -> Option<&Entry> {
        self.list.iter().find(|e| e.topic == topic && e.partition == partition)
    }

    /// Sets every offset; an offset librdkafka cannot represent fails it (but on an empty
    /// list, as rdkafka's).
    pub fn set_all_offsets(&mut self, offset: Offset) -> Result<(), KafkaError> {
        for mut elem in self.elements() {
            elem.set_offset(offset)?;
        }
        Ok(())
    }

    /// Every entry.
    pub fn elements(&self) -> Vec<TopicPartitionListElem<'_>> {
        self.list.iter().map(TopicPartitionListElem::of).collect()
    }

    /// The entries of one topic.
    pub fn elements_for_topic<'a>(&'a self, topic: &str) -> Vec<TopicPartitionListElem<'a>> {
        self.list.iter().filter(|e| e.topic == topic).map(TopicPartitionListElem::of).collect()
    }

    /// `(topic, partition) → offset` (a partition listed twice: its last entry's).
    pub fn to_topic_map(&self) -> HashMap<(String, i32), Offset> {
        self.elements().iter().map(|e| ((e.topic().to_owned(), e.partition()), e.offset())).collect()
    }
}

impl PartialEq for TopicPartitionList {
    /// As many entries, each equal to the other list's first entry of its partition (in any
    /// order, errors aside), as rdkafka's.
    fn eq(&self, other: &TopicPartitionList) -> bool {
        self.count() == other.count()
            && self.elements().iter().all(|e| other.find_partition(e.topic(), e.partition()).is_some_and(|o| *e == o))
    }
}

impl Default for TopicPartitionList {
    fn default() -> TopicPartitionList {
        TopicPartitionList::new()
    }
}

impl FromIterator<(String, i32, Offset)> for TopicPartitionList {
    /// Panics, as rdkafka's, on an offset librdkafka cannot represent.
    fn from_iter<I: IntoIterator<Item = (String, i32, Offset)>>(iter: I) -> TopicPartitionList {
        let iter = iter.into_iter();
        let mut tpl = TopicPartitionList::with_capacity(iter.size_hint().0);
        for (topic, partition, offset) in iter {
            let mut elem = tpl.add_partition(&topic, partition);
            if let Err(err) = elem.set_offset(offset) {
                panic!("failed to set offset via collect() for {topic}:{partition} (offset: {offset:?}): {err:?}");
            }
        }
        tpl
    }
}

impl FromIterator<((String, i32), Offset)> for TopicPartitionList {
    /// Panics, as rdkafka's, on an offset librdkafka cannot represent.
    fn from_iter<I: IntoIterator<Item = ((String, i32), Offset)>>(iter: I) -> TopicPartitionList {
        iter.into_iter().map(|((topic, partition), offset)| (topic, partition, offset)).collect()
    }
}

impl fmt::Debug for TopicPartitionList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.elements()).finish()
    }
}
