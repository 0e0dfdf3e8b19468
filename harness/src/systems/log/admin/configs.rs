//! Configs: every topic config Kafka 4's `LogConfig` defines, with its default and its
//! validator, and the broker's own few; `DescribeConfigs` and `AlterConfigs` on them.
//!
//! A topic's dynamic configs (set by `CreateTopics` or `AlterConfigs`) are kept per topic.
//! What they change in the simulation: `cleanup.policy` without `delete` refuses
//! `DeleteRecords` (`POLICY_VIOLATION`). The rest are kept and described only (retention runs
//! on the log's [`crate::systems::Setting::RetentionMs`]).

use super::super::state::State;
use super::super::KafkaCode::{InvalidConfig, InvalidRequest, UnknownTopicOrPartition};
use super::topics::validate_name;
use super::wire::{ApiError, ConfigOrigin, ConfigResourceKey, DescribedConfig};
use super::BROKER_ID;
use std::collections::BTreeMap;

/// How a config's value is checked (Kafka's `ConfigDef` type and validator).
#[derive(Clone, Copy)]
enum Kind {
    /// `LONG`, at least `min` if given.
    Long(Option<i64>),
    /// `INT` between the bounds.
    Int(i64, i64),
    /// `DOUBLE` between 0 and 1.
    Ratio,
    /// `BOOLEAN`.
    Bool,
    /// `STRING`, one of these.
    OneOf(&'static [&'static str]),
    /// `LIST`, each one of these.
    ListOf(&'static [&'static str]),
    /// `LIST` of anything.
    List,
}

use Kind::*;

const LONG_MAX: &str = "9223372036854775807";

/// Kafka 4's topic configs (`LogConfig`), by name: default and validator.
const TOPIC: &[(&str, &str, Kind)] = &[
    ("cleanup.policy", "delete", ListOf(&["compact", "delete"])),
    ("compression.gzip.level", "-1", Int(-1, 9)),
    ("compression.lz4.level", "9", Int(1, 17)),
    ("compression.type", "producer", OneOf(&["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"])),
    ("compression.zstd.level", "3", Int(-131072, 22)),
    ("delete.retention.ms", "86400000", Long(Some(0))),
    ("file.delete.delay.ms", "60000", Long(Some(0))),
    ("flush.messages", LONG_MAX, Long(Some(1))),
    ("flush.ms", LONG_MAX, Long(Some(0))),
    ("follower.replication.throttled.replicas", "", List),
    ("index.interval.bytes", "4096", Int(0, i32::MAX as i64)),
    ("leader.replication.throttled.replicas", "", List),
    ("local.retention.bytes", "-2", Long(Some(-2))),
    ("local.retention.ms", "-2", Long(Some(-2))),
    ("max.compaction.lag.ms", LONG_MAX, Long(Some(1))),
    ("max.message.bytes", "1048588", Int(0, i32::MAX as i64)),
    ("message.timestamp.after.max.ms", "3600000", Long(Some(0))),
    ("message.timestamp.before.max.ms", LONG_MAX, Long(Some(0))),
    ("message.timestamp.type", "CreateTime", OneOf(&["CreateTime", "LogAppendTime"])),
    ("min.cleanable.dirty.ratio", "0.5", Ratio),
    ("min.compaction.lag.ms", "0", Long(Some(0))),
    ("min.insync.replicas", "1", Int(1, i32::MAX as i64)),
    ("preallocate", "false", Bool),
    ("remote.log.copy.disable", "false", Bool),
    ("remote.log.delete.on.disable", "false", Bool),
    ("remote.storage.enable", "false", Bool),
    ("retention.bytes", "-1", Long(None)),
    ("retention.ms", "604800000", Long(Some(-1))),
    ("segment.bytes", "1073741824", Int(1024 * 1024, i32::MAX as i64)),
    ("segment.index.bytes", "10485760", Int(4, i32::MAX as i64)),
    ("segment.jitter.ms", "0", Long(Some(0))),
    ("segment.ms", "604800000", Long(Some(1))),
    ("unclean.leader.election.enable", "false", Bool),
];

