//! Connectors behind trait objects: the cluster is compiled once, not once per connector.
//!
//! The job master, task executors and subtasks are written against the connector traits
//! ([`Source`](crate::api::Source), [`Sink`](crate::api::Sink)). Run on each connector's own
//! types they would be compiled again for every source and sink a crate tests (minutes per
//! test binary that sweeps many connectors). Instead [`simulate_script`](crate::run::simulate_script)
//! wraps a testbed's source and sink here ([`ErasedSource`], [`ErasedSink`]) and the cluster
//! runs on these wrappers only; the few lines that forward each call to the typed connector
//! are what a connector's crate compiles.
//!
//! Nothing changes for the connector or the checks:
//! - an erased value serializes to exactly the bytes of the value it holds (through
//!   `erased_serde`), and prints the same `Debug`, so the serde wall sees the same thing;
//! - it decodes into the connector's own type again, through the decoders of the run's
//!   connector ([`Codecs`]), installed on the seed's thread for the run.

mod global;
mod sink;
mod source;
mod value;

pub(crate) use sink::ErasedSink;
pub(crate) use source::ErasedSource;
pub(crate) use value::Codecs;
