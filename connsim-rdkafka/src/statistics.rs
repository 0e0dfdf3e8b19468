//! `rdkafka::statistics`: the statistics a client reports every `statistics.interval.ms`.
//!
//! librdkafka emits a JSON document (its `STATISTICS.md`) to the context's
//! [`ClientContext::stats_raw`], whose default parses it into a [`Statistics`] for
//! [`ClientContext::stats`]. The types here are rdkafka 0.39's, field for field, so a context
//! reads the same fields in the simulation and against a real broker.
//!
//! A simulated client fills in what it knows (its queue and bounds, its request and message
//! counters, its partitions' offsets and lag, its consumer group and its idempotent or
//! transactional state) and reports librdkafka's values for "unknown" elsewhere: 0 for
//! counters, gauges and latency windows, -1001 (`RD_KAFKA_OFFSET_INVALID`) for offsets, -1
//! for lags, idle times and epochs that are not known, empty strings and maps.
//!
//! [`ClientContext::stats_raw`]: crate::ClientContext::stats_raw
//! [`ClientContext::stats`]: crate::ClientContext::stats

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// What a client reports about itself, its brokers, topics, group and transactions.
#[derive(Serialize, Deserialize, Debug, Default, Clone)]
pub struct Statistics {
    /// The client's instance name (`rdkafka#producer-1`).
    pub name: String,
    /// Its `client.id`, as configured or defaulted.
    pub client_id: String,
    /// `producer` or `consumer` (`type` in the JSON).
    #[serde(rename = "type")]
    pub client_type: String,
    /// librdkafka's monotonic clock, in microseconds.
    pub ts: i64,
    /// The wall clock, in seconds since the Unix epoch.
    pub time: i64,
    /// Microseconds since the client was created.
    pub age: i64,
    /// Operations (callbacks, events) queued for the application to serve by polling.
    pub replyq: i64,
    /// Messages in the producer's queues now.
    pub msg_cnt: u64,
    /// Bytes of the messages in the producer's queues now.
    pub msg_size: u64,
    /// The bound on `msg_cnt` (`queue.buffering.max.messages`).
    pub msg_max: u64,
    /// The bound on `msg_size` (`queue.buffering.max.kbytes`, in bytes).
    pub msg_size_max: u64,
    /// Requests sent to brokers, in total.
    pub tx: i64,
    /// Bytes sent to brokers, in total.
    pub tx_bytes: i64,
    /// Responses received from brokers, in total.
    pub rx: i64,
    /// Bytes received from brokers, in total.
    pub rx_bytes: i64,
    /// Messages produced to brokers, in total.
    pub txmsgs: i64,
    /// Bytes of the messages produced to brokers, framing included.
    pub txmsg_bytes: i64,
    /// Messages consumed from brokers, not counting the ones ignored (before the offset
    /// asked for, for instance).
    pub rxmsgs: i64,
    /// Bytes of the messages consumed from brokers, framing included.
    pub rxmsg_bytes: i64,
    /// librdkafka's internal count of legacy and new consumer API use.
    pub simple_cnt: i64,
    /// Topics in the metadata cache.
    pub metadata_cache_cnt: i64,
    /// The brokers, by name (`host:port/id`).
    pub brokers: HashMap<String, Broker>,
    /// The topics the client uses, by name.
    pub topics: HashMap<String, Topic>,
    /// The consumer group, for a consumer with a `group.id`.
    pub cgrp: Option<ConsumerGroup>,
    /// The idempotent and transactional producer's state, for an idempotent producer.
    pub eos: Option<ExactlyOnceSemantics>,
}

/// What a client reports about one broker.
#[derive(Serialize, Deserialize, Debug, Default, Clone)]
pub struct Broker {
    /// `host:port/id`.
    pub name: String,
    /// The broker id, -1 for a bootstrap broker.
    pub nodeid: i32,
    /// `host:port`.
    pub nodename: String,
    /// Where the client learned of it: `learned`, `configured`, `internal` or `logical`.
    pub source: String,
    /// The connection's state: `INIT`, `DOWN`, `CONNECT`, `AUTH`, `APIVERSION_QUERY`,
    /// `AUTH_HANDSHAKE`, `UP` or `UPDATE`.
    pub state: String,
    /// Microseconds since `state` last changed.
    pub stateage: i64,
    /// Requests waiting to be sent.
    pub outbuf_cnt: i64,
    /// Messages waiting to be sent.
    pub outbuf_msg_cnt: i64,
    /// Requests sent and waiting for their response.
    pub waitresp_cnt: i64,
    /// Messages sent and waiting for their response.
    pub waitresp_msg_cnt: i64,
    /// Requests sent.
    pub tx: u64,
    /// Bytes sent.
    pub txbytes: u64,
    /// Errors sending.
    pub txerrs: u64,
    /// Requests retried.
    pub txretries: u64,
    /// Microseconds since the connection last sent, -1 before it sent anything.
    pub txidle: i64,
    /// Requests that timed out.
    pub req_timeouts: u64,
    /// Responses received.
    pub rx: u64,
    /// Bytes received.
    pub rxbytes: u64,
    /// Errors receiving.
    pub rxerrs: u64,
    /// Responses whose correlation id matched no request (mostly requests that timed out).
    pub rxcorriderrs: u64,
    /// Partial message sets received (a fetch response too small for the whole set).
    pub rxpartial: u64,
    /// Microseconds since the connection last received, -1 before it received anything.
    pub rxidle: i64,
    /// Requests sent, by request type (`Produce`, `Fetch`, `Metadata`, …).
    pub req: HashMap<String, i64>,
    /// Times a decompression buffer grew.
    pub zbuf_grow: u64,
    /// Times a buffer grew (deprecated, always 0).
    pub buf_grow: u64,
    /// Wake-ups of the broker thread's poll loop.
    pub wakeups: Option<u64>,
    /// Connection attempts, failed ones and failed name resolutions included.
    pub connects: Option<i64>,
    /// Disconnections, whatever caused them.
    pub disconnects: Option<i64>,
    /// The producer's internal queue latency, in microseconds.
    pub int_latency: Option<Window>,
    /// How long requests wait in the send queue before they are written to the socket, in
    /// microseconds.
    pub outbuf_latency: Option<Window>,
    /// Round-trip times, in microseconds.
    pub rtt: Option<Window>,
    /// Throttling times the broker asked for, in milliseconds.
    pub throttle: Option<Window>,
    /// The partitions this broker leads, by `topic-partition`.
    pub toppars: HashMap<String, TopicPartition>,
}

