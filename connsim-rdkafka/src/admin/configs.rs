//! Describing and altering configs: [`ResourceSpecifier`], [`ConfigResource`],
//! [`AlterConfig`] and their results, as rdkafka 0.39 has them.
//!
//! As in rdkafka 0.39, a resource the broker refused is not an error of its result:
//! `describe_configs` answers it `Ok` with no entries and `alter_configs` `Ok` (rdkafka reads
//! no per-resource error of either answer; the broker changed nothing). A resource with an
//! empty name is refused with `AdminOpCreation` (rdkafka 0.39 panics on it).

use super::{nothing_to_do, request, AdminClient, AdminOptions};
use crate::client::ClientContext;
use crate::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use connsim::systems::{AdminRequest, AdminResponse, ConfigOrigin, ConfigResourceKey, DescribedConfig};
use std::collections::{BTreeMap, HashMap};
use std::future::Future;

/// The result of one resource's `DescribeConfigs` (`rdkafka::admin::ConfigResourceResult`).
pub type ConfigResourceResult = Result<ConfigResource, RDKafkaErrorCode>;

/// The result of one resource's `AlterConfigs` (`rdkafka::admin::AlterConfigsResult`).
pub type AlterConfigsResult = Result<OwnedResourceSpecifier, (OwnedResourceSpecifier, RDKafkaErrorCode)>;

/// A resource that has configs (`rdkafka::admin::ResourceSpecifier`).
#[derive(Copy, Clone, Debug, Eq, PartialEq)]
pub enum ResourceSpecifier<'a> {
    /// A topic, by name.
    Topic(&'a str),
    /// A consumer group, by id.
    Group(&'a str),
    /// A broker, by id.
    Broker(i32),
}

/// A [`ResourceSpecifier`] that owns its name (`rdkafka::admin::OwnedResourceSpecifier`).
#[derive(Debug, Eq, PartialEq)]
pub enum OwnedResourceSpecifier {
    /// A topic, by name.
    Topic(String),
    /// A consumer group, by id.
    Group(String),
    /// A broker, by id.
    Broker(i32),
}

/// Where a config's value comes from (`rdkafka::admin::ConfigSource`).
#[derive(Debug, Eq, PartialEq)]
pub enum ConfigSource {
    /// Unknown.
    Unknown,
    /// Set on the topic.
    DynamicTopic,
    /// Set dynamically on the broker.
    DynamicBroker,
    /// Set dynamically as every broker's default.
    DynamicDefaultBroker,
    /// The broker's static configuration.
    StaticBroker,
    /// Kafka's default.
    Default,
}

/// One config of a resource (`rdkafka::admin::ConfigEntry`).
#[derive(Debug, Eq, PartialEq)]
pub struct ConfigEntry {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: Option<String>,
    /// Where the value comes from.
    pub source: ConfigSource,
    /// It cannot be altered.
    pub is_read_only: bool,
    /// It has its default value.
    pub is_default: bool,
    /// It holds a secret.
    pub is_sensitive: bool,
}

/// A resource and its configs (`rdkafka::admin::ConfigResource`).
#[derive(Debug)]
pub struct ConfigResource {
    /// The resource.
    pub specifier: OwnedResourceSpecifier,
    /// Its configs.
    pub entries: Vec<ConfigEntry>,
}

impl ConfigResource {
    /// The configs by name.
    pub fn entry_map(&self) -> HashMap<&str, &ConfigEntry> {
        self.entries.iter().map(|e| (e.name.as_str(), e)).collect()
    }

    /// The config named `name`, if the resource has it.
    pub fn get(&self, name: &str) -> Option<&ConfigEntry> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// Configs to set on a resource, replacing all it had (`rdkafka::admin::AlterConfig`).
pub struct AlterConfig<'a> {
    /// The resource.
    pub specifier: ResourceSpecifier<'a>,
    /// Its configs, by name.
    pub entries: HashMap<&'a str, &'a str>,
}

impl<'a> AlterConfig<'a> {
    /// No configs yet for `specifier`.
    pub fn new(specifier: ResourceSpecifier<'_>) -> AlterConfig<'_> {
        AlterConfig { specifier, entries: HashMap::new() }
    }

    /// Sets config `key` to `value`.
    pub fn set(mut self, key: &'a str, value: &'a str) -> AlterConfig<'a> {
        self.entries.insert(key, value);
        self
    }
}

/// The resource's key on the wire; an empty name is refused (`rd_kafka_ConfigResource_new`
/// returns none for it).
fn key(specifier: &ResourceSpecifier<'_>) -> KafkaResult<ConfigResourceKey> {
    let empty = || KafkaError::AdminOpCreation("config resource name must not be empty".into());
    match *specifier {
        ResourceSpecifier::Topic("") | ResourceSpecifier::Group("") => Err(empty()),
        ResourceSpecifier::Topic(name) => Ok(ConfigResourceKey::Topic(name.to_string())),
        ResourceSpecifier::Group(name) => Ok(ConfigResourceKey::Group(name.to_string())),
        ResourceSpecifier::Broker(id) => Ok(ConfigResourceKey::Broker(id)),
    }
}

fn owned(key: ConfigResourceKey) -> OwnedResourceSpecifier {
    match key {
        ConfigResourceKey::Topic(name) => OwnedResourceSpecifier::Topic(name),
        ConfigResourceKey::Group(name) => OwnedResourceSpecifier::Group(name),
        ConfigResourceKey::Broker(id) => OwnedResourceSpecifier::Broker(id),
    }
}

/// `rd_kafka_ConfigResource_get_single_broker_id`: the broker a request with a broker
/// resource goes to; two broker resources are `Conflict`, a negative id `InvalidArgument`.
fn single_broker<'a>(keys: impl Iterator<Item = &'a ConfigResourceKey>) -> KafkaResult<Option<i32>> {
    let mut broker = None;
    for key in keys {
        let ConfigResourceKey::Broker(id) = key else { continue };
        if broker.is_some() {
            return Err(KafkaError::AdminOp(RDKafkaErrorCode::Conflict));
        }
        if *id < 0 {
            return Err(KafkaError::AdminOp(RDKafkaErrorCode::InvalidArgument));
        }
        broker = Some(*id);
    }
    Ok(broker)
}

