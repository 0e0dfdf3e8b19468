//! Hash maps and sets keyed by [`RecordId`], with a fixed, cheap hasher.
//!
//! The checks and the observer ask "seen this record?" once or twice per record per run;
//! std's SipHash made that a few percent of a seed's cost. Record ids are small dense
//! integers the harness hands out, not attacker input, so a multiply-and-fold hash suffices.
//! The hasher has no random state: a map's iteration order depends on its contents alone
//! (the harness still never lets it decide an output's order).

use super::RecordId;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A [`HashMap`] keyed by record id.
pub type IdMap<V> = HashMap<RecordId, V, BuildHasherDefault<IdHasher>>;

/// A [`HashSet`] of record ids.
pub type IdSet = HashSet<RecordId, BuildHasherDefault<IdHasher>>;

/// Hashes integers by a 128-bit multiply folded to 64 bits: every input bit reaches both
/// the low bits (the bucket) and the high bits (hashbrown's control byte).
#[derive(Default, Clone, Copy, Debug)]
pub struct IdHasher(u64);

const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

impl IdHasher {
    fn mix(&mut self, n: u64) {
        let product = u128::from(self.0 ^ n) * u128::from(MULTIPLIER);
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn maps_and_sets_behave_as_std_ones() {
        let mut set = IdSet::default();
        let mut map = IdMap::default();
        for n in 0..10_000u64 {
            assert!(set.insert(RecordId(n * 7)));
            *map.entry(RecordId(n % 100)).or_insert(0u32) += 1;
        }
        assert!(!set.insert(RecordId(14)));
        assert!(set.contains(&RecordId(70)) && !set.contains(&RecordId(71)));
        assert_eq!(map.len(), 100);
        assert!(map.values().all(|&count| count == 100));
    }

    #[test]
    fn consecutive_ids_spread_over_low_and_high_bits() {
        let build = BuildHasherDefault::<IdHasher>::default();
        let hashes: Vec<u64> = (0..256u64).map(|n| build.hash_one(RecordId(n))).collect();
        let low: HashSet<u64> = hashes.iter().map(|h| h & 0xff).collect();
        let high: HashSet<u64> = hashes.iter().map(|h| h >> 57).collect();
        // 256 ids over 256 low buckets and 128 control bytes: far from all in a few.
        assert!(low.len() > 128, "low bits: {} distinct", low.len());
        assert!(high.len() > 64, "high bits: {} distinct", high.len());
    }
}
