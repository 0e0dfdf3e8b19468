//! Mutants: deliberately buggy connectors, one bug per file. Each wraps a reference
//! connector and changes one behaviour; its doc tells the real-world bug it reproduces, the
//! check that catches it, and a pinned seed.

mod ignores_splits_back;
mod premature_commit;

pub use ignores_splits_back::{IgnoresSplitsBack, IgnoresSplitsBackSetup, IgnoresSplitsBackSource};
pub use premature_commit::{PrematureCommitSetup, PrematureCommitSink, PrematureCommitWriter};
