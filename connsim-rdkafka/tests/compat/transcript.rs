//! Transcripts: what an application sees, one observation a line, written the same way by
//! both halves (only the API common to both is used), and the tags that mark a line whose
//! difference is a known departure of librdkafka's mock cluster from a real broker.

use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::{KafkaError, KafkaResult};
use rdkafka::message::{Headers, Message};
use rdkafka::producer::OwnedDeliveryResult;
use rdkafka::{Offset, Timestamp, TopicPartitionList};
use std::time::Duration;

/// The known departures, each a tag a script puts on the lines it affects; the comparison
/// accepts a difference in a line only under one of its tags. docs/rdkafka-compat.md says,
/// for each, what a real broker does and the KIP or Kafka source that says so.
pub mod tag {
    /// The mock's `EndTxn` writes no transaction marker (control batch): offsets after a
    /// transaction's end are one lower per marker than on a real broker.
    pub const TXN_MARKERS: &str = "mock:no-txn-markers";
    /// The mock keeps no last stable offset and no aborted transactions: a read_committed
    /// fetch or `ListOffsets` reads to the high watermark, open and aborted messages included.
    pub const ISOLATION: &str = "mock:no-read-committed";
    /// The mock's `InitProducerId` of a transactional id it knows hands out a new producer id
    /// instead of bumping the epoch of the id's producer: the older producer is not fenced.
    pub const FENCING: &str = "mock:no-fencing";
    /// The mock acknowledges `TxnOffsetCommit` without keeping the offsets: a committed
    /// transaction's offsets are not the group's.
    pub const TXN_OFFSETS: &str = "mock:txn-offsets-dropped";
    /// The mock answers every produce with a `LogAppendTime` (1234): librdkafka then reports
    /// the delivery's timestamp as `LogAppendTime`, where a topic with the default
    /// `message.timestamp.type=CreateTime` answers -1 and the delivery keeps `CreateTime`.
    pub const LOG_APPEND_TIME: &str = "mock:log-append-time";

    /// Every departure of the mock, with the one line docs/rdkafka-compat.md expands.
    pub const ALL: &[(&str, &str)] = &[
        (TXN_MARKERS, "KIP-98: every transaction's end writes a control batch that takes an offset"),
        (ISOLATION, "KIP-98: read_committed reads to the last stable offset and skips aborted transactions"),
        (FENCING, "KIP-98: InitProducerId of a known transactional id bumps its epoch, fencing older producers"),
        (TXN_OFFSETS, "KIP-98: TxnOffsetCommit's offsets become the group's when the transaction commits"),
        (LOG_APPEND_TIME, "ProduceResponse: LogAppendTimeMs is -1 for a CreateTime topic"),
    ];

    /// Open differences of the simulated half, found by the comparison and reported to be
    /// fixed there: accepted (but failed under `CONNSIM_COMPAT_STRICT`) until then, and
    /// noted when a line so tagged is equal again (the tag is then to go).
    /// (None open: every difference found so far was fixed in the simulated half; the
    /// fixes are listed in docs/rdkafka-compat.md.)
    pub const OPEN: &[(&str, &str)] = &[];

    /// Whether `t` is a departure's or an open difference's tag.
    pub fn known(t: &str) -> bool {
        ALL.iter().chain(OPEN).any(|(k, _)| *k == t)
    }
    /// Whether `t` is an open difference's tag.
    pub fn open(t: &str) -> bool {
        OPEN.iter().any(|(k, _)| *k == t)
    }
}

/// The timeout of every call that waits for the broker: generous for the mock cluster, free
/// in the simulation's virtual time.
pub const T: Duration = Duration::from_secs(10);
/// How long a read waits for its first message, and then for each next one.
const FIRST: Duration = Duration::from_secs(5);
const IDLE: Duration = Duration::from_secs(1);

/// A script's transcript: untagged lines must be equal in both runs; a tagged line may
/// differ, as its tags say why.
#[derive(Default)]
pub struct Transcript {
    lines: Vec<String>,
}

