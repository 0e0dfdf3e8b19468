//! The Kafka source's reader: one consumer reads every assigned partition; the group's
//! offsets are committed when a checkpoint completes, never on poll.

use super::KafkaSource;
use crate::log_source::{LogEmitter, LogSplit};
use connsim::api::{
    FetchedBatch, InputStatus, ReaderOutput, SourceReader, SourceReaderBase, Split, SplitId, SplitsChange,
};
use connsim::history::CheckpointId;
use connsim::systems::{LogEntry, LogHeader, RecordLogFormat};
use connsim::{ConnectorError, Record};
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::message::Headers;
use rdkafka::{Message, Offset, TopicPartitionList};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

/// How long one poll waits for a first message.
const POLL: Duration = Duration::from_millis(5);

/// Fetches with a consumer; tracks each split's next offset (ahead of what was emitted).
pub struct KafkaSplitReader {
    consumer: Result<BaseConsumer, String>,
    fetch_max: usize,
    splits: BTreeMap<SplitId, (LogSplit, u64)>,
    paused: BTreeSet<SplitId>,
}

impl KafkaSplitReader {
    /// A split reader for `source`.
    pub fn new(source: &KafkaSource) -> Self {
        let consumer = source.consumer_config().create::<BaseConsumer>().map_err(|e| e.to_string());
        Self { consumer, fetch_max: source.fetch_max, splits: BTreeMap::new(), paused: BTreeSet::new() }
    }

    fn consumer(&self) -> Result<&BaseConsumer, ConnectorError> {
        self.consumer.as_ref().map_err(|e| ConnectorError::fail_job(format!("the Kafka source's consumer: {e}")))
    }

    /// Assigns every split at its next offset, and pauses the paused ones again.
    fn reassign(&self) -> Result<(), ConnectorError> {
        let consumer = self.consumer()?;
        let mut tpl = TopicPartitionList::new();
        for (split, next) in self.splits.values() {
            let _ = tpl.add_partition_offset(&split.topic, split.partition as i32, Offset::Offset(*next as i64));
        }
        consumer.assign(&tpl).map_err(|e| ConnectorError::fail_task(e.to_string()))?;
        self.pause(&self.paused.iter().cloned().collect::<Vec<_>>(), true)
    }

    fn pause(&self, ids: &[SplitId], pause: bool) -> Result<(), ConnectorError> {
        let mut tpl = TopicPartitionList::new();
        for id in ids {
            if let Some((split, _)) = self.splits.get(id) {
                tpl.add_partition(&split.topic, split.partition as i32);
            }
        }
        let consumer = self.consumer()?;
        let result = if pause { consumer.pause(&tpl) } else { consumer.resume(&tpl) };
        result.map_err(|e| ConnectorError::fail_task(e.to_string()))
    }
}

/// The message as the bytes the log holds.
fn entry_of<M: Message>(m: &M) -> LogEntry {
    let headers = m.headers().map_or_else(Vec::new, |h| {
        h.iter().map(|h| LogHeader { key: h.key.to_string(), value: h.value.map(<[u8]>::to_vec) }).collect()
    });
    LogEntry {
        key: m.key().map(<[u8]>::to_vec),
        value: m.payload().map(<[u8]>::to_vec),
        headers,
        timestamp_ms: m.timestamp().to_millis().unwrap_or(0),
    }
}

impl connsim::api::SplitReader for KafkaSplitReader {
    type Split = LogSplit;
    type Element = (u64, Record);

    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        let mut batch = FetchedBatch::empty();
        if self.splits.len() == self.paused.len() {
            madsim::time::sleep(POLL).await;
            return Ok(batch);
        }
        let consumer = self.consumer.as_ref().map_err(|e| ConnectorError::fail_job(e.clone()))?;
        while batch.elements.len() < self.fetch_max {
            let wait = if batch.elements.is_empty() { POLL } else { Duration::ZERO };
            let Some(polled) = consumer.poll(wait).await else { break };
            let m = polled.map_err(|e| ConnectorError::fail_task(format!("consuming: {e}")))?;
            let id = format!("{}-{}", m.topic(), m.partition());
            let Some((split, next)) = self.splits.get_mut(&id) else { continue };
            let offset = m.offset() as u64;
            if split.stop.is_some_and(|stop| offset >= stop) {
                continue;
            }
            // The deserializer: bytes it cannot read fail the task, as Flink's
            // deserialization schema does by throwing.
            let record = RecordLogFormat::into_record(entry_of(&m)).map_err(|why| {
                ConnectorError::fail_task(format!("{id} offset {offset} does not deserialize: {why}"))
            })?;
            *next = offset + 1;
            batch.elements.push((id, (offset, record)));
        }
        // Bounded splits end where the consumer's position passed their stop.
        let positions = consumer.position().map_err(|e| ConnectorError::fail_task(e.to_string()))?;
        let done: Vec<SplitId> = self
            .splits
            .iter()
            .filter(|(_, (split, _))| {
                let at = positions.find_partition(&split.topic, split.partition as i32).map(|e| e.offset());
                matches!((split.stop, at), (Some(stop), Some(Offset::Offset(p))) if p as u64 >= stop)
            })
            .map(|(id, _)| id.clone())
            .collect();
        if !done.is_empty() {
            for id in &done {
                self.splits.remove(id);
                self.paused.remove(id);
            }
            batch.finished.extend(done);
            self.reassign()?;
        }
        Ok(batch)
    }

    fn handle_splits_changes(&mut self, change: SplitsChange<LogSplit>) {
        match change {
            SplitsChange::Add(splits) => {
                for s in splits {
                    let next = s.offset;
                    self.splits.insert(s.id(), (s, next));
                }
                let _ = self.reassign();
            }
            SplitsChange::PauseResume { pause, resume } => {
                let _ = self.pause(&resume, false);
                for id in &resume {
                    self.paused.remove(id);
                }
                let _ = self.pause(&pause, true);
                self.paused.extend(pause);
            }
        }
    }
}

