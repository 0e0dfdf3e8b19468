//! The suites' data, shaped as real systems hold it.
//!
//! Every record a run makes ([`crate::run::RecordMaker`]) goes through a [`DataShape`]: its
//! event time is counted from a real date the seed picks (a leap day, a daylight-saving
//! change in Europe or the US, the 32-bit seconds rollover of 2038, a non-leap 2100) rather
//! than from 1970, and some records, picked by their number so that every run of every size
//! has each shape, get a null key, a null value (a tombstone), headers (several, repeated
//! names, null and binary values), a multi-byte UTF-8 payload or one that is not UTF-8 at
//! all. Only the shapes both the source and the sink carry ([`Carries`]) are made;
//! [`DataKind::Plain`] makes none (the data of connsim before real data).

use super::{Carries, Extras, Header, Record};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Which data a run's records have.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataKind {
    /// Shaped as real systems hold it (the default): real dates, null keys, tombstones,
    /// headers, multi-byte and binary payloads, as far as the connectors carry them.
    #[default]
    Real,
    /// Event times from 1970 and plain records only: what a case runs to show that a bug
    /// needs real data to show.
    Plain,
}

impl DataKind {
    /// Whether it is the default (left out of a saved configuration).
    pub fn is_real(&self) -> bool {
        *self == DataKind::Real
    }
}

/// The dates a run's event times start from: each a few seconds before an instant that
/// trips naive time handling, so the run's records straddle it.
pub const START_DATES: [(&str, i64); 5] = [
    // 2024-02-29T23:59:58Z: a leap day ends.
    ("a leap day's end", 1_709_251_198_000),
    // 2025-03-30T00:59:58Z: clocks in the EU go forward at 01:00 UTC.
    ("the EU's daylight-saving change", 1_743_296_398_000),
    // 2025-11-02T05:59:58Z: clocks in the US Eastern zone go back at 06:00 UTC.
    ("the US's daylight-saving change", 1_762_063_198_000),
    // 2038-01-19T03:14:05Z: seconds since 1970 no longer fit 31 bits at 03:14:08.
    ("the 32-bit seconds rollover", 2_147_483_645_000),
    // 2100-02-28T23:59:58Z: 2100 is not a leap year.
    ("a century's non-leap February", 4_107_542_398_000),
];

/// How a run shapes the records it makes.
#[derive(Clone, Copy, Debug)]
pub struct DataShape {
    carries: Carries,
    /// Event time of record 0, in milliseconds since the epoch.
    start_ms: i64,
    real: bool,
}

impl Default for DataShape {
    /// Plain records with event times from 1970 (outside a run).
    fn default() -> Self {
        Self { carries: Carries::PLAIN, start_ms: 0, real: false }
    }
}

impl DataShape {
    /// The shape of a run's data: `kind`, as far as its connectors `carry`, with its start
    /// date drawn from `rng` (the run's data stream).
    pub fn new(kind: DataKind, carries: Carries, rng: &mut impl Rng) -> Self {
        match kind {
            DataKind::Plain => Self::default(),
            DataKind::Real => {
                Self { carries, start_ms: START_DATES[rng.gen_range(0..START_DATES.len())].1, real: true }
            }
        }
    }

    /// Whether the data is shaped as real systems hold it ([`DataKind::Real`]).
    pub fn is_real(&self) -> bool {
        self.real
    }

    /// Record number `n` (a run's records count from 1) with `key` and `payload`, shaped.
    pub fn record(&self, n: u64, key: u64, mut payload: Vec<u8>) -> Record {
        let mut extras = Extras::default();
        if self.real {
            let c = self.carries;
            extras.null_key = c.null_keys && n % 7 == 3;
            if c.tombstones && n % 11 == 5 {
                extras.null_value = true;
                payload.clear();
            } else if n % 4 == 2 {
                // Two, three and four bytes per character.
                payload.extend_from_slice("·é€𝄞".as_bytes());
            } else if c.binary_payloads && n % 13 == 7 {
                // Not UTF-8: a lone continuation byte, an invalid lead byte, a NUL.
                payload.extend_from_slice(&[0x80, 0xff, 0x00, b'\n', b'\t']);
            }
            if c.headers && n % 5 == 1 {
                extras.headers.push(Header { key: "trace".into(), value: Some(format!("t-{n}").into_bytes()) });
                extras.headers.push(Header { key: "nullable".into(), value: None });
                if n % 10 == 1 {
                    extras.headers.push(Header { key: "bin".into(), value: Some(vec![0, 0xff, n as u8]) });
                    extras.headers.push(Header { key: "trace".into(), value: Some("again·é".as_bytes().to_vec()) });
                }
            }
        }
        let extras = (!extras.is_empty()).then(|| Box::new(extras));
        Record { id: super::RecordId(n), key, event_time_ms: self.start_ms.saturating_add(n as i64), payload, extras }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn real_data_has_every_shape_the_connectors_carry_and_plain_data_none() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let real = DataShape::new(DataKind::Real, Carries::ALL, &mut rng);
        let records: Vec<Record> = (1..=100).map(|n| real.record(n, n, b"value".to_vec())).collect();
        let extras =
            |f: &dyn Fn(&Extras) -> bool| records.iter().filter(|r| r.extras.as_deref().is_some_and(f)).count();
        assert!(extras(&|e| e.null_key) >= 10);
        assert!(extras(&|e| e.null_value) >= 5);
        assert!(extras(&|e| e.headers.len() == 4) >= 5, "repeated names and binary values");
        assert!(records.iter().any(|r| std::str::from_utf8(&r.payload).is_err()));
        assert!(records.iter().any(|r| std::str::from_utf8(&r.payload).is_ok_and(|s| s.len() > s.chars().count())));
        assert!(records.iter().all(|r| START_DATES.iter().any(|(_, d)| r.event_time_ms - r.id.0 as i64 == *d)));
        let headerless = DataShape::new(DataKind::Real, Carries { headers: false, ..Carries::ALL }, &mut rng);
        assert!((1..=100).all(|n| headerless.record(n, n, vec![]).extras.is_none_or(|e| e.headers.is_empty())));
        let plain = DataShape::new(DataKind::Plain, Carries::ALL, &mut rng);
        for n in 1..=100 {
            let r = plain.record(n, n, b"value".to_vec());
            assert_eq!((r.extras, r.event_time_ms, r.payload), (None, n as i64, b"value".to_vec()));
        }
    }
}
