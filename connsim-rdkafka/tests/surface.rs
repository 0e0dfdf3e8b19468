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

/// Every librdkafka error code, by rdkafka-sys's names (its hidden sentinels too).
pub fn every_error_code() -> Vec<RDKafkaErrorCode> {
    use RDKafkaErrorCode::*;
    vec![
        Begin,
        BadMessage,
        BadCompression,
        BrokerDestroy,
        Fail,
        BrokerTransportFailure,
        CriticalSystemResource,
        Resolve,
        MessageTimedOut,
        PartitionEOF,
        UnknownPartition,
        FileSystem,
        UnknownTopic,
        AllBrokersDown,
        InvalidArgument,
        OperationTimedOut,
        QueueFull,
        ISRInsufficient,
        NodeUpdate,
        SSL,
        WaitingForCoordinator,
        UnknownGroup,
        InProgress,
        PreviousInProgress,
        ExistingSubscription,
        AssignPartitions,
        RevokePartitions,
        Conflict,
        State,
        UnknownProtocol,
        NotImplemented,
        Authentication,
        NoOffset,
        Outdated,
        TimedOutQueue,
        UnsupportedFeature,
        WaitCache,
        Interrupted,
        KeySerialization,
        ValueSerialization,
        KeyDeserialization,
        ValueDeserialization,
        Partial,
        ReadOnly,
        NoEnt,
        Underflow,
        InvalidType,
        Retry,
        PurgeQueue,
        PurgeInflight,
        Fatal,
        Inconsistent,
        GaplessGuarantee,
        PollExceeded,
        UnknownBroker,
        NotConfigured,
        Fenced,
        Application,
        AssignmentLost,
        Noop,
        AutoOffsetReset,
        LogTruncation,
        InvalidDifferentRecord,
        DestroyBroker,
        End,
        Unknown,
        NoError,
        OffsetOutOfRange,
        InvalidMessage,
        UnknownTopicOrPartition,
        InvalidMessageSize,
        LeaderNotAvailable,
        NotLeaderForPartition,
        RequestTimedOut,
        BrokerNotAvailable,
        ReplicaNotAvailable,
        MessageSizeTooLarge,
        StaleControllerEpoch,
        OffsetMetadataTooLarge,
        NetworkException,
        CoordinatorLoadInProgress,
        CoordinatorNotAvailable,
        NotCoordinator,
        InvalidTopic,
        MessageBatchTooLarge,
        NotEnoughReplicas,
        NotEnoughReplicasAfterAppend,
        InvalidRequiredAcks,
        IllegalGeneration,
        InconsistentGroupProtocol,
        InvalidGroupId,
        UnknownMemberId,
        InvalidSessionTimeout,
        RebalanceInProgress,
        InvalidCommitOffsetSize,
        TopicAuthorizationFailed,
        GroupAuthorizationFailed,
        ClusterAuthorizationFailed,
        InvalidTimestamp,
        UnsupportedSASLMechanism,
        IllegalSASLState,
        UnsupportedVersion,
        TopicAlreadyExists,
        InvalidPartitions,
        InvalidReplicationFactor,
        InvalidReplicaAssignment,
        InvalidConfig,
        NotController,
        InvalidRequest,
        UnsupportedForMessageFormat,
        PolicyViolation,
        OutOfOrderSequenceNumber,
        DuplicateSequenceNumber,
        InvalidProducerEpoch,
        InvalidTransactionalState,
        InvalidProducerIdMapping,
        InvalidTransactionTimeout,
        ConcurrentTransactions,
        TransactionCoordinatorFenced,
        TransactionalIdAuthorizationFailed,
        SecurityDisabled,
        OperationNotAttempted,
        KafkaStorageError,
        LogDirNotFound,
        SaslAuthenticationFailed,
        UnknownProducerId,
        ReassignmentInProgress,
        DelegationTokenAuthDisabled,
        DelegationTokenNotFound,
        DelegationTokenOwnerMismatch,
        DelegationTokenRequestNotAllowed,
        DelegationTokenAuthorizationFailed,
        DelegationTokenExpired,
        InvalidPrincipalType,
        NonEmptyGroup,
        GroupIdNotFound,
        FetchSessionIdNotFound,
        InvalidFetchSessionEpoch,
        ListenerNotFound,
        TopicDeletionDisabled,
        FencedLeaderEpoch,
        UnknownLeaderEpoch,
        UnsupportedCompressionType,
        StaleBrokerEpoch,
        OffsetNotAvailable,
        MemberIdRequired,
        PreferredLeaderNotAvailable,
        GroupMaxSizeReached,
        FencedInstanceId,
        EligibleLeadersNotAvailable,
        ElectionNotNeeded,
        NoReassignmentInProgress,
        GroupSubscribedToTopic,
        InvalidRecord,
        UnstableOffsetCommit,
        ThrottlingQuotaExceeded,
        ProducerFenced,
        ResourceNotFound,
        DuplicateResource,
        UnacceptableCredential,
        InconsistentVoterSet,
        InvalidUpdateVersion,
        FeatureUpdateFailed,
        PrincipalDeserializationFailure,
        UnknownTopicId,
        FencedMemberEpoch,
        UnreleasedInstanceId,
        UnsupportedAssignor,
        StaleMemberEpoch,
        UnknownSubscriptionId,
        TelemetryTooLarge,
        RebootstrapRequired,
        EndAll,
    ]
}

