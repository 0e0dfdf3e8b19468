//! An example connector to copy from: a source reading a feed and a two-phase-commit sink
//! for a small staging store, each with its external system's model hosted as a simulated
//! node and built on connsim's model kit ([`connsim::systems::ModelRequest`],
//! [`connsim::systems::serve_model`], [`connsim::systems::ModelClient`]). Everything here uses
//! connsim's public API only.
//!
//! - [`event`]: the connector's own element type, [`event::Event`], the formats it travels in
//!   (the feed's messages, the store's binary layout), and how the suites map test records
//!   onto events ([`event::EventCodec`]).
//! - [`feed`]: the source's external system: partitions of messages that arrive over time.
//! - [`source`]: the source. A split per partition, carrying its next position; readers fetch
//!   through `SourceReaderBase`.
//! - [`store`]: the sink's external system. Writers stage records under a transaction name; a
//!   commit makes a staged transaction visible, once (a second commit is recognised, not
//!   applied).
//! - [`sink`]: the sink. The writer buffers records and stages them on the barrier; the
//!   staged transaction is the committable; the committer commits it.
//! - `tests/suite.rs`: the connsim source and sink suites against them, one test per case.

#![deny(missing_docs)]

pub mod event;
pub mod feed;
pub mod sink;
pub mod source;
pub mod store;
