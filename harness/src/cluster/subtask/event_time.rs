//! A subtask's event time: records counted per split as they go out, watermarks emitted
//! every interval and handed on (to the writer, or to the exchange), and watermark
//! alignment's reports, pauses and resumes.

use super::{now_ms, Subtask};
use crate::api::{Announcement, OutputMark, ReaderOutput, Sink, SinkWriter, Source, SourceReader, Split};
use crate::cluster::protocol::{MasterMsg, Payload};
use crate::error::ConnectorError;
use crate::history::EventKind;

impl<Src: Source, Snk: Sink> Subtask<Src, Snk> {
    /// Writes a poll's records in order, each counted in its split's event time just before
    /// it goes out, and each watermark the connector emitted at its place among them, at once.
    /// The split the poll ended with stays current for the next poll.
    pub(super) async fn deliver_in_event_time(&mut self, out: &mut ReaderOutput) -> Result<(), ConnectorError> {
        let now = now_ms();
        let runs = std::mem::take(&mut out.split_runs);
        let marks = std::mem::take(&mut out.watermarks);
        let mut records = std::mem::take(&mut out.records).into_iter().enumerate().peekable();
        let ends: Vec<usize> = marks.iter().map(|(before, _, _)| *before).chain(std::iter::once(usize::MAX)).collect();
        let mut marks = marks.into_iter();
        let mut run = 0; // runs[..run] start at or before the current record
        for end in ends {
            let mut segment = Vec::new();
            while let Some((i, record)) = records.next_if(|(i, _)| *i < end) {
                while run < runs.len() && runs[run].0 <= i {
                    run += 1;
                }
                let split = run.checked_sub(1).map(|k| &runs[k].1);
                if let Some(w) = self.source.watermarks.as_mut() {
                    w.on_record(split, record.event_time_ms, now);
                }
                segment.push(record);
            }
            self.write_records(segment).await?;
            if let Some((_, split, mark)) = marks.next() {
                let tracker = self.source.watermarks.as_mut().expect("event time is on");
                match mark {
                    OutputMark::Watermark(w) => tracker.on_watermark(split.as_ref(), w, now),
                    OutputMark::Idle => tracker.mark_idle(split.as_ref(), true),
                    OutputMark::Active => tracker.mark_idle(split.as_ref(), false),
                    OutputMark::ReaderIdle => tracker.mark_reader_idle(),
                }
                if let Some(a) = tracker.announce(now) {
                    self.announce(a).await?;
                }
            }
        }
        self.source.current_split = runs.into_iter().last().map(|(_, split)| split);
        Ok(())
    }

    /// Starts tracking the event time of splits assigned to (or restored into) the reader.
    pub(super) fn track_splits(&mut self, splits: &[Src::Split]) {
        if let Some(w) = self.source.watermarks.as_mut() {
            let now = now_ms();
            for split in splits {
                w.add_split(&split.id(), now);
            }
        }
    }

    /// The periodic watermark emission and alignment report, whichever is due.
    pub(super) async fn on_tick(&mut self) -> Result<(), ConnectorError> {
        let now = now_ms();
        if !self.source.ended && !self.source.stopped && self.source.watermarks.as_ref().is_some_and(|w| w.due(now)) {
            self.emit_watermarks().await?;
        }
        if let (Some(a), Some(w)) = (self.source.alignment.as_mut(), self.source.watermarks.as_ref()) {
            if let Some(watermark) = a.report(w, self.source.ended, now) {
                drop(self.uplink.send_once(MasterMsg::ReportedWatermark { watermark }));
                self.check_pauses();
            }
        }
        self.resend(now);
        Ok(())
    }

    /// The periodic watermark emission; with alignment, splits that ran ahead pause.
    pub(super) async fn emit_watermarks(&mut self) -> Result<(), ConnectorError> {
        if let Some(a) = self.source.watermarks.as_mut().and_then(|w| w.emit(now_ms())) {
            self.announce(a).await?;
        }
        self.align()
    }

    /// Pauses the splits above the announced maximum and resumes those back within it.
    pub(super) fn align(&mut self) -> Result<(), ConnectorError> {
        let (Some(a), Some(w)) = (self.source.alignment.as_mut(), self.source.watermarks.as_ref()) else {
            return Ok(());
        };
        let Some(adj) = a.adjust(w, now_ms()) else { return Ok(()) };
        let pause = adj.pause.iter().map(|(s, _)| s.clone()).collect();
        self.source.reader.pause_or_resume_splits(pause, adj.resume.clone())?;
        self.record(EventKind::SplitsPaused {
            subtask: self.id,
            attempt: self.attempt,
            minimum: adj.minimum,
            max_allowed: adj.max_allowed,
            paused: adj.pause,
            resumed: adj.resume,
            observed: self.source.tells_fetches,
        });
        self.check_pauses();
        Ok(())
    }

    /// Compares what the reader holds paused with what alignment holds paused (after every
    /// adjustment and every alignment report): a split the reader still holds paused
    /// unasked an update interval after it was first seen so is paused without cause (a
    /// resume passed on a moment late is not), said once per split and attempt.
    pub(super) fn check_pauses(&mut self) {
        let (Some(a), Some(w)) = (self.source.alignment.as_mut(), self.source.watermarks.as_ref()) else { return };
        let Some(unasked) = self.source.pauses.unasked(a.paused()) else { return };
        let Some((minimum, max_allowed)) = a.announced() else { return };
        let held: Vec<(String, Option<i64>)> = a
            .held_unasked(unasked, now_ms())
            .into_iter()
            .map(|s| {
                let at = w.split_watermarks().find(|(id, _)| **id == s).and_then(|(_, w)| w);
                (s, at)
            })
            .collect();
        if !held.is_empty() {
            self.record(EventKind::UnaskedPause {
                subtask: self.id,
                attempt: self.attempt,
                minimum,
                max_allowed,
                splits: held,
            });
        }
    }

    /// Records what advanced and hands an advanced combined watermark to the writer.
    pub(super) async fn announce(&mut self, a: Announcement) -> Result<(), ConnectorError> {
        let Announcement { combined, splits, idle, marked_idle } = a;
        self.record(EventKind::Watermark {
            subtask: self.id,
            attempt: self.attempt,
            watermark: combined,
            splits,
            idle,
            marked_idle,
        });
        match (combined, self.exchange.as_mut()) {
            (Some(w), Some(x)) => {
                x.out.broadcast(Payload::Watermark(w));
                Ok(())
            }
            (Some(w), None) => self.writer().write_watermark(w).await,
            (None, _) => Ok(()),
        }
    }
}