/// librdkafka's response errors (`rdkafka::types`), as a rebalance callback matches them.
pub fn response_error(err: rdkafka::types::RDKafkaRespErr) -> (RDKafkaErrorCode, bool, bool, Option<i32>) {
    use rdkafka::types::RDKafkaRespErr::*;
    let rebalance = matches!(err, RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS | RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS);
    let _: [rdkafka::types::RDKafkaRespErr; 3] =
        [RD_KAFKA_RESP_ERR_NO_ERROR, RD_KAFKA_RESP_ERR__PARTITION_EOF, RD_KAFKA_RESP_ERR_INVALID_TXN_STATE];
    let back = rdkafka::types::RDKafkaRespErr::try_from(err as i32).ok().map(|e| e as i32);
    (RDKafkaErrorCode::from(err), rebalance, rdkafka::error::IsError::is_error(&err), back)
}

/// Every `KafkaError` variant with what it holds.
pub fn every_kafka_error(
    c: RDKafkaErrorCode,
    e: rdkafka::error::RDKafkaError,
    nul: std::ffi::NulError,
) -> Vec<KafkaError> {
    let s = String::new;
    let ok = rdkafka::types::RDKafkaConfRes::RD_KAFKA_CONF_OK;
    vec![
        KafkaError::AdminOpCreation(s()),
        KafkaError::AdminOp(c),
        KafkaError::Canceled,
        KafkaError::ClientConfig(ok, s(), s(), s()),
        KafkaError::ClientCreation(s()),
        KafkaError::ConsumerCommit(c),
        KafkaError::ConsumerQueueClose(c),
        KafkaError::Flush(c),
        KafkaError::Global(c),
        KafkaError::GroupListFetch(c),
        KafkaError::MessageConsumption(c),
        KafkaError::MessageConsumptionFatal(c),
        KafkaError::MessageProduction(c),
        KafkaError::MetadataFetch(c),
        KafkaError::NoMessageReceived,
        KafkaError::from(nul),
        KafkaError::OffsetFetch(c),
        KafkaError::PartitionEOF(0),
        KafkaError::PauseResume(s()),
        KafkaError::Rebalance(c),
        KafkaError::Seek(s()),
        KafkaError::SetPartitionOffset(c),
        KafkaError::StoreOffset(c),
        KafkaError::Subscription(s()),
        KafkaError::Transaction(e),
        KafkaError::MockCluster(c),
    ]
}

/// What errors tell: texts, codes, sources, whether they are errors.
pub fn error_texts(e: &KafkaError, rd: &rdkafka::error::RDKafkaError) -> (String, Option<RDKafkaErrorCode>, bool) {
    use rdkafka::error::IsError;
    let _: (String, String, String, bool) = (rd.name(), rd.string(), rd.to_string(), rd.is_error());
    let _: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
    let _: &dyn std::error::Error = &RDKafkaErrorCode::Fail;
    (e.to_string(), e.rdkafka_error_code(), rdkafka::types::RDKafkaConfRes::RD_KAFKA_CONF_INVALID.is_error())
}

