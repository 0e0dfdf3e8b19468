//! A connector's own element type under the suites.
//!
//! A source emits its own elements (what its deserializer makes of the external system's
//! bytes) and a sink takes its own (what its serializer turns into the external system's
//! bytes): `Source<T>`, `Sink<In>`, as Flink's `Source<T, …>` and `Sink<InputT>`. The
//! runtime accounts for the test's records ([`Record`]: an id, a key, an event time, a
//! payload), so a suite needs to know how the two map onto each other: an [`ElementCodec`].
//!
//! ```text
//!  test data ── ElementCodec::element ──▶ your sink's writer ── your serializer ──▶ bytes
//!  bytes ── your deserializer ──▶ your source's element ── ElementCodec::record ──▶ runtime
//! ```
//!
//! [`ElementSource`] and [`ElementSink`] wrap a connector of element type
//! `C::Element` as one the runtime runs; everything else passes through unchanged. The
//! mapping only carries the test's identity and content across: what the connector makes of
//! an element (its serializer, its partitioner, its schema handling) is the connector's own
//! code, judged by what a downstream reader decodes from the external system.

use super::sink::{CommitterContext, Sink, SinkWriter, WriterContext};
use super::source::{
    Boundedness, EnumeratorContext, InputStatus, ReaderContext, ReaderOutput, Source, SourceReader, SplitId,
};
use super::{GlobalCommitterContext, Watermark, WatermarkStrategy};
use crate::error::ConnectorError;
use crate::history::CheckpointId;
use crate::record::Record;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::marker::PhantomData;

/// `new`, `inner` and `Clone` of a connector wrapped with its codec (a `$field: S` and a
/// `codec: PhantomData<fn() -> C>`).
macro_rules! codec_wrapper {
    ($ty:ident, $field:ident) => {
        impl<S, C> $ty<S, C> {
            #[doc = concat!("Wraps `", stringify!($field), "`.")]
            pub fn new($field: S) -> Self {
                Self { $field, codec: PhantomData }
            }
            #[doc = concat!("The connector's ", stringify!($field), ".")]
            pub fn inner(&self) -> &S {
                &self.$field
            }
        }

        impl<S: Clone, C> Clone for $ty<S, C> {
            fn clone(&self) -> Self {
                Self::new(self.$field.clone())
            }
        }
    };
}

/// How the test's records and a connector's elements map onto each other.
pub trait ElementCodec: Send + Sync + 'static {
    /// The connector's element type.
    type Element: Send + 'static;
    /// The element a test record becomes on its way into a sink (what the operator before
    /// the sink would hand it): every part of the record the checks compare (id, key, event
    /// time, payload) must be in it, so a downstream reader can decode them back.
    fn element(record: &Record) -> Self::Element;
    /// The test record an element a source emitted carries, or why it carries none (the job
    /// then fails with that reason: an element nobody can account for).
    fn record(element: &Self::Element) -> Result<Record, String>;
}

/// The identity codec: connectors of connsim's own [`Record`].
#[derive(Clone, Copy, Debug, Default)]
pub struct RecordCodec;

impl ElementCodec for RecordCodec {
    type Element = Record;
    fn element(record: &Record) -> Record {
        record.clone()
    }
    fn record(element: &Record) -> Result<Record, String> {
        Ok(element.clone())
    }
}

/// A source of element type `C::Element`, run as a source of test records: every element
/// its readers emit is traced back to its record through `C`.
#[derive(Serialize, Deserialize)]
#[serde(transparent, bound(serialize = "S: Serialize", deserialize = "S: DeserializeOwned"))]
pub struct ElementSource<S, C> {
    source: S,
    #[serde(skip)]
    codec: PhantomData<fn() -> C>,
}

codec_wrapper!(ElementSource, source);

impl<S, C> Source for ElementSource<S, C>
where
    C: ElementCodec,
    S: Source<C::Element>,
{
    type Split = S::Split;
    type EnumState = S::EnumState;
    type Enumerator = S::Enumerator;
    type Reader = ElementReader<S::Reader, C>;

    fn boundedness(&self) -> Boundedness {
        self.source.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<Self::Split>) -> Self::Enumerator {
        self.source.create_enumerator(ctx)
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<Self::Split>, state: Self::EnumState) -> Self::Enumerator {
        self.source.restore_enumerator(ctx, state)
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        ElementReader { inner: self.source.create_reader(ctx), buffer: ReaderOutput::default(), codec: PhantomData }
    }
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        self.source.watermark_strategy()
    }
}

/// A reader of [`ElementSource`]: the connector's reader, its elements traced to records.
pub struct ElementReader<R, C: ElementCodec> {
    inner: R,
    buffer: ReaderOutput<C::Element>,
    codec: PhantomData<fn() -> C>,
}

