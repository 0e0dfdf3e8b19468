//! Helpers shared by the harness's integration tests.

use connsim::api::{
    Boundedness, EnumeratorContext, FetchedBatch, FetcherMode, ReaderContext, Source, SourceReaderBase, SplitReader,
    SplitsChange,
};
use connsim::probes::{GenSplit, GeneratorEmitter, GeneratorReader, GeneratorSetup, GeneratorSource, GeneratorState};
use connsim::{ConnectorError, Record, SourceSetup, World};
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::sync::Arc;

/// A split reader over the generator's records, made from them.
pub trait FromData: SplitReader<Split = GenSplit, Element = (u64, Record)> {
    /// The reader, over the generator's records per split.
    fn from_data(data: Arc<Vec<Vec<Record>>>) -> Self;
}

/// The generator source (its enumerator and data) read by another split reader, to give a
/// test a reader that misbehaves in one way.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub struct WithReader<R> {
    inner: GeneratorSource,
    #[serde(skip)]
    reader: PhantomData<fn() -> R>,
}

impl<R> Clone for WithReader<R> {
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone(), reader: PhantomData }
    }
}

impl<R: FromData> Source for WithReader<R> {
    type Split = GenSplit;
    type EnumState = GeneratorState;
    type Enumerator = <GeneratorSource as Source>::Enumerator;
    type Reader = SourceReaderBase<R, GeneratorEmitter>;
    fn boundedness(&self) -> Boundedness {
        Boundedness::Bounded
    }
    fn create_enumerator(&self, ctx: &EnumeratorContext<GenSplit>) -> Self::Enumerator {
        self.inner.create_enumerator(ctx)
    }
    fn restore_enumerator(&self, ctx: &EnumeratorContext<GenSplit>, s: GeneratorState) -> Self::Enumerator {
        self.inner.restore_enumerator(ctx, s)
    }
    fn create_reader(&self, ctx: ReaderContext) -> Self::Reader {
        let data = self.inner.data();
        SourceReaderBase::new(ctx, move || R::from_data(data.clone()), GeneratorEmitter, FetcherMode::Single)
    }
}

/// Sets up a [`WithReader`] source over a generator.
pub struct WithReaderSetup<R> {
    /// Name for reports.
    pub name: &'static str,
    /// The generator's shape.
    pub generator: GeneratorSetup,
    /// The split reader to use.
    pub reader: PhantomData<fn() -> R>,
}

impl<R: FromData> SourceSetup for WithReaderSetup<R> {
    type Source = WithReader<R>;
    fn name(&self) -> String {
        self.name.into()
    }
    fn build(&self, world: &mut World) -> WithReader<R> {
        WithReader { inner: self.generator.build(world), reader: PhantomData }
    }
}

/// The generator's split reader, dropping its third fetched batch: whether a restore reads
/// the lost records again depends on the seed's faults.
pub struct DropsThird(GeneratorReader, u32);

impl SplitReader for DropsThird {
    type Split = GenSplit;
    type Element = (u64, Record);
    async fn fetch(&mut self) -> Result<FetchedBatch<(u64, Record)>, ConnectorError> {
        let batch = self.0.fetch().await?;
        self.1 += 1;
        Ok(if self.1 == 3 { FetchedBatch::empty() } else { batch })
    }
    fn handle_splits_changes(&mut self, change: SplitsChange<GenSplit>) {
        self.0.handle_splits_changes(change)
    }
}

impl FromData for DropsThird {
    fn from_data(data: std::sync::Arc<Vec<Vec<Record>>>) -> Self {
        DropsThird(GeneratorReader::new(data), 0)
    }
}