/// A consumed message's headers are borrowed; they detach to owned ones.
pub fn borrowed_headers(m: &BorrowedMessage<'_>) -> Option<OwnedHeaders> {
    let h: &rdkafka::message::BorrowedHeaders = m.headers()?;
    let _: Option<Result<Header<'_, &str>, std::str::Utf8Error>> = h.try_get_as::<str>(0);
    let _: Result<Header<'_, &[u8]>, ()> = h.get_as::<[u8]>(0);
    let _: (usize, usize, Header<'_, &[u8]>) = (m.key_len(), m.payload_len(), h.get(0));
    let owned = h.detach();
    let _: &rdkafka::message::BorrowedHeaders = owned.as_borrowed();
    Some(owned)
}

/// An owned message rebuilt part by part.
pub fn rebuilt(m: OwnedMessage, headers: OwnedHeaders, t: std::time::SystemTime) -> OwnedMessage {
    let m = m.replace_headers(Some(headers)).set_payload(None).set_key(Some(vec![1])).set_topic("t".into());
    m.set_timestamp(rdkafka::Timestamp::from(t)).set_partition(0).set_offset(0).set_timestamp(rdkafka::Timestamp::now())
}

/// A message's payload, writable.
pub fn writable(m: &mut OwnedMessage) -> Option<&mut [u8]> {
    // SAFETY: an owned message's payload is its own.
    unsafe { m.payload_mut() }
}

/// A delivery report, named from `message`.
pub fn delivered(result: &rdkafka::message::DeliveryResult<'_>) -> Option<i64> {
    result.as_ref().ok().map(|m| m.offset())
}

/// A message type of one's own: the trait's required methods are rdkafka's.
pub struct Mine(Vec<u8>, OwnedHeaders);

impl Message for Mine {
    type Headers = OwnedHeaders;
    fn key(&self) -> Option<&[u8]> {
        None
    }
    fn payload(&self) -> Option<&[u8]> {
        Some(&self.0)
    }
    unsafe fn payload_mut(&mut self) -> Option<&mut [u8]> {
        Some(&mut self.0)
    }
    fn topic(&self) -> &str {
        "t"
    }
    fn partition(&self) -> i32 {
        0
    }
    fn offset(&self) -> i64 {
        0
    }
    fn timestamp(&self) -> rdkafka::Timestamp {
        rdkafka::Timestamp::NotAvailable
    }
    fn headers(&self) -> Option<&OwnedHeaders> {
        Some(&self.1)
    }
}

impl Headers for Mine {
    fn count(&self) -> usize {
        0
    }
    fn try_get(&self, _: usize) -> Option<Header<'_, &[u8]>> {
        None
    }
}

impl rdkafka::IntoOpaque for Mine {
    fn into_ptr(self) -> *mut std::ffi::c_void {
        Box::into_raw(Box::new(self)).cast()
    }
    unsafe fn from_ptr(ptr: *mut std::ffi::c_void) -> Self {
        // SAFETY: `ptr` came from `into_ptr`, the caller promises.
        unsafe { *Box::from_raw(ptr.cast()) }
    }
}

