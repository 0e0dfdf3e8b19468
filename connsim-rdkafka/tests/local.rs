//! rdkafka's and librdkafka's rules for what a client computes locally, each test naming the
//! rule it checks and failing if the rule breaks: error codes and their texts, errors,
//! headers and messages, timestamps, partition lists, timeouts, the version and runtimes.
#![cfg(madsim)]

use connsim::systems::{KafkaCode, TxnProtocol};
use rdkafka::error::{IsError, KafkaError, RDKafkaErrorCode};
use rdkafka::message::{BorrowedHeaders, Header, Headers, OwnedHeaders, OwnedMessage};
use rdkafka::producer::{FutureRecord, Producer};
use rdkafka::types::RDKafkaRespErr;
use rdkafka::util::{AsyncRuntime, DefaultRuntime, IntoOpaque, Timeout};
use rdkafka::{Message, Offset, Timestamp, TopicPartitionList};
use std::collections::HashMap;
use std::error::Error;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

extern crate connsim_rdkafka as rdkafka;

mod common;
use common::*;

/// rdkafka-sys prints a code as `{:?} ({})` with `rd_kafka_err2str`'s description, from
/// librdkafka 2.12.1's `rd_kafka_err_descs[]`.
#[test]
fn librdkafka_prints_an_error_codes_description() {
    let printed = |code: RDKafkaErrorCode| code.to_string();
    assert_eq!(printed(RDKafkaErrorCode::PartitionEOF), "PartitionEOF (Broker: No more messages)");
    assert_eq!(printed(RDKafkaErrorCode::NoError), "NoError (Success)");
    assert_eq!(printed(RDKafkaErrorCode::Unknown), "Unknown (Unknown broker error)");
    assert_eq!(printed(RDKafkaErrorCode::State), "State (Local: Erroneous state)");
    assert_eq!(
        printed(RDKafkaErrorCode::ProducerFenced),
        "ProducerFenced (Broker: There is a newer producer with the same transactionalId which fences the current one)"
    );
    assert_eq!(
        printed(RDKafkaErrorCode::InvalidTransactionTimeout),
        "InvalidTransactionTimeout (Broker: Transaction timeout is larger than the maximum value allowed by the \
         broker's max.transaction.timeout.ms)"
    );
    assert_eq!(
        printed(RDKafkaErrorCode::RebootstrapRequired),
        "RebootstrapRequired (Broker: Client metadata is stale, client should rebootstrap to obtain new metadata)"
    );
}

/// `rd_kafka_err2str` answers `Err-<code>?` for a code without a description: librdkafka's
/// sentinels `_BEGIN`, `_END` and `END_ALL`.
#[test]
fn librdkafka_prints_a_code_without_a_description_as_its_number() {
    assert_eq!(RDKafkaErrorCode::Begin.to_string(), "Begin (Err--200?)");
    assert_eq!(RDKafkaErrorCode::End.to_string(), "End (Err--100?)");
    assert_eq!(RDKafkaErrorCode::EndAll.to_string(), "EndAll (Err-130?)");
}

/// rdkafka-sys's `RDKafkaRespErr` is librdkafka's `rd_kafka_resp_err_t`, numbers -200 to 130
/// with gaps, and each converts to the `RDKafkaErrorCode` of the same number.
#[test]
fn rdkafka_sys_converts_each_response_error_to_the_code_of_its_number() {
    let errs: Vec<RDKafkaRespErr> = (-300..300).filter_map(|n| RDKafkaRespErr::try_from(n).ok()).collect();
    assert_eq!(errs.len(), 173, "rd_kafka_resp_err_t has 173 values");
    for err in errs {
        assert_eq!(RDKafkaErrorCode::from(err) as i32, err as i32, "{err:?}");
    }
    let gap = RDKafkaRespErr::try_from(-136).unwrap_err();
    assert_eq!(gap.to_string(), "No discriminant in enum `rd_kafka_resp_err_t` matches the value `-136`");
}