impl<R, C> SourceReader for ElementReader<R, C>
where
    C: ElementCodec,
    R: SourceReader<C::Element>,
{
    type Split = R::Split;

    fn start(&mut self) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.inner.start()
    }
    fn poll_next(&mut self, output: &mut ReaderOutput) -> Result<InputStatus, ConnectorError> {
        let b = &mut self.buffer;
        b.event_time = output.event_time;
        b.tells_fetches = false;
        // The split current from an earlier poll stays current, as in the runtime's output.
        let current = output.split_runs.last().map(|(_, s)| s.clone());
        if let Some(split) = &current {
            b.split_runs.push((0, split.clone()));
        }
        let status = self.inner.poll_next(b);
        // Everything the connector emitted moves over, its positions shifted past what the
        // output already holds.
        let at = output.records.len();
        for element in b.records.drain(..) {
            match C::record(&element) {
                Ok(record) => output.records.push(record),
                Err(why) => {
                    return Err(ConnectorError::fail_job(format!(
                        "the source emitted an element its ElementCodec traces to no test record: {why} (fix the \
                         source's deserializer, or ElementCodec::record)"
                    )))
                }
            }
        }
        output.finished_splits.append(&mut b.finished_splits);
        let mut runs = b.split_runs.drain(..);
        if current.is_some() {
            runs.next(); // the current split, already the output's
        }
        output.split_runs.extend(runs.map(|(i, s)| (at + i, s)));
        output.watermarks.extend(b.watermarks.drain(..).map(|(i, s, m)| (at + i, s, m)));
        output.paused_reads.extend(b.paused_reads.drain(..).map(|(i, j, s)| (at + i, at + j, s)));
        output.tells_fetches |= b.tells_fetches;
        status
    }
    fn available(&mut self) -> impl Future<Output = ()> + Send {
        self.inner.available()
    }
    fn add_splits(&mut self, splits: Vec<Self::Split>) {
        self.inner.add_splits(splits)
    }
    fn notify_no_more_splits(&mut self) {
        self.inner.notify_no_more_splits()
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<Self::Split> {
        self.inner.snapshot_state(checkpoint)
    }
    fn notify_checkpoint_complete(&mut self, checkpoint: CheckpointId) {
        self.inner.notify_checkpoint_complete(checkpoint)
    }
    fn notify_checkpoint_aborted(&mut self, checkpoint: CheckpointId) {
        self.inner.notify_checkpoint_aborted(checkpoint)
    }
    fn handle_source_event(&mut self, event: Vec<u8>) {
        self.inner.handle_source_event(event)
    }
    fn pause_or_resume_splits(&mut self, pause: Vec<SplitId>, resume: Vec<SplitId>) -> Result<(), ConnectorError> {
        self.inner.pause_or_resume_splits(pause, resume)
    }
    fn close(&mut self) -> impl Future<Output = ()> + Send {
        self.inner.close()
    }
}

/// A sink of element type `C::Element`, run as a sink of test records: every record the
/// runtime hands its writers becomes an element through `C`.
#[derive(Serialize, Deserialize)]
#[serde(transparent, bound(serialize = "S: Serialize", deserialize = "S: DeserializeOwned"))]
pub struct ElementSink<S, C> {
    sink: S,
    #[serde(skip)]
    codec: PhantomData<fn() -> C>,
}

codec_wrapper!(ElementSink, sink);

impl<S, C> Sink for ElementSink<S, C>
where
    C: ElementCodec,
    S: Sink<C::Element>,
{
    type Committable = S::Committable;
    type WriterState = S::WriterState;
    type Writer = ElementWriter<S::Writer, C>;
    type Committer = S::Committer;
    type GlobalCommitter = S::GlobalCommitter;

    fn delivery_guarantee(&self) -> super::DeliveryGuarantee {
        self.sink.delivery_guarantee()
    }
    fn keeps_split_order(&self) -> bool {
        self.sink.keeps_split_order()
    }
    fn accepts_late_records(&self) -> bool {
        self.sink.accepts_late_records()
    }
    async fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<Self::WriterState>,
    ) -> Result<Self::Writer, ConnectorError> {
        let inner = self.sink.create_writer(ctx, restored).await?;
        Ok(ElementWriter { inner, codec: PhantomData })
    }
    fn create_committer(&self, ctx: CommitterContext) -> Self::Committer {
        self.sink.create_committer(ctx)
    }
    fn has_global_committer(&self) -> bool {
        self.sink.has_global_committer()
    }
    fn create_global_committer(&self, ctx: GlobalCommitterContext) -> Option<Self::GlobalCommitter> {
        self.sink.create_global_committer(ctx)
    }
}

/// A writer of [`ElementSink`]: the connector's writer, given elements made from records.
pub struct ElementWriter<W, C> {
    inner: W,
    codec: PhantomData<fn() -> C>,
}

