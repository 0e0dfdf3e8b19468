//! Contexts: what a connector author implements so the suites can run their connector. A
//! source context creates the source and writes test data into N splits of its external
//! system; a sink context creates the sink and declares where a downstream reader sees its
//! output. Both host their external system's model as a simulated node
//! ([`World::add_system`]).

use connsim::api::{Boundedness, Sink, Source};
use connsim::record::Carries;
use connsim::run::{SinkSetup, SourceSetup, World};
use std::sync::Arc;

/// The data a suite case asks for: how many splits, how many records in all, how fast they
/// arrive, and whether the source ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestData {
    /// Splits (partitions, files, …) in the source system.
    pub splits: u32,
    /// Records, spread over the splits.
    pub records: u64,
    /// The records arrive evenly over this much virtual time from the start of the run (0:
    /// all there at once), so the case's checkpoints and faults land while input still flows.
    /// A request the context must honour: a setup that writes every record at the start
    /// gives a job that has read everything before its first checkpoint (the suite harness
    /// then says so after its summary).
    pub pace_ms: u64,
    /// The source never ends: the case runs it unbounded. A context that can run unbounded
    /// builds its source with [`Boundedness::Unbounded`] when this is set; a suite skips the
    /// case, saying so, when the source built for it reports [`Boundedness::Bounded`].
    pub unbounded: bool,
    /// An unbounded source looks for new splits this often ([`DISCOVERY_INTERVAL_MS`] unless
    /// a case says otherwise): a request the context passes on to its source, like
    /// `pace_ms`. The case "discovery overlaps slow responses" asks for an interval shorter
    /// than the source system's responses take, so rounds of discovery overlap.
    pub discovery_interval_ms: u64,
    /// Event-time skew across splits: split `s`'s records carry event times `s × skew_ms`
    /// ahead of the rest ([`TestData::skewed`]), so the splits' watermarks drift apart, the
    /// combined watermark waits on the slowest, and watermark alignment has splits to pause.
    /// A request the context passes on, like `pace_ms`.
    pub skew_ms: u64,
}

/// The discovery interval of every case but one (see [`TestData::discovery_interval_ms`]).
pub const DISCOVERY_INTERVAL_MS: u64 = 50;

impl TestData {
    /// `records` records in `splits` splits, arriving over `pace_ms`, bounded.
    pub fn paced(splits: u32, records: u64, pace_ms: u64) -> Self {
        Self { splits, records, pace_ms, unbounded: false, discovery_interval_ms: DISCOVERY_INTERVAL_MS, skew_ms: 0 }
    }

    /// `record`, written to split `split`, with its event time moved `split × skew_ms` ahead
    /// (call it before the model records the record as produced).
    pub fn skewed(&self, mut record: connsim::Record, split: u32) -> connsim::Record {
        record.event_time_ms += i64::from(split) * self.skew_ms as i64;
        record
    }
}

/// Runs a source under the suites.
///
/// `build` creates the source system (an [`connsim::systems::ExternalSystem`] registered
/// with [`World::add_system`], so it lives on its own simulated node and network faults
/// reach it) and writes `data.records` records over `data.splits` splits into it, with ids
/// from [`World::new_record`] (the model records each as produced). The records arrive
/// evenly over the first `data.pace_ms` of virtual time, so the case's checkpoints and
/// faults land while records still flow: the model holds each record until its arrival
/// time (as the example connector's feed does), or a [`World::during_run`] workload writes
/// them as time passes. `build` declares where the source starts
/// ([`World::declare_start`]) and returns the source reading it: bounded, unless
/// `data.unbounded` asks for a source that never ends ([`Boundedness::Unbounded`]; a suite
/// skips the unbounded cases of a source that stays bounded). A source that can take new
/// splits and records while it runs registers a producer ([`World::set_producer`]).
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
    /// Whether the source carries event time. By default the suites read it with its own
    /// watermark strategy ([`Source::watermark_strategy`](connsim::api::Source::watermark_strategy)),
    /// or with [`SUITE_WATERMARKS`](super::SUITE_WATERMARKS) as the job's when it declares
    /// none, and every fixed case requires `watermark-advanced`. `Err(why)` reads it without
    /// event time; the suite's outcome says so, with the reason.
    fn event_time(&self) -> Result<(), String> {
        Ok(())
    }
    /// Whether the source's reader pauses and resumes splits for watermark alignment
    /// ([`SourceReader::pause_or_resume_splits`](connsim::api::SourceReader::pause_or_resume_splits)):
    /// by default the suites' alignment case reads it with alignment on. `Err(why)` skips that
    /// case, saying why.
    fn alignment(&self) -> Result<(), String> {
        Ok(())
    }
    /// What the source's system and deserializer carry end to end beyond plain records
    /// ([`SourceSetup::carries`]): the suites' data holds no shape it leaves out.
    /// Everything by default.
    fn carries(&self) -> Carries {
        Carries::ALL
    }
}

