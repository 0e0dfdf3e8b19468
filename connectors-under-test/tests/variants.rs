//! Variants of the reference connectors, written as a connector author outside this crate
//! would write them: from the crate's public pieces only, each in under 40 lines, each a
//! correct connector held to its suite.

// The log source handing splits over in a source event of its own instead of a split
// assignment (as some of Flink's sources do). The enumerator tracks what it sent and takes a
// failed reader's back (`HandOver::Event`); the reader adds what it is sent to itself.
use connectors_under_test::log_source::{LogSourceByEvent, LogSplit, SplitEvents};
use connectors_under_test::LogSourceSetup;
use connsim::run::{SourceSetup, World};
use serde::{Deserialize, Serialize};

/// Hand-overs: the splits as a JSON array.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct JsonHandOver;

impl SplitEvents for JsonHandOver {
    fn encode(&self, splits: &[LogSplit]) -> Vec<u8> {
        serde_json::to_vec(splits).expect("splits serialize")
    }
    fn decode(&self, event: &[u8]) -> Option<Vec<LogSplit>> {
        serde_json::from_slice(event).ok()
    }
}

/// The reference log source's system and data, read by the variant.
struct ByEventSetup(LogSourceSetup);

impl SourceSetup for ByEventSetup {
    type Source = LogSourceByEvent<JsonHandOver>;
    fn name(&self) -> String {
        format!("{} by event", self.0.name())
    }
    fn build(&self, world: &mut World) -> Self::Source {
        LogSourceByEvent(self.0.build(world), JsonHandOver)
    }
}

// The transactional log sink, partitioning by record key (Kafka's default partitioner)
// instead of by subtask (Flink's fixed one): a split's records spread over the partitions,
// so it does not claim `keeps_split_order`.
use connectors_under_test::txn_log_sink::{TxnLogCommitter, TxnLogSink, TxnLogWriter, TxnWriterState};
use connectors_under_test::TxnLogSinkSetup;
use connsim::api::{CommitterContext, NoGlobalCommitter, Sink, WriterContext};
use connsim::run::SinkSetup;
use connsim::{systems::TxnHandle, ConnectorError};

/// The variant.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct KeyedTxnLogSink(TxnLogSink);

impl Sink for KeyedTxnLogSink {
    type Committable = TxnHandle;
    type WriterState = TxnWriterState;
    type Writer = TxnLogWriter;
    type Committer = TxnLogCommitter;
    type GlobalCommitter = NoGlobalCommitter<TxnHandle>;
    async fn create_writer(
        &self,
        ctx: WriterContext,
        restored: Vec<TxnWriterState>,
    ) -> Result<TxnLogWriter, ConnectorError> {
        let lingering = TxnLogSink::lingering(&ctx, &restored);
        let writer = self.0.open_writer(ctx, lingering).await?;
        Ok(writer.partitioned_by(|record, partitions| (record.key % u64::from(partitions)) as u32))
    }
    fn create_committer(&self, ctx: CommitterContext) -> TxnLogCommitter {
        self.0.create_committer(ctx)
    }
}

/// The reference's output log, written by the variant.
fn keyed_setup() -> impl SinkSetup {
    TxnLogSinkSetup { partitions: 4 }.variant("txn-log-sink(keyed)", KeyedTxnLogSink)
}

// The tests that hold each variant to its suite.
use connectors_under_test::contexts;
use connsim_scenarios::suites;

/// Seeds per case: as many as the reference connectors run (the swarm case needs that many
/// to crash and restore), and a few seconds in a debug build.
const SEEDS: u64 = 10;

#[test]
fn a_source_that_hands_splits_over_by_event_passes_the_source_suite() {
    let outcome = suites::source(contexts::log_source_with("log-source(by event)", ByEventSetup)).seeds(SEEDS).run();
    println!("{outcome}");
    outcome.assert_ok();
    // Handed over by event, not assigned: readers failed over, and the runtime never had an
    // assignment of theirs to give back (`splits-returned`, which the reference reaches).
    let reached = |mark: &str| outcome.cases.iter().flat_map(|c| &c.reports).any(|r| r.marks.iter().any(|m| m == mark));
    assert!(reached("failover:region") && !reached("splits-returned"));
}

#[test]
fn a_source_that_hands_splits_over_by_event_reaches_discovery_faulted() {
    let case = "new splits while the source system is unreachable";
    let outcome =
        suites::source(contexts::log_source_with("log-source(by event)", ByEventSetup)).seeds(SEEDS).only(case).run();
    println!("{outcome}");
    outcome.assert_ok();
    let reports = &outcome.cases.iter().find(|c| c.case == case).expect("the case ran").reports;
    assert!(
        reports.iter().any(|r| r.marks.iter().any(|m| m == "discovery-faulted")),
        "discovery-faulted never reached"
    );
}

#[test]
fn a_txn_log_sink_partitioned_by_key_passes_the_sink_suite() {
    let outcome = suites::sink(contexts::sink(keyed_setup(), &["sink-log"])).seeds(SEEDS).run();
    println!("{outcome}");
    outcome.assert_ok();
}