/// Checks one value as Kafka's `ConfigDef` parses and validates it; the error is
/// `ConfigException`'s message.
fn check(name: &str, value: &str, kind: Kind) -> Result<(), String> {
    let invalid = |why: String| Err(format!("Invalid value {value} for configuration {name}: {why}"));
    let range = |n: i64, min: Option<i64>, max: Option<i64>| match (min, max) {
        (Some(min), _) if n < min => invalid(format!("Value must be at least {min}")),
        (_, Some(max)) if n > max => invalid(format!("Value must be no more than {max}")),
        _ => Ok(()),
    };
    let v = value.trim();
    match kind {
        Long(min) => match v.parse::<i64>() {
            Ok(n) => range(n, min, None),
            Err(_) => invalid("Not a number of type LONG".into()),
        },
        Int(min, max) => match v.parse::<i32>() {
            Ok(n) => range(n as i64, Some(min), Some(max)),
            Err(_) => invalid("Not a number of type INT".into()),
        },
        Ratio => match v.parse::<f64>() {
            Ok(x) if x < 0.0 => invalid("Value must be at least 0".into()),
            Ok(x) if x > 1.0 => invalid("Value must be no more than 1".into()),
            Ok(_) => Ok(()),
            Err(_) => invalid("Not a number of type DOUBLE".into()),
        },
        Bool => match v.to_ascii_lowercase().as_str() {
            "true" | "false" => Ok(()),
            _ => invalid("Expected value to be either true or false".into()),
        },
        OneOf(valid) if valid.contains(&v) => Ok(()),
        OneOf(valid) => invalid(format!("String must be one of: {}", valid.join(", "))),
        ListOf(valid) => {
            let items: Vec<&str> = v.split(',').map(str::trim).filter(|i| !i.is_empty()).collect();
            match items.iter().any(|i| !valid.contains(i)) {
                true => invalid(format!("String must be one of: {}", valid.join(", "))),
                false => Ok(()),
            }
        }
        List => Ok(()),
    }
}

/// Checks a topic's dynamic configs as Kafka's `LogConfig.validate` does: each name known,
/// each value valid, and `min.compaction.lag.ms` not above `max.compaction.lag.ms`.
pub(super) fn validate_topic_configs(configs: &[(String, String)]) -> Result<(), ApiError> {
    for (name, value) in configs {
        let Some((_, _, kind)) = TOPIC.iter().find(|(n, _, _)| n == name) else {
            return Err(ApiError::new(InvalidConfig, format!("Unknown topic config name: {name}")));
        };
        check(name, value, *kind).map_err(|why| ApiError::new(InvalidConfig, why))?;
    }
    let lag = |name: &str, default: i64| {
        configs.iter().rev().find(|(n, _)| n == name).and_then(|(_, v)| v.trim().parse().ok()).unwrap_or(default)
    };
    let (min, max) = (lag("min.compaction.lag.ms", 0), lag("max.compaction.lag.ms", i64::MAX));
    if min > max {
        let why =
            format!("conflict topic config setting min.compaction.lag.ms ({min}) > max.compaction.lag.ms ({max})");
        return Err(ApiError::new(InvalidConfig, why));
    }
    Ok(())
}

/// Whether `cleanup.policy` of `topic` includes `delete` (Kafka's `LogConfig.delete`).
pub(super) fn deletes(s: &State, topic: &str) -> bool {
    let policy = s.admin.configs.get(topic).and_then(|c| c.get("cleanup.policy"));
    policy.is_none_or(|p| p.split(',').any(|i| i.trim().eq_ignore_ascii_case("delete")))
}

fn entry(name: &str, value: &str, origin: ConfigOrigin, read_only: bool) -> DescribedConfig {
    let (name, value) = (name.to_string(), Some(value.to_string()));
    DescribedConfig { name, value, origin, read_only, is_default: origin == ConfigOrigin::Default, sensitive: false }
}

