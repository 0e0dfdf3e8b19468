//! `DescribeConfigs` and `AlterConfigs` (KIP-133): a topic's dynamic configs, the broker's
//! static ones, and what rdkafka 0.39 reports of the broker's refusals (nothing).

use super::{admin, create, opts, raw};
use crate::common::{sim, T};
use connsim::systems::{
    AdminRequest, AdminResponse, ConfigResourceKey, ExternalSystem, KafkaCode, Setting, SettingEnv, TxnProtocol,
};
use rdkafka::admin::{
    AlterConfig, ConfigEntry, ConfigResource, ConfigSource, OwnedResourceSpecifier, ResourceSpecifier,
};
use rdkafka::error::{KafkaError, RDKafkaErrorCode::*};

async fn describe(specifier: ResourceSpecifier<'_>) -> ConfigResource {
    let mut found = admin().describe_configs([&specifier], &opts()).await.unwrap();
    found.remove(0).unwrap()
}

fn value<'a>(r: &'a ConfigResource, name: &str) -> (Option<&'a str>, &'a ConfigSource) {
    let e: &ConfigEntry = r.get(name).unwrap_or_else(|| panic!("{name} in {r:?}"));
    (e.value.as_deref(), &e.source)
}

#[test]
fn kip133_describe_configs_lists_every_topic_config_with_its_source() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        create("c", 1, &[("segment.ms", "1000")]).await;
        let c = describe(ResourceSpecifier::Topic("c")).await;
        assert_eq!(c.specifier, OwnedResourceSpecifier::Topic("c".into()));
        assert_eq!(c.entries.len(), 33, "Kafka 4's topic configs");
        assert_eq!(value(&c, "segment.ms"), (Some("1000"), &ConfigSource::DynamicTopic));
        assert_eq!(value(&c, "cleanup.policy"), (Some("delete"), &ConfigSource::Default));
        let cleanup = c.entry_map()["cleanup.policy"];
        assert!(cleanup.is_default && !cleanup.is_read_only && !cleanup.is_sensitive);
        assert!(!c.get("segment.ms").unwrap().is_default);
        // retention.ms is the broker's: the log keeps everything unless its retention is set.
        assert_eq!(value(&c, "retention.ms"), (Some("-1"), &ConfigSource::StaticBroker));
    });
}

#[test]
fn kafka_a_topics_retention_ms_is_the_brokers_retention_unless_set_on_the_topic() {
    sim(TxnProtocol::Classic, |log, history, _client| async move {
        log.configure(&Setting::RetentionMs(Some(10)), &SettingEnv { seed: 0, history }).unwrap();
        create("own", 1, &[("retention.ms", "99")]).await;
        let t = describe(ResourceSpecifier::Topic("t")).await;
        assert_eq!(value(&t, "retention.ms"), (Some("10"), &ConfigSource::StaticBroker));
        let own = describe(ResourceSpecifier::Topic("own")).await;
        assert_eq!(value(&own, "retention.ms"), (Some("99"), &ConfigSource::DynamicTopic));
    });
}

#[test]
fn kip133_alter_configs_replaces_the_whole_set_of_a_topics_dynamic_configs() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        create("c", 1, &[("segment.ms", "1000"), ("cleanup.policy", "compact")]).await;
        let alter = AlterConfig::new(ResourceSpecifier::Topic("c")).set("max.message.bytes", "2048");
        let results = admin().alter_configs([&alter], &opts()).await.unwrap();
        assert_eq!(results, [Ok(OwnedResourceSpecifier::Topic("c".into()))]);
        let c = describe(ResourceSpecifier::Topic("c")).await;
        assert_eq!(value(&c, "max.message.bytes"), (Some("2048"), &ConfigSource::DynamicTopic));
        assert_eq!(value(&c, "segment.ms"), (Some("604800000"), &ConfigSource::Default), "not named: back to default");
        assert_eq!(value(&c, "cleanup.policy"), (Some("delete"), &ConfigSource::Default));
    });
}