impl rdkafka::message::ToBytes for Mine {
    fn to_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A partition list's capacity, topic map, unassigned topic and elements that write.
pub fn list_calls(map: &std::collections::HashMap<(String, i32), Offset>) -> KafkaResult<TopicPartitionList> {
    let mut tpl = TopicPartitionList::from_topic_map(map)?;
    let _: usize = tpl.capacity();
    let mut e = tpl.add_topic_unassigned("t");
    e.set_offset(Offset::End)?;
    e.set_metadata("m");
    let _: (&str, KafkaResult<()>) = (e.metadata(), e.error());
    for mut e in tpl.elements() {
        e.set_offset(Offset::Beginning)?;
    }
    let _: bool = tpl == tpl.clone();
    let _: String = format!("{tpl:?}");
    tpl.set_all_offsets(Offset::Stored)?;
    Ok(tpl)
}

/// librdkafka's version, the clock in milliseconds, and timeouts.
pub fn util_calls(t: std::time::SystemTime) -> ((i32, String), i64, i64, rdkafka::util::Timeout) {
    use rdkafka::util::Timeout;
    let mut timeout = Timeout::from(Some(std::time::Duration::from_secs(1)));
    timeout -= Timeout::After(std::time::Duration::ZERO);
    let _: bool = timeout < Timeout::Never;
    let millis = (rdkafka::util::millis_to_epoch(t), rdkafka::util::current_time_millis());
    (rdkafka::util::get_rdkafka_version(), millis.0, millis.1, timeout)
}

/// A runtime of one's own, and the default one, tokio's.
pub struct MyRuntime;

impl rdkafka::util::AsyncRuntime for MyRuntime {
    type Delay = std::future::Ready<()>;
    fn spawn<T>(task: T)
    where
        T: std::future::Future<Output = ()> + Send + 'static,
    {
        drop(task);
    }
    fn delay_for(_: std::time::Duration) -> Self::Delay {
        std::future::ready(())
    }
}

/// The default runtime's sleep.
pub fn default_delay() -> <rdkafka::util::DefaultRuntime as rdkafka::util::AsyncRuntime>::Delay {
    <rdkafka::util::TokioRuntime as rdkafka::util::AsyncRuntime>::delay_for(std::time::Duration::ZERO)
}

#[test]
fn the_names_a_connector_writes_exist_in_this_half() {
    assert_eq!(codes().len(), 8);
    assert_eq!(modes().len(), 2);
    assert_eq!(positions().unwrap().count(), 3);
}

/// The admin client from a configuration, with the default context or one of its own.
pub fn admin_clients(
    config: &ClientConfig,
) -> KafkaResult<(
    rdkafka::admin::AdminClient<rdkafka::client::DefaultClientContext>,
    rdkafka::admin::AdminClient<Commits>,
)> {
    let with_context: rdkafka::admin::AdminClient<Commits> = config.create_with_context(Commits)?;
    let _: &std::sync::Arc<Commits> = with_context.inner().context();
    Ok((config.create()?, with_context))
}

/// Admin options with every builder rdkafka has.
pub fn admin_options() -> rdkafka::admin::AdminOptions {
    rdkafka::admin::AdminOptions::new()
        .request_timeout(Some(std::time::Duration::from_secs(1)))
        .operation_timeout(Some(rdkafka::util::Timeout::Never))
        .validate_only(true)
        .broker_id(Some(1))
}

/// New topics and partitions, with their fields and builders.
pub fn new_topics<'a>(
    assignment: rdkafka::admin::PartitionAssignment<'a>,
) -> (rdkafka::admin::NewTopic<'a>, rdkafka::admin::NewTopic<'a>, rdkafka::admin::NewPartitions<'a>) {
    use rdkafka::admin::{NewPartitions, NewTopic, TopicReplication};
    let variable = NewTopic::new("t", 1, TopicReplication::Variable(assignment)).set("retention.ms", "1");
    let fixed = NewTopic::new("u", -1, TopicReplication::Fixed(-1));
    let _: (&str, i32, &TopicReplication<'_>, &Vec<(&str, &str)>) =
        (fixed.name, fixed.num_partitions, &fixed.replication, &fixed.config);
    let partitions = NewPartitions::new("t", 2).assign(assignment);
    let _: (&str, usize, Option<rdkafka::admin::PartitionAssignment<'_>>) =
        (partitions.topic_name, partitions.new_partition_count, partitions.assignment);
    (variable, fixed, partitions)
}

/// Every admin call but `delete_groups`, with rdkafka's result types.
pub async fn admin_calls(
    admin: &rdkafka::admin::AdminClient<rdkafka::client::DefaultClientContext>,
    offsets: &TopicPartitionList,
) -> KafkaResult<TopicPartitionList> {
    use rdkafka::admin::{AlterConfig, AlterConfigsResult, ConfigResourceResult, ResourceSpecifier, TopicResult};
    let opts = admin_options();
    let assignment: &[&[i32]] = &[&[1]];
    let (variable, fixed, partitions) = new_topics(assignment);
    let created: Vec<TopicResult> = admin.create_topics([&variable, &fixed], &opts).await?;
    let grown: Vec<TopicResult> = admin.create_partitions([&partitions], &opts).await?;
    let deleted: Vec<TopicResult> = admin.delete_topics(&["t"], &opts).await?;
    let _ = (created, grown, deleted);
    let resources = [ResourceSpecifier::Topic("t"), ResourceSpecifier::Group("g"), ResourceSpecifier::Broker(1)];
    let described: Vec<ConfigResourceResult> = admin.describe_configs(&resources, &opts).await?;
    for resource in described.iter().flatten() {
        config_resource(resource);
    }
    let alter = AlterConfig::new(ResourceSpecifier::Topic("t")).set("retention.ms", "1");
    let _: (&ResourceSpecifier<'_>, &std::collections::HashMap<&str, &str>) = (&alter.specifier, &alter.entries);
    let altered: Vec<AlterConfigsResult> = admin.alter_configs([&alter], &opts).await?;
    let _: Vec<
        Result<rdkafka::admin::OwnedResourceSpecifier, (rdkafka::admin::OwnedResourceSpecifier, RDKafkaErrorCode)>,
    > = altered;
    let _: Option<rdkafka::admin::GroupResult> = None;
    admin.delete_records(offsets, &opts).await
}

/// A described resource's parts.
pub fn config_resource(resource: &rdkafka::admin::ConfigResource) -> Option<bool> {
    use rdkafka::admin::{ConfigEntry, ConfigSource, OwnedResourceSpecifier};
    let _: &str = match &resource.specifier {
        OwnedResourceSpecifier::Topic(name) | OwnedResourceSpecifier::Group(name) => name,
        OwnedResourceSpecifier::Broker(_) => "",
    };
    let map: std::collections::HashMap<&str, &ConfigEntry> = resource.entry_map();
    for e in &resource.entries {
        let _: (&String, &Option<String>, bool, bool, bool) =
            (&e.name, &e.value, e.is_read_only, e.is_default, e.is_sensitive);
        let _ = match e.source {
            ConfigSource::Unknown | ConfigSource::DynamicTopic | ConfigSource::DynamicBroker => 0,
            ConfigSource::DynamicDefaultBroker | ConfigSource::StaticBroker | ConfigSource::Default => 1,
        };
    }
    let _ = map.len();
    resource.get("retention.ms").map(|e| e.is_default)
}

/// Metadata's parts: the broker that answered, every broker, topics and partitions with
/// their errors as `RDKafkaErrorCode`s.
pub fn metadata_parts(m: &rdkafka::metadata::Metadata) -> (i32, &str, usize, Vec<Option<RDKafkaErrorCode>>) {
    let brokers: Vec<(i32, &str, i32)> = m.brokers().iter().map(|b| (b.id(), b.host(), b.port())).collect();
    let mut errors = Vec::new();
    for t in m.topics() {
        let _: &str = t.name();
        errors.push(t.error().map(RDKafkaErrorCode::from));
        for p in t.partitions() {
            let _: (i32, i32, &[i32], &[i32]) = (p.id(), p.leader(), p.replicas(), p.isr());
            errors.push(p.error().map(RDKafkaErrorCode::from));
        }
    }
    let unknown = rdkafka::types::RDKafkaRespErr::RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
    errors.push(Some(unknown.into()));
    (m.orig_broker_id(), m.orig_broker_name(), brokers.len(), errors)
}

/// The error codes admin calls answer with.
pub fn admin_codes() -> [RDKafkaErrorCode; 12] {
    use RDKafkaErrorCode::*;
    [
        TopicAlreadyExists,
        InvalidPartitions,
        InvalidReplicationFactor,
        InvalidReplicaAssignment,
        InvalidConfig,
        InvalidRequest,
        InvalidTopic,
        PolicyViolation,
        UnknownPartition,
        NoEnt,
        Conflict,
        InvalidArgument,
    ]
}

// ---- Partition queues, streams, group lists, purges, partitioners and the producers'
// generic parameters (the real half's wrappers at rdkafka's paths, src/real/).

/// A consumer context whose rebalance callback calls the consumer it gets through
/// rdkafka's synchronous trait, `base_consumer::Consumer`, as production callback code does.
pub struct Rebalances;

impl rdkafka::ClientContext for Rebalances {}

impl rdkafka::consumer::ConsumerContext for Rebalances {
    fn post_rebalance(
        &self,
        consumer: &rdkafka::consumer::base_consumer::BaseConsumer<Self>,
        rebalance: &rdkafka::consumer::Rebalance<'_>,
    ) {
        let _ = (callback_calls(consumer), rebalance);
    }
}

/// What a rebalance callback calls on its consumer, generic over the context.
pub fn callback_calls<C: rdkafka::consumer::ConsumerContext>(
    consumer: &rdkafka::consumer::base_consumer::BaseConsumer<C>,
) -> KafkaResult<TopicPartitionList> {
    use rdkafka::consumer::base_consumer::Consumer as _;
    let _: &std::sync::Arc<C> = consumer.context();
    let _: Option<(RDKafkaErrorCode, String)> = consumer.client().fatal_error();
    let _: &std::sync::Arc<C> = rdkafka::consumer::base_consumer::Consumer::<C>::context(consumer);
    consumer.commit_consumer_state(CommitMode::Async)?;
    consumer.assignment()
}

/// A stream of messages that a task may own.
pub fn sendable_stream<'a, S>(stream: S) -> S
where
    S: futures::Stream<Item = KafkaResult<BorrowedMessage<'a>>> + Send,
{
    stream
}

/// A base consumer's messages as a stream (`base_consumer::Iter`).
pub fn iter_of<C: rdkafka::consumer::ConsumerContext + 'static>(
    consumer: &BaseConsumer<C>,
) -> rdkafka::consumer::base_consumer::Iter<'_, C> {
    sendable_stream(consumer.iter())
}

/// The next message of a base consumer's stream.
pub async fn next_of_iter(consumer: &BaseConsumer<Rebalances>) -> Option<KafkaResult<OwnedMessage>> {
    use futures::StreamExt;
    let mut iter: rdkafka::consumer::base_consumer::Iter<'_, Rebalances> = iter_of(consumer);
    iter.next().await.map(|m| m.map(|m| m.detach()))
}

/// A base consumer's partition queue, its `poll` awaited; the client under the consumer.
pub async fn partition_queue_of<C: rdkafka::consumer::ConsumerContext + 'static>(
    consumer: &std::sync::Arc<BaseConsumer<C>>,
) -> Option<KafkaResult<OwnedMessage>> {
    let _: &rdkafka::client::Client<C> = consumer.client();
    let _: Option<(RDKafkaErrorCode, String)> = consumer.client().fatal_error();
    let queue: rdkafka::consumer::base_consumer::PartitionQueue<C> = consumer.split_partition_queue("t", 0)?;
    let polled = queue.poll(std::time::Duration::ZERO).await;
    polled.map(|m| m.map(|m| m.detach()))
}

