//! Creating and deleting topics, and adding partitions: [`NewTopic`], [`NewPartitions`], and
//! their checks as rdkafka's `to_native` and librdkafka's `rd_kafka_NewTopic_new`,
//! `rd_kafka_NewPartitions_new` and `…_set_replica_assignment` make them.

use super::{nothing_to_do, request, AdminClient, AdminOptions};
use crate::client::ClientContext;
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use connsim::systems::{AdminRequest, AdminResponse, ApiError, NewPartitionsRequest, NewTopicRequest};
use std::future::Future;

/// The result of one topic's `CreateTopics`, `DeleteTopics` or `CreatePartitions`: its name,
/// or its name and the broker's error (`rdkafka::admin::TopicResult`).
pub type TopicResult = Result<String, (String, RDKafkaErrorCode)>;

/// The result of one group's `DeleteGroups` (`rdkafka::admin::GroupResult`).
pub type GroupResult = Result<String, (String, RDKafkaErrorCode)>;

/// Replicas per partition: the broker ids of partition `i`'s replicas at index `i`
/// (`rdkafka::admin::PartitionAssignment`).
pub type PartitionAssignment<'a> = &'a [&'a [i32]];

/// A new topic's replication (`rdkafka::admin::TopicReplication`).
#[derive(Debug)]
pub enum TopicReplication<'a> {
    /// Every partition with this many replicas (-1: the broker's default).
    Fixed(i32),
    /// Each partition's replicas.
    Variable(PartitionAssignment<'a>),
}

/// A topic to create (`rdkafka::admin::NewTopic`).
#[derive(Debug)]
pub struct NewTopic<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its partitions (-1: the broker's `num.partitions`).
    pub num_partitions: i32,
    /// Its replication.
    pub replication: TopicReplication<'a>,
    /// Its configs, as the broker checks and keeps them (`retention.ms`, `cleanup.policy`, …).
    pub config: Vec<(&'a str, &'a str)>,
}

/// librdkafka's `RD_KAFKAP_PARTITIONS_MAX` and `RD_KAFKAP_BROKERS_MAX`.
const PARTITIONS_MAX: i64 = 100_000;
const BROKERS_MAX: usize = 10_000;

fn refused(why: String) -> KafkaError {
    KafkaError::AdminOpCreation(why)
}

/// `rd_kafka_*_set_replica_assignment`: at most `RD_KAFKAP_BROKERS_MAX` replicas each.
fn check_replicas(assignment: PartitionAssignment<'_>) -> KafkaResult<Vec<Vec<i32>>> {
    match assignment.iter().any(|r| r.len() > BROKERS_MAX) {
        true => Err(refused(format!("Too many brokers specified (RD_KAFKAP_BROKERS_MAX={BROKERS_MAX})"))),
        false => Ok(assignment.iter().map(|r| r.to_vec()).collect()),
    }
}

impl<'a> NewTopic<'a> {
    /// A topic of `num_partitions` partitions.
    pub fn new(name: &'a str, num_partitions: i32, replication: TopicReplication<'a>) -> NewTopic<'a> {
        NewTopic { name, num_partitions, replication, config: Vec::new() }
    }

    /// Adds a config.
    pub fn set(mut self, key: &'a str, value: &'a str) -> NewTopic<'a> {
        self.config.push((key, value));
        self
    }

    /// The request for it, checked as rdkafka and librdkafka check it.
    fn to_request(&self) -> KafkaResult<NewTopicRequest> {
        let (replication_factor, assignment) = match self.replication {
            TopicReplication::Fixed(n) => (n, &[][..]),
            TopicReplication::Variable(partitions) if partitions.len() as i64 != self.num_partitions as i64 => {
                return Err(refused(format!(
                    "replication configuration for topic '{}' assigns {} partition(s), which does not match the \
                     specified number of partitions ({})",
                    self.name,
                    partitions.len(),
                    self.num_partitions
                )))
            }
            TopicReplication::Variable(partitions) => (-1, partitions),
        };
        if self.num_partitions < -1 || self.num_partitions as i64 > PARTITIONS_MAX {
            let why = format!("num_partitions out of expected range 1..{PARTITIONS_MAX} or -1 for broker default");
            return Err(refused(why));
        }
        if replication_factor < -1 || replication_factor as i64 > BROKERS_MAX as i64 {
            return Err(refused(format!("replication_factor out of expected range -1..{BROKERS_MAX}")));
        }
        let assignment = check_replicas(assignment)?;
        // With an assignment, both counts go as -1 (librdkafka's CreateTopics request).
        let (num_partitions, replication_factor) = match assignment.is_empty() {
            true => (self.num_partitions, replication_factor),
            false => (-1, -1),
        };
        let configs = self.config.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Ok(NewTopicRequest { name: self.name.to_string(), num_partitions, replication_factor, assignment, configs })
    }
}

