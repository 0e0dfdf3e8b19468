//! `CreateTopics`, `DeleteTopics` and `CreatePartitions` as Kafka's controller serves them
//! (`ReplicationControlManager`, `ControllerApis`), each refusal with Kafka's code and words.
//!
//! The simulated log stands for a cluster whose followers it does not name (its replication
//! is [`super::super::REPLICATION_LAG_MS`] behind the leader, for every topic alike): a
//! replication factor or a replica assignment is checked in every way Kafka checks it that
//! does not depend on which brokers are registered, so that a connector's production topic
//! settings (a replication factor of 3) run unchanged; metadata names broker
//! [`super::BROKER_ID`] as every partition's only replica.

use super::super::state::State;
use super::super::KafkaCode::*;
use super::configs::validate_topic_configs;
use super::wire::{ApiError, NewPartitionsRequest, NewTopicRequest};
use std::collections::BTreeMap;

/// The broker's `num.partitions` and `default.replication.factor` (KIP-464's -1), Kafka's
/// defaults.
const DEFAULT_PARTITIONS: i32 = 1;
const DEFAULT_REPLICATION: usize = 1;

/// Kafka's `Topic.validate`: a legal topic name, else `INVALID_TOPIC_EXCEPTION`.
pub(super) fn validate_name(name: &str) -> Result<(), ApiError> {
    let why = if name.is_empty() {
        "Topic name is illegal, it can't be empty".to_string()
    } else if name == "." || name == ".." {
        "Topic name cannot be \".\" or \"..\"".to_string()
    } else if name.len() > 249 {
        format!("Topic name is illegal, it can't be longer than 249 characters, topic name: {name}")
    } else if !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
        format!(
            "Topic name \"{name}\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'"
        )
    } else {
        return Ok(());
    };
    Err(ApiError::new(InvalidTopic, why))
}

/// Names given more than once in one request: every occurrence is refused `INVALID_REQUEST`
/// and none acted on (Kafka's `ControllerApis`).
fn duplicates<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut seen = BTreeMap::new();
    for n in names {
        *seen.entry(n.to_string()).or_insert(0) += 1;
    }
    seen.into_iter().filter(|(_, count)| *count > 1).map(|(n, _)| n).collect()
}

fn duplicate() -> ApiError {
    ApiError::new(InvalidRequest, "Duplicate topic name.")
}

fn unknown() -> ApiError {
    ApiError::new(UnknownTopicOrPartition, "This server does not host this topic-partition.")
}

/// `validateManualPartitionAssignment`: a replica list is not empty, names no broker twice
/// (nor a broker id no broker can have), and has as many replicas as the partitions before.
fn validate_replicas(replicas: &[i32], expected: Option<usize>) -> Result<(), ApiError> {
    let refuse = |why: String| Err(ApiError::new(InvalidReplicaAssignment, why));
    if replicas.is_empty() {
        return refuse("The manual partition assignment includes an empty replica list.".into());
    }
    let mut sorted = replicas.to_vec();
    sorted.sort_unstable();
    if let Some(id) = sorted.iter().find(|id| **id < 0) {
        return refuse(format!(
            "The manual partition assignment includes broker {id}, but no such broker is registered."
        ));
    }
    if let Some(pair) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return refuse(format!("The manual partition assignment includes the broker {} more than once.", pair[0]));
    }
    match expected {
        Some(n) if n != replicas.len() => refuse(format!(
            "The manual partition assignment includes a partition with {} replica(s), but this is not consistent with \
             previous partitions, which have {n} replica(s).",
            replicas.len()
        )),
        _ => Ok(()),
    }
}

/// The partition count and replication factor a new topic gets (`ReplicationControlManager.
/// createTopic`).
fn placement(t: &NewTopicRequest) -> Result<(u32, usize), ApiError> {
    if !t.assignment.is_empty() {
        if t.replication_factor != -1 {
            let why = "A manual partition assignment was specified, but replication factor was not set to -1.";
            return Err(ApiError::new(InvalidRequest, why));
        }
        if t.num_partitions != -1 {
            let why = "A manual partition assignment was specified, but numPartitions was not set to -1.";
            return Err(ApiError::new(InvalidRequest, why));
        }
        let mut factor = None;
        for replicas in &t.assignment {
            validate_replicas(replicas, factor)?;
            factor = Some(replicas.len());
        }
        return Ok((t.assignment.len() as u32, factor.unwrap_or(DEFAULT_REPLICATION)));
    }
    if t.replication_factor < -1 || t.replication_factor == 0 {
        let why = "Replication factor was set to an invalid non-positive value.";
        return Err(ApiError::new(InvalidReplicationFactor, why));
    }
    if t.num_partitions < -1 || t.num_partitions == 0 {
        return Err(ApiError::new(InvalidPartitions, "Number of partitions was set to an invalid non-positive value."));
    }
    let partitions = if t.num_partitions == -1 { DEFAULT_PARTITIONS } else { t.num_partitions };
    let factor = if t.replication_factor == -1 { DEFAULT_REPLICATION } else { t.replication_factor as usize };
    Ok((partitions as u32, factor))
}

