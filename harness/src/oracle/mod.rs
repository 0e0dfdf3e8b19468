//! The oracle: everything that judges a run, apart from what runs it. What the harness
//! observes of the output while the job runs (`observe.rs`: each served request of the output
//! reader, recorded with what it returned), what the sources were declared to hold
//! ([`Expected`], [`Starts`]), which coverage marks a run reached ([`marks`]), and the
//! checks that read all of it after the run ([`checks`]).
//!
//! ```text
//!  run/ (simulate, control) ──records──▶ History ──▶ observe · expect · marks ──▶ checks ──▶ Verdicts
//! ```
//!
//! The oracle reads the history, the record model and the external systems' output; it
//! imports nothing from `run/`, which calls it.

pub mod checks;
pub mod declared;
mod expect;
mod leave_behind;
pub mod marks;
pub(crate) mod observe;

pub use expect::{Expected, StartPosition, Starts};
pub use leave_behind::LeaveBehind;
