//! `rdkafka::config`: [`ClientConfig`] and the settings a client reads from it.
//!
//! Every property is checked as librdkafka checks it: an unknown name or an invalid value is
//! refused with [`KafkaError::ClientConfig`](crate::error::KafkaError::ClientConfig) when the client is created, a contradictory
//! combination with [`KafkaError::ClientCreation`](crate::error::KafkaError::ClientCreation). The properties that change behaviour in
//! the simulation are the fields of its `Settings`; the other known ones are accepted and change
//! nothing (batching, compression, security).

mod properties;
mod settings;

pub(crate) use settings::Settings;

use crate::error::KafkaResult;
use std::collections::BTreeMap;

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