#[test]
fn kafka_alter_configs_refuses_an_unknown_config_with_invalid_config_which_rdkafka_0_39_reports_ok() {
    sim(TxnProtocol::Classic, |_log, _h, client| async move {
        create("c", 1, &[("segment.ms", "1000")]).await;
        let unknown = AlterConfig::new(ResourceSpecifier::Topic("c")).set("no.such.config", "1");
        let bad = AlterConfig::new(ResourceSpecifier::Topic("t")).set("retention.ms", "-7");
        // rdkafka 0.39 reads no per-resource error of an AlterConfigs answer.
        let results = admin().alter_configs([&unknown, &bad], &opts()).await.unwrap();
        let ok = [OwnedResourceSpecifier::Topic("c".into()), OwnedResourceSpecifier::Topic("t".into())];
        assert_eq!(results, ok.map(Ok));
        assert_eq!(value(&describe(ResourceSpecifier::Topic("c")).await, "segment.ms").0, Some("1000"), "unchanged");
        // The broker refused both.
        let resources = vec![
            (ConfigResourceKey::Topic("c".into()), vec![("no.such.config".into(), "1".into())]),
            (ConfigResourceKey::Topic("t".into()), vec![("retention.ms".into(), "-7".into())]),
        ];
        let req = AdminRequest::AlterConfigs { resources, validate_only: false };
        let AdminResponse::Altered(altered) = raw(&client, req).await else { panic!() };
        let refusals: Vec<_> = altered.into_iter().map(|(_, e)| e.map(|e| (e.code, e.message))).collect();
        assert_eq!(
            refusals,
            [
                Some((KafkaCode::InvalidConfig, "Unknown topic config name: no.such.config".into())),
                Some((
                    KafkaCode::InvalidConfig,
                    "Invalid value -7 for configuration retention.ms: Value must be at least -1".into()
                )),
            ]
        );
    });
}

#[test]
fn kafka_alter_configs_with_validate_only_changes_nothing() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        create("c", 1, &[("segment.ms", "1000")]).await;
        let alter = AlterConfig::new(ResourceSpecifier::Topic("c")).set("segment.ms", "5");
        admin().alter_configs([&alter], &opts().validate_only(true)).await.unwrap();
        assert_eq!(value(&describe(ResourceSpecifier::Topic("c")).await, "segment.ms").0, Some("1000"));
    });
}

#[test]
fn rdkafka_0_39_describes_a_topic_that_does_not_exist_as_ok_with_no_entries() {
    sim(TxnProtocol::Classic, |_log, _h, client| async move {
        let missing = describe(ResourceSpecifier::Topic("missing")).await;
        assert_eq!((missing.specifier, missing.entries.len()), (OwnedResourceSpecifier::Topic("missing".into()), 0));
        let req = AdminRequest::DescribeConfigs { resources: vec![ConfigResourceKey::Topic("missing".into())] };
        let AdminResponse::Configs(found) = raw(&client, req).await else { panic!() };
        assert_eq!(found[0].1.as_ref().map_err(|e| e.code), Err(KafkaCode::UnknownTopicOrPartition), "the broker's");
    });
}

#[test]
fn kafka_describe_configs_of_the_broker_names_its_id_and_static_configs() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let b = describe(ResourceSpecifier::Broker(1)).await;
        assert_eq!(b.specifier, OwnedResourceSpecifier::Broker(1));
        assert_eq!(value(&b, "broker.id"), (Some("1"), &ConfigSource::StaticBroker));
        assert_eq!(value(&b, "auto.create.topics.enable"), (Some("false"), &ConfigSource::StaticBroker));
        assert!(b.entries.iter().all(|e| e.is_read_only), "the simulated broker's configs are static");
    });
}

#[test]
fn librdkafka_sends_a_broker_resource_to_that_broker_and_takes_one_per_call() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let two = [ResourceSpecifier::Broker(1), ResourceSpecifier::Broker(1)];
        assert!(matches!(admin().describe_configs(&two, &opts()).await, Err(KafkaError::AdminOp(Conflict))));
        let negative = [ResourceSpecifier::Broker(-1)];
        assert!(matches!(
            admin().describe_configs(&negative, &opts()).await,
            Err(KafkaError::AdminOp(InvalidArgument))
        ));
        // Broker 7 is not in the cluster: librdkafka waits for it until the request timeout.
        let start = madsim::time::Instant::now();
        let other = [ResourceSpecifier::Broker(7), ResourceSpecifier::Topic("t")];
        let r = admin().describe_configs(&other, &opts()).await;
        assert!(matches!(r, Err(KafkaError::AdminOp(OperationTimedOut))), "{r:?}");
        assert!(start.elapsed() >= T);
    });
}

#[test]
fn librdkafka_refuses_an_empty_config_name_and_rdkafka_an_empty_resource_name() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let empty_key = AlterConfig::new(ResourceSpecifier::Topic("t")).set("", "1");
        let r = admin().alter_configs([&empty_key], &opts()).await;
        assert_eq!(r, Err(KafkaError::AdminOpCreation("invalid argument".into())));
        let r = admin().describe_configs([&ResourceSpecifier::Topic("")], &opts()).await;
        assert!(matches!(r, Err(KafkaError::AdminOpCreation(_))), "{r:?}");
    });
}