/// The response errors have librdkafka's C names and numbers, as a rebalance callback matches
/// on them.
#[test]
fn rdkafka_sys_response_errors_have_librdkafkas_c_names() {
    let assign = RDKafkaRespErr::RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS;
    assert_eq!((format!("{assign:?}"), assign as i32), ("RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS".into(), -175));
    assert_eq!(RDKafkaErrorCode::from(assign), RDKafkaErrorCode::AssignPartitions);
    assert_eq!(RDKafkaRespErr::RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS as i32, -174);
    let renamed = RDKafkaErrorCode::from(RDKafkaRespErr::RD_KAFKA_RESP_ERR_INVALID_TXN_STATE);
    assert_eq!(renamed, RDKafkaErrorCode::InvalidTransactionalState);
}

/// Each of the log's Kafka codes is the librdkafka code of the same name.
#[test]
fn a_logs_error_code_is_the_rdkafka_code_of_its_name() {
    let pairs = [
        (KafkaCode::InvalidTxnState, RDKafkaErrorCode::InvalidTransactionalState),
        (KafkaCode::ProducerFenced, RDKafkaErrorCode::ProducerFenced),
        (KafkaCode::UnknownMemberId, RDKafkaErrorCode::UnknownMemberId),
        (KafkaCode::UnstableOffsetCommit, RDKafkaErrorCode::UnstableOffsetCommit),
    ];
    for (code, expected) in pairs {
        assert_eq!(RDKafkaErrorCode::from(code), expected);
    }
}

/// rdkafka's `KafkaError` displays as `<what> error: <code>` and debugs as
/// `KafkaError (<display>)`, but for the variants it words differently.
#[test]
fn rdkafka_kafka_errors_display_and_debug_as_rdkafkas() {
    let texts = |e: KafkaError| (e.to_string(), format!("{e:?}"));
    let eof = "PartitionEOF (Broker: No more messages)";
    assert_eq!(
        texts(KafkaError::MessageConsumption(RDKafkaErrorCode::PartitionEOF)),
        (format!("Message consumption error: {eof}"), format!("KafkaError (Message consumption error: {eof})"))
    );
    assert_eq!(
        texts(KafkaError::MetadataFetch(RDKafkaErrorCode::PartitionEOF)),
        (format!("Meta data fetch error: {eof}"), format!("KafkaError (Metadata fetch error: {eof})"))
    );
    assert_eq!(
        texts(KafkaError::MessageConsumptionFatal(RDKafkaErrorCode::PartitionEOF)),
        (
            format!("(Fatal) Message consumption error: {eof}"),
            format!("(Fatal) KafkaError (Message consumption error: {eof})")
        )
    );
    assert_eq!(
        texts(KafkaError::Canceled),
        ("KafkaError (Client dropped)".into(), "KafkaError (Client dropped)".into())
    );
    let none = "No message received within the given poll interval";
    assert_eq!(texts(KafkaError::NoMessageReceived), (none.into(), none.into()));
    assert_eq!(texts(KafkaError::PartitionEOF(3)), ("Partition EOF: 3".into(), "KafkaError (Partition EOF: 3)".into()));
    let nul = std::ffi::CString::new("a\0b").unwrap_err();
    assert_eq!(texts(KafkaError::from(nul)), ("FFI nul error".into(), "FFI null error".into()));
}

/// rdkafka returns no code for an admin operation's error (nor gives it as the source), and
/// every other code it holds, a transactional error's too.
#[test]
fn rdkafka_an_admin_operations_error_has_no_rdkafka_error_code() {
    let admin = KafkaError::AdminOp(RDKafkaErrorCode::TopicAlreadyExists);
    assert_eq!((admin.rdkafka_error_code(), admin.source().is_none()), (None, true));
    let mock = KafkaError::MockCluster(RDKafkaErrorCode::Fail);
    assert_eq!(mock.rdkafka_error_code(), Some(RDKafkaErrorCode::Fail));
    let commit = KafkaError::ConsumerCommit(RDKafkaErrorCode::RebalanceInProgress);
    assert_eq!(commit.source().map(ToString::to_string), Some(RDKafkaErrorCode::RebalanceInProgress.to_string()));
    assert_eq!(KafkaError::Seek("x".into()).rdkafka_error_code(), None);
}

