//! connsim's line format for records (files written by connectors of `Record` elements).

//!
//! A line is `id<TAB>key<TAB>event_time_ms<TAB>hex(payload)`, and for a record with a null
//! key, a null value or headers a fifth field: `x` and, separated by commas, `k` (the key
//! is null), `v` (the value is null) and one `h<hex(name)>` per header, followed by
//! `=<hex(value)>` unless its value is null. Plain records' lines have four fields.

use super::{Digest, DigestBuilder, Extras, Header, Record, RecordId};

impl Record {
    /// Encodes the record as one line of the harness's file format:
    /// `id<TAB>key<TAB>event_time_ms<TAB>hex(payload)[<TAB>extras]<LF>` (the module's page
    /// says what the extras field holds; see [`Record::decode_lines`]).
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
        if let Some(extras) = self.extras.as_deref().filter(|e| !e.is_empty()) {
            bytes.pop();
            encode_extras(extras, bytes);
            bytes.push(b'\n');
        }
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

impl Record {
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
        let (hex, extras) = match hex.iter().position(|b| *b == b'\t') {
            Some(tab) => (&hex[..tab], Some(decode_extras(&hex[tab + 1..])?)),
            None => (hex, None),
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
        if let Some(e) = extras {
            if e.null_value && !hex.is_empty() {
                return None;
            }
            d.extras(&e);
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
    let extras_ok = match fields.next() {
        Some(extras) => decode_extras(extras).is_some_and(|e| !e.null_value || hex.is_empty()),
        None => true,
    };
    let ok = number(id, false)
        && number(key, false)
        && number(time, true)
        && hex.len() % 2 == 0
        && hex.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && extras_ok
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
    let extras = fields.next().map(|e| decode_extras(e.as_bytes())).map_or(Some(None), |e| e.map(Some))?;
    if fields.next().is_some() || hex.len() % 2 != 0 {
        return None;
    }
    let payload = unhex(hex)?;
    if extras.as_ref().is_some_and(|e| e.null_value && !payload.is_empty()) {
        return None;
    }
    Some(Record { id, key, event_time_ms, payload, extras: extras.map(Box::new) })
}

/// Lower-case hex to bytes; `None` for anything else.
fn unhex(hex: &[u8]) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    hex.chunks_exact(2)
        .map(|pair| {
            let (hi, lo) = (NIBBLES[pair[0] as usize], NIBBLES[pair[1] as usize]);
            ((hi | lo) <= 0xf).then_some(hi << 4 | lo)
        })
        .collect()
}

fn push_hex(bytes: &mut Vec<u8>, data: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in data {
        bytes.extend_from_slice(&[HEX[(b >> 4) as usize], HEX[(b & 0xf) as usize]]);
    }
}

/// Appends the extras field (its tab included) for a record that has some.
fn encode_extras(e: &Extras, bytes: &mut Vec<u8>) {
    bytes.extend_from_slice(b"\tx");
    let mut first = true;
    let mut item = |bytes: &mut Vec<u8>| {
        if !std::mem::take(&mut first) {
            bytes.push(b',');
        }
    };
    if e.null_key {
        item(bytes);
        bytes.push(b'k');
    }
    if e.null_value {
        item(bytes);
        bytes.push(b'v');
    }
    for h in &e.headers {
        item(bytes);
        bytes.push(b'h');
        push_hex(bytes, h.key.as_bytes());
        if let Some(v) = &h.value {
            bytes.push(b'=');
            push_hex(bytes, v);
        }
    }
}

/// Reads an extras field as [`encode_extras`] writes it (and only so: `k` before `v` before
/// the headers, nothing empty), or `None`.
fn decode_extras(field: &[u8]) -> Option<Extras> {
    let items = field.strip_prefix(b"x")?;
    let mut e = Extras::default();
    for item in items.split(|b| *b == b',') {
        match item {
            b"k" if !e.null_key && !e.null_value && e.headers.is_empty() => e.null_key = true,
            b"v" if !e.null_value && e.headers.is_empty() => e.null_value = true,
            [b'h', header @ ..] => {
                let (name, value) = match header.iter().position(|b| *b == b'=') {
                    Some(eq) => (&header[..eq], Some(unhex(&header[eq + 1..])?)),
                    None => (header, None),
                };
                let key = String::from_utf8(unhex(name)?).ok()?;
                e.headers.push(Header { key, value });
            }
            _ => return None,
        }
    }
    (!e.is_empty()).then_some(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_garbage_is_an_error() {
        let records = vec![
            Record { id: RecordId(7), key: 3, event_time_ms: -5, payload: b"a\tb\nc".to_vec(), extras: None },
            Record { id: RecordId(8), key: 0, event_time_ms: 0, payload: vec![], extras: None },
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
        let extremes =
            Record { id: RecordId(u64::MAX), key: 10, event_time_ms: i64::MIN, payload: vec![0, 255], extras: None };
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
        let r = Record { id: RecordId(7), key: 3, event_time_ms: -5, payload: b"a\tb\nc".to_vec(), extras: None };
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
        let (id, key, time, hex, extras) = match f[..] {
            [id, key, time, hex] => (id, key, time, hex, None),
            [id, key, time, hex, extras] => (id, key, time, hex, Some(Box::new(decode_extras(extras.as_bytes())?))),
            _ => return None,
        };
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
        if extras.as_ref().is_some_and(|e| e.null_value && !payload.is_empty()) {
            return None;
        }
        let r = Record { id: RecordId(number(id)?), key: number(key)?, event_time_ms: time, payload, extras };
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
            let mut payload: Vec<u8> = (0..rng.gen_range(0..12)).map(|_| rng.gen()).collect();
            let extras = rng.gen_bool(0.3).then(|| {
                let null_value = rng.gen_bool(0.3);
                if null_value {
                    payload.clear();
                }
                let headers = (0..rng.gen_range(0..3))
                    .map(|i| Header {
                        key: ["a", "é", "", "trace"][rng.gen_range(0..4)].into(),
                        value: (i % 2 == 0).then(|| (0..rng.gen_range(0..4)).map(|_| rng.gen()).collect()),
                    })
                    .collect();
                Box::new(Extras { null_key: rng.gen_bool(0.5), null_value, headers })
            });
            let extras = extras.filter(|e| !e.is_empty());
            let r = Record { id: RecordId(pick(&mut rng)), key: pick(&mut rng), event_time_ms: time, payload, extras };
            let hex: String = r.payload.iter().map(|b| format!("{b:02x}")).collect();
            let line = r.encode_line();
            if r.extras.is_none() {
                assert_eq!(line, format!("{}\t{}\t{}\t{hex}\n", r.id.0, r.key, r.event_time_ms).into_bytes());
            }
            assert_eq!(Record::decode_lines(&line).unwrap(), vec![r.clone()], "a line decodes to its record");
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

    #[test]
    fn extras_ride_in_a_fifth_field_and_only_its_canonical_form_reads() {
        let extras = Extras {
            null_key: true,
            null_value: true,
            headers: vec![
                Header { key: "t".into(), value: Some(vec![0, 0xff]) },
                Header { key: "t".into(), value: None },
                Header { key: "é".into(), value: Some(vec![]) },
            ],
        };
        let r = Record { extras: Some(Box::new(extras)), ..Record::new(RecordId(5), 0, 1_709_251_198_005, vec![]) };
        let line = r.encode_line();
        assert_eq!(line, b"5\t0\t1709251198005\t\txk,v,h74=00ff,h74,hc3a9=\n".to_vec());
        assert_eq!(Record::decode_lines(&line).unwrap(), vec![r.clone()]);
        assert_eq!(Record::digest_line(&line[..line.len() - 1]), Some((RecordId(5), r.digest())));
        assert_eq!(Record::decode_ids(&line).unwrap(), vec![RecordId(5)]);
        for bad in [
            &b"5\t0\t1\t\tx"[..],
            b"5\t0\t1\t\tv,k",
            b"5\t0\t1\t\txv,k",
            b"5\t0\t1\t\txk,k",
            b"5\t0\t1\t\txh74,v",
            b"5\t0\t1\t00\txv",
            b"5\t0\t1\t\txh7",
            b"5\t0\t1\t\txhff",
            b"5\t0\t1\t\txk,",
            b"5\t0\t1\t\txk\tx",
        ] {
            let shown = String::from_utf8_lossy(bad);
            assert_eq!(Record::digest_line(bad), None, "{shown}");
            assert!(Record::decode_lines(bad).is_err(), "{shown}");
            assert!(Record::decode_ids(bad).is_err(), "{shown}");
        }
    }
}