/// Runs a sink under the suites.
///
/// `build` creates the sink system, declares with [`World::set_output`] how a downstream
/// reader reads it, and returns the sink. What the sink promises is what its
/// [`Sink::delivery_guarantee`] says, and the suite holds it to that; a sink with several
/// modes gets one context per mode.
pub trait SinkContext: Send + Sync + 'static {
    /// The sink.
    type Sink: Sink;
    /// Name for reports.
    fn name(&self) -> String;
    /// Creates the system, declares the output, returns the sink.
    fn build(&self, world: &mut World) -> Self::Sink;
    /// Node names of the systems `build` creates.
    fn systems(&self) -> Vec<String>;
    /// Whether the sink can run suite case `case`; `Err(why)` skips it.
    fn supports(&self, _case: &str) -> Result<(), String> {
        Ok(())
    }
    /// The systems among [`systems`](Self::systems) the sink reaches through Kafka's protocol
    /// (rdkafka's clients): the suites add cases aimed at a Kafka broker's own behaviour
    /// (straggling requests, a broker without partition verification). None by default.
    fn kafka_systems(&self) -> Vec<String> {
        Vec::new()
    }
    /// What the sink and its output's format carry end to end beyond plain records
    /// ([`SinkSetup::carries`]): the suites' data holds no shape it leaves out, and every
    /// field of what it does carry is compared. Everything by default.
    fn carries(&self) -> Carries {
        Carries::ALL
    }
}

/// A source context made of a function from the case's data to a [`SourceSetup`].
pub struct SourceFromSetup<F> {
    name: String,
    systems: Vec<String>,
    make: F,
    /// Why the source carries no event time, if it does not.
    no_event_time: Option<String>,
    /// Why its reader cannot pause splits for watermark alignment, if it cannot.
    no_alignment: Option<String>,
    /// Cases the source cannot run, with why.
    skipped: Vec<(String, String)>,
}

impl<F> SourceFromSetup<F> {
    /// Skips the case named exactly `case`, saying `why` in the suite's outcome (for a case
    /// whose aim the source rules out by design).
    pub fn skipping(mut self, case: &str, why: &str) -> Self {
        self.skipped.push((case.to_string(), why.to_string()));
        self
    }
    /// The source carries no event time (`why`): the suites read it without a watermark
    /// strategy, and say so ([`SourceContext::event_time`]).
    pub fn without_event_time(mut self, why: &str) -> Self {
        self.no_event_time = Some(why.to_string());
        self
    }
    /// The source's reader cannot pause splits (`why`): the suites' alignment case is skipped,
    /// saying so ([`SourceContext::alignment`]).
    pub fn without_alignment(mut self, why: &str) -> Self {
        self.no_alignment = Some(why.to_string());
        self
    }
}

/// A source context from a function building a [`SourceSetup`] for the case's data.
pub fn source_from_setup<S: SourceSetup, F: Fn(TestData) -> S + Send + Sync + 'static>(
    name: &str,
    systems: &[&str],
    make: F,
) -> SourceFromSetup<F> {
    SourceFromSetup {
        name: name.to_string(),
        systems: systems.iter().map(|s| s.to_string()).collect(),
        make,
        skipped: Vec::new(),
        no_event_time: None,
        no_alignment: None,
    }
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
    fn supports(&self, case: &str) -> Result<(), String> {
        match self.skipped.iter().find(|(c, _)| c == case) {
            Some((_, why)) => Err(why.clone()),
            None => Ok(()),
        }
    }
    fn event_time(&self) -> Result<(), String> {
        self.no_event_time.clone().map_or(Ok(()), Err)
    }
    fn alignment(&self) -> Result<(), String> {
        self.no_alignment.clone().map_or(Ok(()), Err)
    }
    fn carries(&self) -> Carries {
        (self.make)(TestData::paced(1, 1, 0)).carries()
    }
}

