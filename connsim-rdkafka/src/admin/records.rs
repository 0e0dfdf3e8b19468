//! `delete_records` (KIP-107): librdkafka's `rd_kafka_DeleteRecords`, which looks the
//! partitions' leaders up in metadata, fails the call when none is found, and sends the
//! partitions it found to their leader.

use super::{nothing_to_do, request, AdminClient, AdminOptions};
use crate::client::ClientContext;
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::{Offset, TopicPartitionList};
use connsim::systems::{AdminRequest, AdminResponse};
use std::collections::BTreeSet;
use std::future::Future;

impl<C: ClientContext> AdminClient<C> {
    /// Deletes the records of each partition below its offset in `offsets`
    /// ([`Offset::End`]: all of them, up to the high watermark); the partition's log start
    /// offset moves there, and a fetch below it is `OffsetOutOfRange`. Answers the list with
    /// each partition's low watermark after, or its error: `UnknownTopicOrPartition` for a
    /// topic that does not exist and `UnknownPartition` for a partition it lacks (librdkafka's
    /// leader lookup), else the broker's (`OffsetOutOfRange` past the high watermark,
    /// `PolicyViolation` for a topic whose `cleanup.policy` lacks `delete`), the offset then
    /// [`Offset::End`] as the broker answers. An empty list, or a partition named twice, is
    /// `AdminOp(InvalidArgument)`; no partition found at all is `AdminOp(NoEnt)`.
    /// `validate_only` does not apply.
    pub fn delete_records(
        &self,
        offsets: &TopicPartitionList,
        opts: &AdminOptions,
    ) -> impl Future<Output = KafkaResult<TopicPartitionList>> {
        let asked: Vec<(String, i32, Offset)> =
            offsets.elements().iter().map(|e| (e.topic().to_string(), e.partition(), e.offset())).collect();
        let checked = opts.check();
        let wire = self.wire.clone();
        async move {
            let opts = checked?;
            let distinct: BTreeSet<(&str, i32)> = asked.iter().map(|(t, p, _)| (t.as_str(), *p)).collect();
            if asked.is_empty() || distinct.len() != asked.len() {
                return Err(nothing_to_do());
            }
            // The leaders: a metadata request for the topics asked.
            let mut topics: Vec<String> = Vec::new();
            for (t, _, _) in &asked {
                if !topics.contains(t) {
                    topics.push(t.clone());
                }
            }
            let AdminResponse::Metadata(metadata) =
                request(&wire, AdminRequest::Metadata { topics: Some(topics) }, None, &opts).await?
            else {
                return Err(KafkaError::AdminOp(RDKafkaErrorCode::State));
            };
            let lookup = |topic: &str, partition: i32| -> Result<u32, RDKafkaErrorCode> {
                let t = metadata.topics.iter().find(|t| t.name == topic);
                match t.and_then(|t| t.error) {
                    Some(code) => Err(code.into()),
                    None if t.is_some_and(|t| t.partitions.iter().any(|p| p.id == partition)) => Ok(partition as u32),
                    None => Err(RDKafkaErrorCode::UnknownPartition),
                }
            };
            let found: Vec<_> = asked.iter().map(|(t, p, _)| lookup(t, *p)).collect();
            let partitions: Vec<(String, u32, i64)> = asked
                .iter()
                .zip(&found)
                .filter_map(|((t, _, o), p)| Some((t.clone(), *p.as_ref().ok()?, o.to_raw().unwrap_or(-1001))))
                .collect();
            if partitions.is_empty() {
                return Err(KafkaError::AdminOp(RDKafkaErrorCode::NoEnt));
            }
            let AdminResponse::Records(deleted) =
                request(&wire, AdminRequest::DeleteRecords { partitions }, None, &opts).await?
            else {
                return Err(KafkaError::AdminOp(RDKafkaErrorCode::State));
            };
            let mut out = TopicPartitionList::with_capacity(asked.len());
            let mut answers = deleted.into_iter();
            for ((topic, partition, offset), found) in asked.iter().zip(found) {
                let (offset, error) = match found {
                    Err(code) => (*offset, Some(code)),
                    Ok(_) => match answers.next().map(|(_, _, r)| r) {
                        Some(Ok(low)) => (Offset::Offset(low as i64), None),
                        Some(Err(e)) => (Offset::End, Some(e.code.into())),
                        None => (*offset, Some(RDKafkaErrorCode::State)),
                    },
                };
                let mut entry = out.add_partition(topic, *partition);
                entry.set_offset(offset)?;
                if let Some(code) = error {
                    entry.set_error(code);
                }
            }
            Ok(out)
        }
    }
}