impl Transcript {
    /// An empty transcript.
    pub fn new() -> Transcript {
        Transcript::default()
    }
    /// An observation both runs must agree on.
    pub fn line(&mut self, text: impl Into<String>) {
        let text = text.into();
        assert!(!text.starts_with('['), "a line starts with its tags only: {text}");
        self.lines.push(text);
    }
    /// An observation a known departure of the mock (or an open difference of the
    /// simulated half) may change.
    pub fn departs(&mut self, tags: &[&str], text: impl Into<String>) {
        for t in tags {
            assert!(tag::known(t), "unknown tag {t}");
        }
        self.lines.push(format!("[{}] {}", tags.join(","), text.into()));
    }
    /// An observation under `tags`, if any.
    pub fn maybe(&mut self, tags: &[&str], text: impl Into<String>) {
        match tags {
            [] => self.line(text),
            tags => self.departs(tags, text),
        }
    }
    /// The lines.
    pub fn into_lines(self) -> Vec<String> {
        self.lines
    }
}

/// The tags of a transcript line and its text.
pub fn split(line: &str) -> (Vec<&str>, &str) {
    match line.strip_prefix('[').and_then(|rest| rest.split_once("] ")) {
        Some((tags, text)) => (tags.split(',').collect(), text),
        None => (Vec::new(), line),
    }
}

/// An error as the application tells errors apart: the variant, its code, and a
/// transactional error's flags (never the message, whose words differ).
#[allow(unreachable_patterns)] // rdkafka's enum is non-exhaustive
pub fn err(e: &KafkaError) -> String {
    use KafkaError::*;
    match e {
        Transaction(e) => format!(
            "Transaction({:?}, fatal={}, retriable={}, abort={})",
            e.code(),
            e.is_fatal(),
            e.is_retriable(),
            e.txn_requires_abort()
        ),
        AdminOp(c) => format!("AdminOp({c:?})"),
        ConsumerCommit(c) => format!("ConsumerCommit({c:?})"),
        ConsumerQueueClose(c) => format!("ConsumerQueueClose({c:?})"),
        Flush(c) => format!("Flush({c:?})"),
        Global(c) => format!("Global({c:?})"),
        GroupListFetch(c) => format!("GroupListFetch({c:?})"),
        MessageConsumption(c) => format!("MessageConsumption({c:?})"),
        MessageConsumptionFatal(c) => format!("MessageConsumptionFatal({c:?})"),
        MessageProduction(c) => format!("MessageProduction({c:?})"),
        MetadataFetch(c) => format!("MetadataFetch({c:?})"),
        OffsetFetch(c) => format!("OffsetFetch({c:?})"),
        Rebalance(c) => format!("Rebalance({c:?})"),
        SetPartitionOffset(c) => format!("SetPartitionOffset({c:?})"),
        StoreOffset(c) => format!("StoreOffset({c:?})"),
        MockCluster(c) => format!("MockCluster({c:?})"),
        PartitionEOF(p) => format!("PartitionEOF({p})"),
        ClientConfig(res, _, key, _) => format!("ClientConfig({res:?}, {key})"),
        AdminOpCreation(_) => "AdminOpCreation(..)".into(),
        ClientCreation(_) => "ClientCreation(..)".into(),
        PauseResume(_) => "PauseResume(..)".into(),
        Seek(_) => "Seek(..)".into(),
        Subscription(_) => "Subscription(..)".into(),
        Canceled => "Canceled".into(),
        NoMessageReceived => "NoMessageReceived".into(),
        Nul(_) => "Nul".into(),
        other => format!("other({:?})", other.rdkafka_error_code()),
    }
}

/// `Ok` or the error.
pub fn unit(r: &KafkaResult<()>) -> String {
    match r {
        Ok(()) => "Ok".into(),
        Err(e) => format!("Err {}", err(e)),
    }
}

/// How a message's timestamp is shown: its kind only (a clock's value differs between the
/// runs), or its value too (one the script gave).
#[derive(Clone, Copy)]
pub enum Ts {
    Kind,
    Value,
}

pub fn ts(t: Timestamp, shown: Ts) -> String {
    match (t, shown) {
        (Timestamp::NotAvailable, _) => "NotAvailable".into(),
        (Timestamp::CreateTime(_), Ts::Kind) => "CreateTime".into(),
        (Timestamp::LogAppendTime(_), Ts::Kind) => "LogAppendTime".into(),
        (Timestamp::CreateTime(v), Ts::Value) => format!("CreateTime({v})"),
        (Timestamp::LogAppendTime(v), Ts::Value) => format!("LogAppendTime({v})"),
    }
}

