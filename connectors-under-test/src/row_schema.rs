//! The table sink's rows laid out by the table's schema (ClickHouse's `RowBinary` in shape):
//! the columns in the schema's order, a nullable column's value behind a null byte, an
//! integer as wide as its type, bytes behind a 4-byte length. A [`Row`] fills the columns
//! `id`, `key`, `at_ms` and `body`; a column it has no value for is written null if
//! nullable, else as its type's zero. [`SchemaRowFormat`] is how a downstream reader decodes
//! a row with the schema its data file was written under.

use crate::row::Row;
use connsim::record::{DigestBuilder, Seen};
use connsim::systems::{Column, ColumnType, Schema, SchemaFormat};
use connsim::RecordId;

/// The table as the reference table sink creates it: `id`, `key` and `at_ms` 8-byte
/// integers, `body` bytes, none nullable.
pub fn table_schema() -> Schema {
    let int = ColumnType::Int { bytes: 8 };
    Schema::new(vec![
        Column::new("id", int, false),
        Column::new("key", int, false),
        Column::new("at_ms", int, false),
        Column::new("body", ColumnType::Bytes, false),
    ])
}

/// A value of one column.
enum Value<'a> {
    Int(i64),
    Bytes(&'a [u8]),
}

/// `row` laid out by `schema`, or why it cannot be (a value too wide for its column).
pub fn encode_row_as(schema: &Schema, row: &Row) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(40 + row.body.len());
    for c in &schema.columns {
        let value = match c.name.as_str() {
            "id" => Some(Value::Int(row.id as i64)),
            "key" => Some(Value::Int(row.key as i64)),
            "at_ms" => Some(Value::Int(row.at_ms)),
            "body" => Some(Value::Bytes(&row.body)),
            _ => None,
        };
        if c.nullable {
            out.push(u8::from(value.is_none()));
        }
        match (c.ty, value) {
            (_, None) if c.nullable => {}
            (ColumnType::Int { bytes }, None) => out.extend(std::iter::repeat_n(0, bytes as usize)),
            (ColumnType::Bytes, None) => out.extend_from_slice(&0u32.to_le_bytes()),
            (ColumnType::Int { bytes }, Some(Value::Int(v))) => {
                let wide = v.to_le_bytes();
                let fits = bytes >= 8 || (v >> (bytes as u32 * 8 - 1)) == 0 || (v >> (bytes as u32 * 8 - 1)) == -1;
                if !fits {
                    return Err(format!("{v} does not fit column {} of {bytes} bytes", c.name));
                }
                out.extend_from_slice(&wide[..bytes as usize]);
            }
            (ColumnType::Bytes, Some(Value::Bytes(b))) => {
                out.extend_from_slice(&(b.len() as u32).to_le_bytes());
                out.extend_from_slice(b);
            }
            (ty, _) => return Err(format!("column {} of type {ty:?} cannot hold the row's {}", c.name, c.name)),
        }
    }
    Ok(out)
}

/// Takes `n` bytes off the front of `rest`, or says the row is too short.
fn take<'a>(rest: &mut &'a [u8], n: usize, column: &str) -> Result<&'a [u8], String> {
    if rest.len() < n {
        return Err(format!("the row ends inside column {column} ({} bytes left, {n} needed)", rest.len()));
    }
    let (head, tail) = rest.split_at(n);
    *rest = tail;
    Ok(head)
}

