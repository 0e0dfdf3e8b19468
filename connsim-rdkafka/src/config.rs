//! `rdkafka::config`: [`ClientConfig`] and the settings a client reads from it.
//!
//! Every property is checked as librdkafka checks it: an unknown name or an invalid value is
//! refused with [`KafkaError::ClientConfig`] when the client is created, a contradictory
//! combination with [`KafkaError::ClientCreation`]. The properties that change behaviour in
//! the simulation are the fields of its `Settings`; the other known ones are accepted and change
//! nothing (batching, compression, security).

use crate::error::{KafkaError, KafkaResult, RDKafkaConfRes};
use std::collections::BTreeMap;
use std::time::Duration;

/// A client's configuration (`rdkafka::config::ClientConfig`).
#[derive(Clone, Debug, Default)]
pub struct ClientConfig {
    conf_map: BTreeMap<String, String>,
    /// The level of the log lines librdkafka hands the context.
    pub log_level: RDKafkaLogLevel,
}

/// A client type built from a configuration (`rdkafka::config::FromClientConfig`).
pub trait FromClientConfig: Sized {
    /// Creates the client.
    fn from_config(config: &ClientConfig) -> KafkaResult<Self>;
}

/// A client created from a configuration and a context
/// (`rdkafka::config::FromClientConfigAndContext`).
pub trait FromClientConfigAndContext<C>: Sized {
    /// Creates the client with `context`.
    fn from_config_and_context(config: &ClientConfig, context: C) -> KafkaResult<Self>;
}

/// librdkafka's log levels (`rdkafka::config::RDKafkaLogLevel`).
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum RDKafkaLogLevel {
    Emerg = 0,
    Alert = 1,
    Critical = 2,
    Error = 3,
    Warning = 4,
    Notice = 5,
    #[default]
    Info = 6,
    Debug = 7,
}

impl ClientConfig {
    /// An empty configuration.
    pub fn new() -> ClientConfig {
        ClientConfig::default()
    }
    /// The properties set, by name.
    pub fn config_map(&self) -> BTreeMap<&str, &str> {
        self.conf_map.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
    }
    /// A property's value, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.conf_map.get(key).map(String::as_str)
    }
    /// Sets a property (checked when the client is created).
    pub fn set<K: Into<String>, V: Into<String>>(&mut self, key: K, value: V) -> &mut ClientConfig {
        self.conf_map.insert(key.into(), value.into());
        self
    }
    /// Removes a property.
    pub fn remove<'a>(&'a mut self, key: &str) -> &'a mut ClientConfig {
        self.conf_map.remove(key);
        self
    }
    /// Creates a client of type `T`.
    pub fn create<T: FromClientConfig>(&self) -> KafkaResult<T> {
        T::from_config(self)
    }
    /// Creates a client of type `T` with a context: its callbacks (a producer's delivery
    /// reports) are the context's.
    pub fn create_with_context<C, T: FromClientConfigAndContext<C>>(&self, context: C) -> KafkaResult<T> {
        T::from_config_and_context(self, context)
    }
    /// Sets the level of the log lines librdkafka hands the context (connsim's clients write
    /// none).
    pub fn set_log_level(&mut self, log_level: RDKafkaLogLevel) -> &mut ClientConfig {
        self.log_level = log_level;
        self
    }
}

impl FromIterator<(String, String)> for ClientConfig {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> ClientConfig {
        ClientConfig { conf_map: iter.into_iter().collect(), log_level: RDKafkaLogLevel::default() }
    }
}

impl Extend<(String, String)> for ClientConfig {
    fn extend<I: IntoIterator<Item = (String, String)>>(&mut self, iter: I) {
        self.conf_map.extend(iter)
    }
}

/// librdkafka properties accepted without effect in the simulation.
const ACCEPTED: &[&str] = &[
    "client.id",
    "group.instance.id",
    "delivery.timeout.ms",
    "socket.timeout.ms",
    "session.timeout.ms",
    "heartbeat.interval.ms",
    "max.poll.interval.ms",
    "linger.ms",
    "queue.buffering.max.ms",
    "queue.buffering.max.messages",
    "queue.buffering.max.kbytes",
    "batch.num.messages",
    "batch.size",
    "compression.type",
    "compression.codec",
    "retries",
    "message.send.max.retries",
    "retry.backoff.ms",
    "fetch.min.bytes",
    "fetch.max.bytes",
    "fetch.wait.max.ms",
    "max.partition.fetch.bytes",
    "queued.min.messages",
    "queued.max.messages.kbytes",
    "security.protocol",
    "sasl.mechanism",
    "sasl.mechanisms",
    "sasl.username",
    "sasl.password",
    "ssl.ca.location",
    "ssl.certificate.location",
    "ssl.key.location",
    "statistics.interval.ms",
    "debug",
    "log_level",
    "partition.assignment.strategy",
    "topic.metadata.refresh.interval.ms",
    "api.version.request",
    "broker.address.family",
    "message.max.bytes",
    "receive.message.max.bytes",
    "client.rack",
    "enable.gapless.guarantee",
    "partitioner",
    "enable.partition.eof",
    "allow.auto.create.topics",
];

/// What the simulated client reads from a configuration.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// The log node (`bootstrap.servers`' first host, port ignored).
    pub broker: String,
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
    pub transaction_timeout_ms: u64,
    pub max_in_flight: u64,
    pub message_timeout: Duration,
    /// `batch.num.messages`: most messages in one produce request.
    pub batch_max: usize,
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

fn boolean(key: &str, value: &str) -> KafkaResult<bool> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(invalid(key, value, "expected true or false")),
    }
}