/// Bytes: `null`, a quoted string, or hex.
pub fn bytes(b: Option<&[u8]>) -> String {
    match b {
        None => "null".into(),
        Some(b) => match std::str::from_utf8(b) {
            Ok(s) => format!("{s:?}"),
            Err(_) => format!("0x{}", b.iter().map(|x| format!("{x:02x}")).collect::<String>()),
        },
    }
}

/// Headers in order: `none` when the message has none at all.
pub fn headers<H: Headers>(h: Option<&H>) -> String {
    match h {
        None => "none".into(),
        Some(h) => {
            let all: Vec<String> =
                (0..h.count()).filter_map(|i| h.try_get(i)).map(|h| format!("{}={}", h.key, bytes(h.value))).collect();
            format!("[{}]", all.join(", "))
        }
    }
}

/// A message as the application sees it.
pub fn msg<M: Message>(m: &M, shown: Ts) -> String {
    format!(
        "{}/{}@{} key={} payload={} headers={} ts={}",
        m.topic(),
        m.partition(),
        m.offset(),
        bytes(m.key()),
        bytes(m.payload()),
        headers(m.headers()),
        ts(m.timestamp(), shown)
    )
}

/// A delivery, or why not; its timestamp as `shown`, or not at all (the mock's deliveries
/// all have a `LogAppendTime`: [`tag::LOG_APPEND_TIME`], written only where a script tags it).
pub fn delivery(r: &OwnedDeliveryResult, shown: Option<Ts>) -> String {
    match r {
        Ok(d) => match shown {
            None => format!("delivered p{}@{}", d.partition, d.offset),
            Some(shown) => format!("delivered p{}@{} ts={}", d.partition, d.offset, ts(d.timestamp, shown)),
        },
        Err((e, m)) => format!("failed {} (payload {})", err(e), bytes(m.payload())),
    }
}

/// A partition list, sorted (librdkafka's order is its own), with each element's error.
pub fn tpl(l: &TopicPartitionList) -> String {
    let mut all: Vec<(String, i32, String)> = l
        .elements()
        .iter()
        .map(|e| {
            let error = match e.error() {
                Ok(()) => String::new(),
                Err(x) => format!(" !{}", err(&x)),
            };
            (e.topic().to_string(), e.partition(), format!("{:?}{error}", e.offset()))
        })
        .collect();
    all.sort();
    let all: Vec<String> = all.into_iter().map(|(t, p, o)| format!("{t}/{p}={o}")).collect();
    format!("[{}]", all.join(" "))
}

/// A partition list result.
pub fn tpl_result(r: &KafkaResult<TopicPartitionList>) -> String {
    match r {
        Ok(l) => tpl(l),
        Err(e) => format!("Err {}", err(e)),
    }
}

/// One list of partitions at their offsets.
pub fn list(parts: &[(&str, i32, Offset)]) -> TopicPartitionList {
    let mut l = TopicPartitionList::new();
    for (t, p, o) in parts {
        l.add_partition_offset(t, *p, *o).expect("an offset librdkafka takes");
    }
    l
}

/// Everything a consumer returns until it has returned nothing for a while: the messages
/// and errors in order, on one line.
pub async fn drain<C: ConsumerContext + 'static>(c: &BaseConsumer<C>, shown: Ts) -> String {
    let mut seen = Vec::new();
    let mut wait = FIRST;
    while let Some(r) = c.poll(wait).await {
        seen.push(match r {
            Ok(m) => msg(&m, shown),
            Err(e) => format!("error {}", err(&e)),
        });
        wait = IDLE;
        if seen.len() == 50 {
            seen.push("(and more)".into());
            break;
        }
    }
    format!("{} read: {}", seen.len(), seen.join(" | "))
}

/// The next thing a consumer returns, or `none` within `wait`.
pub async fn next<C: ConsumerContext + 'static>(c: &BaseConsumer<C>, wait: Duration, shown: Ts) -> String {
    match c.poll(wait).await {
        None => "none".into(),
        Some(Ok(m)) => msg(&m, shown),
        Some(Err(e)) => format!("error {}", err(&e)),
    }
}

/// A partition's watermarks, as the consumer's isolation level sees them.
pub async fn watermarks<C: ConsumerContext + 'static>(c: &BaseConsumer<C>, topic: &str, partition: i32) -> String {
    match c.fetch_watermarks(topic, partition, T).await {
        Ok((low, high)) => format!("low={low} high={high}"),
        Err(e) => format!("Err {}", err(&e)),
    }
}