/// A rolling window of samples, summarized by librdkafka's HDR histogram (estimates, not
/// exact values).
#[derive(Serialize, Deserialize, Debug, Default, Clone)]
pub struct Window {
    /// The smallest sample.
    pub min: i64,
    /// The largest sample.
    pub max: i64,
    /// The mean.
    pub avg: i64,
    /// The samples' sum.
    pub sum: i64,
    /// How many samples.
    pub cnt: i64,
    /// The standard deviation.
    pub stddev: i64,
    /// The histogram's memory size.
    pub hdrsize: i64,
    /// The median.
    pub p50: i64,
    /// The 75th percentile.
    pub p75: i64,
    /// The 90th percentile.
    pub p90: i64,
    /// The 95th percentile.
    pub p95: i64,
    /// The 99th percentile.
    pub p99: i64,
    /// The 99.99th percentile.
    pub p99_99: i64,
    /// Samples left out of the histogram, out of its range.
    pub outofrange: i64,
}

/// A partition a broker leads.
#[derive(Serialize, Deserialize, Debug, Default, Clone)]
pub struct TopicPartition {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
}

/// What a client reports about one topic.
#[derive(Serialize, Deserialize, Debug, Default, Clone)]
pub struct Topic {
    /// The topic.
    pub topic: String,
    /// Milliseconds since the client last had metadata for the topic.
    pub metadata_age: i64,
    /// Produced batches' sizes, in bytes.
    pub batchsize: Window,
    /// Produced batches' message counts.
    pub batchcnt: Window,
    /// The partitions, by id; -1 is librdkafka's unassigned partition, where a producer's
    /// messages wait for the partitioner.
    pub partitions: HashMap<i32, Partition>,
}

/// What a client reports about one partition.
#[derive(Serialize, Deserialize, Debug, Default, Clone)]
pub struct Partition {
    /// The partition id (-1: the unassigned partition).
    pub partition: i32,
    /// The broker the client fetches from, -1 if none.
    pub broker: i32,
    /// The leader's broker id, -1 if not known.
    pub leader: i32,
    /// Whether the application asked for this partition explicitly.
    pub desired: bool,
    /// Whether the broker's metadata lacks this partition.
    pub unknown: bool,
    /// Messages waiting in the first-level produce queue.
    pub msgq_cnt: i64,
    /// Bytes of `msgq_cnt`.
    pub msgq_bytes: u64,
    /// Messages ready in the transmit queue.
    pub xmit_msgq_cnt: i64,
    /// Bytes of `xmit_msgq_cnt`.
    pub xmit_msgq_bytes: u64,
    /// Messages fetched ahead, waiting in the fetch queue.
    pub fetchq_cnt: i64,
    /// Bytes of `fetchq_cnt`.
    pub fetchq_size: u64,
    /// The consumer's fetch state: `none`, `stopping`, `stopped`, `offset-query`,
    /// `offset-wait`, `validate-epoch-wait` or `active`.
    pub fetch_state: String,
    /// The logical offset last queried.
    pub query_offset: i64,
    /// The next offset to fetch.
    pub next_offset: i64,
    /// One past the offset of the last message handed to the application.
    pub app_offset: i64,
    /// The offset stored to be committed.
    pub stored_offset: i64,
    /// The offset last committed.
    pub committed_offset: i64,
    /// The offset at which the end of the partition was last reported.
    pub eof_offset: i64,
    /// The broker's low watermark.
    pub lo_offset: i64,
    /// The broker's high watermark.
    pub hi_offset: i64,
    /// The broker's last stable offset.
    pub ls_offset: i64,
    /// The partition's end (the high watermark, or the last stable offset under
    /// `read_committed`) minus `committed_offset`; -1 if either is not known.
    pub consumer_lag: i64,
    /// The partition's end minus `stored_offset`; -1 if either is not known.
    pub consumer_lag_stored: i64,
    /// Messages produced.
    pub txmsgs: u64,
    /// Bytes of `txmsgs`.
    pub txbytes: u64,
    /// Messages consumed, not counting the ones ignored.
    pub rxmsgs: u64,
    /// Bytes of `rxmsgs`.
    pub rxbytes: u64,
    /// A consumer's messages received (`rxmsgs`), or a producer's messages produced, sent
    /// or not.
    pub msgs: u64,
    /// Outdated messages dropped.
    pub rx_ver_drops: u64,
    /// Messages in flight to or from the broker.
    pub msgs_inflight: i64,
    /// The idempotent producer's next sequence number expected to be acknowledged.
    pub next_ack_seq: i64,
    /// The idempotent producer's next sequence number expected to fail.
    pub next_err_seq: i64,
    /// The idempotent producer's last acknowledged internal message id.
    pub acked_msgid: u64,
}

