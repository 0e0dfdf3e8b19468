//! What a simulated client reads from its configuration, checked as librdkafka checks it when
//! the client is created: each value when it is set (`properties`), then the combinations
//! `rd_kafka_new` refuses (`rd_kafka_conf_finalize`, the assignors' initialization).

use super::properties::{boolean, check, int};
use super::ClientConfig;
use crate::consumer::group::Assignor;
use crate::error::{KafkaError, KafkaResult, RDKafkaConfRes};
use std::time::Duration;

/// What the simulated client reads from a configuration.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// The log node (`bootstrap.servers`' first host, port ignored).
    pub broker: String,
    /// `client.id`.
    pub client_id: String,
    pub transactional_id: Option<String>,
    pub idempotence: bool,
    /// `acks`: 0, 1 or -1 (`all`).
    pub acks: i32,
    pub read_committed: bool,
    /// `auto.offset.reset`: `Some(true)` earliest, `Some(false)` latest, `None` error.
    pub reset_earliest: Option<bool>,
    pub auto_commit: bool,
    /// `enable.auto.offset.store`: a message's offset is stored for the next commit when it
    /// is returned; otherwise only what the application stores is.
    pub auto_offset_store: bool,
    /// `auto.commit.interval.ms`.
    pub auto_commit_interval: Duration,
    pub group_id: Option<String>,
    /// `group.instance.id`: a static member (KIP-345).
    pub group_instance_id: Option<String>,
    pub session_timeout: Duration,
    pub heartbeat_interval: Duration,
    /// `max.poll.interval.ms`: the application must poll at least this often, or the
    /// consumer leaves its group (and the rebalance timeout it joins with).
    pub max_poll_interval: Duration,
    /// `partition.assignment.strategy`, most preferred first.
    pub assignors: Vec<Assignor>,
    /// `topic.metadata.refresh.interval.ms` (`None`: -1, never).
    pub metadata_refresh_interval: Option<Duration>,
    /// `topic.metadata.propagation.max.ms`: how long a topic the broker does not know may be
    /// still propagating before a consumer reports it.
    pub topic_propagation: Duration,
    /// `enable.partition.eof`.
    pub partition_eof: bool,
    pub transaction_timeout_ms: u64,
    pub max_in_flight: u64,
    pub message_timeout: Duration,
    /// `batch.num.messages`: most messages in one produce request.
    pub batch_max: usize,
    /// `queue.buffering.max.messages`: most messages a producer holds undelivered.
    pub queue_max_messages: usize,
    /// `queue.buffering.max.kbytes`: most kilobytes of messages it holds undelivered.
    pub queue_max_kbytes: usize,
    /// `partitioner` (`None`: librdkafka's default, `consistent_random`).
    pub partitioner: Option<String>,
    /// `statistics.interval.ms` (0: none).
    pub statistics_interval: Duration,
    /// One request's timeout (`request.timeout.ms`; 50 ms unless set, the simulated network's
    /// latency being about 1 ms).
    pub request_timeout: Duration,
}

fn invalid(key: &str, value: &str, why: &str) -> KafkaError {
    KafkaError::ClientConfig(
        RDKafkaConfRes::RD_KAFKA_CONF_INVALID,
        format!("Invalid value \"{value}\" for configuration property \"{key}\": {why}"),
        key.to_string(),
        value.to_string(),
    )
}

fn creation(why: &str) -> KafkaError {
    KafkaError::ClientCreation(why.to_string())
}

fn ms(value: &str) -> Duration {
    Duration::from_millis(int(value).max(0) as u64)
}

