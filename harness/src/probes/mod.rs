//! Trusted probes, exactly-once by construction, so a source or a sink can be tested alone:
//! pair your source with [`CollectorSetup`], or your sink with [`GeneratorSetup`].

mod collector_sink;
mod generator;

pub use collector_sink::{CollectorSetup, ProbeBatch, ProbeSink};
pub use generator::{
    GenSplit, GeneratorEmitter, GeneratorEnumerator, GeneratorReader, GeneratorSetup, GeneratorSource, GeneratorState,
};