/// `CreateTopics`: each topic is checked (its name, that it is new, its configs, its
/// partitions and replicas), then created unless `validate_only`.
pub(super) fn create_topics(
    s: &mut State,
    topics: Vec<NewTopicRequest>,
    validate_only: bool,
) -> Vec<(String, Option<ApiError>)> {
    let twice = duplicates(topics.iter().map(|t| t.name.as_str()));
    let mut out = Vec::new();
    for t in topics {
        let checked = if twice.contains(&t.name) {
            Err(duplicate())
        } else {
            validate_name(&t.name)
                .and_then(|()| match s.topics.contains_key(&t.name) {
                    true => Err(ApiError::new(TopicAlreadyExists, format!("Topic '{}' already exists.", t.name))),
                    false => Ok(()),
                })
                .and_then(|()| validate_topic_configs(&t.configs))
                .and_then(|()| placement(&t))
        };
        match checked {
            Ok((partitions, factor)) => {
                if !validate_only {
                    s.grow(&t.name, partitions);
                    s.admin.replication.insert(t.name.clone(), factor);
                    if !t.configs.is_empty() {
                        s.admin.configs.insert(t.name.clone(), t.configs.into_iter().collect());
                    }
                }
                out.push((t.name, None));
            }
            Err(e) => out.push((t.name, Some(e))),
        }
    }
    out
}

/// `DeleteTopics`: each topic named once and known is deleted.
pub(super) fn delete_topics(s: &mut State, topics: Vec<String>) -> Vec<(String, Option<ApiError>)> {
    let twice = duplicates(topics.iter().map(String::as_str));
    let mut out = Vec::new();
    for topic in topics {
        let error = if twice.contains(&topic) {
            Some(duplicate())
        } else if !s.topics.contains_key(&topic) {
            Some(unknown())
        } else {
            forget(s, &topic);
            None
        };
        out.push((topic, error));
    }
    out
}

/// Everything the broker knew of a deleted topic goes: its partitions and configs, the
/// producers' sequences there, groups' committed offsets of it (Kafka's group coordinator
/// drops them), and its partitions from every transaction (the coordinator writes no marker
/// to a partition that is gone).
fn forget(s: &mut State, topic: &str) {
    s.topics.remove(topic);
    s.admin.configs.remove(topic);
    s.admin.replication.remove(topic);
    let k = &mut s.kafka;
    k.groups.retain(|(_, t, _), _| t != topic);
    for per_partition in k.sequences.values_mut() {
        per_partition.retain(|(t, _), _| t != topic);
    }
    for txn in k.txns.values_mut() {
        txn.writes.retain(|(t, _, _)| t != topic);
        txn.added.retain(|(t, _)| t != topic);
        txn.offsets.retain(|(_, t, _, _)| t != topic);
    }
    let split = format!("{topic}-");
    k.resetting.retain(|(_, of), _| of.strip_prefix(&split).is_none_or(|p| p.parse::<u32>().is_err()));
    for p in s.producers.values_mut() {
        if let Some(open) = p.open.as_mut() {
            open.retain(|(t, _, _)| t != topic);
        }
    }
    s.changes += 1;
}

/// `CreatePartitions`: each topic grows to its count, unless `validate_only`.
pub(super) fn create_partitions(
    s: &mut State,
    topics: Vec<NewPartitionsRequest>,
    validate_only: bool,
) -> Vec<(String, Option<ApiError>)> {
    let twice = duplicates(topics.iter().map(|t| t.topic.as_str()));
    let mut out = Vec::new();
    for t in topics {
        let checked = match s.topics.get(&t.topic).map(|p| p.len() as i64) {
            _ if twice.contains(&t.topic) => Err(duplicate()),
            None => Err(unknown()),
            Some(n) => grow_check(&t, n, s.admin.replication.get(&t.topic).copied().unwrap_or(DEFAULT_REPLICATION)),
        };
        if checked.is_ok() && !validate_only {
            s.grow(&t.topic, t.count as u32);
        }
        out.push((t.topic, checked.err()));
    }
    out
}

/// `ReplicationControlManager.createPartitions`' checks of growing a topic of `n` partitions
/// and `factor` replicas.
fn grow_check(t: &NewPartitionsRequest, n: i64, factor: usize) -> Result<(), ApiError> {
    let count = t.count as i64;
    if count == n {
        return Err(ApiError::new(InvalidPartitions, format!("Topic already has {n} partition(s).")));
    }
    if count < n {
        let why = format!("The topic {} currently has {n} partition(s); {count} would not be an increase.", t.topic);
        return Err(ApiError::new(InvalidPartitions, why));
    }
    if let Some(assignment) = &t.assignment {
        let additional = count - n;
        if assignment.len() as i64 != additional {
            let why = format!(
                "Attempted to add {additional} additional partition(s), but only {} assignment(s) were specified.",
                assignment.len()
            );
            return Err(ApiError::new(InvalidReplicaAssignment, why));
        }
        for replicas in assignment {
            validate_replicas(replicas, Some(factor))?;
        }
    }
    Ok(())
}