/// A sink context made of a [`SinkSetup`].
pub struct SinkFromSetup<S> {
    setup: S,
    systems: Vec<String>,
    skipped: Vec<(String, String)>,
    kafka: bool,
}

/// A sink context from a [`SinkSetup`] whose systems are the nodes `systems`.
pub fn sink_from_setup<S: SinkSetup>(setup: S, systems: &[&str]) -> SinkFromSetup<S> {
    let systems = systems.iter().map(|s| s.to_string()).collect();
    SinkFromSetup { setup, systems, skipped: Vec::new(), kafka: false }
}

impl<S> SinkFromSetup<S> {
    /// Skips suite case `case`, saying `why` in the outcome (a case the sink cannot meet:
    /// the fault it aims at has nothing to act on in this sink).
    pub fn skipping(mut self, case: &str, why: &str) -> Self {
        self.skipped.push((case.to_string(), why.to_string()));
        self
    }
    /// The sink reaches its systems through Kafka's protocol ([`SinkContext::kafka_systems`]).
    pub fn over_kafka(mut self) -> Self {
        self.kafka = true;
        self
    }
}

impl<S: SinkSetup> SinkContext for SinkFromSetup<S> {
    type Sink = S::Sink;
    fn name(&self) -> String {
        self.setup.name()
    }
    fn build(&self, world: &mut World) -> S::Sink {
        self.setup.build(world)
    }
    fn systems(&self) -> Vec<String> {
        self.systems.clone()
    }
    fn kafka_systems(&self) -> Vec<String> {
        if self.kafka {
            self.systems.clone()
        } else {
            Vec::new()
        }
    }
    fn carries(&self) -> Carries {
        self.setup.carries()
    }
    fn supports(&self, case: &str) -> Result<(), String> {
        match self.skipped.iter().find(|(c, _)| c == case) {
            Some((_, why)) => Err(why.clone()),
            None => Ok(()),
        }
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
        let d = &self.data;
        let unbounded = if d.unbounded { ", unbounded" } else { "" };
        format!("{}({} splits, {} records over {} ms{unbounded})", self.ctx.name(), d.splits, d.records, d.pace_ms)
    }
    fn build(&self, world: &mut World) -> C::Source {
        self.ctx.build(world, self.data)
    }
    fn carries(&self) -> Carries {
        self.ctx.carries()
    }
}

/// A sink context as a per-case [`SinkSetup`].
pub(crate) struct SinkOf<C> {
    pub ctx: Arc<C>,
}

impl<C: SinkContext> SinkSetup for SinkOf<C> {
    type Sink = C::Sink;
    fn name(&self) -> String {
        self.ctx.name()
    }
    fn build(&self, world: &mut World) -> C::Sink {
        self.ctx.build(world)
    }
    fn carries(&self) -> Carries {
        self.ctx.carries()
    }
}

/// Why a case whose data is unbounded cannot run on `setup`'s source, if that source reports
/// [`Boundedness::Bounded`] when built for `data`: it would end, and the case would test
/// nothing it aims at (or miss its marks and blame the seeds). The setup is built into a
/// throwaway world, outside any run.
pub(crate) fn needs_unbounded<S: SourceSetup>(setup: S, data: TestData) -> Option<String> {
    if !data.unbounded {
        return None;
    }
    let probe = BoundednessProbe { setup, seen: Arc::new(std::sync::Mutex::new(None)) };
    connsim::run::source_systems(&probe);
    let seen = *probe.seen.lock().expect("the probe's lock");
    (seen == Some(Boundedness::Bounded)).then(|| {
        format!(
            "needs an unbounded source: the source {} built for it reports Boundedness::Bounded; a context that can \
             run unbounded builds its source with Boundedness::Unbounded when TestData::unbounded is set",
            probe.setup.name()
        )
    })
}

/// A source setup that notes the boundedness of the source it builds.
struct BoundednessProbe<S> {
    setup: S,
    seen: Arc<std::sync::Mutex<Option<Boundedness>>>,
}

impl<S: SourceSetup> SourceSetup for BoundednessProbe<S> {
    type Source = S::Source;
    fn name(&self) -> String {
        self.setup.name()
    }
    fn build(&self, world: &mut World) -> S::Source {
        let source = self.setup.build(world);
        *self.seen.lock().expect("the probe's lock") = Some(source.boundedness());
        source
    }
    fn carries(&self) -> Carries {
        self.setup.carries()
    }
}
