//! A consumer's offsets in its group: what it committed and stored, its commits (asked for
//! and automatic), and the committed offsets it reads back.

use super::core::{key, CommitEvent, ConsumerCore};
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::topic_partition_list::{Offset, TopicPartitionList};
use connsim::systems::{KafkaCode, KafkaRequest, KafkaResponse};
use std::time::Duration;

/// How long a read-committed consumer waits before asking again for offsets a transaction
/// is committing (librdkafka retries `UNSTABLE_OFFSET_COMMIT`).
const UNSTABLE_RETRY: Duration = Duration::from_millis(10);

impl ConsumerCore {
    /// The group's committed offsets of `tpl`'s partitions (rdkafka reports a failure as
    /// `MetadataFetch`). A read-committed consumer asks for stable offsets (KIP-447) and asks
    /// again while a transaction commits offsets of a partition, until its deadline.
    pub(crate) async fn committed(
        &self,
        tpl: &TopicPartitionList,
        deadline: Option<madsim::time::Instant>,
    ) -> KafkaResult<TopicPartitionList> {
        let Some(group) = self.settings.group_id.clone() else {
            return Err(KafkaError::MetadataFetch(RDKafkaErrorCode::UnknownGroup));
        };
        let partitions: Vec<(String, u32)> = tpl.elements().iter().map(|e| key(e.topic(), e.partition())).collect();
        let require_stable = self.settings.read_committed;
        let req = KafkaRequest::OffsetFetch { group, partitions: partitions.clone(), require_stable };
        loop {
            match self.wire.call_until(&req, deadline).await {
                Some(KafkaResponse::Committed(offsets)) => {
                    let mut out = TopicPartitionList::new();
                    for ((t, p), o) in partitions.iter().zip(offsets) {
                        let offset = o.map_or(Offset::Invalid, |o| Offset::Offset(o as i64));
                        let _ = out.add_partition_offset(t, *p as i32, offset);
                    }
                    return Ok(out);
                }
                Some(KafkaResponse::Error(KafkaCode::UnstableOffsetCommit)) => {
                    if deadline.is_some_and(|d| madsim::time::Instant::now() >= d) {
                        return Err(KafkaError::MetadataFetch(RDKafkaErrorCode::OperationTimedOut));
                    }
                    madsim::time::sleep(UNSTABLE_RETRY).await;
                }
                Some(KafkaResponse::Error(code)) => return Err(KafkaError::MetadataFetch(code.into())),
                _ => return Err(KafkaError::MetadataFetch(RDKafkaErrorCode::OperationTimedOut)),
            }
        }
    }

