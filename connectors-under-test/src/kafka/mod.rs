//! Kafka connectors written against rdkafka's API only (`connsim-rdkafka` under simulation):
//! a FLIP-27 source and an exactly-once sink, both talking Kafka's protocol to the log.
//!
//! The sink is a write-ahead sink, not Flink's resume-and-commit one: librdkafka cannot
//! commit a transaction another producer opened (Flink's Kafka sink resumes a producer id and
//! epoch by reflection, which rdkafka has no API for), so a transaction pre-committed before a
//! crash could never be committed on restore. The records travel in the committable instead,
//! and the committer writes them in one transaction per writer and checkpoint, with the
//! checkpoint's marker committed as a consumer-group offset in the same transaction: a
//! restored committable whose marker is there was committed already.

mod enumerator;
mod reader;
mod sink;
mod source;

pub use enumerator::KafkaEnumerator;
pub use reader::{KafkaReader, KafkaSplitReader, KafkaSplits};
#[cfg(madsim)]
pub use sink::KafkaSinkSetup;
pub use sink::{commit_in_order, Attempt, CommitBatch, KafkaCommitter, KafkaSink, KafkaWriter, Short, StagedBatch};
pub use source::KafkaSource;
#[cfg(madsim)]
pub use source::KafkaSourceSetup;

use rdkafka::config::ClientConfig;

/// A client configuration for the log node `bootstrap`, with `pairs` set.
pub fn client_config(bootstrap: &str, pairs: &[(&str, &str)]) -> ClientConfig {
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap);
    for (k, v) in pairs {
        config.set(*k, *v);
    }
    config
}
