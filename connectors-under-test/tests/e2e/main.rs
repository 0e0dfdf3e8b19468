//! End-to-end runs of the reference connectors and the mutants.

mod pipelines;
mod mutants;
