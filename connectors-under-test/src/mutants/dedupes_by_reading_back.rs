//! **Duplicates skipped by reading the output back**: the at-least-once log sink, upgraded
//! to claim effectively-once delivery ([`DeliveryGuarantee::Idempotent`]) without
//! transactions. A writer reads the output back when it starts, and again before it resends
//! a batch whose answer it did not get, and skips every record already there.
//!
//! Story: "read your own output to deduplicate" (seeding a dedup cache from the target on
//! startup, checking for a row before inserting it again). It holds while a subtask has one
//! writer at a time: a crashed attempt writes nothing more, a cancelled one closes before its
//! replacement starts, and a writer's own requests reach the log in order, so its read-back
//! sees everything it sent before. A zombie breaks it: the attempt cut off from the job
//! master keeps writing after its replacement read the output back, and the replacement,
//! which re-reads from the last checkpoint, writes those records again.
//!
//! Caught by: `no-duplicates`, only when a zombie writes after its replacement started (the
//! `zombie(..)` block; a frozen worker waking up does the same), or a crashed writer's slow
//! request lands after its replacement read back ("slow requests outlive a crashed writer").

use crate::log_sink::{LogSink, LogSinkSetup, NothingToCommit};
use crate::BarrierMode;
use connsim::api::{CommitterContext, DeliveryGuarantee, NoGlobalCommitter, Sink, SinkWriter, WriterContext};
use connsim::history::CheckpointId;
use connsim::run::{SinkSetup, World};
use connsim::systems::{LogClient, RecordLogFormat};
use connsim::{ConnectorError, Record, RecordId, RetryHint};
use std::collections::BTreeSet;
use std::time::Duration;

const BUFFER_RECORDS: usize = 32;
const TRIES: u32 = 20;

/// The log sink, with the bug.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct DedupesByReadingBackSink(pub LogSink);

/// Its writer: skips records its output already holds.
pub struct DedupingWriter {
    client: LogClient,
    topic: String,
    partition: u32,
    buffer: Vec<Record>,
    /// Ids known to be in the output.
    written: BTreeSet<RecordId>,
}

impl DedupingWriter {
    /// Reads the output back, retrying until it gets an answer.
    async fn read_back(&mut self) -> Result<(), ConnectorError> {
        let mut tries = 0;
        loop {
            match self.read_once().await {
                Err(e) if e.hint == RetryHint::Retry && tries + 1 < TRIES => {
                    tries += 1;
                    madsim::time::sleep(Duration::from_millis(5)).await;
                }
                other => return other,
            }
        }
    }

    /// Every record id in the output, over all partitions.
    async fn read_once(&mut self) -> Result<(), ConnectorError> {
        let partitions = self.client.partitions(&self.topic).await?;
        for partition in 0..partitions {
            let mut offset = 0;
            loop {
                let (entries, next) = self.client.fetch(&self.topic, partition, offset, 1_000).await?;
                if entries.is_empty() || next <= offset {
                    break;
                }
                for (_, entry) in &entries {
                    let record = RecordLogFormat::decode(entry).map_err(ConnectorError::fail_task)?;
                    self.written.insert(record.id);
                }
                offset = next;
            }
        }
        Ok(())
    }

    /// Sends the buffer; after a call without an answer, reads back before resending what
    /// did not land.
    async fn send(&mut self) -> Result<(), ConnectorError> {
        let mut tries = 0;
        while !self.buffer.is_empty() {
            let batch = self.buffer.iter().map(RecordLogFormat::encode).collect();
            match self.client.produce(&self.topic, self.partition, batch, None, 0).await {
                Ok(()) => {
                    self.written.extend(self.buffer.drain(..).map(|r| r.id));
                }
                Err(e) if e.hint == RetryHint::Retry && tries + 1 < TRIES => {
                    tries += 1;
                    madsim::time::sleep(Duration::from_millis(5)).await;
                    self.read_back().await?;
                    let written = &self.written;
                    self.buffer.retain(|r| !written.contains(&r.id));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl SinkWriter for DedupingWriter {
    type Committable = ();
    type State = ();
    async fn write(&mut self, record: Record) -> Result<(), ConnectorError> {
        if self.written.contains(&record.id) {
            return Ok(()); // already in the output
        }
        self.buffer.push(record);
        if self.buffer.len() >= BUFFER_RECORDS {
            self.send().await?;
        }
        Ok(())
    }
    async fn flush(&mut self, _end_of_input: bool) -> Result<(), ConnectorError> {
        self.send().await
    }
    async fn prepare_commit(&mut self, _checkpoint: CheckpointId) -> Result<Vec<()>, ConnectorError> {
        Ok(Vec::new())
    }
}

impl Sink for DedupesByReadingBackSink {
    type Committable = ();
    type WriterState = ();
    type Writer = DedupingWriter;
    type Committer = NothingToCommit;
    type GlobalCommitter = NoGlobalCommitter<()>;

    fn delivery_guarantee(&self) -> DeliveryGuarantee {
        DeliveryGuarantee::Idempotent
    }

    async fn create_writer(&self, ctx: WriterContext, _restored: Vec<()>) -> Result<DedupingWriter, ConnectorError> {
        let client = LogClient::new(ctx.endpoint().clone(), &self.0.log);
        let partitions = crate::retry::idempotent(TRIES, || client.partitions(&self.0.topic)).await?.max(1);
        let partition = ctx.subtask() as u32 % partitions;
        let mut writer = DedupingWriter {
            client,
            topic: self.0.topic.clone(),
            partition,
            buffer: Vec::new(),
            written: BTreeSet::new(),
        };
        writer.read_back().await?;
        Ok(writer)
    }

    fn create_committer(&self, _ctx: CommitterContext) -> NothingToCommit {
        NothingToCommit
    }
}

/// Sets up the buggy sink like [`LogSinkSetup`] with four partitions.
#[derive(Clone, Debug, Default)]
pub struct DedupesByReadingBackSetup;

impl SinkSetup for DedupesByReadingBackSetup {
    type Sink = DedupesByReadingBackSink;
    fn name(&self) -> String {
        "mutant:dedupes-by-reading-back(log-sink)".into()
    }
    fn build(&self, world: &mut World) -> DedupesByReadingBackSink {
        DedupesByReadingBackSink(LogSinkSetup { partitions: 4, mode: BarrierMode::Flush }.build(world))
    }
}