/// The row `bytes` hold under `schema`: its id, key, time and body (null for a null column).
fn decode_row_as(schema: &Schema, bytes: &[u8]) -> Result<(u64, u64, i64, Vec<u8>), String> {
    let mut rest = bytes;
    let (mut id, mut key, mut at, mut body) = (None, None, None, None);
    for c in &schema.columns {
        if c.nullable && take(&mut rest, 1, &c.name)?[0] == 1 {
            continue;
        }
        match c.ty {
            ColumnType::Int { bytes } => {
                let raw = take(&mut rest, bytes as usize, &c.name)?;
                let mut wide = [if raw.last().is_some_and(|b| b & 0x80 != 0) { 0xff } else { 0 }; 8];
                wide[..raw.len()].copy_from_slice(raw);
                let v = i64::from_le_bytes(wide);
                match c.name.as_str() {
                    "id" => id = Some(v as u64),
                    "key" => key = Some(v as u64),
                    "at_ms" => at = Some(v),
                    _ => {}
                }
            }
            ColumnType::Bytes => {
                let len = u32::from_le_bytes(take(&mut rest, 4, &c.name)?.try_into().expect("4 bytes")) as usize;
                let b = take(&mut rest, len, &c.name)?;
                if c.name == "body" {
                    body = Some(b.to_vec());
                }
            }
        }
    }
    if !rest.is_empty() {
        return Err(format!("{} bytes follow the last column (schema version {})", rest.len(), schema.version));
    }
    let missing = |what: &str| format!("the row has no {what} (schema version {})", schema.version);
    Ok((
        id.ok_or_else(|| missing("id"))?,
        key.ok_or_else(|| missing("key"))?,
        at.ok_or_else(|| missing("at_ms"))?,
        body.ok_or_else(|| missing("body"))?,
    ))
}

/// How a downstream reader of the table decodes a row: by the schema its file was written
/// under.
#[derive(Clone, Copy, Debug, Default)]
pub struct SchemaRowFormat;

impl SchemaFormat for SchemaRowFormat {
    fn seen(&self, schema: &Schema, row: &[u8]) -> Result<Seen, String> {
        let (id, key, at_ms, body) = decode_row_as(schema, row)?;
        let mut digest = DigestBuilder::new(key, at_ms);
        digest.bytes(&body);
        Ok(Seen { id: RecordId(id), digest: digest.finish() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::RowCodec;
    use connsim::api::ElementCodec;
    use connsim::systems::Alteration;
    use connsim::Record;

    fn altered() -> Vec<Schema> {
        let mut schemas = vec![table_schema()];
        let changes = [
            Alteration::AddColumn(Column::new("region", ColumnType::Int { bytes: 2 }, false)),
            Alteration::SetNullable { column: "body".into(), nullable: true },
            Alteration::Widen { column: "region".into(), bytes: 4 },
        ];
        for change in changes {
            let next = schemas.last().unwrap().altered(&change).unwrap();
            schemas.push(next);
        }
        schemas
    }

    /// A row encoded under each version reads back as the record under that version, and
    /// under no other: every change moves the bytes.
    #[test]
    fn a_row_reads_back_only_under_the_schema_it_was_encoded_with() {
        let record = Record::new(RecordId(7), 3, 1_700_000_000_000, b"v\x00\xff".to_vec());
        let row = RowCodec::element(&record);
        let schemas = altered();
        for (i, encoded_with) in schemas.iter().enumerate() {
            let bytes = encode_row_as(encoded_with, &row).unwrap();
            for (j, read_with) in schemas.iter().enumerate() {
                let seen = SchemaRowFormat.seen(read_with, &bytes);
                if i == j {
                    assert_eq!(seen.unwrap(), Seen::of(&record), "version {i}");
                } else {
                    assert!(seen.is_err(), "version {i}'s bytes read under version {j}: {seen:?}");
                }
            }
        }
    }

    #[test]
    fn a_value_too_wide_for_its_column_and_a_bad_change_say_why() {
        let mut schema = table_schema();
        schema.columns[1].ty = ColumnType::Int { bytes: 2 };
        let row = Row { id: 1, key: 70_000, at_ms: 0, body: vec![] };
        assert_eq!(encode_row_as(&schema, &row).unwrap_err(), "70000 does not fit column key of 2 bytes");
        let narrow = Alteration::Widen { column: "body".into(), bytes: 8 };
        assert!(table_schema().altered(&narrow).unwrap_err().contains("cannot widen"));
        let unknown = Alteration::SetNullable { column: "nope".into(), nullable: true };
        assert!(table_schema().altered(&unknown).unwrap_err().contains("no column \"nope\""));
    }
}
