//! Helpers shared by the harness's integration tests.

use connsim::api::{
    Boundedness, EnumeratorContext, FetcherMode, ReaderContext, Source, SourceReaderBase, SplitReader,
};
use connsim::probes::{GenSplit, GeneratorEmitter, GeneratorSetup, GeneratorSource, GeneratorState};
use connsim::{Record, SourceSetup, World};
use std::sync::Arc;

/// Makes the split reader from the generator's records.
pub type NewReader<R> = fn(Arc<Vec<Vec<Record>>>) -> R;

/// The generator source (its enumerator and data) read by another split reader, to give a
/// test a reader that misbehaves in one way.
pub struct WithReader<R> {
    inner: GeneratorSource,
    new_reader: NewReader<R>,
}

impl<R> Clone for WithReader<R> {
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone(), new_reader: self.new_reader }
    }
}

impl<R: SplitReader<Split = GenSplit, Element = (u64, Record)>> Source for WithReader<R> {
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
        let (data, new_reader) = (self.inner.data(), self.new_reader);
        SourceReaderBase::new(ctx, move || new_reader(data.clone()), GeneratorEmitter, FetcherMode::Single)
    }
}

/// Sets up a [`WithReader`] source over a generator.
pub struct WithReaderSetup<R> {
    /// Name for reports.
    pub name: &'static str,
    /// The generator's shape.
    pub generator: GeneratorSetup,
    /// The split reader to use.
    pub new_reader: NewReader<R>,
}

impl<R: SplitReader<Split = GenSplit, Element = (u64, Record)>> SourceSetup for WithReaderSetup<R> {
    type Source = WithReader<R>;
    fn name(&self) -> String {
        self.name.into()
    }
    fn build(&self, world: &mut World) -> WithReader<R> {
        WithReader { inner: self.generator.build(world), new_reader: self.new_reader }
    }
}
