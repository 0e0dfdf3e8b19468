//! The log source read by another split reader or record emitter, with the reference's
//! enumerator, boundedness and watermark strategy: what a mutant that changes only how the
//! log is read needs.

use super::{LogEnumState, LogEnumerator, LogSource, LogSplit, LogSplitReader};
use connsim::api::{
    Boundedness, EnumeratorContext, FetcherMode, ReaderContext, RecordEmitter, Source, SourceReaderBase, SplitReader,
    SplitState, WatermarkStrategy,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// How a variant of the log source reads: its split reader (around the reference's) and its
/// record emitter.
pub trait LogReading: Clone + Debug + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// The split reader.
    type SplitReader: SplitReader<Split = LogSplit>;
    /// The record emitter.
    type Emitter: RecordEmitter<Element = <Self::SplitReader as SplitReader>::Element, State: SplitState<LogSplit>>;
    /// The split reader, made around the reference's (configured as the source says).
    fn split_reader(&self, reference: LogSplitReader) -> Self::SplitReader;
    /// The emitter for `source`.
    fn emitter(&self, source: &LogSource) -> Self::Emitter;
}

/// The log source, read as `R` says.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct LogSourceReadBy<R: LogReading>(pub LogSource, pub R);

impl<R: LogReading> Source for LogSourceReadBy<R> {
    type Split = LogSplit;
    type EnumState = LogEnumState;
    type Enumerator = LogEnumerator;
    type Reader = SourceReaderBase<R::SplitReader, R::Emitter>;
    fn boundedness(&self) -> Boundedness {
        self.0.boundedness()
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<LogSplit>) -> LogEnumerator {
        self.0.create_enumerator(ctx)
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<LogSplit>, state: LogEnumState) -> LogEnumerator {
        self.0.restore_enumerator(ctx, state)
    }
    fn watermark_strategy(&self) -> Option<WatermarkStrategy> {
        self.0.watermark_strategy()
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        let (source, reading, endpoint) = (self.0.clone(), self.1.clone(), ctx.endpoint().clone());
        let new_reader = move || reading.split_reader(source.split_reader(endpoint.clone()));
        SourceReaderBase::new(ctx, new_reader, self.1.emitter(&self.0), FetcherMode::Single)
    }
}