/// What a consumer reports about its group.
#[derive(Serialize, Deserialize, Debug, Default, Clone)]
pub struct ConsumerGroup {
    /// The group handler's state (`init`, `query-coord`, `wait-coord`, `up`, …).
    pub state: String,
    /// Milliseconds since `state` last changed.
    pub stateage: i64,
    /// The join state (`init`, `wait-join`, `wait-sync`, `steady`, …).
    pub join_state: String,
    /// Milliseconds since the last rebalance (an assignment or a revocation).
    pub rebalance_age: i64,
    /// Rebalances (assignments and revocations) so far.
    pub rebalance_cnt: i64,
    /// Why the last rebalance happened, empty before the first.
    pub rebalance_reason: String,
    /// Partitions in the current assignment.
    pub assignment_size: i32,
}

/// What an idempotent or transactional producer reports about its state.
#[derive(Serialize, Deserialize, Debug, Default, Clone)]
pub struct ExactlyOnceSemantics {
    /// The idempotent producer's state (`Init`, `RequestPID`, `WaitPID`, `Assigned`, …).
    pub idemp_state: String,
    /// Milliseconds since `idemp_state` last changed.
    pub idemp_stateage: i64,
    /// The transactional producer's state (`Init`, `Ready`, `InTransaction`,
    /// `CommittingTransaction`, …).
    pub txn_state: String,
    /// Milliseconds since `txn_state` last changed.
    pub txn_stateage: i64,
    /// Whether the transactional state lets messages be produced.
    pub txn_may_enq: bool,
    /// The producer id, -1 until one is assigned.
    pub producer_id: i64,
    /// The producer epoch, -1 until one is assigned.
    pub producer_epoch: i64,
    /// How many producer ids were assigned since the client started.
    pub epoch_cnt: i64,
}

/// librdkafka's invalid offset (`RD_KAFKA_OFFSET_INVALID`): what it reports for an offset it
/// does not know.
const INVALID: i64 = -1001;

/// The port the log node answers on, as metadata reports it.
const PORT: i32 = 9092;

/// The log node's broker id, as metadata reports it.
const NODE_ID: i32 = 1;

/// What a simulated client knows when it emits its statistics; [`to_json`] writes it as
/// librdkafka's JSON.
///
/// Not known here, so reported as librdkafka reports "unknown": `replyq`, `simple_cnt`,
/// `metadata_cache_cnt` (0); the broker's `stateage`, queue and in-flight gauges, error,
/// retry, timeout, wake-up, connect and disconnect counters (0), `txidle` and `rxidle` (-1),
/// every latency window (all 0); topics' `age` and `metadata_age` (0) and batch windows (all
/// 0); partitions' `xmit_msgq_*`, `rx_ver_drops` and the idempotence sequence fields (0),
/// `query_offset` and the leader epochs (-1001 and -1); the group's `stateage` and eos'
/// `idemp_stateage` and `txn_stateage` (0).
///
/// Derived as librdkafka derives it: `ts` and `time` from [`now_us`](Snapshot::now_us); the
/// top-level `txmsgs`, `txmsg_bytes`, `rxmsgs` and `rxmsg_bytes` as the sums over the
/// partitions (the unassigned one excepted); partitions' `consumer_lag` and
/// `consumer_lag_stored`; a consumer's partitions' `msgs` (its `rxmsgs`); the one broker's
/// counters (the client's totals) and `toppars` (every partition, it leads them all).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Snapshot {
    /// The instance name, `rdkafka#producer-1`.
    pub(crate) name: String,
    /// `client.id`.
    pub(crate) client_id: String,
    /// `producer` or `consumer`.
    pub(crate) client_type: &'static str,
    /// The wall clock, in microseconds since the epoch (`ts`, and `time` in seconds).
    pub(crate) now_us: i64,
    /// Microseconds since the client was created (`age`).
    pub(crate) age_us: i64,
    /// Messages queued awaiting their delivery reports.
    pub(crate) msg_cnt: u64,
    /// Their bytes.
    pub(crate) msg_size: u64,
    /// `queue.buffering.max.messages`.
    pub(crate) msg_max: u64,
    /// `queue.buffering.max.kbytes`, in bytes.
    pub(crate) msg_size_max: u64,
    /// Requests sent.
    pub(crate) tx: i64,
    /// Their bytes.
    pub(crate) tx_bytes: i64,
    /// Responses received.
    pub(crate) rx: i64,
    /// Their bytes.
    pub(crate) rx_bytes: i64,
    /// Requests sent by librdkafka's request name (`Produce`, `Fetch`, `ListOffsets`,
    /// `Metadata`, `OffsetCommit`, `OffsetFetch`, `FindCoordinator`, `JoinGroup`, `Heartbeat`,
    /// `LeaveGroup`, `SyncGroup`, `InitProducerId`, `AddPartitionsToTxn`, `AddOffsetsToTxn`,
    /// `EndTxn`, `TxnOffsetCommit`, …): the broker's `req`.
    pub(crate) requests: BTreeMap<&'static str, i64>,
    /// The log node's name (the host of `bootstrap.servers`): the broker `<node>:9092/1`.
    pub(crate) node: String,
    /// The broker's state, `UP` while the node answers (librdkafka's `DOWN`, `CONNECT`, …
    /// otherwise).
    pub(crate) broker_state: &'static str,
    /// `isolation.level=read_committed` (librdkafka's default): lags are measured from
    /// the last stable offset, otherwise from the high watermark.
    pub(crate) read_committed: bool,
    /// The topics the client uses, each with its partitions. Every topic also gets
    /// librdkafka's unassigned partition (-1), from its entry here if there is one, else
    /// empty.
    pub(crate) topics: BTreeMap<String, BTreeMap<i32, PartitionSnapshot>>,
    /// The consumer group, for a consumer with a `group.id`.
    pub(crate) cgrp: Option<GroupSnapshot>,
    /// The idempotent producer's state, for an idempotent or transactional producer.
    pub(crate) eos: Option<EosSnapshot>,
}