fn number(key: &str, value: &str) -> KafkaResult<u64> {
    value.parse().map_err(|_| invalid(key, value, "expected a non-negative integer"))
}

impl Settings {
    /// Reads and checks `config` as librdkafka does when a client is created.
    pub(crate) fn read(config: &ClientConfig) -> KafkaResult<Settings> {
        let mut s = Settings {
            broker: String::new(),
            transactional_id: None,
            idempotence: false,
            acks: -1,
            read_committed: true,
            reset_earliest: Some(false),
            auto_commit: true,
            auto_offset_store: true,
            auto_commit_interval: Duration::from_millis(5_000),
            group_id: None,
            transaction_timeout_ms: 60_000,
            max_in_flight: 1_000_000,
            message_timeout: Duration::from_millis(300_000),
            request_timeout: Duration::from_millis(50),
            batch_max: 10_000,
        };
        let mut idempotence_set = None;
        let mut acks_set = false;
        let mut in_flight_set = false;
        let mut message_timeout_set = false;
        for (key, value) in &config.conf_map {
            let (k, v) = (key.as_str(), value.as_str());
            match k {
                "bootstrap.servers" | "metadata.broker.list" => {
                    let first = v.split(',').next().unwrap_or("").trim();
                    s.broker = first.split(':').next().unwrap_or("").to_string();
                }
                "transactional.id" => s.transactional_id = Some(v.to_string()),
                "enable.idempotence" => idempotence_set = Some(boolean(k, v)?),
                "acks" | "request.required.acks" => {
                    acks_set = true;
                    s.acks = match v {
                        "all" | "-1" => -1,
                        "1" => 1,
                        "0" => 0,
                        _ => return Err(invalid(k, v, "expected all, -1, 0 or 1")),
                    }
                }
                "isolation.level" => {
                    s.read_committed = match v {
                        "read_committed" => true,
                        "read_uncommitted" => false,
                        _ => return Err(invalid(k, v, "expected read_committed or read_uncommitted")),
                    }
                }
                "auto.offset.reset" => {
                    s.reset_earliest = match v {
                        "smallest" | "earliest" | "beginning" => Some(true),
                        "largest" | "latest" | "end" => Some(false),
                        "error" => None,
                        _ => {
                            return Err(invalid(
                                k,
                                v,
                                "expected smallest, earliest, beginning, largest, latest, end or error \
                                 (librdkafka's name for Java's none)",
                            ))
                        }
                    }
                }
                "enable.auto.commit" => s.auto_commit = boolean(k, v)?,
                "enable.auto.offset.store" => s.auto_offset_store = boolean(k, v)?,
                "auto.commit.interval.ms" => s.auto_commit_interval = Duration::from_millis(number(k, v)?),
                "group.id" => s.group_id = Some(v.to_string()),
                "transaction.timeout.ms" => s.transaction_timeout_ms = number(k, v)?,
                "max.in.flight.requests.per.connection" | "max.in.flight" => {
                    in_flight_set = true;
                    s.max_in_flight = number(k, v)?
                }
                "message.timeout.ms" => {
                    message_timeout_set = true;
                    s.message_timeout = Duration::from_millis(number(k, v)?)
                }
                "batch.num.messages" => s.batch_max = number(k, v)?.max(1) as usize,
                "request.timeout.ms" => s.request_timeout = Duration::from_millis(number(k, v)?.max(1)),
                _ if ACCEPTED.contains(&k) => {}
                _ => {
                    return Err(KafkaError::ClientConfig(
                        RDKafkaConfRes::RD_KAFKA_CONF_UNKNOWN,
                        format!("No such configuration property: \"{k}\""),
                        k.to_string(),
                        v.to_string(),
                    ))
                }
            }
        }
        if s.broker.is_empty() {
            return Err(KafkaError::ClientCreation(
                "bootstrap.servers is not set: set it to the name of the simulated log's node \
                 (the name the log was added to the world with)"
                    .into(),
            ));
        }
        // A transactional producer is idempotent; saying otherwise is a contradiction.
        s.idempotence = match (idempotence_set, &s.transactional_id) {
            (Some(false), Some(_)) => {
                return Err(KafkaError::ClientCreation(
                    "`transactional.id` requires `enable.idempotence=true`: a transactional producer \
                     is idempotent; remove enable.idempotence=false"
                        .into(),
                ))
            }
            (set, txn) => set.unwrap_or(false) || txn.is_some(),
        };
        if s.idempotence && acks_set && s.acks != -1 {
            return Err(KafkaError::ClientCreation(
                "`acks` must be set to `all` when `enable.idempotence` is true".into(),
            ));
        }
        // librdkafka: a transactional producer's messages time out with its transaction's
        // timeout unless set, and a setting above it is refused.
        let txn_timeout = Duration::from_millis(s.transaction_timeout_ms);
        if s.transactional_id.is_some() {
            if !message_timeout_set {
                s.message_timeout = txn_timeout;
            } else if s.message_timeout > txn_timeout {
                return Err(KafkaError::ClientCreation(
                    "`message.timeout.ms` must be set <= `transaction.timeout.ms`: a message must \
                     fail before its transaction times out"
                        .into(),
                ));
            }
        }
        if s.idempotence && !in_flight_set {
            s.max_in_flight = 5; // librdkafka lowers its default for an idempotent producer
        }
        if s.idempotence && s.max_in_flight > 5 {
            return Err(KafkaError::ClientCreation(
                "`max.in.flight` must be set <= 5 when `enable.idempotence` is true: the broker \
                 recognises retries of the last five batches only"
                    .into(),
            ));
        }
        Ok(s)
    }
}
