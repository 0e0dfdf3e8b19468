//! The librdkafka properties the simulated clients know, each with the type librdkafka gives
//! it, and librdkafka's check of a value when it is set (`rd_kafka_anyconf_set_prop0`): an
//! integer outside its range, a boolean that is not one, a value not among an enumeration's,
//! each refused with librdkafka's own text.

use crate::error::{KafkaError, KafkaResult, RDKafkaConfRes};

/// A property's type, as librdkafka's configuration table has it.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    /// `_RK_C_INT` with its range.
    Int(i64, i64),
    /// `_RK_C_BOOL`.
    Bool,
    /// `_RK_C_STR` (checked, if at all, when the client is created).
    Str,
    /// `_RK_C_S2I`: one of these names.
    Enum(&'static [&'static str]),
}

const INT_MAX: i64 = i32::MAX as i64;

/// Every property a simulated client accepts. Those that change behaviour are read by
/// `Settings`; the others (batching, compression, security, tuning) are accepted and change
/// nothing in the simulation.
const PROPERTIES: &[(&str, Kind)] = &[
    ("bootstrap.servers", Kind::Str),
    ("metadata.broker.list", Kind::Str),
    ("client.id", Kind::Str),
    ("group.id", Kind::Str),
    ("group.instance.id", Kind::Str),
    ("transactional.id", Kind::Str),
    ("enable.idempotence", Kind::Bool),
    ("acks", Kind::Str),
    ("request.required.acks", Kind::Str),
    ("isolation.level", Kind::Enum(&["read_uncommitted", "read_committed"])),
    ("auto.offset.reset", Kind::Enum(&["smallest", "earliest", "beginning", "largest", "latest", "end", "error"])),
    ("enable.auto.commit", Kind::Bool),
    ("enable.auto.offset.store", Kind::Bool),
    ("auto.commit.interval.ms", Kind::Int(0, 86_400_000)),
    ("transaction.timeout.ms", Kind::Int(1_000, INT_MAX)),
    ("max.in.flight.requests.per.connection", Kind::Int(1, 1_000_000)),
    ("max.in.flight", Kind::Int(1, 1_000_000)),
    ("message.timeout.ms", Kind::Int(0, i32::MAX as i64)),
    ("delivery.timeout.ms", Kind::Int(0, i32::MAX as i64)),
    ("batch.num.messages", Kind::Int(1, 1_000_000)),
    ("request.timeout.ms", Kind::Int(1, 900_000)),
    ("session.timeout.ms", Kind::Int(1, 3_600_000)),
    ("heartbeat.interval.ms", Kind::Int(1, 3_600_000)),
    ("max.poll.interval.ms", Kind::Int(1, 86_400_000)),
    ("partition.assignment.strategy", Kind::Str),
    ("topic.metadata.refresh.interval.ms", Kind::Int(-1, 3_600_000)),
    ("topic.metadata.propagation.max.ms", Kind::Int(0, 3_600_000)),
    ("queue.buffering.max.messages", Kind::Int(0, INT_MAX)),
    ("queue.buffering.max.kbytes", Kind::Int(1, INT_MAX)),
    ("statistics.interval.ms", Kind::Int(0, 86_400_000)),
    ("enable.partition.eof", Kind::Bool),
    ("allow.auto.create.topics", Kind::Bool),
    ("socket.timeout.ms", Kind::Int(10, 300_000)),
    ("linger.ms", Kind::Str),
    ("queue.buffering.max.ms", Kind::Str),
    ("batch.size", Kind::Int(1, INT_MAX)),
    ("compression.type", Kind::Enum(&["none", "gzip", "snappy", "lz4", "zstd"])),
    ("compression.codec", Kind::Enum(&["none", "gzip", "snappy", "lz4", "zstd"])),
    ("retries", Kind::Int(0, INT_MAX)),
    ("message.send.max.retries", Kind::Int(0, INT_MAX)),
    ("retry.backoff.ms", Kind::Int(1, 300_000)),
    ("fetch.min.bytes", Kind::Int(1, 100_000_000)),
    ("fetch.max.bytes", Kind::Int(0, INT_MAX - 512)),
    ("fetch.wait.max.ms", Kind::Int(0, 300_000)),
    ("max.partition.fetch.bytes", Kind::Int(1, 1_000_000_000)),
    ("queued.min.messages", Kind::Int(1, 10_000_000)),
    ("queued.max.messages.kbytes", Kind::Int(1, 2_097_151)),
    ("security.protocol", Kind::Enum(&["plaintext", "ssl", "sasl_plaintext", "sasl_ssl"])),
    ("sasl.mechanism", Kind::Str),
    ("sasl.mechanisms", Kind::Str),
    ("sasl.username", Kind::Str),
    ("sasl.password", Kind::Str),
    ("ssl.ca.location", Kind::Str),
    ("ssl.certificate.location", Kind::Str),
    ("ssl.key.location", Kind::Str),
    ("debug", Kind::Str),
    ("log_level", Kind::Int(0, 7)),
    ("api.version.request", Kind::Bool),
    ("broker.address.family", Kind::Enum(&["any", "v4", "v6"])),
    ("message.max.bytes", Kind::Int(1000, 1_000_000_000)),
    ("receive.message.max.bytes", Kind::Int(1000, INT_MAX)),
    ("client.rack", Kind::Str),
    ("enable.gapless.guarantee", Kind::Bool),
    ("partitioner", Kind::Str),
    ("check.crcs", Kind::Bool),
];