/// What a simulated client knows about one partition.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PartitionSnapshot {
    /// Whether the application asked for it (assigned it, or a producer produced to it).
    pub(crate) desired: bool,
    /// Messages queued for it awaiting their delivery reports.
    pub(crate) msgq_cnt: i64,
    /// Their bytes.
    pub(crate) msgq_bytes: u64,
    /// Messages fetched but not yet handed to the application.
    pub(crate) fetchq_cnt: i64,
    /// Their bytes.
    pub(crate) fetchq_size: u64,
    /// `none`, `stopped`, `offset-query`, `active`, … (librdkafka's fetch states).
    pub(crate) fetch_state: &'static str,
    /// The fetch position (0 before the first fetch, as librdkafka's).
    pub(crate) next_offset: i64,
    /// One past the last message handed to the application.
    pub(crate) app_offset: i64,
    /// The offset stored for the next commit.
    pub(crate) stored_offset: i64,
    /// The offset last committed.
    pub(crate) committed_offset: i64,
    /// Where the end of the partition was last reported (`enable.partition.eof`).
    pub(crate) eof_offset: i64,
    /// The log start offset, as the last fetch or watermark query answered.
    pub(crate) lo_offset: i64,
    /// The high watermark, likewise.
    pub(crate) hi_offset: i64,
    /// The last stable offset, likewise.
    pub(crate) ls_offset: i64,
    /// Messages produced (acknowledged).
    pub(crate) txmsgs: u64,
    /// Their bytes.
    pub(crate) txbytes: u64,
    /// Messages consumed.
    pub(crate) rxmsgs: u64,
    /// Their bytes.
    pub(crate) rxbytes: u64,
    /// A producer's messages ever produced to it, delivered or not (`msgs`; a consumer's
    /// `msgs` is its `rxmsgs`).
    pub(crate) produced: u64,
    /// Messages sent to the broker and not yet answered.
    pub(crate) msgs_inflight: i64,
}

/// What a simulated consumer knows about its group.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GroupSnapshot {
    /// librdkafka's group state: `init`, `query-coord`, `wait-coord`, `up`, ….
    pub(crate) state: &'static str,
    /// librdkafka's join state: `init`, `wait-join`, `wait-sync`, `steady`, ….
    pub(crate) join_state: &'static str,
    /// Milliseconds since the last assignment or revocation.
    pub(crate) rebalance_age_ms: i64,
    /// Assignments and revocations so far.
    pub(crate) rebalance_cnt: i64,
    /// Why the last one happened, empty before the first.
    pub(crate) rebalance_reason: String,
    /// Partitions assigned.
    pub(crate) assignment_size: i32,
}

/// What a simulated idempotent producer knows about its producer id and transaction.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EosSnapshot {
    /// librdkafka's idempotence state: `Init`, `RequestPID`, `WaitPID`, `Assigned`, `FatalError`, ….
    pub(crate) idemp_state: &'static str,
    /// librdkafka's transaction state: `Init`, `WaitPID`, `Ready`, `InTransaction`,
    /// `CommittingTransaction`, `AbortingTransaction`, `AbortableError`, `FatalError`, ….
    pub(crate) txn_state: &'static str,
    /// Whether the state lets messages be produced.
    pub(crate) txn_may_enq: bool,
    /// The producer id, -1 before one is assigned.
    pub(crate) producer_id: i64,
    /// Its epoch, -1 before one is assigned.
    pub(crate) producer_epoch: i64,
    /// Producer ids assigned so far.
    pub(crate) epoch_cnt: i64,
}

impl Snapshot {
    /// A client that knows nothing yet: empty queues and counters, no topics, group or eos,
    /// the broker `<node>:9092/1` up, `read_committed`. The caller sets the rest.
    pub(crate) fn new(name: String, client_id: String, client_type: &'static str, node: String) -> Snapshot {
        Snapshot {
            name,
            client_id,
            client_type,
            now_us: 0,
            age_us: 0,
            msg_cnt: 0,
            msg_size: 0,
            msg_max: 0,
            msg_size_max: 0,
            tx: 0,
            tx_bytes: 0,
            rx: 0,
            rx_bytes: 0,
            requests: BTreeMap::new(),
            node,
            broker_state: "UP",
            read_committed: true,
            topics: BTreeMap::new(),
            cgrp: None,
            eos: None,
        }
    }
}

/// librdkafka's values for a partition it knows nothing of: empty queues, fetch state `none`,
/// next offset 0 and every other offset -1001.
impl Default for PartitionSnapshot {
    fn default() -> PartitionSnapshot {
        PartitionSnapshot {
            desired: false,
            msgq_cnt: 0,
            msgq_bytes: 0,
            fetchq_cnt: 0,
            fetchq_size: 0,
            fetch_state: "none",
            next_offset: 0,
            app_offset: INVALID,
            stored_offset: INVALID,
            committed_offset: INVALID,
            eof_offset: INVALID,
            lo_offset: INVALID,
            hi_offset: INVALID,
            ls_offset: INVALID,
            txmsgs: 0,
            txbytes: 0,
            rxmsgs: 0,
            rxbytes: 0,
            produced: 0,
            msgs_inflight: 0,
        }
    }
}

/// Builds a JSON object with its keys in the order given (serde_json's `preserve_order`).
fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<Map<String, Value>>())
}