fn describe_topic(s: &State, topic: &str) -> Result<Vec<DescribedConfig>, ApiError> {
    validate_name(topic)?;
    if !s.topics.contains_key(topic) {
        return Err(ApiError::new(UnknownTopicOrPartition, "This server does not host this topic-partition."));
    }
    let set = s.admin.configs.get(topic);
    let described = TOPIC.iter().map(|(name, default, _)| match set.and_then(|c| c.get(*name)) {
        Some(value) => entry(name, value, ConfigOrigin::DynamicTopic, false),
        // The broker's `log.retention.ms`: the log's retention setting, and without it the
        // simulated broker keeps entries forever (-1).
        None if *name == "retention.ms" => {
            let ms = s.retention_ms.map_or("-1".to_string(), |ms| ms.to_string());
            entry(name, &ms, ConfigOrigin::StaticBroker, false)
        }
        None => entry(name, default, ConfigOrigin::Default, false),
    });
    Ok(described.collect())
}

/// A broker resource names this broker (its id), as Kafka's `ConfigHelper` requires.
fn this_broker(id: i32) -> Result<(), ApiError> {
    match id == BROKER_ID {
        true => Ok(()),
        false => Err(ApiError::new(
            InvalidRequest,
            format!("Unexpected broker id, expected {BROKER_ID} or empty string, but received {id}"),
        )),
    }
}

/// The broker's configs the simulation has (its static ones; Kafka lists hundreds).
fn describe_broker(s: &State, id: i32) -> Result<Vec<DescribedConfig>, ApiError> {
    this_broker(id)?;
    let retention = s.retention_ms.map_or("-1".to_string(), |ms| ms.to_string());
    let max_timeout = super::super::TRANSACTION_MAX_TIMEOUT_MS.to_string();
    let (stat, default) = (ConfigOrigin::StaticBroker, ConfigOrigin::Default);
    Ok(vec![
        entry("auto.create.topics.enable", "false", stat, true),
        entry("broker.id", &BROKER_ID.to_string(), stat, true),
        entry("default.replication.factor", "1", default, true),
        entry("delete.topic.enable", "true", default, true),
        entry("log.cleanup.policy", "delete", default, true),
        entry("log.retention.ms", &retention, stat, true),
        entry("message.max.bytes", "1048588", default, true),
        entry("min.insync.replicas", "1", default, true),
        entry("num.partitions", "1", default, true),
        entry("transaction.max.timeout.ms", &max_timeout, default, true),
    ])
}

/// Group configs (KIP-848) are the group coordinator's; this broker has none.
fn no_group_configs() -> ApiError {
    ApiError::new(InvalidRequest, "Unsupported resource type GROUP: the simulated broker keeps no group configs")
}

/// `DescribeConfigs` of one resource.
pub(super) fn describe(s: &State, resource: &ConfigResourceKey) -> Result<Vec<DescribedConfig>, ApiError> {
    match resource {
        ConfigResourceKey::Topic(topic) => describe_topic(s, topic),
        ConfigResourceKey::Broker(id) => describe_broker(s, *id),
        ConfigResourceKey::Group(_) => Err(no_group_configs()),
    }
}

/// `AlterConfigs` of one resource: the topic's dynamic configs become `configs` (those not
/// named return to their defaults) unless `validate_only`. The broker's configs are static.
pub(super) fn alter(
    s: &mut State,
    resource: &ConfigResourceKey,
    configs: Vec<(String, String)>,
    validate_only: bool,
) -> Result<(), ApiError> {
    match resource {
        ConfigResourceKey::Topic(topic) => {
            validate_name(topic)?;
            if !s.topics.contains_key(topic) {
                return Err(ApiError::new(UnknownTopicOrPartition, "This server does not host this topic-partition."));
            }
            validate_topic_configs(&configs)?;
            if !validate_only {
                let set: BTreeMap<String, String> = configs.into_iter().collect();
                match set.is_empty() {
                    true => s.admin.configs.remove(topic),
                    false => s.admin.configs.insert(topic.clone(), set),
                };
            }
            Ok(())
        }
        ConfigResourceKey::Broker(id) => {
            this_broker(*id)?;
            match configs.is_empty() {
                true => Ok(()),
                false => {
                    let names: Vec<&str> = configs.iter().map(|(n, _)| n.as_str()).collect();
                    let why = format!("Cannot update these configs dynamically: {}", names.join(", "));
                    Err(ApiError::new(InvalidRequest, why))
                }
            }
        }
        ConfigResourceKey::Group(_) => Err(no_group_configs()),
    }
}