/// librdkafka's `rd_kafka_error_t` prints its message (`rd_kafka_error_string`), debugs as
/// `RDKafkaError(<message>)`, names its code as `rd_kafka_err2name` does, and is equal to an
/// error of the same code.
#[test]
fn librdkafka_a_transactional_error_prints_its_message() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p = transactional("twice");
        p.init_transactions(T).await.unwrap();
        let Err(KafkaError::Transaction(e)) = p.init_transactions(T).await else { panic!("a second init succeeded") };
        assert_eq!((e.code(), e.name(), e.is_error()), (RDKafkaErrorCode::State, "_STATE".to_string(), true));
        assert!(!e.string().is_empty());
        assert_eq!(e.to_string(), e.string());
        assert_eq!(format!("{e:?}"), format!("RDKafkaError({})", e.string()));
        assert_eq!(KafkaError::Transaction(e.clone()).to_string(), format!("Transaction error: {}", e.string()));
    });
}

/// rdkafka's `IsError`: a response error or configuration result is an error unless it is
/// success.
#[test]
fn rdkafka_is_error_is_anything_but_success() {
    assert!(!RDKafkaRespErr::RD_KAFKA_RESP_ERR_NO_ERROR.is_error());
    assert!(RDKafkaRespErr::RD_KAFKA_RESP_ERR__PARTITION_EOF.is_error());
    assert!(!rdkafka::types::RDKafkaConfRes::RD_KAFKA_CONF_OK.is_error());
    assert!(rdkafka::types::RDKafkaConfRes::RD_KAFKA_CONF_UNKNOWN.is_error());
}

/// rdkafka's timestamps are milliseconds since the epoch; `Timestamp::now` reads the clock,
/// madsim's in the simulation.
#[test]
fn timestamps_are_milliseconds_since_the_epoch() {
    let rt = madsim::runtime::Runtime::with_seed_and_config(1, madsim::Config::default());
    let (now, clock) = rt.block_on(async { (Timestamp::now(), rdkafka::util::current_time_millis()) });
    let millis = now.to_millis().unwrap();
    let year = 1970 + millis / 31_556_952_000; // Milliseconds in a Gregorian year.
    assert!((2000..2100).contains(&year), "{now:?} is in {year}");
    assert!(matches!(now, Timestamp::CreateTime(_)) && (0..1000).contains(&(clock - millis)), "{now:?}, {clock}");
    let at = UNIX_EPOCH + Duration::from_millis(1_650_000_000_123);
    assert_eq!(Timestamp::from(at), Timestamp::CreateTime(1_650_000_000_123));
    assert_eq!(rdkafka::util::millis_to_epoch(UNIX_EPOCH - Duration::from_secs(1)), 0);
    assert_eq!((Timestamp::CreateTime(-1).to_millis(), Timestamp::LogAppendTime(5).to_millis()), (None, Some(5)));
    assert_eq!(Timestamp::from(7), Timestamp::CreateTime(7));
}

fn headers() -> OwnedHeaders {
    OwnedHeaders::new()
        .insert(Header { key: "text", value: Some("v1") })
        .insert(Header { key: "null", value: None::<&[u8]> })
        .insert(Header { key: "empty", value: Some("") })
        .insert(Header { key: "bytes", value: Some(&[0xff_u8][..]) })
}

