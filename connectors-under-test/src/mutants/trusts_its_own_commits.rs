//! **A global committer that trusts what it combined itself**: the table sink's global
//! committer asks the table what is committed only for what it recovered on restore and for
//! a request it retries; a committable it combined itself, committed for the first time, it
//! commits without asking.
//!
//! Story: Iceberg's Flink committer reads the table's max committed checkpoint id when its
//! state is initialized and trusts its own bookkeeping afterwards. That holds while one
//! committer runs at a time. A committer whose task executor was cut off from the job
//! master keeps running until its lease runs out; a checkpoint notification that reaches it
//! late makes it commit a checkpoint its replacement already committed from the restored
//! state, and the same data files are committed twice.
//!
//! Caught by: `no-duplicates`, in the case where the global committer is cut off and
//! replaced (zombie). A lost response, a crash inside the commit or a restore do not expose
//! it: a retried or recovered request is checked against the table.

use super::buggy_table_sink::TableBug;

/// The bug.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct TrustsItsOwnCommits;

impl TableBug for TrustsItsOwnCommits {
    const NAME: &'static str = "trusts-its-own-commits";
    fn asks_the_table(&self, retries: u32, recovered: bool) -> bool {
        retries > 0 || recovered // the bug: a first commit of its own is not checked
    }
}
