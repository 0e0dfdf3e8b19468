//! Which partition a message without one goes to: a context's own [`Partitioner`], or
//! librdkafka's built-in partitioner named by the `partitioner` property
//! (`consistent_random` by default), with its sticky choice for messages without a key
//! (`sticky.partitioning.linger.ms`, 10 ms).

use crate::error::{KafkaError, KafkaResult, RDKafkaConfRes};
use std::collections::BTreeMap;
use std::time::Duration;

/// A message that could not be partitioned (`RD_KAFKA_PARTITION_UA`).
pub const PARTITION_UA: i32 = -1;

/// A partitioner of one's own (`rdkafka::producer::Partitioner`), registered by a
/// producer context's `get_custom_partitioner`.
pub trait Partitioner {
    /// The partition of a message for `topic_name` with `key`, among `partition_cnt`
    /// (`PARTITION_UA` if none: the message fails with `UnknownPartition`).
    fn partition(
        &self,
        topic_name: &str,
        key: Option<&[u8]>,
        partition_cnt: i32,
        is_partition_available: impl Fn(i32) -> bool,
    ) -> i32;
}

/// No partitioner of one's own (`rdkafka::producer::NoCustomPartitioner`).
#[derive(Clone, Debug, Default)]
pub struct NoCustomPartitioner {}

impl Partitioner for NoCustomPartitioner {
    fn partition(&self, _: &str, _: Option<&[u8]>, _: i32, _: impl Fn(i32) -> bool) -> i32 {
        panic!("NoCustomPartitioner should not be called")
    }
}

/// A context's partitioner, callable from the producer's task.
pub(crate) type Custom = std::sync::Arc<dyn Fn(&str, Option<&[u8]>, i32) -> i32 + Send + Sync>;

/// librdkafka's built-in partitioners.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BuiltIn {
    Random,
    Consistent,
    ConsistentRandom,
    Murmur2,
    Murmur2Random,
    Fnv1a,
    Fnv1aRandom,
}

impl BuiltIn {
    /// By the `partitioner` property's value (librdkafka refuses another name when it
    /// creates the client).
    pub(crate) fn named(value: &str) -> KafkaResult<BuiltIn> {
        Ok(match value {
            "random" => BuiltIn::Random,
            "consistent" => BuiltIn::Consistent,
            "consistent_random" => BuiltIn::ConsistentRandom,
            "murmur2" => BuiltIn::Murmur2,
            "murmur2_random" => BuiltIn::Murmur2Random,
            "fnv1a" => BuiltIn::Fnv1a,
            "fnv1a_random" => BuiltIn::Fnv1aRandom,
            other => {
                return Err(KafkaError::ClientConfig(
                    RDKafkaConfRes::RD_KAFKA_CONF_INVALID,
                    format!("Invalid value for configuration property \"partitioner\": {other}"),
                    "partitioner".into(),
                    other.into(),
                ))
            }
        })
    }
}

/// The sticky partition of messages without a key, per topic: kept for
/// `sticky.partitioning.linger.ms`, then drawn again (librdkafka's
/// `rd_kafka_msg_sticky_partition`).
#[derive(Default)]
pub(crate) struct Sticky {
    chosen: BTreeMap<String, (u32, madsim::time::Instant)>,
}

/// librdkafka's `sticky.partitioning.linger.ms` default.
const STICKY_LINGER: Duration = Duration::from_millis(10);

impl Sticky {
    fn pick(&mut self, topic: &str, partitions: u32) -> u32 {
        let now = madsim::time::Instant::now();
        match self.chosen.get(topic) {
            Some(&(p, at)) if now < at + STICKY_LINGER && p < partitions => p,
            _ => {
                let p = random(partitions);
                self.chosen.insert(topic.to_string(), (p, now));
                p
            }
        }
    }
}

/// A partition drawn from the simulation's random stream (deterministic for the seed).
fn random(partitions: u32) -> u32 {
    use madsim::rand::Rng;
    madsim::rand::thread_rng().gen_range(0..partitions.max(1))
}

/// `rd_crc32`: CRC-32 (IEEE) of the key.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// `rd_murmur2`: Java's `Utils.murmur2`, so keys land where a Java producer puts them.
pub(crate) fn murmur2(key: &[u8]) -> u32 {
    const M: u32 = 0x5bd1_e995;
    let mut h: u32 = 0x9747_b28c ^ key.len() as u32;
    let mut chunks = key.chunks_exact(4);
    for c in &mut chunks {
        let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> 24;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M) ^ k;
    }
    let tail = chunks.remainder();
    if tail.len() >= 3 {
        h ^= (tail[2] as u32) << 16;
    }
    if tail.len() >= 2 {
        h ^= (tail[1] as u32) << 8;
    }
    if !tail.is_empty() {
        h ^= tail[0] as u32;
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^ (h >> 15)
}

/// `rd_fnv1a`: FNV-1a, its absolute value (as Sarama's hash partitioner).
pub(crate) fn fnv1a(key: &[u8]) -> u32 {
    let mut h: i32 = 0x811C_9DC5u32 as i32;
    for &b in key {
        h ^= b as i32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h.wrapping_abs() as u32
}

impl BuiltIn {
    /// The partition of a message with `key` among `partitions`.
    pub(crate) fn partition(self, sticky: &mut Sticky, topic: &str, key: Option<&[u8]>, partitions: u32) -> u32 {
        let n = partitions.max(1);
        // Without a key the `_random` partitioners (and `random`) stick to one partition for
        // a while; `consistent_random` counts an empty key as none too.
        // `random` draws every keyed message afresh; only a keyless one sticks.
        if self == BuiltIn::Random && key.is_some() {
            return random(n);
        }
        let keyless = match self {
            BuiltIn::Random => true,
            BuiltIn::ConsistentRandom => key.is_none_or_empty(),
            BuiltIn::Murmur2Random | BuiltIn::Fnv1aRandom => key.is_none(),
            _ => false,
        };
        if keyless {
            return sticky.pick(topic, n);
        }
        let key = key.unwrap_or_default();
        match self {
            BuiltIn::Consistent | BuiltIn::ConsistentRandom => crc32(key) % n,
            BuiltIn::Murmur2 | BuiltIn::Murmur2Random => (murmur2(key) & 0x7fff_ffff) % n,
            BuiltIn::Fnv1a | BuiltIn::Fnv1aRandom => fnv1a(key) % n,
            BuiltIn::Random => unreachable!("keyless above"),
        }
    }
}

trait EmptyKey {
    fn is_none_or_empty(&self) -> bool;
}

impl EmptyKey for Option<&[u8]> {
    fn is_none_or_empty(&self) -> bool {
        self.map_or(true, |k| k.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur2_is_javas() {
        // librdkafka's unittest_murmur2 values, Java's Utils.murmur2.
        assert_eq!(murmur2(b"kafka"), 0xd067_cf64);
        assert_eq!(murmur2(b"giberish123456789"), 0x8f55_2b0c);
        assert_eq!(murmur2(b"1234"), 0x9fc9_7b14);
        assert_eq!(murmur2(b""), 0x106e_08d9);
    }

    #[test]
    fn fnv1a_is_saramas() {
        // librdkafka's unittest_fnv1a values.
        assert_eq!(fnv1a(b"kafka"), 0x0d33_c4e1);
        assert_eq!(fnv1a(b""), 0x7ee3_623b);
    }
}