/// rdkafka reads headers by index, raw or viewed as a type; a null value is `None`, an empty
/// one is not.
#[test]
fn rdkafka_reads_headers_by_index_and_as_a_type() {
    let h = headers();
    assert_eq!(h.count(), 4);
    assert_eq!(h.get(0), Header { key: "text", value: Some(&b"v1"[..]) });
    assert_eq!(h.get_as::<str>(0), Ok(Header { key: "text", value: Some("v1") }));
    assert_eq!(h.get_as::<str>(1), Ok(Header { key: "null", value: None }));
    assert_eq!(h.get_as::<str>(2), Ok(Header { key: "empty", value: Some("") }));
    assert!(h.try_get_as::<str>(3).unwrap().is_err(), "0xff is no UTF-8");
    assert!(h.try_get(4).is_none() && h.try_get_as::<str>(4).is_none());
    let keys: Vec<&str> = h.iter().map(|h| h.key).collect();
    assert_eq!(keys, ["text", "null", "empty", "bytes"]);
    let borrowed: &BorrowedHeaders = h.as_borrowed();
    assert_eq!((borrowed.count(), borrowed.detach().get(3)), (4, h.get(3)));
}

/// rdkafka panics on a header index past the end, naming the count.
#[test]
#[should_panic(expected = "headers index out of bounds: the count is 4 but the index is 4")]
fn rdkafka_panics_on_a_header_index_past_the_end() {
    headers().get(4);
}

/// rdkafka reads a header's key as librdkafka's NUL-terminated name: it ends at its first NUL.
#[test]
fn librdkafka_a_header_key_ends_at_its_first_nul() {
    let h = OwnedHeaders::new().insert(Header { key: "a\0b", value: Some("v") });
    assert_eq!(h.get(0).key, "a");
}

/// rdkafka's `OwnedMessage` setters replace each part, `None` removing it.
#[test]
fn rdkafka_owned_message_setters_replace_each_part() {
    let m =
        OwnedMessage::new(Some(b"p".to_vec()), Some(b"k".to_vec()), "t".into(), Timestamp::NotAvailable, 0, 1, None);
    let mut m = m
        .set_payload(None)
        .set_key(Some(b"k2".to_vec()))
        .set_topic("u".into())
        .set_timestamp(Timestamp::LogAppendTime(9))
        .set_partition(2)
        .set_offset(3)
        .replace_headers(Some(headers()));
    assert_eq!((m.payload(), m.key(), m.topic()), (None, Some(&b"k2"[..]), "u"));
    assert_eq!((m.timestamp(), m.partition(), m.offset()), (Timestamp::LogAppendTime(9), 2, 3));
    assert_eq!(m.headers().map(Headers::count), Some(4));
    assert_eq!(m.detach_headers().map(|h| h.count()), Some(4));
    assert!(m.replace_headers(None).headers().is_none());
}

/// A consumed message's headers are `BorrowedHeaders`, which detach to `OwnedHeaders`, and
/// `None` for a message without any (librdkafka's `RD_KAFKA_RESP_ERR__NOENT`); its key and
/// payload lengths are 0 when it has none.
#[test]
fn rdkafka_a_consumed_message_borrows_its_headers_and_detaches_them() {
    sim(TxnProtocol::Classic, |_log, _h, _client| async move {
        let p: rdkafka::producer::FutureProducer = config(&[]).create().unwrap();
        let with = FutureRecord::<str, str>::to("t").partition(0).key("key").payload("with").headers(headers());
        p.send(with, T).await.unwrap();
        p.send(FutureRecord::<str, str>::to("t").partition(0), T).await.unwrap();
        let c = assigned(&[], 0, Offset::Beginning);
        let m = c.poll(T).await.unwrap().unwrap();
        let borrowed: &BorrowedHeaders = m.headers().expect("the message has headers");
        let owned: OwnedHeaders = borrowed.detach();
        assert_eq!((owned.count(), owned.get_as::<str>(0)), (4, Ok(Header { key: "text", value: Some("v1") })));
        assert_eq!((m.key_len(), m.payload_len(), m.detach().headers().map(|h| h.count())), (3, 4, Some(4)));
        let bare = c.poll(T).await.unwrap().unwrap();
        assert!(bare.headers().is_none());
        assert_eq!((bare.key_len(), bare.payload_len()), (0, 0));
    });
}

