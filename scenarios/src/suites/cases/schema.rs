//! The tables' case: the schema changes while the job writes (an `ALTER TABLE` between
//! checkpoints), and rows written since are decoded with the new one.

use super::{case, CaseSpec, Systems};
use crate::prelude::*;
use connsim::cluster::FailoverStrategy::Region;

/// The case's alterations of `table`, each 150 ms after the last: a column added (a 2-byte
/// integer, not null), the `body` column made nullable, the added column widened to 4 bytes.
/// Each moves the bytes of every row written after it.
pub fn alterations(table: &str) -> Block {
    let changes = [
        Alteration::AddColumn(Column::new("region", ColumnType::Int { bytes: 2 }, false)),
        Alteration::SetNullable { column: "body".into(), nullable: true },
        Alteration::Widen { column: "region".into(), bytes: 4 },
    ];
    let mut block = wait(150);
    for (i, change) in changes.into_iter().enumerate() {
        if i > 0 {
            block = block.then(wait(150));
        }
        block = block.then(alter_table(table, change));
    }
    block
}

/// "the table's schema changes between checkpoints": a writer must encode its rows with the
/// schema the table has when it writes them.
pub(super) fn altered_schema(aimed: &Systems, cases: &mut Vec<CaseSpec>) {
    if aimed.tables.is_empty() {
        return;
    }
    let name = "the table's schema changes between checkpoints";
    let mut altered = Scenario::new(name);
    for t in &aimed.tables {
        altered = altered.then(alterations(t));
    }
    let altered = altered.then(wait(300)).requires("schema-altered");
    cases.insert(cases.len() - 1, case(name, 4, Region, altered));
}
