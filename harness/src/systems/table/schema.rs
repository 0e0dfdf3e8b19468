//! A table's schema and the changes an `ALTER TABLE` makes to it: columns with a type and a
//! nullability, versioned. A data file is decoded with the schema current when it was
//! written, as a database parses an insert with the table's schema at the time (ClickHouse's
//! `RowBinary`, whose bytes say nothing of the layout they were encoded in).

use crate::record::Seen;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A column's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ColumnType {
    /// A signed integer of this many bytes (1, 2, 4 or 8), little-endian.
    Int {
        /// Its width in bytes.
        bytes: u8,
    },
    /// Bytes of any length: a 4-byte little-endian length, then the bytes.
    Bytes,
}

/// One column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: ColumnType,
    /// Whether it may be null: a nullable column's value is preceded by a byte, 1 for null
    /// (nothing follows), 0 for a value.
    pub nullable: bool,
}

impl Column {
    /// A column.
    pub fn new(name: &str, ty: ColumnType, nullable: bool) -> Self {
        Self { name: name.to_string(), ty, nullable }
    }
}

/// A table's schema: its columns in order, and its version (0 for the table as created,
/// one more per change).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schema {
    /// Its version.
    pub version: u32,
    /// Its columns, in the order a row's bytes hold them.
    pub columns: Vec<Column>,
}

impl Schema {
    /// Version 0 with `columns`.
    pub fn new(columns: Vec<Column>) -> Self {
        Self { version: 0, columns }
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The schema after `change`, one version on; or why the change does not apply.
    pub fn altered(&self, change: &Alteration) -> Result<Schema, String> {
        let mut next = Schema { version: self.version + 1, columns: self.columns.clone() };
        let find = |next: &mut Schema, name: &str| {
            let at = next.columns.iter().position(|c| c.name == name);
            at.ok_or_else(|| format!("the table has no column {name:?} (its columns: {})", self.names()))
        };
        match change {
            Alteration::Nothing => return Ok(self.clone()),
            Alteration::AddColumn(c) if self.column(&c.name).is_some() => {
                return Err(format!("the table has a column {:?} already", c.name))
            }
            Alteration::AddColumn(c) => next.columns.push(c.clone()),
            Alteration::SetNullable { column, nullable } => {
                let at = find(&mut next, column)?;
                next.columns[at].nullable = *nullable;
            }
            Alteration::Widen { column, bytes } => {
                let at = find(&mut next, column)?;
                match next.columns[at].ty {
                    ColumnType::Int { bytes: was } if *bytes > was && matches!(bytes, 2 | 4 | 8) => {
                        next.columns[at].ty = ColumnType::Int { bytes: *bytes };
                    }
                    ty => return Err(format!("column {column:?} of type {ty:?} cannot widen to {bytes} bytes")),
                }
            }
        }
        Ok(next)
    }

    fn names(&self) -> String {
        self.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
    }
}

/// One `ALTER TABLE`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Alteration {
    /// No change: what the suites probe a table with to learn that it has a schema.
    Nothing,
    /// A column added at the end (`ADD COLUMN`): rows written from now on carry it.
    AddColumn(Column),
    /// A column made nullable or not (`MODIFY COLUMN … Nullable(…)`).
    SetNullable {
        /// The column.
        column: String,
        /// Nullable from now on.
        nullable: bool,
    },
    /// An integer column made wider (`MODIFY COLUMN … Int64`).
    Widen {
        /// The column.
        column: String,
        /// Its new width in bytes.
        bytes: u8,
    },
}

impl fmt::Display for Alteration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Alteration::Nothing => write!(f, "nothing"),
            Alteration::AddColumn(c) => {
                write!(f, "add column {} {:?}{}", c.name, c.ty, if c.nullable { " null" } else { "" })
            }
            Alteration::SetNullable { column, nullable } => write!(f, "column {column} nullable {nullable}"),
            Alteration::Widen { column, bytes } => write!(f, "column {column} widened to {bytes} bytes"),
        }
    }
}

/// How a downstream reader decodes a row written under `schema`: your serializer's layout
/// for each version of the table's schema.
pub trait SchemaFormat: Send + Sync + 'static {
    /// The record a row holds, or what is wrong with it.
    fn seen(&self, schema: &Schema, row: &[u8]) -> Result<Seen, String>;
}