impl Settings {
    /// Reads and checks `config` as librdkafka does when a client is created.
    pub(crate) fn read(config: &ClientConfig) -> KafkaResult<Settings> {
        let mut s = Settings {
            broker: String::new(),
            client_id: "rdkafka".into(),
            transactional_id: None,
            idempotence: false,
            acks: -1,
            read_committed: true,
            reset_earliest: Some(false),
            auto_commit: true,
            auto_offset_store: true,
            auto_commit_interval: Duration::from_millis(5_000),
            group_id: None,
            group_instance_id: None,
            session_timeout: Duration::from_millis(45_000),
            heartbeat_interval: Duration::from_millis(3_000),
            max_poll_interval: Duration::from_millis(300_000),
            assignors: vec![Assignor::Range, Assignor::RoundRobin],
            metadata_refresh_interval: Some(Duration::from_millis(300_000)),
            partition_eof: false,
            topic_propagation: Duration::from_millis(30_000),
            transaction_timeout_ms: 60_000,
            max_in_flight: 1_000_000,
            message_timeout: Duration::from_millis(300_000),
            request_timeout: Duration::from_millis(50),
            batch_max: 10_000,
            queue_max_messages: 100_000,
            queue_max_kbytes: 1_048_576,
            statistics_interval: Duration::ZERO,
            partitioner: None,
        };
        let mut idempotence_set = None;
        let mut acks_set = false;
        let mut in_flight_set = false;
        let mut message_timeout_set = false;
        for (key, value) in &config.conf_map {
            let (k, v) = (key.as_str(), value.as_str());
            check(k, v)?;
            match k {
                "bootstrap.servers" | "metadata.broker.list" => {
                    let first = v.split(',').next().unwrap_or("").trim();
                    s.broker = first.split(':').next().unwrap_or("").to_string();
                }
                "client.id" => s.client_id = v.to_string(),
                "transactional.id" => s.transactional_id = Some(v.to_string()),
                "enable.idempotence" => idempotence_set = Some(boolean(v)),
                "acks" | "request.required.acks" => {
                    acks_set = true;
                    s.acks = match v {
                        "all" | "-1" => -1,
                        "1" => 1,
                        "0" => 0,
                        _ => return Err(invalid(k, v, "expected all, -1, 0 or 1")),
                    }
                }
                "isolation.level" => s.read_committed = v.eq_ignore_ascii_case("read_committed"),
                "auto.offset.reset" => {
                    s.reset_earliest = match v.to_ascii_lowercase().as_str() {
                        "smallest" | "earliest" | "beginning" => Some(true),
                        "error" => None,
                        _ => Some(false),
                    }
                }
                "enable.auto.commit" => s.auto_commit = boolean(v),
                "enable.auto.offset.store" => s.auto_offset_store = boolean(v),
                "auto.commit.interval.ms" => s.auto_commit_interval = ms(v),
                "group.id" => s.group_id = Some(v.to_string()),
                "group.instance.id" => s.group_instance_id = Some(v.to_string()).filter(|i| !i.is_empty()),
                "session.timeout.ms" => s.session_timeout = ms(v),
                "heartbeat.interval.ms" => s.heartbeat_interval = ms(v),
                "max.poll.interval.ms" => s.max_poll_interval = ms(v),
                "partition.assignment.strategy" => s.assignors = assignors(v)?,
                "topic.metadata.refresh.interval.ms" => {
                    s.metadata_refresh_interval = (int(v) >= 0).then(|| ms(v));
                }
                "enable.partition.eof" => s.partition_eof = boolean(v),
                "topic.metadata.propagation.max.ms" => s.topic_propagation = ms(v),
                "transaction.timeout.ms" => s.transaction_timeout_ms = int(v) as u64,
                "max.in.flight.requests.per.connection" | "max.in.flight" => {
                    in_flight_set = true;
                    s.max_in_flight = int(v) as u64;
                }
                "message.timeout.ms" | "delivery.timeout.ms" => {
                    message_timeout_set = true;
                    s.message_timeout = ms(v);
                }
                "batch.num.messages" => s.batch_max = int(v) as usize,
                "queue.buffering.max.messages" => s.queue_max_messages = int(v) as usize,
                "queue.buffering.max.kbytes" => s.queue_max_kbytes = int(v) as usize,
                "statistics.interval.ms" => s.statistics_interval = ms(v),
                "partitioner" => s.partitioner = Some(v.to_string()),
                "request.timeout.ms" => s.request_timeout = ms(v),
                _ => {}
            }
        }
        if s.broker.is_empty() {
            return Err(creation(
                "bootstrap.servers is not set: set it to the name of the simulated log's node \
                 (the name the log was added to the world with)",
            ));
        }
        // A transactional producer is idempotent; saying otherwise is a contradiction.
        s.idempotence = match (idempotence_set, &s.transactional_id) {
            (Some(false), Some(_)) => {
                return Err(creation(
                    "`transactional.id` requires `enable.idempotence=true`: a transactional producer \
                     is idempotent; remove enable.idempotence=false",
                ))
            }
            (set, txn) => set.unwrap_or(false) || txn.is_some(),
        };
        if s.idempotence && acks_set && s.acks != -1 {
            return Err(creation("`acks` must be set to `all` when `enable.idempotence` is true"));
        }
        // librdkafka: a transactional producer's messages time out with its transaction's
        // timeout unless set, and a setting above it is refused.
        let txn_timeout = Duration::from_millis(s.transaction_timeout_ms);
        if s.transactional_id.is_some() {
            if !message_timeout_set {
                s.message_timeout = txn_timeout;
            } else if s.message_timeout > txn_timeout {
                return Err(creation(
                    "`message.timeout.ms` must be set <= `transaction.timeout.ms`: a message must \
                     fail before its transaction times out",
                ));
            }
        }
        if s.idempotence && !in_flight_set {
            s.max_in_flight = 5; // librdkafka lowers its default for an idempotent producer
        }
        if s.idempotence && s.max_in_flight > 5 {
            return Err(creation(
                "`max.in.flight` must be set <= 5 when `enable.idempotence` is true: the broker \
                 recognises retries of the last five batches only",
            ));
        }
        Ok(s)
    }

    /// The checks `rd_kafka_new` makes of a consumer's configuration only.
    pub(crate) fn for_consumer(self) -> KafkaResult<Settings> {
        if self.max_poll_interval < self.session_timeout {
            return Err(creation("`max.poll.interval.ms`must be >= `session.timeout.ms`"));
        }
        Ok(self)
    }

    /// Whether the consumer's assignors follow the cooperative protocol (they all do or
    /// none does).
    pub(crate) fn cooperative(&self) -> bool {
        self.assignors.iter().all(|a| a.cooperative())
    }
}

/// `partition.assignment.strategy`, as librdkafka's assignors' initialization reads it.
fn assignors(value: &str) -> KafkaResult<Vec<Assignor>> {
    let mut out = Vec::new();
    for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match Assignor::named(name) {
            Some(a) if !out.contains(&a) => out.push(a),
            Some(_) => {}
            None => return Err(creation(&format!("Unsupported partition.assignment.strategy: {name}"))),
        }
    }
    if out.is_empty() {
        return Err(creation("Unsupported partition.assignment.strategy: "));
    }
    if out.iter().any(|a| a.cooperative()) != out.iter().all(|a| a.cooperative()) {
        return Err(creation(&format!(
            "All partition.assignment.strategy ({value}) assignors must have the same protocol type, \
             online migration between assignors with different protocol types is not supported"
        )));
    }
    Ok(out)
}
