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
        let mut bytes = Vec::with_capacity(48 + 2 * self.payload.len());
        self.encode_line_into(&mut bytes);
        bytes
    }

    /// Appends [`Record::encode_line`]'s line to `bytes` (a writer's buffer), without a
    /// vector of its own.
    pub fn encode_line_into(&self, bytes: &mut Vec<u8>) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        // Room for the longest line (three 20-digit numbers, a sign, three tabs, the hex, a
        // newline), written by index and cut to length: no capacity check per byte.
        let start = bytes.len();
        bytes.resize(start + 66 + 2 * self.payload.len(), 0);
        let buf = &mut bytes[start..];
        let mut at = put_decimal(buf, self.id.0);
        buf[at] = b'\t';
        at += 1;
        at += put_decimal(&mut buf[at..], self.key);
        buf[at] = b'\t';
        at += 1;
        if self.event_time_ms < 0 {
            buf[at] = b'-';
            at += 1;
        }
        at += put_decimal(&mut buf[at..], self.event_time_ms.unsigned_abs());
        buf[at] = b'\t';
        at += 1;
        for (pair, b) in buf[at..].chunks_exact_mut(2).zip(&self.payload) {
            pair[0] = HEX[(b >> 4) as usize];
            pair[1] = HEX[(b & 0xf) as usize];
        }
        at += 2 * self.payload.len();
        buf[at] = b'\n';
        bytes.truncate(start + at + 1);
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

/// Appends `n` in decimal, as `Display` writes it, without the formatting machinery: for
/// payloads and lines a testbed builds once per record.
pub fn push_decimal(bytes: &mut Vec<u8>, n: u64) {
    let mut digits = [0; 20];
    let len = put_decimal(&mut digits, n);
    bytes.extend_from_slice(&digits[..len]);
}

/// Writes `n` in decimal, as `Display` writes it, at the start of `buf`; returns its length.
/// The digits go straight into `buf`, from the last one back, with no copy between.
fn put_decimal(buf: &mut [u8], mut n: u64) -> usize {
    let len = n.checked_ilog10().map_or(1, |l| l as usize + 1);
    let mut at = len;
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        at -= 2;
        buf[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = n as usize * 2;
        buf[..2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        buf[0] = b'0' + n as u8;
    }
    len
}

/// The two decimal digits of 0 to 99, in order: `PAIRS[2 * n..2 * n + 2]` is `n`'s.
const PAIRS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut n = 0;
    while n < 100 {
        t[2 * n] = b'0' + (n / 10) as u8;
        t[2 * n + 1] = b'0' + (n % 10) as u8;
        n += 1;
    }
    t
};

/// A decimal field of a line (1 to 20 digits, no sign) up to its tab, and what follows the tab.
fn decimal_field(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let mut n: u64 = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\t' {
            return (1..=20).contains(&i).then(|| (n, &bytes[i + 1..]));
        }
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(digit))?;
    }
    None
}

