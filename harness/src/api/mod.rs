//! The connector API, in the shape of Flink's FLIP-27 Source API and its two-phase-commit
//! Sink API. Connector authors implement these traits; the simulated cluster hosts them.

mod element;
mod global;
mod reader_base;
pub(crate) use reader_base::PauseLedger;
mod sink;
mod source;
mod watermark;

pub use element::{ElementCodec, ElementReader, ElementSink, ElementSource, ElementWriter, RecordCodec};
pub use global::{GlobalCommitter, GlobalCommitterContext, NoGlobalCommitter};
pub use reader_base::{
    FetchedBatch, FetcherMode, RecordEmitter, SourceReaderBase, SplitReader, SplitState, SplitsChange,
};
pub use sink::{
    CommitOutcome, CommitRequest, Committer, CommitterContext, DeliveryGuarantee, Sink, SinkWriter, WriterContext,
};
pub(crate) use source::OutputMark;
pub(crate) use source::{AsyncCall, EnumAction};
pub use source::{
    AsyncCallable, AsyncResult, Boundedness, EnumeratorContext, EnumeratorState, InputStatus, ReaderContext,
    ReaderOutput, ReaderRequest, Source, SourceReader, Split, SplitEnumerator, SplitId,
};
pub(crate) use watermark::{Announcement, TrackerBug, WatermarkTracker};
pub use watermark::{Watermark, WatermarkAlignment, WatermarkStrategy, DEFAULT_WATERMARK_INTERVAL_MS};
