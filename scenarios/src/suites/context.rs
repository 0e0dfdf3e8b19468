//! Contexts: what a connector author implements so the suites can run their connector. A
//! source context creates the source and writes test data into N splits of its external
//! system; a sink context creates the sink and declares where a downstream reader sees its
//! output. Both host their external system's model as a simulated node
//! ([`World::add_system`]).

use connsim::api::{DeliveryGuarantee, Sink, Source};
use connsim::run::{SinkSetup, SourceSetup, World};
use std::sync::Arc;

/// The data a suite case asks for: how many splits, how many records in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestData {
    /// Splits (partitions, files, …) in the source system.
    pub splits: u32,
    /// Records, spread over the splits.
    pub records: u64,
}

/// Runs a source under the suites.
///
/// `build` creates the source system (an [`connsim::systems::ExternalSystem`] registered
/// with [`World::add_system`], so it lives on its own simulated node and network faults
/// reach it), writes `data` into it with ids from [`World::new_record`] (the model records
/// each as produced), and returns the source reading it, bounded.
pub trait SourceContext: Send + Sync + 'static {
    /// The source.
    type Source: Source;
    /// Name for reports.
    fn name(&self) -> String;
    /// Creates the system, writes the data, returns the source.
    fn build(&self, world: &mut World, data: TestData) -> Self::Source;
    /// Node names of the systems `build` creates (network and crash cases aim at them).
    fn systems(&self) -> Vec<String>;
    /// Whether the source can run suite case `case`; `Err(why)` skips it, and the skip shows
    /// in the suite's outcome.
    fn supports(&self, _case: &str) -> Result<(), String> {
        Ok(())
    }
}

/// Runs a sink under the suites.
///
/// `build` creates the sink system, declares with [`World::set_output`] what a downstream
/// reader sees of it now (committed data only), and returns the sink configured for
/// `guarantee`.
pub trait SinkContext: Send + Sync + 'static {
    /// The sink.
    type Sink: Sink;
    /// Name for reports.
    fn name(&self) -> String;
    /// The guarantees the sink offers; every case runs once per guarantee.
    fn guarantees(&self) -> Vec<DeliveryGuarantee> {
        vec![DeliveryGuarantee::ExactlyOnce]
    }
    /// Creates the system, declares the output, returns the sink.
    fn build(&self, world: &mut World, guarantee: DeliveryGuarantee) -> Self::Sink;
    /// Node names of the systems `build` creates.
    fn systems(&self) -> Vec<String>;
    /// Whether the sink can run suite case `case`; `Err(why)` skips it.
    fn supports(&self, _case: &str) -> Result<(), String> {
        Ok(())
    }
}

/// A source context made of a function from the case's data to a [`SourceSetup`].
pub struct SourceFromSetup<F> {
    name: String,
    systems: Vec<String>,
    make: F,
}

/// A source context from a function building a [`SourceSetup`] for the case's data.
pub fn source_from_setup<S: SourceSetup, F: Fn(TestData) -> S + Send + Sync + 'static>(
    name: &str,
    systems: &[&str],
    make: F,
) -> SourceFromSetup<F> {
    SourceFromSetup { name: name.to_string(), systems: systems.iter().map(|s| s.to_string()).collect(), make }
}

impl<S: SourceSetup, F: Fn(TestData) -> S + Send + Sync + 'static> SourceContext for SourceFromSetup<F> {
    type Source = S::Source;
    fn name(&self) -> String {
        self.name.clone()
    }
    fn build(&self, world: &mut World, data: TestData) -> S::Source {
        (self.make)(data).build(world)
    }
    fn systems(&self) -> Vec<String> {
        self.systems.clone()
    }
}

/// A sink context made of a [`SinkSetup`] whose sink offers one guarantee.
pub struct SinkFromSetup<S> {
    setup: S,
    guarantee: DeliveryGuarantee,
    systems: Vec<String>,
}

/// A sink context from a [`SinkSetup`] whose sink offers `guarantee` (what its
/// `Sink::delivery_guarantee` says).
pub fn sink_from_setup<S: SinkSetup>(setup: S, guarantee: DeliveryGuarantee, systems: &[&str]) -> SinkFromSetup<S> {
    SinkFromSetup { setup, guarantee, systems: systems.iter().map(|s| s.to_string()).collect() }
}

impl<S: SinkSetup> SinkContext for SinkFromSetup<S> {
    type Sink = S::Sink;
    fn name(&self) -> String {
        self.setup.name()
    }
    fn guarantees(&self) -> Vec<DeliveryGuarantee> {
        vec![self.guarantee]
    }
    fn build(&self, world: &mut World, _guarantee: DeliveryGuarantee) -> S::Sink {
        self.setup.build(world)
    }
    fn systems(&self) -> Vec<String> {
        self.systems.clone()
    }
}

/// A source context as a per-case [`SourceSetup`].
pub(crate) struct SourceOf<C> {
    pub ctx: Arc<C>,
    pub data: TestData,
}

impl<C: SourceContext> SourceSetup for SourceOf<C> {
    type Source = C::Source;
    fn name(&self) -> String {
        format!("{}({} splits, {} records)", self.ctx.name(), self.data.splits, self.data.records)
    }
    fn build(&self, world: &mut World) -> C::Source {
        self.ctx.build(world, self.data)
    }
}

/// A sink context as a per-case [`SinkSetup`].
pub(crate) struct SinkOf<C> {
    pub ctx: Arc<C>,
    pub guarantee: DeliveryGuarantee,
}

impl<C: SinkContext> SinkSetup for SinkOf<C> {
    type Sink = C::Sink;
    fn name(&self) -> String {
        format!("{}[{:?}]", self.ctx.name(), self.guarantee)
    }
    fn build(&self, world: &mut World) -> C::Sink {
        self.ctx.build(world, self.guarantee)
    }
}
