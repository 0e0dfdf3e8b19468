//! Records: the unit the checker accounts for.
//!
//! Every record carries a [`RecordId`] that is unique within a run, so the
//! checks can say exactly which record was lost, duplicated or invented.

use serde::{Deserialize, Serialize};

pub mod ids;
pub use ids::{IdMap, IdSet};

/// Identity of one produced record, unique within a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RecordId(pub u64);

impl std::fmt::Display for RecordId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// One record as a downstream reader sees it: its identity and its content's digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Seen {
    /// Which record.
    pub id: RecordId,
    /// What it holds ([`Record::digest`]).
    pub digest: Digest,
}

impl Seen {
    /// How a reader sees `record`.
    pub fn of(record: &Record) -> Self {
        Self { id: record.id, digest: record.digest() }
    }
}

/// One record flowing from a source system through a connector into a sink system.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Unique identity, assigned when the record was produced.
    pub id: RecordId,
    /// Partitioning key.
    pub key: u64,
    /// Event time in milliseconds.
    pub event_time_ms: i64,
    /// Opaque payload.
    #[serde(with = "crate::bytes")]
    pub payload: Vec<u8>,
}

impl Record {
    /// Encodes the record as one line of the harness's file format:
    /// `id<TAB>key<TAB>event_time_ms<TAB>hex(payload)<LF>` (see [`Record::decode_lines`]).
    pub fn encode_line(&self) -> Vec<u8> {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut bytes = Vec::with_capacity(48 + 2 * self.payload.len());
        push_decimal(&mut bytes, self.id.0);
        bytes.push(b'\t');
        push_decimal(&mut bytes, self.key);
        bytes.push(b'\t');
        if self.event_time_ms < 0 {
            bytes.push(b'-');
        }
        push_decimal(&mut bytes, self.event_time_ms.unsigned_abs());
        bytes.push(b'\t');
        for b in &self.payload {
            bytes.extend_from_slice(&[HEX[(b >> 4) as usize], HEX[(b & 0xf) as usize]]);
        }
        bytes.push(b'\n');
        bytes
    }

    /// Decodes lines written by [`Record::encode_line`]; a line that does not decode is
    /// returned as an error with its index, so a corrupt file is evidence, not a panic.
    pub fn decode_lines(bytes: &[u8]) -> Result<Vec<Record>, String> {
        bytes
            .split(|b| *b == b'\n')
            .enumerate()
            .filter(|(_, line)| !line.is_empty())
            .map(|(i, line)| decode_line(line).ok_or_else(|| format!("line {i} is not a record")))
            .collect()
    }
}

/// Appends `n` in decimal, as `Display` writes it.
fn push_decimal(bytes: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    bytes.extend_from_slice(&digits[at..]);
}

/// A digest of a record's content (key, event time, payload): equal content, equal digest.
/// The history carries it for every produced record; output readers return it for every
/// visible one, so the checks can tell when a sink changed what it wrote.
pub type Digest = u64;

/// Builds a [`Digest`] field by field (FNV-1a), so a reader can digest a record it decodes
/// without building it.
#[derive(Clone, Copy, Debug)]
pub struct DigestBuilder(u64);

impl DigestBuilder {
    /// Starts a digest of a record with this key and event time.
    pub fn new(key: u64, event_time_ms: i64) -> Self {
        let mut d = Self(0xcbf2_9ce4_8422_2325);
        d.bytes(&key.to_le_bytes());
        d.bytes(&event_time_ms.to_le_bytes());
        d
    }
    /// Adds payload bytes (call it for the whole payload, in pieces or at once).
    pub fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    /// The digest.
    pub fn finish(self) -> Digest {
        self.0
    }
}

impl Record {
    /// The digest of this record's content (key, event time, payload; not its id).
    pub fn digest(&self) -> Digest {
        let mut d = DigestBuilder::new(self.key, self.event_time_ms);
        d.bytes(&self.payload);
        d.finish()
    }

    /// Decodes one line written by [`Record::encode_line`] (without its newline) into the
    /// record's id and content digest, without building the record; `None` if the line is
    /// not a record.
    pub fn digest_line(line: &[u8]) -> Option<(RecordId, Digest)> {
        let mut fields = line.split(|b| *b == b'\t');
        let (id, key, time, hex) = (fields.next()?, fields.next()?, fields.next()?, fields.next()?);
        if fields.next().is_some() || hex.len() % 2 != 0 {
            return None;
        }
        let number = |f: &[u8]| -> Option<u64> {
            if f.is_empty() || f.len() > 20 {
                return None;
            }
            f.iter().try_fold(0u64, |n, &b| {
                let digit = b.checked_sub(b'0').filter(|d| *d <= 9)?;
                n.checked_mul(10)?.checked_add(digit as u64)
            })
        };
        let id = RecordId(number(id)?);
        let key = number(key)?;
        let time = match time.strip_prefix(b"-") {
            Some(digits) => -i64::try_from(number(digits)?).ok()?,
            None => i64::try_from(number(time)?).ok()?,
        };
        let nibble = |b: u8| match b {
            b'0'..=b'9' => Some(b - b'0'),
            b'a'..=b'f' => Some(b - b'a' + 10),
            _ => None,
        };
        let mut d = DigestBuilder::new(key, time);
        for pair in hex.chunks(2) {
            d.bytes(&[nibble(pair[0])? << 4 | nibble(pair[1])?]);
        }
        Some((id, d.finish()))
    }