/// rdkafka's `Offset::to_raw` has no number for a negative offset or a tail below 1, and a list
/// refuses one with `SetPartitionOffset(InvalidArgument)`: the partition `add_partition_offset`
/// added stays, with an invalid offset.
#[test]
fn an_unrepresentable_offset_in_a_list_is_invalid_argument() {
    let invalid = Err(KafkaError::SetPartitionOffset(RDKafkaErrorCode::InvalidArgument));
    let mut tpl = TopicPartitionList::new();
    for (partition, offset) in [(0, Offset::OffsetTail(-1)), (1, Offset::Offset(-5)), (2, Offset::OffsetTail(0))] {
        assert_eq!(tpl.add_partition_offset("t", partition, offset), invalid, "{offset:?}");
    }
    assert_eq!(tpl.count(), 3);
    assert!(tpl.elements().iter().all(|e| e.offset() == Offset::Invalid));
    assert_eq!(tpl.set_partition_offset("t", 0, Offset::Offset(-1)), invalid);
    let mut elem = tpl.add_partition("t", 3);
    assert_eq!(elem.set_offset(Offset::OffsetTail(-3)), invalid);
}

/// librdkafka's `rd_kafka_topic_partition_list_set_offset` answers `_UNKNOWN_PARTITION` for a
/// partition not in the list.
#[test]
fn setting_the_offset_of_an_unlisted_partition_is_unknown_partition() {
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition("t", 0);
    let unknown = Err(KafkaError::SetPartitionOffset(RDKafkaErrorCode::UnknownPartition));
    assert_eq!(tpl.set_partition_offset("t", 1, Offset::Beginning), unknown);
    assert_eq!(tpl.set_partition_offset("u", 0, Offset::Beginning), unknown);
}

/// librdkafka's tail offsets are `-2000 - n`, from the 1st before the end: `-2000` reads as a
/// tail of 0, which has no number.
#[test]
fn librdkafka_offset_tails_count_from_one() {
    assert_eq!((Offset::OffsetTail(1).to_raw(), Offset::from_raw(-2001)), (Some(-2001), Offset::OffsetTail(1)));
    assert_eq!((Offset::from_raw(-2000), Offset::OffsetTail(0).to_raw()), (Offset::OffsetTail(0), None));
    assert_eq!(Offset::from_raw(-1001), Offset::Invalid);
    assert_eq!(Offset::Stored.to_raw(), Some(-1000));
}

/// `rd_kafka_topic_partition_list_grow`: a full list grows by the larger of its size and 32,
/// or by one while its size is at most 1; a copy keeps the size.
#[test]
fn librdkafka_grows_a_full_list_by_at_least_32() {
    let capacities = |mut tpl: TopicPartitionList, adds: i32| -> Vec<usize> {
        let mut capacities = Vec::new();
        for partition in 0..adds {
            tpl.add_partition("t", partition);
            capacities.push(tpl.capacity());
        }
        capacities
    };
    assert_eq!(TopicPartitionList::new().capacity(), 5);
    assert_eq!(capacities(TopicPartitionList::new(), 6), [5, 5, 5, 5, 5, 37]);
    assert_eq!(capacities(TopicPartitionList::with_capacity(0), 3), [1, 2, 34]);
    assert_eq!(capacities(TopicPartitionList::with_capacity(40), 41)[40], 80);
    let mut tpl = TopicPartitionList::with_capacity(7);
    tpl.add_partition_range("t", 0, 2);
    assert_eq!((tpl.clone().capacity(), tpl.clone().count()), (7, 3));
}

/// rdkafka's list elements write their offset and metadata into the list, also when the list
/// was only borrowed.
#[test]
fn an_element_writes_its_offset_and_metadata_into_the_list() {
    let mut tpl = TopicPartitionList::new();
    let mut added = tpl.add_partition("t", 0);
    added.set_offset(Offset::Offset(4)).unwrap();
    added.set_metadata("m");
    assert_eq!((added.offset(), added.metadata(), added.error()), (Offset::Offset(4), "m", Ok(())));
    tpl.add_partition("t", 1);
    let shared = &tpl;
    for mut e in shared.elements() {
        e.set_offset(Offset::End).unwrap();
    }
    shared.find_partition("t", 1).unwrap().set_metadata("n");
    let found = tpl.find_partition("t", 0).unwrap();
    assert_eq!((found.offset(), found.metadata()), (Offset::End, "m"));
    assert_eq!(tpl.find_partition("t", 1).unwrap().metadata(), "n");
    assert_eq!(tpl.clone().find_partition("t", 1).unwrap().metadata(), "n");
}

