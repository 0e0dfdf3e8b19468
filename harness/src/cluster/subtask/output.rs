//! What the source operator's polls produce, handed on: to the chained writer record by
//! record, or to the exchange; requests of the reader go to the enumerator.

use super::{now_ms, Subtask};
use crate::api::{ReaderOutput, ReaderRequest, Sink, SinkWriter, Source};
use crate::cluster::protocol::MasterMsg;
use crate::error::ConnectorError;
use crate::history::EventKind;
use std::time::Duration;

impl<Src: Source, Snk: Sink> Subtask<Src, Snk> {
    /// Passes a reader's request on to the enumerator.
    pub(super) fn forward(&self, req: ReaderRequest) {
        if !self.source.has_reader {
            return; // the idle reader of a subtask that hosts only a writer speaks for nobody
        }
        self.uplink.send(match req {
            ReaderRequest::SplitRequest => MasterMsg::SplitRequest,
            ReaderRequest::SourceEvent(e) => MasterMsg::SourceEvent(e),
        });
    }

    /// Hands what one poll emitted on: records, paused reads, finished splits, watermarks.
    pub(super) async fn deliver(&mut self, mut out: ReaderOutput) -> Result<(), ConnectorError> {
        self.source.tells_fetches |= out.tells_fetches;
        for (start, end, split) in std::mem::take(&mut out.paused_reads) {
            let ids = out.records[start..end.min(out.records.len())].iter().map(|r| r.id).collect();
            self.record(EventKind::PausedSplitRead { subtask: self.id, attempt: self.attempt, split, ids });
        }
        if self.source.watermarks.is_none() {
            self.write_records(std::mem::take(&mut out.records)).await?;
        } else {
            self.deliver_in_event_time(&mut out).await?;
        }
        for split in out.finished_splits {
            if let Some(w) = self.source.watermarks.as_mut() {
                w.finish_split(&split);
                if self.source.current_split.as_ref() == Some(&split) {
                    self.source.current_split = None;
                }
            }
            self.record(EventKind::SplitFinished { subtask: self.id, attempt: self.attempt, split });
        }
        if self.source.watermarks.as_ref().is_some_and(|w| w.due(now_ms())) {
            self.emit_watermarks().await?;
        }
        Ok(())
    }

    /// Records that `records` were emitted and hands them to the writer (or the exchange).
    pub(super) async fn write_records(&mut self, records: Vec<crate::record::Record>) -> Result<(), ConnectorError> {
        if records.is_empty() {
            self.source.spare_records = records;
            return Ok(());
        }
        self.history.record_emitted(&self.node, self.id, self.attempt, records.iter().map(|r| r.id));
        if let Some(x) = self.exchange.as_mut() {
            x.out.push(records);
            return Ok(());
        }
        let mut records = records;
        for record in records.drain(..) {
            self.write(record).await?;
        }
        self.source.spare_records = records;
        Ok(())
    }

    /// The writer's input ended: it flushes, and a global committer hears of it.
    pub(super) async fn end_writer_input(&mut self) -> Result<(), ConnectorError> {
        self.writer().flush(true).await?;
        self.sink.input_ended = true;
        if let Some(g) = self.sink.downstream.as_mut() {
            g.broadcast(crate::cluster::protocol::Payload::EndOfInput);
        }
        Ok(())
    }

    /// Hands one record to the writer; a scenario may have made the writer slow.
    pub(super) async fn write(&mut self, record: crate::record::Record) -> Result<(), ConnectorError> {
        self.writer().write(record).await?;
        if let Some(ms) = self.hooks.write_stall(self.id) {
            madsim::time::sleep(Duration::from_millis(ms)).await;
        }
        Ok(())
    }
}