/// The cluster's consumer groups and their members, through the async `Consumer` trait.
pub async fn group_list<K: Consumer>(consumer: &K) -> KafkaResult<Vec<(String, usize)>> {
    let list: rdkafka::groups::GroupList = consumer.fetch_group_list(Some("g"), std::time::Duration::ZERO).await?;
    let mut groups = Vec::new();
    for g in list.groups() {
        let g: &rdkafka::groups::GroupInfo = g;
        let _: (&str, &str, &str) = (g.state(), g.protocol(), g.protocol_type());
        for m in g.members() {
            let m: &rdkafka::groups::GroupMemberInfo = m;
            let _: (&str, &str, &str) = (m.id(), m.client_id(), m.client_host());
            let _: (Option<&[u8]>, Option<&[u8]>) = (m.metadata(), m.assignment());
        }
        groups.push((g.name().to_string(), g.members().len()));
    }
    Ok(groups)
}

/// A stream consumer by rdkafka's module path, its partition queues and their streams.
pub async fn stream_partition_queue<C: rdkafka::consumer::ConsumerContext + 'static, R>(
    consumer: &std::sync::Arc<rdkafka::consumer::stream_consumer::StreamConsumer<C, R>>,
) -> Option<KafkaResult<OwnedMessage>> {
    let _: &rdkafka::client::Client<C> = consumer.client();
    let queue: rdkafka::consumer::stream_consumer::StreamPartitionQueue<C, R> =
        consumer.split_partition_queue("t", 0)?;
    let stream: rdkafka::consumer::stream_consumer::MessageStream<'_, C> = sendable_stream(queue.stream());
    drop(stream);
    Some(queue.recv().await.map(|m| m.detach()))
}