/// Partitions to add to a topic (`rdkafka::admin::NewPartitions`).
pub struct NewPartitions<'a> {
    /// The topic.
    pub topic_name: &'a str,
    /// Its partition count after.
    pub new_partition_count: usize,
    /// The replicas of each new partition (only the new ones), if given.
    pub assignment: Option<PartitionAssignment<'a>>,
}

impl<'a> NewPartitions<'a> {
    /// Grows `topic_name` to `new_partition_count` partitions.
    pub fn new(topic_name: &'a str, new_partition_count: usize) -> NewPartitions<'a> {
        NewPartitions { topic_name, new_partition_count, assignment: None }
    }

    /// Sets the replicas of the new partitions: one list per partition added.
    pub fn assign(mut self, assignment: PartitionAssignment<'a>) -> NewPartitions<'a> {
        self.assignment = Some(assignment);
        self
    }

    /// The request for it, checked as rdkafka and librdkafka check it.
    fn to_request(&self) -> KafkaResult<NewPartitionsRequest> {
        let assignment = self.assignment.unwrap_or(&[]);
        if assignment.len() > self.new_partition_count {
            return Err(refused(format!(
                "partition assignment for topic '{}' assigns {} partition(s), which is more than the requested total \
                 number of partitions ({})",
                self.topic_name,
                assignment.len(),
                self.new_partition_count
            )));
        }
        if self.new_partition_count < 1 || self.new_partition_count as i64 > PARTITIONS_MAX {
            return Err(refused(format!("new_total_cnt out of expected range 1..{PARTITIONS_MAX}")));
        }
        let assignment = check_replicas(assignment)?;
        Ok(NewPartitionsRequest {
            topic: self.topic_name.to_string(),
            count: self.new_partition_count as i32,
            // An empty assignment is none (librdkafka sends a null array).
            assignment: (!assignment.is_empty()).then_some(assignment),
        })
    }
}

/// Per-topic answers as [`TopicResult`]s.
fn topic_results(resp: AdminResponse) -> KafkaResult<Vec<TopicResult>> {
    let AdminResponse::Topics(topics) = resp else { return Err(KafkaError::AdminOp(RDKafkaErrorCode::State)) };
    let result = |(name, error): (String, Option<ApiError>)| match error {
        None => Ok(name),
        Some(e) => Err((name, e.code.into())),
    };
    Ok(topics.into_iter().map(result).collect())
}

impl<C: ClientContext> AdminClient<C> {
    /// Creates topics, each on its own: some may be created while others are refused.
    pub fn create_topics<'a, I>(
        &self,
        topics: I,
        opts: &AdminOptions,
    ) -> impl Future<Output = KafkaResult<Vec<TopicResult>>>
    where
        I: IntoIterator<Item = &'a NewTopic<'a>>,
    {
        let topics: KafkaResult<Vec<NewTopicRequest>> = topics.into_iter().map(NewTopic::to_request).collect();
        let checked = topics.and_then(|t| Ok((t, opts.check()?)));
        let wire = self.wire.clone();
        async move {
            let (topics, opts) = checked?;
            if topics.is_empty() {
                return Err(nothing_to_do());
            }
            let req = AdminRequest::CreateTopics { topics, validate_only: opts.validate_only };
            topic_results(request(&wire, req, None, &opts).await?)
        }
    }

    /// Deletes topics, each on its own. `validate_only` does not apply (librdkafka does not
    /// send it with `DeleteTopics`).
    pub fn delete_topics(
        &self,
        topic_names: &[&str],
        opts: &AdminOptions,
    ) -> impl Future<Output = KafkaResult<Vec<TopicResult>>> {
        let topics: Vec<String> = topic_names.iter().map(|t| t.to_string()).collect();
        let checked = opts.check();
        let wire = self.wire.clone();
        async move {
            let opts = checked?;
            if topics.is_empty() {
                return Err(nothing_to_do());
            }
            topic_results(request(&wire, AdminRequest::DeleteTopics { topics }, None, &opts).await?)
        }
    }

    /// Adds partitions to topics, each on its own.
    pub fn create_partitions<'a, I>(
        &self,
        partitions: I,
        opts: &AdminOptions,
    ) -> impl Future<Output = KafkaResult<Vec<TopicResult>>>
    where
        I: IntoIterator<Item = &'a NewPartitions<'a>>,
    {
        let topics: KafkaResult<Vec<NewPartitionsRequest>> =
            partitions.into_iter().map(NewPartitions::to_request).collect();
        let checked = topics.and_then(|t| Ok((t, opts.check()?)));
        let wire = self.wire.clone();
        async move {
            let (topics, opts) = checked?;
            if topics.is_empty() {
                return Err(nothing_to_do());
            }
            let req = AdminRequest::CreatePartitions { topics, validate_only: opts.validate_only };
            topic_results(request(&wire, req, None, &opts).await?)
        }
    }
}
