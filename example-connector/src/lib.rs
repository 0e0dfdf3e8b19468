//! An example connector to copy from: a two-phase-commit sink for a small staging store,
//! and the store's model hosted as a simulated node. Everything here uses connsim's public
//! API only.
//!
//! - [`store`]: the external system. Writers stage records under a transaction name; a commit
//!   makes a staged transaction visible, once (a second commit is recognised, not applied).
//! - [`sink`]: the connector. The writer buffers records and stages them on the barrier; the
//!   staged transaction is the committable; the committer commits it.
//! - `tests/suite.rs`: the whole connsim sink suite against it, in a dozen lines.

#![deny(missing_docs)]

pub mod sink;
pub mod store;