/// The stream consumer and its stream at both paths are the same types.
pub fn stream_consumer_paths(
    consumer: StreamConsumer<Rebalances>,
) -> rdkafka::consumer::stream_consumer::StreamConsumer<Rebalances, rdkafka::util::DefaultRuntime> {
    let _: fn(&StreamConsumer<Rebalances>) -> rdkafka::consumer::stream_consumer::MessageStream<'_, Rebalances> =
        |c| c.stream();
    let _: Option<MessageStream<'_, Rebalances>> =
        None::<rdkafka::consumer::stream_consumer::MessageStream<'_, Rebalances>>;
    consumer
}

/// Every purge setting.
pub fn purge_configs() -> [rdkafka::producer::PurgeConfig; 2] {
    use rdkafka::producer::PurgeConfig;
    let all = PurgeConfig::default().queue().inflight().non_blocking();
    [all, all.no_queue().no_inflight().blocking()]
}

/// A purge and a flush through the async `Producer` trait, of any producer.
pub async fn purged<P: rdkafka::producer::Producer>(producer: &P) -> KafkaResult<()> {
    producer.purge(purge_configs()[0]);
    producer.flush(std::time::Duration::ZERO).await
}

/// A partitioner of one's own: by the key's length, `PARTITION_UA` without a key.
#[derive(Clone, Copy)]
pub struct ByKeyLength;

impl rdkafka::producer::Partitioner for ByKeyLength {
    fn partition(
        &self,
        topic_name: &str,
        key: Option<&[u8]>,
        partition_cnt: i32,
        is_partition_available: impl Fn(i32) -> bool,
    ) -> i32 {
        let _ = (topic_name, is_partition_available(0));
        key.map_or(rdkafka::producer::PARTITION_UA, |k| k.len() as i32 % partition_cnt.max(1))
    }
}

/// A producer context that registers that partitioner.
pub struct Partitioned(ByKeyLength);

impl rdkafka::ClientContext for Partitioned {}

impl rdkafka::producer::ProducerContext<ByKeyLength> for Partitioned {
    type DeliveryOpaque = ();
    fn delivery(&self, result: &rdkafka::producer::DeliveryResult<'_>, _: ()) {
        let _ = result.as_ref().map(|m| m.partition());
    }
    fn get_custom_partitioner(&self) -> Option<&ByKeyLength> {
        Some(&self.0)
    }
}

/// What every base producer has, generic over its context and partitioner. (The std half
/// asks `Part: Send + Sync + 'static` and `C: 'static` for the calls it runs on tokio's
/// blocking pool, as rdkafka's threaded producer does to be created.)
pub async fn base_producer_parts<C, Part>(
    producer: &rdkafka::producer::BaseProducer<C, Part>,
) -> KafkaResult<Option<(RDKafkaErrorCode, String)>>
where
    C: rdkafka::producer::ProducerContext<Part> + 'static,
    Part: rdkafka::producer::Partitioner + Send + Sync + 'static,
{
    let _: &std::sync::Arc<C> = producer.context();
    producer.poll(std::time::Duration::ZERO).await;
    purged(producer).await?;
    let client: &rdkafka::client::Client<C> = producer.client();
    Ok(client.fatal_error())
}