/// A latency window with no samples, as librdkafka writes one.
fn empty_window() -> Value {
    let zero = || Value::from(0);
    object([
        ("min", zero()),
        ("max", zero()),
        ("avg", zero()),
        ("sum", zero()),
        ("stddev", zero()),
        ("p50", zero()),
        ("p75", zero()),
        ("p90", zero()),
        ("p95", zero()),
        ("p99", zero()),
        ("p99_99", zero()),
        ("outofrange", zero()),
        ("hdrsize", zero()),
        ("cnt", zero()),
    ])
}

/// A count as an unsigned JSON number (0 if negative).
fn unsigned(n: i64) -> Value {
    Value::from(u64::try_from(n).unwrap_or(0))
}

/// librdkafka's lag: the partition's end minus `offset`, -1 unless both are known and
/// `offset` is at most the end.
fn lag(end: i64, offset: i64) -> i64 {
    if end != INVALID && (0..=end).contains(&offset) {
        end - offset
    } else {
        -1
    }
}

/// One partition as `rd_kafka_stats_emit_toppar` writes it.
fn partition_json(s: &Snapshot, id: i32, p: &PartitionSnapshot) -> Value {
    let end = if s.read_committed { p.ls_offset } else { p.hi_offset };
    let broker = if id < 0 { -1 } else { NODE_ID };
    let msgs = if s.client_type == "producer" { p.produced } else { p.rxmsgs };
    object([
        ("partition", id.into()),
        ("broker", broker.into()),
        ("leader", broker.into()),
        ("desired", p.desired.into()),
        ("unknown", false.into()),
        ("msgq_cnt", p.msgq_cnt.into()),
        ("msgq_bytes", p.msgq_bytes.into()),
        ("xmit_msgq_cnt", 0.into()),
        ("xmit_msgq_bytes", 0.into()),
        ("fetchq_cnt", p.fetchq_cnt.into()),
        ("fetchq_size", p.fetchq_size.into()),
        ("fetch_state", p.fetch_state.into()),
        ("query_offset", INVALID.into()),
        ("next_offset", p.next_offset.into()),
        ("app_offset", p.app_offset.into()),
        ("stored_offset", p.stored_offset.into()),
        ("stored_leader_epoch", (-1).into()),
        // librdkafka writes the committed offset twice, once misspelled (its issue #80).
        ("commited_offset", p.committed_offset.into()),
        ("committed_offset", p.committed_offset.into()),
        ("committed_leader_epoch", (-1).into()),
        ("eof_offset", p.eof_offset.into()),
        ("lo_offset", p.lo_offset.into()),
        ("hi_offset", p.hi_offset.into()),
        ("ls_offset", p.ls_offset.into()),
        ("consumer_lag", lag(end, p.committed_offset).into()),
        ("consumer_lag_stored", lag(end, p.stored_offset).into()),
        ("leader_epoch", (-1).into()),
        ("txmsgs", p.txmsgs.into()),
        ("txbytes", p.txbytes.into()),
        ("rxmsgs", p.rxmsgs.into()),
        ("rxbytes", p.rxbytes.into()),
        ("msgs", msgs.into()),
        ("rx_ver_drops", 0.into()),
        ("msgs_inflight", p.msgs_inflight.into()),
        ("next_ack_seq", 0.into()),
        ("next_err_seq", 0.into()),
        ("acked_msgid", 0.into()),
    ])
}