fn conf_error(res: RDKafkaConfRes, text: String, key: &str, value: &str) -> KafkaError {
    KafkaError::ClientConfig(res, text, key.to_string(), value.to_string())
}

/// librdkafka's `strtol(value, &end, 0)`: leading blanks, a sign, then decimal, `0x` hex or
/// `0` octal digits, stopping at the first other character; `None` if no digit was read.
fn strtol(value: &str) -> Option<i64> {
    let s = value.trim_start();
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, h)
    } else if s.len() > 1 && s.starts_with('0') {
        (8, &s[1..])
    } else {
        (10, s)
    };
    let end = digits.find(|c: char| !c.is_digit(radix)).unwrap_or(digits.len());
    if end == 0 {
        return (radix == 8).then_some(0);
    }
    let n = i64::from_str_radix(&digits[..end], radix).unwrap_or(i64::MAX);
    Some(if neg { -n } else { n })
}

/// Checks `value` for property `key` as librdkafka does when it is set: an unknown property
/// is `RD_KAFKA_CONF_UNKNOWN`, a value of the wrong shape `RD_KAFKA_CONF_INVALID`, each with
/// librdkafka's text.
pub(super) fn check(key: &str, value: &str) -> KafkaResult<()> {
    let Some((_, kind)) = PROPERTIES.iter().find(|(name, _)| *name == key) else {
        return Err(conf_error(
            RDKafkaConfRes::RD_KAFKA_CONF_UNKNOWN,
            format!("No such configuration property: \"{key}\""),
            key,
            value,
        ));
    };
    let invalid = |text: String| Err(conf_error(RDKafkaConfRes::RD_KAFKA_CONF_INVALID, text, key, value));
    match *kind {
        Kind::Str => Ok(()),
        Kind::Int(min, max) => {
            if value.is_empty() {
                return invalid(format!("Integer configuration property \"{key}\" cannot be set to empty value"));
            }
            let Some(n) = strtol(value) else {
                return invalid(format!("Invalid value for configuration property \"{key}\""));
            };
            // librdkafka keeps the value as a C int.
            let n = n as i32 as i64;
            if n < min || n > max {
                return invalid(format!(
                    "Configuration property \"{key}\" value {n} is outside allowed range {min}..{max}\n"
                ));
            }
            Ok(())
        }
        Kind::Bool => match value.to_ascii_lowercase().as_str() {
            "true" | "false" | "t" | "f" | "1" | "0" => Ok(()),
            _ => invalid(format!("Expected bool value for \"{key}\": true or false")),
        },
        Kind::Enum(names) => match names.iter().any(|n| n.eq_ignore_ascii_case(value)) {
            true => Ok(()),
            false => invalid(format!("Invalid value \"{value}\" for configuration property \"{key}\"")),
        },
    }
}

/// The integer value of a property `check` accepted.
pub(super) fn int(value: &str) -> i64 {
    strtol(value).unwrap_or(0) as i32 as i64
}

/// The boolean value of a property `check` accepted.
pub(super) fn boolean(value: &str) -> bool {
    matches!(value.to_ascii_lowercase().as_str(), "true" | "t" | "1")
}
