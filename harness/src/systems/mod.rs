//! External-system models: pure in-memory systems whose durable state lives outside the
//! simulated nodes, served over the gateway so that faults apply to connector traffic too.
//!
//! A model is hosted on its own node (named after the system). Crashing that node loses
//! only what the model says is volatile ([`ExternalSystem::crash`]); its durable data
//! survives, as on disk. Each model has an [`OutputReader`] with the semantics of its real
//! downstream reader; the harness reads it after every request the model serves
//! ([`serve_requests`]), so a model never announces what became visible.

mod bucket;
mod collector;
pub mod conformance;
mod fs;
mod kit;
mod kv;
mod log;
mod log_client;
mod log_entry;
mod output;
mod table;
mod value_format;

pub use bucket::{
    Bucket, ByteRange, ObjectInfo, ReadConditions, S3Error, S3Request, S3Response, WriteCondition, EPOCH_MS, MAX_KEYS,
    MAX_PARTS, MIN_PART_SIZE,
};
pub use collector::{Collector, CollectorClient};
pub use fs::{line_entries, FileFormat, FileSystem, FsClient, FsError, FsRequest, FsResponse};
pub use kit::{serve_model, ModelClient, ModelRequest};
pub use kv::{KvClient, KvRequest, KvResponse, KvStore};
pub use log::{
    Acks, DescribedGroup, DescribedMember, Fetched, GroupRequest, GroupResponse, JoinRequest, Joined, JoinedMember,
    KafkaCode, KafkaRequest, KafkaResponse, LogError, LogRequest, LogResponse, MemberIdentity, OffsetSpec,
    OpenUpstream, PartitionedLog, ProducerIdentity, TxnHandle, TxnProtocol, UpstreamTxn,
    GROUP_INITIAL_REBALANCE_DELAY_MS, GROUP_MAX_SESSION_TIMEOUT_MS, GROUP_MIN_SESSION_TIMEOUT_MS,
    PRODUCER_STATE_BATCHES, REPLICATION_LAG_MS, TRANSACTION_MAX_TIMEOUT_MS,
};
pub use log::{
    AdminRequest, AdminResponse, ApiError, BrokerInfo, ClusterMetadata, ConfigOrigin, ConfigResourceKey,
    DescribedConfig, NewPartitionsRequest, NewTopicRequest, PartitionInfo, TopicInfo, BROKER_ID, BROKER_PORT,
};
pub use log_client::{LogClient, OutOfRange};
pub use log_entry::{LogEntry, LogFormat, LogHeader, RecordLogFormat};
pub use output::{read_all, Entry, OutputReader, Part};
pub use table::{
    Alteration, Column, ColumnType, Schema, SchemaFormat, SnapshotTable, TableClient, TableRequest, TableResponse,
};
pub use value_format::{RecordValueFormat, ValueFormat};

use crate::net::Inbox;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::future::Future;
use std::pin::Pin;

/// A future the harness can spawn on a node.
pub type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A model of an external system that a connector reads from or writes to.
pub trait ExternalSystem: Send + Sync + 'static {
    /// The system's node and gateway name.
    fn name(&self) -> String;
    /// Serves requests from `inbox` until the node is crashed.
    fn serve(&self, inbox: Inbox) -> BoxFuture;
    /// The node crashed: drop whatever the system does not keep durably. Default: nothing is lost.
    fn crash(&self) {}
    /// Changes a server-side setting while the run goes on. Default: the system has none, and
    /// says so.
    fn configure(&self, setting: &Setting, env: &SettingEnv) -> Result<(), String> {
        let _ = env;
        Err(format!("{} has no setting {setting:?}", self.name()))
    }
    /// The offsets consumer group `group` has committed here, by split id (what a source
    /// that starts from its group's committed offsets reads from). Default: the system has
    /// no consumer groups.
    fn committed_offsets(&self, group: &str) -> Vec<(String, u64)> {
        let _ = group;
        Vec::new()
    }
    /// What the system still holds for the job when the run ends (the run records it,
    /// [`EventKind::LeftBehind`](crate::history::EventKind::LeftBehind), and the checks
    /// hold a sink to the bound it declared). Default: nothing.
    fn leftovers(&self) -> crate::history::Leftovers {
        crate::history::Leftovers::default()
    }
}

