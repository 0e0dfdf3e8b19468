//! `offsets_for_times`: the first offset at or after a timestamp, per partition (KIP-79),
//! as `ListOffsets` with a timestamp answers it.

use super::core::ConsumerCore;
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::topic_partition_list::{Offset, TopicPartitionList};
use connsim::systems::{KafkaRequest, KafkaResponse, OffsetSpec};

impl ConsumerCore {
    /// Per partition of `timestamps` (each element's offset a timestamp in ms), the first
    /// offset whose message has a timestamp at or after it, or `Offset::End` if none below
    /// the end this consumer may read to (the last stable offset when it reads committed).
    pub(crate) async fn offsets_for_times(
        &self,
        timestamps: &TopicPartitionList,
        deadline: Option<madsim::time::Instant>,
    ) -> KafkaResult<TopicPartitionList> {
        let mut out = TopicPartitionList::new();
        for e in timestamps.elements() {
            let Offset::Offset(ts) = e.offset() else {
                return Err(KafkaError::OffsetFetch(RDKafkaErrorCode::InvalidArgument));
            };
            let req = KafkaRequest::ListOffsets {
                topic: e.topic().to_string(),
                partition: e.partition().max(0) as u32,
                spec: OffsetSpec::Timestamp(ts),
                read_committed: self.settings.read_committed,
            };
            let offset = match self.wire.call_until(&req, deadline).await {
                Some(KafkaResponse::OffsetForTime(Some(o))) => Offset::Offset(o as i64),
                Some(KafkaResponse::OffsetForTime(None)) => Offset::End,
                Some(KafkaResponse::Error(code)) => return Err(KafkaError::OffsetFetch(code.into())),
                Some(_) => return Err(KafkaError::OffsetFetch(RDKafkaErrorCode::State)),
                None => return Err(KafkaError::OffsetFetch(RDKafkaErrorCode::OperationTimedOut)),
            };
            out.add_partition_offset(e.topic(), e.partition(), offset)?;
        }
        Ok(out)
    }
}