/// A base producer with a partitioner of its own, at both module paths.
pub fn partitioned_base_producer(
    config: &ClientConfig,
) -> KafkaResult<rdkafka::producer::base_producer::BaseProducer<Partitioned, ByKeyLength>> {
    let producer: BaseProducer<Partitioned, ByKeyLength> = config.create_with_context(Partitioned(ByKeyLength))?;
    let record: rdkafka::producer::base_producer::BaseRecord<'_, str, str, ()> = BaseRecord::to("t").key("k");
    producer.send(record).map_err(|(e, _)| e)?;
    Ok(producer)
}

/// Threaded producers: the default context, and one with a partitioner; `send` and `poll`
/// as rdkafka's, the async `Producer` trait, at both module paths.
pub async fn threaded_producers(
    config: &ClientConfig,
) -> KafkaResult<(
    rdkafka::producer::ThreadedProducer<rdkafka::producer::DefaultProducerContext>,
    rdkafka::producer::base_producer::ThreadedProducer<Partitioned, ByKeyLength>,
)> {
    use rdkafka::producer::{DefaultProducerContext, NoCustomPartitioner, ThreadedProducer};
    let plain: ThreadedProducer<DefaultProducerContext, NoCustomPartitioner> = ThreadedProducer::from_config(config)?;
    let partitioned: ThreadedProducer<Partitioned, ByKeyLength> =
        config.create_with_context(Partitioned(ByKeyLength))?;
    plain.send(BaseRecord::<str, str>::to("t").payload("p")).map_err(|(e, _)| e)?;
    partitioned.send(BaseRecord::<str, str>::to("t").key("k")).map_err(|(e, _)| e)?;
    plain.poll(std::time::Duration::ZERO);
    let _: (&std::sync::Arc<DefaultProducerContext>, &rdkafka::client::Client<Partitioned>) =
        (plain.context(), partitioned.client());
    purged(&plain).await?;
    purged(&partitioned).await?;
    Ok((plain, partitioned))
}

/// Future producers with all three parameters: a context of one's own through
/// `FromClientConfigAndContext`, any runtime, a partitioner parameter; their client and
/// context are the future producer context's.
pub fn future_producer_parts<C, R, Part>(
    config: &ClientConfig,
    context: C,
) -> KafkaResult<rdkafka::producer::future_producer::FutureProducer<C, R, Part>>
where
    C: rdkafka::ClientContext + 'static,
    R: rdkafka::util::AsyncRuntime,
    Part: rdkafka::producer::Partitioner + 'static,
{
    use rdkafka::config::FromClientConfigAndContext;
    use rdkafka::producer::future_producer::FutureProducerContext;
    let producer: FutureProducer<C, R, Part> = FutureProducer::from_config_and_context(config, context)?;
    let _: &std::sync::Arc<FutureProducerContext<C>> = producer.context();
    let _: &std::sync::Arc<rdkafka::producer::FutureProducerContext<C>> = producer.client().context();
    let _: Option<(RDKafkaErrorCode, String)> = producer.client().fatal_error();
    producer.poll(std::time::Duration::ZERO);
    let _: FutureProducer<C, R, Part> = producer.clone();
    Ok(producer)
}

/// A future producer with a partitioner parameter sends, purges and flushes.
pub async fn future_producer_with_partitioner(config: &ClientConfig) -> KafkaResult<()> {
    use rdkafka::producer::future_producer::{Delivery, DeliveryFuture, FutureRecord, OwnedDeliveryResult};
    let producer = future_producer_parts::<Commits, rdkafka::util::DefaultRuntime, ByKeyLength>(config, Commits)?;
    let delivery: DeliveryFuture =
        producer.send_result(FutureRecord::<str, str>::to("t").key("k")).map_err(|(e, _)| e)?;
    purged(&producer).await?;
    let result: OwnedDeliveryResult = producer.send(future_record("t", "k", b"p"), std::time::Duration::ZERO).await;
    let _: Option<Delivery> = result.ok();
    let _: Result<OwnedDeliveryResult, rdkafka::producer::Canceled> = delivery.await;
    Ok(())
}

/// A context's statistics callbacks, and the fields of `Statistics` a connector reads, each
/// with rdkafka's type.
pub struct Stats;

impl rdkafka::ClientContext for Stats {
    fn stats(&self, statistics: rdkafka::Statistics) {
        let _ = statistics_fields(&statistics);
    }
    fn stats_raw(&self, statistics: &[u8]) {
        let _ = statistics.len();
    }
}

