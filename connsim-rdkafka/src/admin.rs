//! `rdkafka::admin`: creating topics and partitions.

use crate::client_context::DefaultClientContext;
use crate::config::{ClientConfig, FromClientConfig, Settings};
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use crate::util::Timeout;
use crate::wire::{deadline, Wire};
use connsim::systems::{KafkaRequest, KafkaResponse};
use std::marker::PhantomData;
use std::time::Duration;

/// An admin client (`rdkafka::admin::AdminClient`).
pub struct AdminClient<C = DefaultClientContext> {
    wire: Wire,
    context: PhantomData<fn() -> C>,
}

impl FromClientConfig for AdminClient<DefaultClientContext> {
    fn from_config(config: &ClientConfig) -> KafkaResult<Self> {
        Ok(AdminClient { wire: Wire::new(&Settings::read(config)?)?, context: PhantomData })
    }
}

/// Replication of a new topic (`rdkafka::admin::TopicReplication`); the simulated log
/// replicates every topic alike.
#[derive(Debug)]
pub enum TopicReplication<'a> {
    /// The same factor for every partition.
    Fixed(i32),
    /// Replicas per partition.
    Variable(&'a [&'a [i32]]),
}

/// A topic to create (`rdkafka::admin::NewTopic`).
#[derive(Debug)]
pub struct NewTopic<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its partitions.
    pub num_partitions: i32,
    /// Its replication.
    pub replication: TopicReplication<'a>,
    /// Topic settings (accepted, without effect).
    pub config: Vec<(&'a str, &'a str)>,
}

impl<'a> NewTopic<'a> {
    /// A topic of `num_partitions` partitions.
    pub fn new(name: &'a str, num_partitions: i32, replication: TopicReplication<'a>) -> NewTopic<'a> {
        NewTopic { name, num_partitions, replication, config: Vec::new() }
    }
    /// Adds a topic setting.
    pub fn set(mut self, key: &'a str, value: &'a str) -> NewTopic<'a> {
        self.config.push((key, value));
        self
    }
}

/// Partitions to add (`rdkafka::admin::NewPartitions`).
#[derive(Debug)]
pub struct NewPartitions<'a> {
    /// The topic.
    pub topic_name: &'a str,
    /// Its partition count after.
    pub new_partition_count: usize,
}

impl<'a> NewPartitions<'a> {
    /// Grows `topic_name` to `new_partition_count` partitions.
    pub fn new(topic_name: &'a str, new_partition_count: usize) -> NewPartitions<'a> {
        NewPartitions { topic_name, new_partition_count }
    }
}

/// Options of an admin call (`rdkafka::admin::AdminOptions`).
#[derive(Debug, Default, Clone)]
pub struct AdminOptions {
    request_timeout: Option<Duration>,
}

impl AdminOptions {
    /// Default options.
    pub fn new() -> AdminOptions {
        AdminOptions::default()
    }
    /// How long the call may take.
    pub fn request_timeout<T: Into<Timeout>>(mut self, timeout: Option<T>) -> Self {
        self.request_timeout = timeout.and_then(|t| t.into().duration());
        self
    }
}

/// One topic's result: its name, or its name and the error.
pub type TopicResult = Result<String, (String, RDKafkaErrorCode)>;

impl<C> AdminClient<C> {
    async fn each(&self, requests: Vec<(String, KafkaRequest)>, opts: &AdminOptions) -> KafkaResult<Vec<TopicResult>> {
        let until = deadline(opts.request_timeout.map_or(Timeout::After(Duration::from_secs(60)), Timeout::After));
        let mut out = Vec::new();
        for (name, req) in requests {
            out.push(match self.wire.call_until(&req, until).await {
                Some(KafkaResponse::Ok) => Ok(name),
                Some(KafkaResponse::Error(code)) => Err((name, code.into())),
                Some(_) => Err((name, RDKafkaErrorCode::State)),
                None => return Err(KafkaError::AdminOp(RDKafkaErrorCode::OperationTimedOut)),
            });
        }
        Ok(out)
    }

    /// Creates topics.
    pub async fn create_topics<'a, I>(&self, topics: I, opts: &AdminOptions) -> KafkaResult<Vec<TopicResult>>
    where
        I: IntoIterator<Item = &'a NewTopic<'a>>,
    {
        let mut requests = Vec::new();
        for t in topics {
            if t.num_partitions < 1 {
                return Err(KafkaError::AdminOpCreation(format!(
                    "topic {}: num_partitions must be at least 1, got {}",
                    t.name, t.num_partitions
                )));
            }
            let req = KafkaRequest::CreateTopics { topic: t.name.to_string(), partitions: t.num_partitions as u32 };
            requests.push((t.name.to_string(), req));
        }
        self.each(requests, opts).await
    }

    /// Adds partitions to topics.
    pub async fn create_partitions<'a, I>(&self, partitions: I, opts: &AdminOptions) -> KafkaResult<Vec<TopicResult>>
    where
        I: IntoIterator<Item = &'a NewPartitions<'a>>,
    {
        let requests = partitions
            .into_iter()
            .map(|p| {
                let req = KafkaRequest::CreatePartitions {
                    topic: p.topic_name.to_string(),
                    total: p.new_partition_count as u32,
                };
                (p.topic_name.to_string(), req)
            })
            .collect();
        self.each(requests, opts).await
    }
}