/// librdkafka appends a partition added twice, and finds (and sets) its first entry.
#[test]
fn librdkafka_lists_a_partition_added_twice_twice_and_finds_the_first() {
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset("t", 0, Offset::Offset(1)).unwrap();
    tpl.add_partition("t", 0);
    assert_eq!(tpl.count(), 2);
    assert_eq!(tpl.find_partition("t", 0).unwrap().offset(), Offset::Offset(1));
    tpl.set_partition_offset("t", 0, Offset::Offset(2)).unwrap();
    let offsets: Vec<Offset> = tpl.elements_for_topic("t").iter().map(|e| e.offset()).collect();
    assert_eq!(offsets, [Offset::Offset(2), Offset::Invalid]);
    assert_eq!(tpl.to_topic_map()[&("t".to_string(), 0)], Offset::Invalid, "the map has the last entry");
}

/// rdkafka's lists are equal when they have as many entries and each equals the other's first
/// entry of its partition: order aside, metadata counting.
#[test]
fn rdkafka_lists_are_equal_by_their_entries_in_any_order() {
    let list = |pairs: &[(i32, i64)]| -> TopicPartitionList {
        pairs.iter().map(|&(p, o)| ("t".to_string(), p, Offset::Offset(o))).collect()
    };
    assert_eq!(list(&[(0, 1), (1, 2)]), list(&[(1, 2), (0, 1)]));
    assert_ne!(list(&[(0, 1), (1, 2)]), list(&[(0, 1), (1, 3)]));
    assert_ne!(list(&[(0, 1)]), list(&[(0, 1), (1, 2)]));
    let with_metadata = list(&[(0, 1)]);
    with_metadata.find_partition("t", 0).unwrap().set_metadata("m");
    assert_ne!(with_metadata, list(&[(0, 1)]));
}

/// rdkafka debugs a list as the list of its entries, each with its error.
#[test]
fn rdkafka_prints_a_list_as_its_entries() {
    let tpl: TopicPartitionList = [(("t".to_string(), 0), Offset::Offset(1))].into_iter().collect();
    let expected =
        r#"[TopicPartitionListElem { topic: "t", partition: 0, offset: Offset(1), metadata: "", error: Ok(()) }]"#;
    assert_eq!(format!("{tpl:?}"), expected);
}

/// rdkafka panics when a list is collected with an offset librdkafka cannot represent.
#[test]
#[should_panic(expected = "failed to set offset via collect() for t:0 (offset: OffsetTail(0)): KafkaError (Set \
                           partition offset error: InvalidArgument (Local: Invalid argument or configuration))")]
fn rdkafka_collecting_an_unrepresentable_offset_panics() {
    let _: TopicPartitionList = [("t".to_string(), 0, Offset::OffsetTail(0))].into_iter().collect();
}

/// rdkafka builds a list from a topic map, failing on an unrepresentable offset; a topic
/// without a partition is listed with partition -1 (`RD_KAFKA_PARTITION_UA`).
#[test]
fn rdkafka_builds_a_list_from_a_topic_map() {
    let map: HashMap<(String, i32), Offset> =
        [(("t".into(), 1), Offset::End), (("t".into(), 0), Offset::Beginning), (("s".into(), 0), Offset::Stored)]
            .into();
    let tpl = TopicPartitionList::from_topic_map(&map).unwrap();
    assert_eq!((tpl.count(), tpl.capacity(), tpl.to_topic_map()), (3, 3, map.clone()));
    let mut bad = map;
    bad.insert(("u".into(), 0), Offset::Offset(-2));
    assert_eq!(
        TopicPartitionList::from_topic_map(&bad),
        Err(KafkaError::SetPartitionOffset(RDKafkaErrorCode::InvalidArgument))
    );
    let mut tpl = TopicPartitionList::new();
    assert_eq!(tpl.add_topic_unassigned("t").partition(), -1);
}

