//! The names a Kafka connector writes, compiled against both halves of the crate: in the
//! simulation (every test run) and against the real rdkafka (`scripts/check-rdkafka-compat`).
//! A type, generic parameter, trait or variant that one half lacks, or spells differently
//! (`MessageStream<'_, C>`, `BaseRecord`'s delivery opaque), fails one of the two builds.
//! Only the blocking calls that are `async` in both halves are left out: their signatures
//! differ from rdkafka's by design (README, "Your Kafka connector").

extern crate connsim_rdkafka as rdkafka;

use rdkafka::config::{ClientConfig, FromClientConfig};
use rdkafka::consumer::{
    BaseConsumer, CommitMode, Consumer, ConsumerGroupMetadata, DefaultConsumerContext, MessageStream, StreamConsumer,
};
use rdkafka::error::{KafkaError, KafkaResult, RDKafkaErrorCode};
use rdkafka::message::{BorrowedMessage, Header, Headers, OwnedHeaders, OwnedMessage};
use rdkafka::producer::{BaseProducer, BaseRecord, FutureProducer, FutureRecord};
use rdkafka::{Message, Offset, TopicPartitionList};

/// A stream is named with its consumer's context, as rdkafka's.
pub fn stream_of(consumer: &StreamConsumer) -> MessageStream<'_, DefaultConsumerContext> {
    consumer.stream()
}

/// A base record has a delivery opaque, `()` unless set.
pub fn base_record<'a>(topic: &'a str, key: &'a str, payload: &'a [u8]) -> BaseRecord<'a, str, [u8], ()> {
    BaseRecord::to(topic).key(key).payload(payload).partition(0).timestamp(1)
}

/// A future record with headers.
pub fn future_record<'a>(topic: &'a str, key: &'a str, payload: &'a [u8]) -> FutureRecord<'a, str, [u8]> {
    let headers = OwnedHeaders::new().insert(Header { key: "h", value: Some("v") });
    FutureRecord::to(topic).key(key).payload(payload).partition(0).timestamp(1).headers(headers)
}

/// Clients come from a configuration.
pub fn clients(config: &ClientConfig) -> KafkaResult<(BaseConsumer, StreamConsumer, FutureProducer, BaseProducer)> {
    Ok((config.create()?, config.create()?, config.create()?, BaseProducer::from_config(config)?))
}

/// The group a transaction commits offsets for.
pub fn group_of(consumer: &BaseConsumer) -> Option<ConsumerGroupMetadata> {
    consumer.group_metadata()
}

/// A producer context: delivery reports with the record's opaque.
pub struct Deliveries;

impl rdkafka::ClientContext for Deliveries {
    fn log(&self, level: rdkafka::config::RDKafkaLogLevel, fac: &str, log_message: &str) {
        let _ = (level, fac, log_message);
    }
}

impl rdkafka::producer::ProducerContext for Deliveries {
    type DeliveryOpaque = Box<u64>;
    fn delivery(&self, result: &rdkafka::producer::DeliveryResult<'_>, opaque: Box<u64>) {
        let _ = (result.as_ref().map(|m| m.offset()), opaque);
    }
}

/// A base producer with a context of its own, and a record carrying its opaque.
pub fn with_context(config: &mut ClientConfig) -> KafkaResult<BaseProducer<Deliveries>> {
    config.set_log_level(rdkafka::config::RDKafkaLogLevel::Warning);
    let producer: BaseProducer<Deliveries> = config.create_with_context(Deliveries)?;
    let record = BaseRecord::<str, str, Box<u64>>::with_opaque_to("t", Box::new(1)).payload("p");
    producer.send(record).map_err(|(e, _)| e)?;
    let _: &std::sync::Arc<Deliveries> = producer.context();
    Ok(producer)
}

/// A consumer context: commit callbacks.
pub struct Commits;

impl rdkafka::ClientContext for Commits {}

impl rdkafka::consumer::ConsumerContext for Commits {
    fn commit_callback(&self, result: KafkaResult<()>, offsets: &TopicPartitionList) {
        let _ = (result, offsets.count());
    }
    // The rebalance callbacks take the consumer by its full path, rdkafka's own type in a
    // production build.
    fn pre_rebalance(
        &self,
        consumer: &rdkafka::consumer::base_consumer::BaseConsumer<Self>,
        rebalance: &rdkafka::consumer::Rebalance<'_>,
    ) {
        let _ = (std::ptr::from_ref(consumer), rebalance);
    }
}