/// The value of each lower-case hex digit; 0xff for every other byte.
const NIBBLES: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 16 {
        t[b"0123456789abcdef"[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// A digest of a record's content (key, event time, payload): equal content, equal digest.
/// The history carries it for every produced record; output readers return it for every
/// visible one, so the checks can tell when a sink changed what it wrote.
pub type Digest = u64;

/// Builds a [`Digest`] field by field (FNV-1a), so a reader can digest a record it decodes
/// without building it.
#[derive(Clone, Copy, Debug)]
pub struct DigestBuilder(u64);

/// FNV-1a's starting state.
pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a: `h` moved on by `bytes` (start from [`FNV_OFFSET`]; feeding bytes in pieces or at
/// once gives the same hash). Record digests, the history hash and the key-value store's
/// buckets use it.
#[inline]
pub(crate) fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl DigestBuilder {
    /// Starts a digest of a record with this key and event time.
    pub fn new(key: u64, event_time_ms: i64) -> Self {
        let mut d = Self(FNV_OFFSET);
        d.bytes(&key.to_le_bytes());
        d.bytes(&event_time_ms.to_le_bytes());
        d
    }
    /// Adds payload bytes (call it for the whole payload, in pieces or at once).
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.0 = fnv1a(self.0, bytes);
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
        let (id, rest) = decimal_field(line)?;
        let (key, rest) = decimal_field(rest)?;
        let (time, hex) = match rest.split_first() {
            Some((b'-', digits)) => {
                let (n, hex) = decimal_field(digits)?;
                (-i64::try_from(n).ok()?, hex)
            }
            _ => {
                let (n, hex) = decimal_field(rest)?;
                (i64::try_from(n).ok()?, hex)
            }
        };
        if hex.len() % 2 != 0 {
            return None;
        }
        let mut d = DigestBuilder::new(key, time);
        for pair in hex.chunks_exact(2) {
            let (hi, lo) = (NIBBLES[pair[0] as usize], NIBBLES[pair[1] as usize]);
            if (hi | lo) > 0xf {
                return None;
            }
            d.bytes(&[hi << 4 | lo]);
        }
        Some((RecordId(id), d.finish()))
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
        let mut appended = b"kept".to_vec();
        records.iter().for_each(|r| r.encode_line_into(&mut appended));
        assert_eq!(appended[4..], bytes[..], "encode_line_into appends the same lines");
        assert_eq!(&appended[..4], b"kept");
        let mut every_length: Vec<u64> = (0..20).map(|k| 10u64.pow(k)).flat_map(|p| [p - 1, p, p + 1]).collect();
        every_length.extend([0, 7, 10, 99, 100, 999, u64::MAX, u64::MAX - 1, 12_345_678_901_234_567_890]);
        for n in every_length {
            let mut v = b"value-".to_vec();
            push_decimal(&mut v, n);
            assert_eq!(v, format!("value-{n}").into_bytes());
            let mut buf = [b'x'; 21];
            let len = put_decimal(&mut buf, n);
            assert_eq!((&buf[..len], buf[len]), (format!("{n}").as_bytes(), b'x'), "only the digits are written");
        }
        let extremes = Record { id: RecordId(u64::MAX), key: 10, event_time_ms: i64::MIN, payload: vec![0, 255] };
        let expected = format!("{}\t10\t{}\t00ff\n", u64::MAX, i64::MIN);
        assert_eq!(String::from_utf8(extremes.encode_line()).unwrap(), expected);
        let near = Record { event_time_ms: i64::MIN + 1, ..extremes };
        let line = near.encode_line();
        assert_eq!(Record::digest_line(&line[..line.len() - 1]), Some((RecordId(u64::MAX), near.digest())));
        let bad_lines = [
            &b"18446744073709551616\t1\t1\t"[..],
            b"1\t+1\t1\t",
            b"\t1\t1\t",
            b"1\t1\t--1\t",
            // More than 20 digits is not a number, even when the value fits (leading zeros).
            b"000000000000000000001\t1\t1\t",
            b"1\t1\t000000000000000000001\t",
            b"1\t1\t-000000000000000000001\t",
        ];
        for bad in bad_lines {
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

    /// The field-by-field reading of a line the fast parser must agree with.
    fn digest_line_by_fields(line: &[u8]) -> Option<(RecordId, Digest)> {
        let line = std::str::from_utf8(line).ok()?;
        let f: Vec<&str> = line.split('\t').collect();
        let [id, key, time, hex] = f[..] else { return None };
        let number = |s: &str| {
            (!s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u64>().ok())
                .flatten()
        };
        let time = match time.strip_prefix('-') {
            Some(t) => -i64::try_from(number(t)?).ok()?,
            None => i64::try_from(number(time)?).ok()?,
        };
        let lower_hex = hex.len() % 2 == 0 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        let payload: Vec<u8> = lower_hex
            .then(|| (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok()).collect())
            .flatten()?;
        let r = Record { id: RecordId(number(id)?), key: number(key)?, event_time_ms: time, payload };
        Some((r.id, r.digest()))
    }

    /// Lines and near-lines (one byte changed, dropped or doubled) read the same by the fast
    /// parser and by splitting into fields; lines encode as `Display` writes the numbers.
    #[test]
    fn the_line_codec_agrees_with_a_field_by_field_reading() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let alphabet = b"0123456789abcdefABF-+\t\n x";
        for _ in 0..20_000 {
            let pick = |rng: &mut rand_chacha::ChaCha8Rng| match rng.gen_range(0..4) {
                0 => rng.gen_range(0..10),
                1 => rng.gen(),
                2 => u64::MAX - rng.gen_range(0..3),
                _ => rng.gen_range(0..100_000),
            };
            let time = match rng.gen_range(0..4) {
                0 => i64::MIN + rng.gen_range(0..2),
                1 => i64::MAX,
                _ => rng.gen_range(-100_000..100_000),
            };
            let payload: Vec<u8> = (0..rng.gen_range(0..12)).map(|_| rng.gen()).collect();
            let r = Record { id: RecordId(pick(&mut rng)), key: pick(&mut rng), event_time_ms: time, payload };
            let hex: String = r.payload.iter().map(|b| format!("{b:02x}")).collect();
            let line = r.encode_line();
            assert_eq!(line, format!("{}\t{}\t{}\t{hex}\n", r.id.0, r.key, r.event_time_ms).into_bytes());
            let mut line = line[..line.len() - 1].to_vec();
            assert_eq!(Record::digest_line(&line), digest_line_by_fields(&line));
            let at = rng.gen_range(0..line.len());
            match rng.gen_range(0..3) {
                0 => line[at] = alphabet[rng.gen_range(0..alphabet.len())],
                1 => drop(line.remove(at)),
                _ => line.insert(at, line[at]),
            }
            assert_eq!(Record::digest_line(&line), digest_line_by_fields(&line), "{}", String::from_utf8_lossy(&line));
        }
    }
}