    /// Like [`Record::decode_lines`] but returns only the ids; every line is still fully
    /// validated, so a corrupt file is reported the same way.
    pub fn decode_ids(bytes: &[u8]) -> Result<Vec<RecordId>, String> {
        bytes
            .split(|b| *b == b'\n')
            .enumerate()
            .filter(|(_, line)| !line.is_empty())
            .map(|(i, line)| validate_line(line).ok_or_else(|| format!("line {i} is not a record")))
            .collect()
    }
}

/// Checks a line's shape without building the record; returns its id.
fn validate_line(line: &[u8]) -> Option<RecordId> {
    let mut fields = line.split(|b| *b == b'\t');
    let number = |f: &[u8], signed: bool| {
        let digits = if signed { f.strip_prefix(b"-").unwrap_or(f) } else { f };
        !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
    };
    let id = fields.next()?;
    let (key, time, hex) = (fields.next()?, fields.next()?, fields.next()?);
    let ok = number(id, false)
        && number(key, false)
        && number(time, true)
        && hex.len() % 2 == 0
        && hex.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && fields.next().is_none();
    ok.then(|| std::str::from_utf8(id).ok()?.parse().ok().map(RecordId)).flatten()
}

fn decode_line(line: &[u8]) -> Option<Record> {
    let line = std::str::from_utf8(line).ok()?;
    let mut fields = line.split('\t');
    let id = RecordId(fields.next()?.parse().ok()?);
    let key = fields.next()?.parse().ok()?;
    let event_time_ms = fields.next()?.parse().ok()?;
    let hex = fields.next()?.as_bytes();
    if fields.next().is_some() || hex.len() % 2 != 0 {
        return None;
    }
    let payload = hex
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    Some(Record { id, key, event_time_ms, payload })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_garbage_is_an_error() {
        let records = vec![
            Record { id: RecordId(7), key: 3, event_time_ms: -5, payload: b"a\tb\nc".to_vec() },
            Record { id: RecordId(8), key: 0, event_time_ms: 0, payload: vec![] },
        ];
        let bytes: Vec<u8> = records.iter().flat_map(Record::encode_line).collect();
        assert_eq!(bytes, b"7\t3\t-5\t6109620a63\n8\t0\t0\t\n", "the file format, byte for byte");
        let extremes = Record { id: RecordId(u64::MAX), key: 10, event_time_ms: i64::MIN, payload: vec![0, 255] };
        let expected = format!("{}\t10\t{}\t00ff\n", u64::MAX, i64::MIN);
        assert_eq!(String::from_utf8(extremes.encode_line()).unwrap(), expected);
        let near = Record { event_time_ms: i64::MIN + 1, ..extremes };
        let line = near.encode_line();
        assert_eq!(Record::digest_line(&line[..line.len() - 1]), Some((RecordId(u64::MAX), near.digest())));
        for bad in [&b"18446744073709551616\t1\t1\t"[..], b"1\t+1\t1\t", b"\t1\t1\t", b"1\t1\t--1\t"] {
            assert_eq!(Record::digest_line(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
        assert_eq!(Record::decode_lines(&bytes).unwrap(), records);
        let mut corrupt = bytes.clone();
        corrupt.extend_from_slice(b"9\tx\t0\t\n");
        assert_eq!(Record::decode_lines(&corrupt).unwrap_err(), "line 2 is not a record");
        assert_eq!(Record::decode_ids(&bytes).unwrap(), vec![RecordId(7), RecordId(8)]);
        assert_eq!(Record::decode_ids(&corrupt).unwrap_err(), "line 2 is not a record");
    }

    #[test]
    fn a_line_digests_like_the_record_it_encodes_and_content_changes_the_digest() {
        let r = Record { id: RecordId(7), key: 3, event_time_ms: -5, payload: b"a\tb\nc".to_vec() };
        let line = r.encode_line();
        assert_eq!(Record::digest_line(&line[..line.len() - 1]), Some((RecordId(7), r.digest())));
        let other = |f: &dyn Fn(&mut Record)| {
            let mut o = r.clone();
            f(&mut o);
            o.digest()
        };
        assert_ne!(other(&|o| o.payload[0] = b'b'), r.digest());
        assert_ne!(other(&|o| o.key = 4), r.digest());
        assert_ne!(other(&|o| o.event_time_ms = 5), r.digest());
        assert_eq!(other(&|o| o.id = RecordId(8)), r.digest(), "the id is identity, not content");
        assert_eq!(Record::digest_line(b"7\t3\t-5\t6"), None, "odd hex");
        assert_eq!(Record::digest_line(b"7\t3\tx\t"), None);
    }
}