/// rdkafka's `set_all_offsets` refuses an unrepresentable offset, changing nothing, but on an
/// empty list.
#[test]
fn rdkafka_sets_every_offset_of_a_list_unless_one_is_unrepresentable() {
    assert_eq!(TopicPartitionList::new().set_all_offsets(Offset::Offset(-1)), Ok(()));
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_range("t", 0, 1);
    let invalid = Err(KafkaError::SetPartitionOffset(RDKafkaErrorCode::InvalidArgument));
    assert_eq!(tpl.set_all_offsets(Offset::Offset(-1)), invalid);
    assert!(tpl.elements().iter().all(|e| e.offset() == Offset::Invalid));
    tpl.set_all_offsets(Offset::Beginning).unwrap();
    assert!(tpl.elements().iter().all(|e| e.offset() == Offset::Beginning));
}

/// rdkafka-sys 4.10.0 builds librdkafka 2.12.1: `rd_kafka_version()` 0x020c01ff.
#[test]
fn rdkafka_reports_librdkafka_2_12_1() {
    assert_eq!(rdkafka::util::get_rdkafka_version(), (0x020c01ff, "2.12.1".to_string()));
}

/// rdkafka's timeouts: from a duration or an option of one (`None` never times out), ordered
/// with `Never` last, shortened by subtraction (`Never` stays so).
#[test]
fn rdkafka_timeouts_convert_order_and_subtract() {
    let second = Duration::from_secs(1);
    assert_eq!((Timeout::from(second), Timeout::from(None)), (Timeout::After(second), Timeout::Never));
    assert!(Timeout::After(Duration::MAX) < Timeout::Never);
    let mut t = Timeout::After(3 * second);
    t -= Timeout::After(second);
    assert_eq!(t, Timeout::After(2 * second));
    let mut never = Timeout::Never;
    never -= Timeout::After(second);
    assert_eq!(never, Timeout::Never);
}

/// rdkafka panics when `Timeout::Never` is subtracted.
#[test]
#[should_panic(expected = "subtraction of Timeout::Never is ill-defined")]
fn rdkafka_subtracting_timeout_never_panics() {
    let mut t = Timeout::After(Duration::from_secs(1));
    t -= Timeout::Never;
}

/// rdkafka's default runtime is tokio's: in the simulation, madsim's, its sleeps on the
/// simulated clock and its tasks on the current node.
#[test]
fn the_default_runtime_sleeps_and_spawns_on_the_simulator() {
    let rt = madsim::runtime::Runtime::with_seed_and_config(1, madsim::Config::default());
    rt.block_on(async {
        let (started, wall) = (madsim::time::Instant::now(), SystemTime::now());
        DefaultRuntime::delay_for(Duration::from_secs(3600)).await;
        assert!((3600..3601).contains(&started.elapsed().as_secs()), "{:?}", started.elapsed());
        assert!(SystemTime::now().duration_since(wall).unwrap() >= Duration::from_secs(3600));
        let (tx, rx) = futures::channel::oneshot::channel();
        DefaultRuntime::spawn(async move { tx.send(7).unwrap() });
        assert_eq!(rx.await, Ok(7));
    });
}

/// rdkafka's opaques round-trip through librdkafka's pointer.
#[test]
fn rdkafka_an_opaque_round_trips_through_its_pointer() {
    // SAFETY: each pointer comes from `into_ptr` and is converted back once.
    unsafe {
        assert_eq!(*Box::<u32>::from_ptr(Box::new(5_u32).into_ptr()), 5);
        assert_eq!(*std::sync::Arc::<u32>::from_ptr(std::sync::Arc::new(6_u32).into_ptr()), 6);
        assert_eq!(usize::from_ptr(7_usize.into_ptr()), 7);
        assert!(().into_ptr().is_null());
    }
}
