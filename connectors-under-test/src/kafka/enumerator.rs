//! The Kafka source's enumerator: partitions found with rdkafka's metadata and watermark
//! calls; splits kept and handed over as the log source's enumerator does.

use super::KafkaSource;
use crate::log_source::{Discovered, LogEnumState, LogEnumerator, LogSource, LogSplit, OffsetReset};
use connsim::api::{AsyncResult, Boundedness, EnumeratorContext, SplitEnumerator};
use connsim::history::CheckpointId;
use connsim::ConnectorError;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Offset, TopicPartitionList};
use std::sync::Arc;
use std::time::Duration;

/// How long a discovery's metadata and watermark calls may take.
const DISCOVERY_TIMEOUT: Duration = Duration::from_millis(500);

/// The enumerator: a consumer for discovery, and the log enumerator's split bookkeeping
/// (partition `p` belongs to reader `p mod parallelism`).
pub struct KafkaEnumerator {
    source: KafkaSource,
    consumer: Result<Arc<BaseConsumer>, String>,
    splits: LogEnumerator,
}

/// End offsets (last stable offsets, reading committed) of every partition of `topic`.
async fn end_offsets(consumer: &BaseConsumer, topic: &str) -> Result<Vec<u64>, ConnectorError> {
    let retriable = |e: rdkafka::error::KafkaError| ConnectorError::retry(format!("discovering {topic}: {e}"));
    let metadata = consumer.fetch_metadata(Some(topic), DISCOVERY_TIMEOUT).await.map_err(retriable)?;
    let partitions = metadata.topics().first().map_or(0, |t| t.partitions().len());
    // Every partition's watermarks at once, as one ListOffsets request for all would.
    let marks = (0..partitions as i32).map(|p| consumer.fetch_watermarks(topic, p, DISCOVERY_TIMEOUT));
    let marks = futures::future::try_join_all(marks).await.map_err(retriable)?;
    Ok(marks.into_iter().map(|(_low, high)| high.max(0) as u64).collect())
}

/// `group`'s committed offset of every partition of `topic` below `partitions`, `None` where
/// it has none.
async fn committed(
    consumer: &BaseConsumer,
    topic: &str,
    partitions: usize,
) -> Result<Vec<Option<u64>>, ConnectorError> {
    let mut tpl = TopicPartitionList::new();
    for p in 0..partitions as i32 {
        tpl.add_partition(topic, p);
    }
    let committed = consumer
        .committed_offsets(tpl, DISCOVERY_TIMEOUT)
        .await
        .map_err(|e| ConnectorError::retry(format!("the group's committed offsets of {topic}: {e}")))?;
    let at = |p: i32| match committed.find_partition(topic, p).map(|e| e.offset()) {
        Some(Offset::Offset(o)) if o >= 0 => Some(o as u64),
        _ => None,
    };
    Ok((0..partitions as i32).map(at).collect())
}

impl KafkaEnumerator {
    /// The enumerator of `source` with `state`.
    pub fn new(source: KafkaSource, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> Self {
        let bookkeeping = LogSource {
            log: source.bootstrap.split(':').next().unwrap_or_default().to_string(),
            topic: source.topic.clone(),
            boundedness: source.boundedness,
            discovery_interval_ms: source.discovery_interval_ms,
            fetch_max: source.fetch_max,
            start: source.start.clone(),
            stop: source.stop.clone(),
            on_out_of_range: OffsetReset::Earliest,
            watermarks: source.watermarks,
            idle_when_caught_up: false,
        };
        let consumer = source.consumer_config().create::<BaseConsumer>().map(Arc::new).map_err(|e| e.to_string());
        Self { splits: LogEnumerator::new(bookkeeping, ctx, state), consumer, source }
    }

    fn consumer(&self) -> Result<Arc<BaseConsumer>, ConnectorError> {
        self.consumer.clone().map_err(|e| ConnectorError::fail_job(format!("the Kafka source's consumer: {e}")))
    }
}

impl SplitEnumerator for KafkaEnumerator {
    type Split = LogSplit;
    type State = LogEnumState;

    async fn start(&mut self, ctx: &mut EnumeratorContext<LogSplit>) -> Result<(), ConnectorError> {
        let consumer = self.consumer()?;
        // Bounded reads fix their end offsets at the first start; a restored enumerator
        // already knows its partitions.
        if !self.splits.has_discovered() {
            let ends = end_offsets(&consumer, &self.source.topic).await?;
            let starts = match (&self.source.group_id, self.source.committed_start) {
                (Some(_), true) => committed(&consumer, &self.source.topic, ends.len()).await?,
                _ => Vec::new(),
            };
            self.splits.add_partitions_from(ends, &starts);
        }
        if self.source.boundedness == Boundedness::Unbounded {
            let topic = self.source.topic.clone();
            ctx.call_async_periodically(Duration::from_millis(self.source.discovery_interval_ms), move || {
                let (consumer, topic) = (consumer.clone(), topic.clone());
                async move { Discovered(end_offsets(&consumer, &topic).await) }
            });
        }
        self.splits.assign_pending(ctx);
        Ok(())
    }

    fn add_splits_back(&mut self, splits: Vec<LogSplit>, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.splits.add_splits_back(splits, subtask, ctx)
    }

    fn add_reader(&mut self, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.splits.add_reader(subtask, ctx)
    }

    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> LogEnumState {
        self.splits.snapshot_state(checkpoint)
    }

    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        self.splits.notify_checkpoint_complete(checkpoint)
    }

    fn reader_failed(&mut self, subtask: usize, ctx: &mut EnumeratorContext<LogSplit>) {
        self.splits.reader_failed(subtask, ctx)
    }

    fn handle_async(&mut self, result: AsyncResult, ctx: &mut EnumeratorContext<LogSplit>) {
        self.splits.handle_async(result, ctx)
    }
}
