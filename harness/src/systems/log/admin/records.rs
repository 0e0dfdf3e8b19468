//! `DeleteRecords` (KIP-107), as a partition leader answers it.

use super::super::state::State;
use super::super::KafkaCode::{OffsetOutOfRange, PolicyViolation, UnknownTopicOrPartition};
use super::configs::deletes;
use super::wire::ApiError;

/// `DeleteRecords` of one partition (Kafka's `Partition.deleteRecordsOnLeader`): the log
/// start offset moves up to `offset` (-1: the high watermark), never down, never past the
/// high watermark; a topic whose `cleanup.policy` lacks `delete` refuses. Answers the low
/// watermark after.
pub(super) fn delete_records(s: &mut State, topic: &str, partition: u32, offset: i64) -> Result<u64, ApiError> {
    let tp = format!("{topic}-{partition}");
    if s.topics.get(topic).and_then(|t| t.get(partition as usize)).is_none() {
        return Err(ApiError::new(UnknownTopicOrPartition, "This server does not host this topic-partition."));
    }
    if !deletes(s, topic) {
        let why = format!("Records of partition {tp} can not be deleted due to the configured policy");
        return Err(ApiError::new(PolicyViolation, why));
    }
    let part = &mut s.topics.get_mut(topic).expect("looked up above")[partition as usize];
    let offset = if offset == -1 { part.hw as i64 } else { offset };
    if offset < 0 {
        return Err(ApiError::new(OffsetOutOfRange, format!("The offset {offset} for partition {tp} is not valid")));
    }
    let hw = part.hw;
    if offset as u64 > hw {
        let why = format!(
            "Cannot increment the log start offset to {offset} of partition {tp} since it is larger than the high \
             watermark {hw}"
        );
        return Err(ApiError::new(OffsetOutOfRange, why));
    }
    if offset as u64 > part.start {
        part.start = offset as u64;
        s.changes += 1;
    }
    Ok(s.topics[topic][partition as usize].start)
}