/// `Statistics`' fields, typed as rdkafka types them.
pub fn statistics_fields(stats: &rdkafka::statistics::Statistics) -> i64 {
    use rdkafka::statistics::{Broker, ConsumerGroup, ExactlyOnceSemantics, Partition, Topic, TopicPartition, Window};
    use std::collections::HashMap;
    let _: (&String, &String, &String) = (&stats.name, &stats.client_id, &stats.client_type);
    let _: [i64; 4] = [stats.ts, stats.time, stats.age, stats.replyq];
    let _: [u64; 4] = [stats.msg_cnt, stats.msg_size, stats.msg_max, stats.msg_size_max];
    let _: [i64; 10] = [
        stats.tx,
        stats.tx_bytes,
        stats.rx,
        stats.rx_bytes,
        stats.txmsgs,
        stats.txmsg_bytes,
        stats.rxmsgs,
        stats.rxmsg_bytes,
        stats.simple_cnt,
        stats.metadata_cache_cnt,
    ];
    let brokers: &HashMap<String, Broker> = &stats.brokers;
    for b in brokers.values() {
        let _: (&String, i32, &String, &String, &String) = (&b.name, b.nodeid, &b.nodename, &b.source, &b.state);
        let _: [i64; 7] =
            [b.stateage, b.outbuf_cnt, b.outbuf_msg_cnt, b.waitresp_cnt, b.waitresp_msg_cnt, b.txidle, b.rxidle];
        let _: [u64; 12] = [
            b.tx,
            b.txbytes,
            b.txerrs,
            b.txretries,
            b.req_timeouts,
            b.rx,
            b.rxbytes,
            b.rxerrs,
            b.rxcorriderrs,
            b.rxpartial,
            b.zbuf_grow,
            b.buf_grow,
        ];
        let _: (Option<u64>, Option<i64>, Option<i64>) = (b.wakeups, b.connects, b.disconnects);
        let _: [&Option<Window>; 4] = [&b.int_latency, &b.outbuf_latency, &b.rtt, &b.throttle];
        let _: &HashMap<String, i64> = &b.req;
        let toppars: &HashMap<String, TopicPartition> = &b.toppars;
        let _: Vec<(&String, i32)> = toppars.values().map(|tp| (&tp.topic, tp.partition)).collect();
        if let Some(w) = &b.rtt {
            let _: [i64; 14] = [
                w.min,
                w.max,
                w.avg,
                w.sum,
                w.cnt,
                w.stddev,
                w.hdrsize,
                w.p50,
                w.p75,
                w.p90,
                w.p95,
                w.p99,
                w.p99_99,
                w.outofrange,
            ];
        }
    }
    let topics: &HashMap<String, Topic> = &stats.topics;
    let mut lag = 0;
    for t in topics.values() {
        let _: (&String, i64, &Window, &Window) = (&t.topic, t.metadata_age, &t.batchsize, &t.batchcnt);
        let partitions: &HashMap<i32, Partition> = &t.partitions;
        for p in partitions.values() {
            let _: (i32, i32, i32, bool, bool, &String) =
                (p.partition, p.broker, p.leader, p.desired, p.unknown, &p.fetch_state);
            let _: [i64; 17] = [
                p.msgq_cnt,
                p.xmit_msgq_cnt,
                p.fetchq_cnt,
                p.query_offset,
                p.next_offset,
                p.app_offset,
                p.stored_offset,
                p.committed_offset,
                p.eof_offset,
                p.lo_offset,
                p.hi_offset,
                p.ls_offset,
                p.consumer_lag,
                p.consumer_lag_stored,
                p.msgs_inflight,
                p.next_ack_seq,
                p.next_err_seq,
            ];
            let _: [u64; 10] = [
                p.msgq_bytes,
                p.xmit_msgq_bytes,
                p.fetchq_size,
                p.txmsgs,
                p.txbytes,
                p.rxmsgs,
                p.rxbytes,
                p.msgs,
                p.rx_ver_drops,
                p.acked_msgid,
            ];
            lag += p.consumer_lag.max(0);
        }
    }
    if let Some(g) = &stats.cgrp {
        let g: &ConsumerGroup = g;
        let _: (&String, i64, &String, i64, i64, &String, i32) = (
            &g.state,
            g.stateage,
            &g.join_state,
            g.rebalance_age,
            g.rebalance_cnt,
            &g.rebalance_reason,
            g.assignment_size,
        );
    }
    if let Some(e) = &stats.eos {
        let e: &ExactlyOnceSemantics = e;
        let _: (&String, i64, &String, i64, bool) =
            (&e.idemp_state, e.idemp_stateage, &e.txn_state, e.txn_stateage, e.txn_may_enq);
        let _: [i64; 3] = [e.producer_id, e.producer_epoch, e.epoch_cnt];
    }
    let _: rdkafka::statistics::Statistics = stats.clone();
    let _ = format!("{stats:?}");
    lag
}
