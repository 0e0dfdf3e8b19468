//! The table sink's schema mutant: caught where the table's schema changes, and passing the
//! same case without the alterations.

use crate::mutants::{mutant, only_exposed_within};

/// A writer that encodes with the schema it started with, and inserts without naming it,
/// writes rows the altered table reads as garbage (the RisingWave ClickHouse-sink class).
#[test]
fn a_table_writer_caching_the_schema_writes_rows_the_altered_table_cannot_read() {
    only_exposed_within(
        || mutant("mutant: table writer caches the schema", "no-corruption"),
        "the table's schema changes between checkpoints",
        connsim_scenarios::suites::cases::schema::alterations("table"),
        "no-corruption",
        20,
    );
}