impl<W, C> SinkWriter for ElementWriter<W, C>
where
    C: ElementCodec,
    W: SinkWriter<C::Element>,
{
    type Committable = W::Committable;
    type State = W::State;

    fn write(&mut self, record: Record) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.inner.write(C::element(&record))
    }
    fn write_watermark(&mut self, watermark: Watermark) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.inner.write_watermark(watermark)
    }
    fn flush(&mut self, end_of_input: bool) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.inner.flush(end_of_input)
    }
    fn prepare_commit(
        &mut self,
        checkpoint: CheckpointId,
    ) -> impl Future<Output = Result<Vec<Self::Committable>, ConnectorError>> + Send {
        self.inner.prepare_commit(checkpoint)
    }
    fn snapshot_state(&mut self, checkpoint: CheckpointId) -> Vec<Self::State> {
        self.inner.snapshot_state(checkpoint)
    }
    fn notify_checkpoint_complete(
        &mut self,
        checkpoint: CheckpointId,
    ) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.inner.notify_checkpoint_complete(checkpoint)
    }
    fn notify_checkpoint_aborted(
        &mut self,
        checkpoint: CheckpointId,
    ) -> impl Future<Output = Result<(), ConnectorError>> + Send {
        self.inner.notify_checkpoint_aborted(checkpoint)
    }
    fn close(&mut self) -> impl Future<Output = ()> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{OutputMark, Split};

    #[derive(Clone, Debug, Serialize, Deserialize)]
    struct S;
    impl Split for S {
        fn id(&self) -> SplitId {
            "s".into()
        }
    }

    /// Marks the current split idle first, then emits one element of split "t".
    struct Marks;
    impl SourceReader<u64> for Marks {
        type Split = S;
        fn poll_next(&mut self, output: &mut ReaderOutput<u64>) -> Result<InputStatus, ConnectorError> {
            output.mark_idle();
            output.for_split(&"t".to_string());
            output.collect(42);
            Ok(InputStatus::NothingAvailable)
        }
        async fn available(&mut self) {}
        fn add_splits(&mut self, _: Vec<S>) {}
        fn notify_no_more_splits(&mut self) {}
        fn snapshot_state(&mut self, _: CheckpointId) -> Vec<S> {
            Vec::new()
        }
    }

    /// Elements are record keys; only key 42 is a test record's.
    struct Keys;
    impl ElementCodec for Keys {
        type Element = u64;
        fn element(record: &Record) -> u64 {
            record.key
        }
        fn record(key: &u64) -> Result<Record, String> {
            match key {
                42 => Ok(Record {
                    id: crate::record::RecordId(7),
                    key: 42,
                    event_time_ms: 1,
                    payload: Vec::new(),
                    extras: None,
                }),
                other => Err(format!("no record has key {other}")),
            }
        }
    }

    #[test]
    fn a_traced_reader_keeps_the_current_split_and_moves_marks_and_runs_over() {
        let mut reader: ElementReader<Marks, Keys> =
            ElementReader { inner: Marks, buffer: ReaderOutput::default(), codec: PhantomData };
        // The runtime's output: event time on, split "s" current from an earlier poll, one
        // record already there.
        let mut out = ReaderOutput { event_time: true, ..ReaderOutput::default() };
        out.records.push(Record {
            id: crate::record::RecordId(1),
            key: 0,
            event_time_ms: 0,
            payload: Vec::new(),
            extras: None,
        });
        out.split_runs.push((0, "s".to_string()));
        reader.poll_next(&mut out).expect("traced");
        assert_eq!(out.records.iter().map(|r| r.id.0).collect::<Vec<_>>(), vec![1, 7]);
        // The idle mark before any for_split applies to the current split, "s".
        assert!(
            matches!(out.watermarks.as_slice(), [(1, Some(s), OutputMark::Idle)] if s == "s"),
            "{:?}",
            out.watermarks
        );
        assert_eq!(out.split_runs, vec![(0, "s".to_string()), (1, "t".to_string())]);
    }

    #[test]
    fn an_element_the_codec_cannot_trace_fails_the_job_saying_what_to_fix() {
        struct Unknown;
        impl SourceReader<u64> for Unknown {
            type Split = S;
            fn poll_next(&mut self, output: &mut ReaderOutput<u64>) -> Result<InputStatus, ConnectorError> {
                output.collect(5);
                Ok(InputStatus::NothingAvailable)
            }
            async fn available(&mut self) {}
            fn add_splits(&mut self, _: Vec<S>) {}
            fn notify_no_more_splits(&mut self) {}
            fn snapshot_state(&mut self, _: CheckpointId) -> Vec<S> {
                Vec::new()
            }
        }
        let mut reader: ElementReader<Unknown, Keys> =
            ElementReader { inner: Unknown, buffer: ReaderOutput::default(), codec: PhantomData };
        let err = reader.poll_next(&mut ReaderOutput::default()).expect_err("untraceable");
        assert!(
            err.to_string().contains("no record has key 5") && err.to_string().contains("ElementCodec::record"),
            "{err}"
        );
    }
}
