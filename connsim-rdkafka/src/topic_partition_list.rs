//! `rdkafka::topic_partition_list`: [`TopicPartitionList`] and [`Offset`].

use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};

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
    /// This offset.
    Offset(i64),
    /// This many before the end.
    OffsetTail(i64),
}

impl Offset {
    /// From librdkafka's number (`-2` beginning, `-1` end, `-1000` stored, `-1001` invalid).
    pub fn from_raw(raw: i64) -> Offset {
        match raw {
            -2 => Offset::Beginning,
            -1 => Offset::End,
            -1000 => Offset::Stored,
            -1001 => Offset::Invalid,
            n if n <= -2000 => Offset::OffsetTail(-(n + 2000)),
            n => Offset::Offset(n),
        }
    }
    /// librdkafka's number for it.
    pub fn to_raw(self) -> Option<i64> {
        match self {
            Offset::Beginning => Some(-2),
            Offset::End => Some(-1),
            Offset::Stored => Some(-1000),
            Offset::Invalid => Some(-1001),
            Offset::Offset(n) if n >= 0 => Some(n),
            Offset::OffsetTail(n) if n >= 0 => Some(-2000 - n),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Elem {
    topic: String,
    partition: i32,
    offset: Offset,
    metadata: String,
    error: Option<RDKafkaErrorCode>,
}

/// One entry of a [`TopicPartitionList`].
#[derive(Debug)]
pub struct TopicPartitionListElem<'a> {
    elem: &'a Elem,
}

impl TopicPartitionListElem<'_> {
    /// The topic.
    pub fn topic(&self) -> &str {
        &self.elem.topic
    }
    /// The partition.
    pub fn partition(&self) -> i32 {
        self.elem.partition
    }
    /// The offset.
    pub fn offset(&self) -> Offset {
        self.elem.offset
    }
    /// The metadata committed with the offset.
    pub fn metadata(&self) -> &str {
        &self.elem.metadata
    }
    /// The error the operation that returned the list met on this partition.
    pub fn error(&self) -> KafkaResult<()> {
        match self.elem.error {
            None => Ok(()),
            Some(code) => Err(KafkaError::OffsetFetch(code)),
        }
    }
}

/// Partitions with offsets (`rdkafka::TopicPartitionList`), in insertion order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopicPartitionList {
    list: Vec<Elem>,
}

impl TopicPartitionList {
    /// An empty list.
    pub fn new() -> TopicPartitionList {
        TopicPartitionList::default()
    }
    /// An empty list with room for `capacity`.
    pub fn with_capacity(capacity: usize) -> TopicPartitionList {
        TopicPartitionList { list: Vec::with_capacity(capacity) }
    }
    /// How many entries.
    pub fn count(&self) -> usize {
        self.list.len()
    }
    /// Adds a partition with an invalid offset.
    pub fn add_partition<'a>(&'a mut self, topic: &str, partition: i32) -> TopicPartitionListElem<'a> {
        let elem =
            Elem { topic: topic.to_string(), partition, offset: Offset::Invalid, metadata: String::new(), error: None };
        self.list.push(elem);
        TopicPartitionListElem { elem: self.list.last().expect("just pushed") }
    }
    /// Adds partitions `start..=stop`.
    pub fn add_partition_range(&mut self, topic: &str, start_partition: i32, stop_partition: i32) {
        for p in start_partition..=stop_partition {
            self.add_partition(topic, p);
        }
    }
    /// Sets the offset of a partition in the list.
    pub fn set_partition_offset(&mut self, topic: &str, partition: i32, offset: Offset) -> KafkaResult<()> {
        match self.list.iter_mut().find(|e| e.topic == topic && e.partition == partition) {
            Some(e) => {
                e.offset = offset;
                Ok(())
            }
            None => Err(KafkaError::SetPartitionOffset(RDKafkaErrorCode::UnknownPartition)),
        }
    }
    /// Adds a partition with an offset.
    pub fn add_partition_offset(&mut self, topic: &str, partition: i32, offset: Offset) -> KafkaResult<()> {
        self.add_partition(topic, partition);
        self.set_partition_offset(topic, partition, offset)
    }
    /// The entry of a partition.
    pub fn find_partition(&self, topic: &str, partition: i32) -> Option<TopicPartitionListElem<'_>> {
        self.list
            .iter()
            .find(|e| e.topic == topic && e.partition == partition)
            .map(|elem| TopicPartitionListElem { elem })
    }
    /// Sets every offset.
    pub fn set_all_offsets(&mut self, offset: Offset) -> Result<(), KafkaError> {
        self.list.iter_mut().for_each(|e| e.offset = offset);
        Ok(())
    }
    /// Every entry.
    pub fn elements(&self) -> Vec<TopicPartitionListElem<'_>> {
        self.list.iter().map(|elem| TopicPartitionListElem { elem }).collect()
    }
    /// The entries of one topic.
    pub fn elements_for_topic<'a>(&'a self, topic: &str) -> Vec<TopicPartitionListElem<'a>> {
        self.list.iter().filter(|e| e.topic == topic).map(|elem| TopicPartitionListElem { elem }).collect()
    }
    /// `(topic, partition) → offset`.
    pub fn to_topic_map(&self) -> std::collections::HashMap<(String, i32), Offset> {
        self.list.iter().map(|e| ((e.topic.clone(), e.partition), e.offset)).collect()
    }
}