/// A server-side setting of an external system, changed by a scenario
/// ([`Control::configure`](crate::run::Control::configure)).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Setting {
    /// Kafka's `transaction.timeout.ms`: the log aborts (and fences) a transaction that has
    /// been open longer, counted from its first write; `None`: no timeout (the default).
    TransactionTimeoutMs(Option<u64>),
    /// The file system tears appends with this probability: only a prefix of the bytes is
    /// written and the caller gets no answer (a server or connection that died mid-write);
    /// 0.0 turns it off.
    TornAppends(f64),
    /// Kafka's `retention.ms` on the log's input topics (those not read as output): every
    /// 50 ms of virtual time the log deletes entries older than this, and a fetch below a
    /// partition's log start offset is answered `OffsetOutOfRange`; `None`: keep everything
    /// (the default). The checks excuse a deleted record from the output unless a completed
    /// checkpoint covered a read of it.
    RetentionMs(Option<u64>),
    /// How many of a producer's last batches the log recognises a retried produce against
    /// (acknowledged, not appended again); older retries are refused `OutOfOrderSequence`.
    /// Kafka keeps five, the default; `None` recognises every batch, a kinder log than
    /// Kafka's that hides a writer relying on it.
    DeduplicationWindow(Option<u64>),
    /// Which transaction protocol the log's Kafka face follows: epochs bumped only by
    /// `InitProducerId` (brokers before KIP-890, the default) or at every transaction end.
    TransactionProtocol(TxnProtocol),
    /// A crash of the log loses what followers had not copied yet: entries above each
    /// partition's high watermark, which only `acks=1` (or `acks=0`) produces leave there
    /// (a leader failover to a lagging follower). Off by default: a crash loses nothing.
    LoseUnreplicatedOnCrash(bool),
    /// Kafka's `group.initial.rebalance.delay.ms` on the log's group coordinator: an empty
    /// group's first rebalance waits this long for more members to join (3000, Kafka's
    /// default; 0 starts it at once).
    GroupInitialRebalanceDelayMs(u64),
    /// The bucket refuses a request `503 SlowDown` (throttling) with this probability, before
    /// applying it; 0.0 turns it off.
    SlowDown(f64),
    /// The bucket answers a request `500 InternalError` with this probability; half of those
    /// requests were applied anyway. 0.0 turns it off.
    InternalErrors(f64),
    /// The bucket's lifecycle rule `AbortIncompleteMultipartUpload`: an upload is aborted this
    /// long after it started; `None`: never (the default).
    ExpireIncompleteUploadsAfterMs(Option<u64>),
    /// The smallest size, in bytes, of a part but the last that the bucket's completion of an
    /// upload accepts (S3: 5 MiB, the default).
    MinPartSize(u64),
    /// `ALTER TABLE` on a table with a schema: rows written from now on are decoded with the
    /// changed one.
    AlterTable(table::Alteration),
}

/// What a system may use when a setting changes: a seed for the random choices the setting
/// makes (drawn from the run's seed), and the run's history for the faults it injects.
pub struct SettingEnv {
    /// Seeds the setting's random stream.
    pub seed: u64,
    /// The run's history.
    pub history: crate::history::History,
}

/// [`serve_requests`] for a model that sometimes sends no answer: `handle` returns `None`
/// for a request whose caller must time out.
pub async fn serve_requests_or_drop<Req, Resp>(inbox: Inbox, mut handle: impl FnMut(Req) -> Option<Resp>)
where
    Req: DeserializeOwned,
    Resp: Serialize,
{
    serve_calls(inbox, move |_, req| handle(req)).await
}

/// Who sent a request: the caller's node and the call's id (for history events that must
/// say who was told what; the gateway's fault events name the same call id).
#[derive(Clone, Debug)]
pub struct Caller {
    /// The caller's node.
    pub node: String,
    /// The call id.
    pub call: Option<u64>,
    /// The subtask attempt (subtask, attempt) whose connector code sent it, if a
    /// connector's did: whose upload or transaction a request started.
    pub sender: Option<(usize, u64)>,
}

impl Caller {
    /// The caller of `msg`.
    pub fn of(msg: &crate::net::Incoming) -> Self {
        Self { node: msg.from.clone(), call: msg.call, sender: msg.sender }
    }
}

/// [`serve_requests_or_drop`] for a model that needs to know who called.
pub async fn serve_calls<Req, Resp>(mut inbox: Inbox, mut handle: impl FnMut(&Caller, Req) -> Option<Resp>)
where
    Req: DeserializeOwned,
    Resp: Serialize,
{
    while let Some(msg) = inbox.recv().await {
        let Ok(req) = msg.decode::<Req>() else { continue };
        let caller = Caller::of(&msg);
        let resp = handle(&caller, req);
        if let (Some(replier), Some(resp)) = (msg.replier, resp) {
            replier.reply(&resp);
        }
    }
}

/// The serve loop of a model: answers every request in `inbox` with `handle`. Undecodable
/// requests get no answer (the caller times out), as a real server would drop a garbled
/// frame. The harness reads the run's output after each request `handle` returns from.
pub async fn serve_requests<Req, Resp>(inbox: Inbox, mut handle: impl FnMut(Req) -> Resp)
where
    Req: DeserializeOwned,
    Resp: Serialize,
{
    serve_requests_or_drop(inbox, move |req| Some(handle(req))).await
}
