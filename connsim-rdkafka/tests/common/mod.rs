//! What the broker and client tests share: a simulated log beside connector code, and
//! clients as a connector creates them.
#![allow(dead_code)]

use connsim::history::History;
use connsim::net::{Endpoint, Gateway};
use connsim::systems::{ExternalSystem, KafkaRequest, KafkaResponse, PartitionedLog, Setting, SettingEnv, TxnProtocol};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{Message, Offset, TopicPartitionList};
use std::time::Duration;

/// The timeout of the tests' calls.
pub const T: Duration = Duration::from_millis(500);

/// Kills the log's node: from now on no request is answered.
pub fn kill_log() {
    madsim::runtime::Handle::current().kill("kafka");
}

/// Runs `f` as connector code beside a log named "kafka" with topic `t` of two partitions.
pub fn sim<F: std::future::Future<Output = ()> + 'static>(
    protocol: TxnProtocol,
    f: impl FnOnce(PartitionedLog, History, Endpoint) -> F,
) {
    sim_on_network(protocol, |log, history, client, _gw| f(log, history, client))
}

/// [`sim`], with the network too (for fault rules).
pub fn sim_on_network<F: std::future::Future<Output = ()> + 'static>(
    protocol: TxnProtocol,
    f: impl FnOnce(PartitionedLog, History, Endpoint, Gateway) -> F,
) {
    let rt = madsim::runtime::Runtime::with_seed_and_config(1, madsim::Config::default());
    let history = History::new();
    let gw = Gateway::new(ChaCha8Rng::seed_from_u64(1), history.clone(), (1, 2));
    rt.block_on(async move {
        let log = PartitionedLog::new("kafka", history.clone());
        log.create_topic("t", 2);
        let env = SettingEnv { seed: 0, history: history.clone() };
        log.configure(&Setting::TransactionProtocol(protocol), &env).unwrap();
        let (g, system) = (gw.clone(), log.clone());
        madsim::runtime::Handle::current().create_node().name("kafka").build().spawn(async move {
            let (_ep, inbox) = g.bind("kafka");
            system.serve(inbox).await
        });
        madsim::time::sleep(Duration::from_millis(1)).await;
        let client = gw.bind("client").0;
        connsim::net::ambient::scope(client.clone(), f(log, history, client, gw.clone())).await
    });
}

pub fn config(pairs: &[(&str, &str)]) -> ClientConfig {
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", "kafka:9092");
    for (k, v) in pairs {
        c.set(*k, *v);
    }
    c
}

pub fn transactional(id: &str) -> FutureProducer {
    config(&[("transactional.id", id)]).create().unwrap()
}

pub async fn send(p: &FutureProducer, partition: i32, payload: &str) -> Result<i64, KafkaError> {
    let record = FutureRecord::<str, str>::to("t").partition(partition).payload(payload);
    p.send(record, T).await.map(|d| d.offset).map_err(|(e, _)| e)
}

pub async fn raw(client: &Endpoint, req: KafkaRequest) -> KafkaResponse {
    client.call("kafka", req.kind(), &req, T).await.unwrap()
}

/// A consumer configured with `pairs`, assigned partition `p` of `t` at `offset`.
/// (librdkafka keeps assignments in the consumer group: a `group.id` is set unless given.)
pub fn assigned(pairs: &[(&str, &str)], p: i32, offset: Offset) -> BaseConsumer {
    let mut c = config(pairs);
    if c.get("group.id").is_none() {
        c.set("group.id", "reader");
    }
    let c: BaseConsumer = c.create().unwrap();
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset("t", p, offset).unwrap();
    c.assign(&tpl).unwrap();
    c
}

/// Payloads a consumer reads from partition `p` of `t`, from the beginning.
pub async fn read(isolation: &str, p: i32) -> Vec<String> {
    let c = assigned(&[("isolation.level", isolation)], p, Offset::Beginning);
    let mut out = Vec::new();
    while let Some(m) = c.poll(Duration::from_millis(30)).await {
        out.push(m.unwrap().payload_view::<str>().unwrap().unwrap().to_string());
    }
    out
}

pub fn fenced(r: Result<(), KafkaError>) -> bool {
    matches!(&r, Err(KafkaError::Transaction(e)) if e.code() == RDKafkaErrorCode::Fenced && e.is_fatal())
}