/// Consumers with a context of their own.
pub fn consumers_with_context(config: &ClientConfig) -> KafkaResult<(BaseConsumer<Commits>, StreamConsumer<Commits>)> {
    let base: BaseConsumer<Commits> = config.create_with_context(Commits)?;
    let stream: StreamConsumer<Commits> = config.create_with_context(Commits)?;
    let _: (&std::sync::Arc<Commits>, &std::sync::Arc<Commits>) = (base.context(), stream.context());
    let _: MessageStream<'_, Commits> = stream.stream();
    Ok((base, stream))
}

/// The opaques rdkafka takes.
pub fn opaque<T: rdkafka::IntoOpaque>(t: T) -> T {
    t
}

/// Offsets stored for the next commit (`enable.auto.offset.store=false`).
pub fn store(consumer: &BaseConsumer, message: &BorrowedMessage<'_>, tpl: &TopicPartitionList) -> KafkaResult<()> {
    consumer.store_offset_from_message(message)?;
    consumer.store_offsets(tpl)?;
    consumer.store_offset("t", 0, 1)
}

/// Assignment changes, positions and lookups by time, as a split reader makes them.
pub async fn assignment_calls(consumer: &BaseConsumer, added: &TopicPartitionList) -> KafkaResult<TopicPartitionList> {
    consumer.incremental_assign(added)?;
    consumer.incremental_unassign(added)?;
    let _: (bool, rdkafka::consumer::RebalanceProtocol) = (consumer.assignment_lost(), consumer.rebalance_protocol());
    let _: TopicPartitionList = consumer.subscription()?;
    consumer.unsubscribe();
    let sought: TopicPartitionList = consumer.seek_partitions(added.clone(), std::time::Duration::ZERO)?;
    let _ = consumer.offsets_for_timestamp(1, std::time::Duration::from_millis(1)).await?;
    if let Some(Ok(m)) = consumer.poll(std::time::Duration::ZERO).await {
        consumer.commit_message(&m, CommitMode::Async).await?;
    }
    consumer.offsets_for_times(sought, std::time::Duration::from_millis(1)).await
}

/// Both commit modes.
pub fn modes() -> [CommitMode; 2] {
    [CommitMode::Sync, CommitMode::Async]
}

/// The error codes a connector handles.
pub fn codes() -> [RDKafkaErrorCode; 8] {
    [
        RDKafkaErrorCode::ProducerFenced,
        RDKafkaErrorCode::InvalidProducerEpoch,
        RDKafkaErrorCode::OffsetOutOfRange,
        RDKafkaErrorCode::UnknownTopicOrPartition,
        RDKafkaErrorCode::RequestTimedOut,
        RDKafkaErrorCode::NotEnoughReplicas,
        RDKafkaErrorCode::InvalidTransactionalState,
        RDKafkaErrorCode::ConcurrentTransactions,
    ]
}

/// What a transactional error says about what to do next.
pub fn next_step(e: &KafkaError) -> Option<(bool, bool, bool)> {
    match e {
        KafkaError::Transaction(e) => Some((e.is_fatal(), e.is_retriable(), e.txn_requires_abort())),
        _ => e.rdkafka_error_code().map(|c| (c == RDKafkaErrorCode::ProducerFenced, false, false)),
    }
}

/// Offsets and positions.
pub fn positions() -> KafkaResult<TopicPartitionList> {
    let mut list = TopicPartitionList::new();
    list.add_partition_offset("t", 0, Offset::Offset(1))?;
    list.add_partition_offset("t", 1, Offset::Beginning)?;
    list.add_partition("t", 2);
    let _: Vec<Offset> = list.elements().iter().map(|e| e.offset()).collect();
    Ok(list)
}

/// A message's parts, borrowed or owned.
pub fn parts<'a>(m: &'a BorrowedMessage<'a>) -> (Option<&'a [u8]>, Option<&'a [u8]>, i64, OwnedMessage) {
    if let Some(headers) = m.headers() {
        let _: Vec<Header<'_, &[u8]>> = headers.iter().collect();
    }
    (m.key(), m.payload(), m.offset(), m.detach())
}

#[test]
fn the_names_a_connector_writes_exist_in_this_half() {
    assert_eq!(codes().len(), 8);
    assert_eq!(modes().len(), 2);
    assert_eq!(positions().unwrap().count(), 3);
}