fn entry(c: DescribedConfig) -> ConfigEntry {
    let source = match c.origin {
        ConfigOrigin::DynamicTopic => ConfigSource::DynamicTopic,
        ConfigOrigin::StaticBroker => ConfigSource::StaticBroker,
        ConfigOrigin::Default => ConfigSource::Default,
    };
    let (is_read_only, is_default, is_sensitive) = (c.read_only, c.is_default, c.sensitive);
    ConfigEntry { name: c.name, value: c.value, source, is_read_only, is_default, is_sensitive }
}

impl<C: ClientContext> AdminClient<C> {
    /// Every config of each resource. A resource the broker refused (a topic that does not
    /// exist) comes back `Ok` with no entries, as rdkafka 0.39 reads the answer.
    pub fn describe_configs<'a, I>(
        &self,
        configs: I,
        opts: &AdminOptions,
    ) -> impl Future<Output = KafkaResult<Vec<ConfigResourceResult>>>
    where
        I: IntoIterator<Item = &'a ResourceSpecifier<'a>>,
    {
        let keys: KafkaResult<Vec<ConfigResourceKey>> = configs.into_iter().map(key).collect();
        let checked = keys.and_then(|k| Ok((k, opts.check()?)));
        let wire = self.wire.clone();
        async move {
            let (resources, opts) = checked?;
            let broker = single_broker(resources.iter())?;
            if resources.is_empty() {
                return Err(nothing_to_do());
            }
            let AdminResponse::Configs(found) =
                request(&wire, AdminRequest::DescribeConfigs { resources }, broker, &opts).await?
            else {
                return Err(KafkaError::AdminOp(RDKafkaErrorCode::State));
            };
            let resource = |(key, configs): (_, Result<Vec<DescribedConfig>, _>)| {
                let entries = configs.map(|c| c.into_iter().map(entry).collect()).unwrap_or_default();
                Ok(ConfigResource { specifier: owned(key), entries })
            };
            Ok(found.into_iter().map(resource).collect())
        }
    }

    /// Sets each resource's configs to those given, the ones not given returning to their
    /// defaults (Kafka's `AlterConfigs`). As rdkafka 0.39 reads the answer, every resource
    /// comes back `Ok`, a refused one too (its configs unchanged: an unknown name or a bad
    /// value is the broker's `INVALID_CONFIG`).
    pub fn alter_configs<'a, I>(
        &self,
        configs: I,
        opts: &AdminOptions,
    ) -> impl Future<Output = KafkaResult<Vec<AlterConfigsResult>>>
    where
        I: IntoIterator<Item = &'a AlterConfig<'a>>,
    {
        let resources: KafkaResult<Vec<_>> = configs
            .into_iter()
            .map(|c| {
                let key = key(&c.specifier)?;
                // `rd_kafka_ConfigResource_set_config` refuses an empty name.
                if c.entries.keys().any(|k| k.is_empty()) {
                    return Err(KafkaError::AdminOpCreation("invalid argument".into()));
                }
                // In name order, whatever the map's: the request is the same every run.
                let sorted: BTreeMap<&str, &str> = c.entries.iter().map(|(k, v)| (*k, *v)).collect();
                Ok((key, sorted.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()))
            })
            .collect();
        let checked = resources.and_then(|r| Ok((r, opts.check()?)));
        let wire = self.wire.clone();
        async move {
            let (resources, opts) = checked?;
            let broker = single_broker(resources.iter().map(|(k, _)| k))?;
            if resources.is_empty() {
                return Err(nothing_to_do());
            }
            let req = AdminRequest::AlterConfigs { resources, validate_only: opts.validate_only };
            let AdminResponse::Altered(altered) = request(&wire, req, broker, &opts).await? else {
                return Err(KafkaError::AdminOp(RDKafkaErrorCode::State));
            };
            Ok(altered.into_iter().map(|(key, _refused)| Ok(owned(key))).collect())
        }
    }
}