/// The Kafka source's reader: the reader base around [`KafkaSplitReader`], and the offset
/// commits of Flink's `KafkaSourceReader` (the offsets each checkpoint's snapshot held,
/// committed to the group when that checkpoint completes; a failed commit is only logged,
/// as Flink's is, since the offsets in the checkpoint are what a restore uses).
pub struct KafkaReader<R: KafkaSplits = KafkaSplitReader> {
    base: SourceReaderBase<R, LogEmitter>,
    committer: Option<Arc<BaseConsumer>>,
    snapshots: BTreeMap<CheckpointId, Vec<(String, u32, u64)>>,
}

/// What a split reader of the Kafka source is.
pub trait KafkaSplits: connsim::api::SplitReader<Split = LogSplit, Element = (u64, Record)> {}
impl<R: connsim::api::SplitReader<Split = LogSplit, Element = (u64, Record)>> KafkaSplits for R {}

impl<R: KafkaSplits> KafkaReader<R> {
    /// The reader around `base`, committing offsets if `source` names a group.
    pub fn new(base: SourceReaderBase<R, LogEmitter>, source: &KafkaSource) -> Self {
        let committer = source.group_id.as_ref().and_then(|_| source.consumer_config().create::<BaseConsumer>().ok());
        Self { base, committer: committer.map(Arc::new), snapshots: BTreeMap::new() }
    }
}

impl<R: KafkaSplits> SourceReader for KafkaReader<R> {
    type Split = LogSplit;

    async fn start(&mut self) -> Result<(), ConnectorError> {
        self.base.start().await
    }
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
        self.base.poll_next(output)
    }
    async fn available(&mut self) {
        self.base.available().await
    }
    fn add_splits(&mut self, splits: Vec<LogSplit>) {
        self.base.add_splits(splits)
    }
    fn notify_no_more_splits(&mut self) {
        self.base.notify_no_more_splits()
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<LogSplit> {
        let splits = self.base.snapshot_state(checkpoint);
        if self.committer.is_some() {
            let offsets = splits.iter().map(|s| (s.topic.clone(), s.partition, s.offset)).collect();
            self.snapshots.insert(checkpoint, offsets);
        }
        splits
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        self.base.notify_checkpoint_complete(checkpoint);
        let Some(consumer) = self.committer.clone() else { return };
        // This checkpoint's offsets (and those of earlier ones it subsumes, dropped).
        let mut covered: Vec<CheckpointId> = self.snapshots.range(..=checkpoint).map(|(c, _)| *c).collect();
        let Some(last) = covered.pop() else { return };
        let offsets = self.snapshots.remove(&last).unwrap_or_default();
        for c in covered {
            self.snapshots.remove(&c);
        }
        let mut tpl = TopicPartitionList::new();
        for (topic, partition, offset) in offsets {
            let _ = tpl.add_partition_offset(&topic, partition as i32, Offset::Offset(offset as i64));
        }
        madsim::task::spawn(async move {
            let _ = consumer.commit(&tpl, CommitMode::Async).await;
        });
    }
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId) {
        self.snapshots.remove(&checkpoint);
        self.base.notify_checkpoint_aborted(checkpoint)
    }
    fn handle_source_event(&mut self, event: Vec<u8>) {
        self.base.handle_source_event(event)
    }
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        self.base.pause_or_resume_splits(pause, resume)
    }
    async fn close(&mut self) {
        self.base.close().await
    }
}