/// The statistics of `s` as librdkafka's JSON (its `STATISTICS.md`, in the order
/// `rd_kafka_stats_emit_all` writes the fields), what [`ClientContext::stats_raw`] receives.
/// Deterministic: topics and partitions in order, each topic's unassigned partition (-1)
/// last, as librdkafka writes it.
///
/// [`ClientContext::stats_raw`]: crate::ClientContext::stats_raw
pub(crate) fn to_json(s: &Snapshot) -> Vec<u8> {
    let nodename = format!("{}:{PORT}", s.node);
    let broker_name = format!("{nodename}/{NODE_ID}");
    let mut toppars = Map::new();
    let mut topics = Map::new();
    let (mut txmsgs, mut txmsg_bytes, mut rxmsgs, mut rxmsg_bytes) = (0u64, 0u64, 0u64, 0u64);
    for (topic, partitions) in &s.topics {
        let mut ps = Map::new();
        for (&id, p) in partitions.iter().filter(|&(&id, _)| id >= 0) {
            ps.insert(id.to_string(), partition_json(s, id, p));
            toppars
                .insert(format!("{topic}-{id}"), object([("topic", topic.as_str().into()), ("partition", id.into())]));
            txmsgs += p.txmsgs;
            txmsg_bytes += p.txbytes;
            rxmsgs += p.rxmsgs;
            rxmsg_bytes += p.rxbytes;
        }
        let unassigned = partitions.get(&-1).cloned().unwrap_or_default();
        ps.insert("-1".to_owned(), partition_json(s, -1, &unassigned));
        let topic_json = object([
            ("topic", topic.as_str().into()),
            ("age", 0.into()),
            ("metadata_age", 0.into()),
            ("batchsize", empty_window()),
            ("batchcnt", empty_window()),
            ("partitions", Value::Object(ps)),
        ]);
        topics.insert(topic.clone(), topic_json);
    }
    let broker = object([
        ("name", broker_name.as_str().into()),
        ("nodeid", NODE_ID.into()),
        ("nodename", nodename.into()),
        ("source", "learned".into()),
        ("state", s.broker_state.into()),
        ("stateage", 0.into()),
        ("outbuf_cnt", 0.into()),
        ("outbuf_msg_cnt", 0.into()),
        ("waitresp_cnt", 0.into()),
        ("waitresp_msg_cnt", 0.into()),
        ("tx", unsigned(s.tx)),
        ("txbytes", unsigned(s.tx_bytes)),
        ("txerrs", 0.into()),
        ("txretries", 0.into()),
        ("txidle", (-1).into()),
        ("req_timeouts", 0.into()),
        ("rx", unsigned(s.rx)),
        ("rxbytes", unsigned(s.rx_bytes)),
        ("rxerrs", 0.into()),
        ("rxcorriderrs", 0.into()),
        ("rxpartial", 0.into()),
        ("rxidle", (-1).into()),
        ("zbuf_grow", 0.into()),
        ("buf_grow", 0.into()),
        ("wakeups", 0.into()),
        ("connects", 0.into()),
        ("disconnects", 0.into()),
        ("int_latency", empty_window()),
        ("outbuf_latency", empty_window()),
        ("rtt", empty_window()),
        ("throttle", empty_window()),
        ("req", Value::Object(s.requests.iter().map(|(&k, &v)| (k.to_owned(), v.into())).collect())),
        ("toppars", Value::Object(toppars)),
    ]);
    let mut brokers = Map::new();
    brokers.insert(broker_name, broker);
    let mut stats = Map::new();
    let head = [
        ("name", s.name.as_str().into()),
        ("client_id", s.client_id.as_str().into()),
        ("type", s.client_type.into()),
        ("ts", s.now_us.into()),
        ("time", s.now_us.div_euclid(1_000_000).into()),
        ("age", s.age_us.into()),
        ("replyq", 0.into()),
        ("msg_cnt", s.msg_cnt.into()),
        ("msg_size", s.msg_size.into()),
        ("msg_max", s.msg_max.into()),
        ("msg_size_max", s.msg_size_max.into()),
        ("simple_cnt", 0.into()),
        ("metadata_cache_cnt", 0.into()),
        ("brokers", Value::Object(brokers)),
        ("topics", Value::Object(topics)),
    ];
    stats.extend(head.into_iter().map(|(k, v): (&str, Value)| (k.to_owned(), v)));
    if let Some(g) = &s.cgrp {
        let cgrp = object([
            ("state", g.state.into()),
            ("stateage", 0.into()),
            ("join_state", g.join_state.into()),
            ("rebalance_age", g.rebalance_age_ms.into()),
            ("rebalance_cnt", g.rebalance_cnt.into()),
            ("rebalance_reason", g.rebalance_reason.as_str().into()),
            ("assignment_size", g.assignment_size.into()),
        ]);
        stats.insert("cgrp".to_owned(), cgrp);
    }
    if let Some(e) = &s.eos {
        let eos = object([
            ("idemp_state", e.idemp_state.into()),
            ("idemp_stateage", 0.into()),
            ("txn_state", e.txn_state.into()),
            ("txn_stateage", 0.into()),
            ("txn_may_enq", e.txn_may_enq.into()),
            ("producer_id", e.producer_id.into()),
            ("producer_epoch", e.producer_epoch.into()),
            ("epoch_cnt", e.epoch_cnt.into()),
        ]);
        stats.insert("eos".to_owned(), eos);
    }
    let totals = [
        ("tx", s.tx.into()),
        ("tx_bytes", s.tx_bytes.into()),
        ("rx", s.rx.into()),
        ("rx_bytes", s.rx_bytes.into()),
        ("txmsgs", txmsgs.into()),
        ("txmsg_bytes", txmsg_bytes.into()),
        ("rxmsgs", rxmsgs.into()),
        ("rxmsg_bytes", rxmsg_bytes.into()),
    ];
    stats.extend(totals.into_iter().map(|(k, v): (&str, Value)| (k.to_owned(), v)));
    serde_json::to_vec(&Value::Object(stats)).expect("a JSON value always serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statistics `s` reports, as a context's default `stats_raw` parses them.
    fn parse(s: &Snapshot) -> Statistics {
        serde_json::from_slice(&to_json(s)).expect("librdkafka's JSON parses into rdkafka's Statistics")
    }

    /// A consumer in a group, reading partitions 0 and 1 of `t`.
    fn consumer() -> Snapshot {
        let mut s = Snapshot::new("rdkafka#consumer-2".into(), "app".into(), "consumer", "kafka".into());
        s.now_us = 1_700_000_123_456_789;
        s.age_us = 5_000_000;
        s.tx = 40;
        s.tx_bytes = 4_000;
        s.rx = 39;
        s.rx_bytes = 39_000;
        s.requests = BTreeMap::from([("Fetch", 30), ("Heartbeat", 5), ("JoinGroup", 1)]);
        let p0 = PartitionSnapshot {
            desired: true,
            fetchq_cnt: 3,
            fetchq_size: 300,
            fetch_state: "active",
            next_offset: 12,
            app_offset: 9,
            stored_offset: 9,
            committed_offset: 7,
            eof_offset: 10,
            lo_offset: 2,
            hi_offset: 20,
            ls_offset: 15,
            rxmsgs: 11,
            rxbytes: 1_100,
            ..PartitionSnapshot::default()
        };
        let p1 = PartitionSnapshot { rxmsgs: 4, rxbytes: 400, ..PartitionSnapshot::default() };
        s.topics.insert("t".into(), BTreeMap::from([(0, p0), (1, p1)]));
        s.cgrp = Some(GroupSnapshot {
            state: "up",
            join_state: "steady",
            rebalance_age_ms: 1_234,
            rebalance_cnt: 2,
            rebalance_reason: "group rejoin".into(),
            assignment_size: 2,
        });
        s
    }

    /// A transactional producer with messages queued on `t`'s partition 0 and `u`'s 3.
    fn producer() -> Snapshot {
        let mut s = Snapshot::new("rdkafka#producer-1".into(), "rdkafka".into(), "producer", "kafka".into());
        s.msg_cnt = 5;
        s.msg_size = 500;
        s.msg_max = 100_000;
        s.msg_size_max = 1_048_576 * 1024;
        let p = |txmsgs, queued| PartitionSnapshot {
            desired: true,
            msgq_cnt: queued,
            msgq_bytes: 100 * queued as u64,
            txmsgs,
            txbytes: 100 * txmsgs,
            produced: txmsgs + queued as u64,
            msgs_inflight: 1,
            ..PartitionSnapshot::default()
        };
        s.topics.insert("u".into(), BTreeMap::from([(3, p(2, 1))]));
        s.topics.insert("t".into(), BTreeMap::from([(0, p(7, 4))]));
        s.eos = Some(EosSnapshot {
            idemp_state: "Assigned",
            txn_state: "InTransaction",
            txn_may_enq: true,
            producer_id: 4_000,
            producer_epoch: 3,
            epoch_cnt: 1,
        });
        s
    }

    #[test]
    fn the_clients_identity_lands_in_name_client_id_and_type() {
        let stats = parse(&consumer());
        assert_eq!((stats.name.as_str(), stats.client_id.as_str()), ("rdkafka#consumer-2", "app"));
        assert_eq!(stats.client_type, "consumer");
        assert_eq!(parse(&producer()).client_type, "producer");
    }

    #[test]
    fn ts_is_the_clock_in_microseconds_time_in_seconds_and_age_since_creation() {
        let stats = parse(&consumer());
        assert_eq!(stats.ts, 1_700_000_123_456_789);
        assert_eq!(stats.time, 1_700_000_123);
        assert_eq!(stats.age, 5_000_000);
    }

    #[test]
    fn the_producer_queue_and_its_bounds_land_in_msg_fields() {
        let stats = parse(&producer());
        assert_eq!((stats.msg_cnt, stats.msg_size), (5, 500));
        assert_eq!((stats.msg_max, stats.msg_size_max), (100_000, 1_073_741_824));
    }

    #[test]
    fn request_totals_are_the_clients_and_message_totals_sum_the_partitions() {
        let stats = parse(&consumer());
        assert_eq!((stats.tx, stats.tx_bytes, stats.rx, stats.rx_bytes), (40, 4_000, 39, 39_000));
        assert_eq!((stats.rxmsgs, stats.rxmsg_bytes, stats.txmsgs, stats.txmsg_bytes), (15, 1_500, 0, 0));
        let stats = parse(&producer());
        assert_eq!((stats.txmsgs, stats.txmsg_bytes, stats.rxmsgs), (9, 900, 0));
    }

    #[test]
    fn what_the_simulation_does_not_know_is_librdkafkas_unknown() {
        let stats = parse(&consumer());
        assert_eq!((stats.replyq, stats.simple_cnt, stats.metadata_cache_cnt), (0, 0, 0));
        let b = &stats.brokers["kafka:9092/1"];
        assert_eq!((b.txidle, b.rxidle, b.txerrs, b.req_timeouts, b.stateage), (-1, -1, 0, 0, 0));
        let rtt = b.rtt.as_ref().expect("librdkafka writes every window");
        assert_eq!((rtt.cnt, rtt.p99, rtt.hdrsize), (0, 0, 0));
        assert!(b.int_latency.is_some() && b.outbuf_latency.is_some() && b.throttle.is_some());
        let t = &stats.topics["t"];
        assert_eq!((t.metadata_age, t.batchsize.cnt, t.batchcnt.max), (0, 0, 0));
        let p = &t.partitions[&1];
        assert_eq!((p.fetch_state.as_str(), p.query_offset, p.next_offset), ("none", -1001, 0));
        for offset in [p.app_offset, p.stored_offset, p.committed_offset, p.eof_offset, p.lo_offset, p.hi_offset] {
            assert_eq!(offset, -1001);
        }
        assert_eq!((p.ls_offset, p.consumer_lag, p.consumer_lag_stored), (-1001, -1, -1));
        assert_eq!((p.xmit_msgq_cnt, p.rx_ver_drops, p.next_ack_seq, p.acked_msgid), (0, 0, 0, 0));
    }

    #[test]
    fn the_log_node_is_the_one_broker_up_as_host_port_and_id_one() {
        let stats = parse(&consumer());
        assert_eq!(stats.brokers.len(), 1);
        let b = &stats.brokers["kafka:9092/1"];
        assert_eq!((b.name.as_str(), b.nodeid, b.nodename.as_str()), ("kafka:9092/1", 1, "kafka:9092"));
        assert_eq!((b.source.as_str(), b.state.as_str()), ("learned", "UP"));
        let mut down = consumer();
        down.broker_state = "DOWN";
        assert_eq!(parse(&down).brokers["kafka:9092/1"].state, "DOWN");
    }

    #[test]
    fn the_broker_counts_the_clients_requests_by_type() {
        let stats = parse(&consumer());
        let b = &stats.brokers["kafka:9092/1"];
        assert_eq!((b.tx, b.txbytes, b.rx, b.rxbytes), (40, 4_000, 39, 39_000));
        let req = HashMap::from([("Fetch".to_owned(), 30), ("Heartbeat".to_owned(), 5), ("JoinGroup".to_owned(), 1)]);
        assert_eq!(b.req, req);
    }

    #[test]
    fn the_broker_leads_every_partition_but_the_unassigned_one() {
        let stats = parse(&producer());
        let b = &stats.brokers["kafka:9092/1"];
        let mut toppars: Vec<(String, String, i32)> =
            b.toppars.iter().map(|(k, tp)| (k.clone(), tp.topic.clone(), tp.partition)).collect();
        toppars.sort();
        assert_eq!(toppars, [("t-0".into(), "t".into(), 0), ("u-3".into(), "u".into(), 3)]);
        let p = &stats.topics["u"].partitions[&3];
        assert_eq!((p.broker, p.leader), (1, 1));
    }

    #[test]
    fn every_topic_has_librdkafkas_unassigned_partition() {
        let stats = parse(&consumer());
        let t = &stats.topics["t"];
        assert_eq!(t.topic, "t");
        let mut ids: Vec<i32> = t.partitions.keys().copied().collect();
        ids.sort();
        assert_eq!(ids, [-1, 0, 1]);
        let ua = &t.partitions[&-1];
        assert_eq!((ua.partition, ua.broker, ua.leader, ua.desired), (-1, -1, -1, false));
        assert_eq!((ua.committed_offset, ua.consumer_lag), (-1001, -1));
    }

    #[test]
    fn a_partitions_offsets_and_fetch_state_land_in_their_fields() {
        let stats = parse(&consumer());
        let p = &stats.topics["t"].partitions[&0];
        assert_eq!(p.partition, 0);
        assert!(p.desired && !p.unknown);
        assert_eq!((p.fetch_state.as_str(), p.next_offset, p.app_offset), ("active", 12, 9));
        assert_eq!((p.stored_offset, p.committed_offset, p.eof_offset), (9, 7, 10));
        assert_eq!((p.lo_offset, p.hi_offset, p.ls_offset), (2, 20, 15));
        assert_eq!((p.fetchq_cnt, p.fetchq_size, p.rxmsgs, p.rxbytes), (3, 300, 11, 1_100));
    }

    #[test]
    fn consumer_lag_is_the_last_stable_offset_minus_the_committed_under_read_committed() {
        let p = &parse(&consumer()).topics["t"].partitions[&0];
        assert_eq!((p.consumer_lag, p.consumer_lag_stored), (15 - 7, 15 - 9));
    }

    #[test]
    fn consumer_lag_is_the_high_watermark_minus_the_committed_under_read_uncommitted() {
        let mut s = consumer();
        s.read_committed = false;
        let p = &parse(&s).topics["t"].partitions[&0];
        assert_eq!((p.consumer_lag, p.consumer_lag_stored), (20 - 7, 20 - 9));
    }

    #[test]
    fn consumer_lag_is_minus_one_unless_the_offset_is_known_and_within_the_end() {
        let mut s = consumer();
        let p0 = s.topics.get_mut("t").and_then(|t| t.get_mut(&0)).expect("partition 0");
        p0.committed_offset = 16;
        p0.stored_offset = INVALID;
        let p = &parse(&s).topics["t"].partitions[&0];
        assert_eq!((p.consumer_lag, p.consumer_lag_stored), (-1, -1));
    }

    #[test]
    fn a_partitions_msgs_are_a_consumers_received_or_a_producers_produced() {
        assert_eq!(parse(&consumer()).topics["t"].partitions[&0].msgs, 11);
        let stats = parse(&producer());
        let p = &stats.topics["t"].partitions[&0];
        assert_eq!((p.msgs, p.txmsgs, p.txbytes), (11, 7, 700));
        assert_eq!((p.msgq_cnt, p.msgq_bytes, p.msgs_inflight), (4, 400, 1));
    }

    #[test]
    fn the_group_is_reported_for_a_consumer_in_one() {
        let g = parse(&consumer()).cgrp.expect("a group member reports its group");
        assert_eq!((g.state.as_str(), g.join_state.as_str(), g.stateage), ("up", "steady", 0));
        assert_eq!((g.rebalance_age, g.rebalance_cnt, g.assignment_size), (1_234, 2, 2));
        assert_eq!(g.rebalance_reason, "group rejoin");
        assert!(parse(&producer()).cgrp.is_none());
    }

    #[test]
    fn eos_is_reported_for_an_idempotent_producer_only() {
        let e = parse(&producer()).eos.expect("an idempotent producer reports eos");
        assert_eq!((e.idemp_state.as_str(), e.txn_state.as_str(), e.txn_may_enq), ("Assigned", "InTransaction", true));
        assert_eq!((e.producer_id, e.producer_epoch, e.epoch_cnt), (4_000, 3, 1));
        assert_eq!((e.idemp_stateage, e.txn_stateage), (0, 0));
        assert!(parse(&consumer()).eos.is_none());
    }

    #[test]
    fn the_json_has_librdkafkas_layout_and_order() {
        let json: Value = serde_json::from_slice(&to_json(&consumer())).expect("JSON");
        let keys: Vec<&str> = json.as_object().expect("an object").keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "name",
                "client_id",
                "type",
                "ts",
                "time",
                "age",
                "replyq",
                "msg_cnt",
                "msg_size",
                "msg_max",
                "msg_size_max",
                "simple_cnt",
                "metadata_cache_cnt",
                "brokers",
                "topics",
                "cgrp",
                "tx",
                "tx_bytes",
                "rx",
                "rx_bytes",
                "txmsgs",
                "txmsg_bytes",
                "rxmsgs",
                "rxmsg_bytes"
            ]
        );
        let partitions: Vec<&str> =
            json["topics"]["t"]["partitions"].as_object().expect("partitions").keys().map(String::as_str).collect();
        assert_eq!(partitions, ["0", "1", "-1"]);
        // librdkafka writes the committed offset under its misspelled name too.
        assert_eq!(json["topics"]["t"]["partitions"]["0"]["commited_offset"], 7);
        let json: Value = serde_json::from_slice(&to_json(&producer())).expect("JSON");
        let topics: Vec<&str> = json["topics"].as_object().expect("topics").keys().map(String::as_str).collect();
        assert_eq!(topics, ["t", "u"]);
    }

    #[test]
    fn the_same_snapshot_gives_the_same_bytes() {
        assert_eq!(to_json(&producer()), to_json(&producer()));
        assert_eq!(to_json(&consumer()), to_json(&consumer()));
    }
}