    /// Commits offsets for the group.
    pub(crate) async fn commit(
        &self,
        offsets: Vec<(String, u32, u64)>,
        deadline: Option<madsim::time::Instant>,
    ) -> KafkaResult<()> {
        let Some(group) = self.settings.group_id.clone() else {
            return Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::UnknownGroup));
        };
        // librdkafka: a commit with no offset to commit is `__NO_OFFSET`.
        if offsets.is_empty() {
            return Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::NoOffset));
        }
        let member = self.group.identity(self.settings.group_instance_id.as_ref());
        let req = KafkaRequest::OffsetCommit { group, member, offsets: offsets.clone() };
        match self.wire.call_until(&req, deadline).await {
            Some(KafkaResponse::Ok) => {
                let mut s = self.state.lock().unwrap();
                for (t, p, o) in offsets {
                    if let Some(place) = s.places.get_mut(&(t, p)) {
                        place.committed = Some(o);
                    }
                }
                Ok(())
            }
            Some(KafkaResponse::Error(code)) => Err(KafkaError::ConsumerCommit(code.into())),
            _ => Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::OperationTimedOut)),
        }
    }

    /// The stored offsets past what this consumer committed: what a commit of its state
    /// commits (librdkafka leaves out a partition whose stored offset is not past it).
    pub(crate) fn to_commit(&self) -> Vec<(String, u32, u64)> {
        let s = self.state.lock().unwrap();
        s.places
            .iter()
            .filter_map(|((t, p), place)| match (place.stored, place.committed) {
                (Some(o), Some(c)) if o <= c => None,
                (Some(o), _) => Some((t.clone(), *p, o)),
                (None, _) => None,
            })
            .collect()
    }

    /// Automatic commits' outcomes since the last call, for the context's commit callback
    /// (rdkafka serves them when the consumer is polled).
    pub(crate) fn commit_events(&self) -> Vec<CommitEvent> {
        std::mem::take(&mut self.state.lock().unwrap().commit_events)
    }

    /// Stores `offset` of an assigned partition as the next commit's (librdkafka's
    /// `rd_kafka_offset_store0`): refused for a partition not assigned (`State`).
    pub(crate) fn store(&self, topic: &str, partition: i32, offset: i64) -> KafkaResult<()> {
        let mut s = self.state.lock().unwrap();
        let Some(place) = s.places.get_mut(&key(topic, partition)) else {
            return Err(KafkaError::StoreOffset(RDKafkaErrorCode::State));
        };
        if offset < 0 {
            return Err(KafkaError::StoreOffset(RDKafkaErrorCode::InvalidArgument));
        }
        place.stored = Some(offset as u64);
        Ok(())
    }

    /// `store_offsets`: each offset of `tpl` stored as it is; refused while
    /// `enable.auto.offset.store` stores them itself, and only if none could be stored
    /// (librdkafka's `rd_kafka_offsets_store`, with the last failure).
    pub(crate) fn store_list(&self, tpl: &TopicPartitionList) -> KafkaResult<()> {
        if self.settings.auto_offset_store {
            return Err(KafkaError::StoreOffset(RDKafkaErrorCode::InvalidArgument));
        }
        let (mut stored, mut last) = (0, None);
        for e in tpl.elements() {
            let done = match e.offset() {
                Offset::Offset(o) => self.store(e.topic(), e.partition(), o),
                _ => Err(KafkaError::StoreOffset(RDKafkaErrorCode::InvalidArgument)),
            };
            match done {
                Ok(()) => stored += 1,
                Err(e) => last = Some(e),
            }
        }
        match last {
            Some(e) if stored == 0 => Err(e),
            _ => Ok(()),
        }
    }

    /// A commit a rebalance callback asked for: sent before the rebalance goes on, its
    /// outcome to the context's commit callback (a callback cannot wait for it).
    pub(crate) fn commit_later(&self, offsets: Vec<(String, u32, u64)>) -> KafkaResult<()> {
        if self.settings.group_id.is_none() {
            return Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::UnknownGroup));
        }
        if offsets.is_empty() {
            return Err(KafkaError::ConsumerCommit(RDKafkaErrorCode::NoOffset));
        }
        self.group.commit_later(offsets, true);
        Ok(())
    }

    /// Sends the commits handed over (by callbacks, by unassignments), each once, its outcome
    /// for the commit callback.
    pub(crate) async fn flush_commits(&self) {
        for (offsets, report) in self.group.take_commits() {
            let deadline = crate::wire::deadline(crate::util::Timeout::After(self.settings.request_timeout));
            let result = self.commit(offsets.clone(), deadline).await;
            if report {
                self.state.lock().unwrap().commit_events.push((result, offsets));
            }
        }
    }

    /// `enable.auto.commit`: the stored offsets (with `enable.auto.offset.store`, past the
    /// messages returned) are committed every `auto.commit.interval.ms`, whatever the
    /// application did with the messages; each commit's outcome goes to the context's commit
    /// callback at the next poll (none for a commit with nothing to commit).
    pub(super) async fn auto_commit(&self) {
        self.flush_commits().await;
        if !self.settings.auto_commit || self.settings.group_id.is_none() {
            return;
        }
        let now_ms = connsim::net::now().as_millis() as u64;
        let interval = self.settings.auto_commit_interval.as_millis() as u64;
        {
            let mut s = self.state.lock().unwrap();
            if now_ms < s.last_auto_commit_ms + interval {
                return;
            }
            s.last_auto_commit_ms = now_ms;
        }
        let offsets = self.to_commit();
        if offsets.is_empty() {
            return;
        }
        // One request, as librdkafka's background commit: its outcome, answered or not, is
        // the event.
        let deadline = crate::wire::deadline(crate::util::Timeout::After(self.settings.request_timeout));
        let result = self.commit(offsets.clone(), deadline).await;
        self.state.lock().unwrap().commit_events.push((result, offsets));
    }
}
