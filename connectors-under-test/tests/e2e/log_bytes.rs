//! The log holds bytes; a topic's declared format decodes what a downstream consumer reads,
//! and bytes it rejects, or a decoder that panics, become a report naming the output, the
//! part and the seed: never a hung run.

use connectors_under_test::txn_log_sink::TxnLogSink;
use connsim::probes::GeneratorSetup;
use connsim::record::Seen;
use connsim::run::FaultConfig;
use connsim::systems::{LogEntry, LogFormat, PartitionedLog, RecordLogFormat};
use connsim::{Pipeline, Record, RunReport, Runner, SinkSetup, World};
use std::sync::Arc;

/// How the downstream consumer's decoder treats the entries of records whose id ends in 7.
#[derive(Clone, Copy, Debug)]
enum Decoder {
    Rejects,
    Panics,
}

impl LogFormat for Decoder {
    fn entry(&self, record: &Record) -> LogEntry {
        RecordLogFormat::encode(record)
    }
    fn seen(&self, entry: &LogEntry) -> Result<Seen, String> {
        let seen = RecordLogFormat.seen(entry)?;
        match (self, seen.id.0 % 10 == 7) {
            (_, false) => Ok(seen),
            (Decoder::Rejects, true) => Err("field `amount` is missing".into()),
            (Decoder::Panics, true) => panic!("decoder bug: amount out of range"),
        }
    }
}

/// The reference transactional log sink, its output topic decoded by `Decoder`.
struct DecodedBy(Decoder);

impl SinkSetup for DecodedBy {
    type Sink = TxnLogSink;
    fn name(&self) -> String {
        format!("txn-log-sink decoded by {:?}", self.0)
    }
    fn build(&self, world: &mut World) -> TxnLogSink {
        let log = PartitionedLog::new("sink-log", world.history().clone());
        log.create_topic_with("output", 2, Arc::new(self.0));
        world.set_output(log.output("output"));
        world.add_system(Arc::new(log));
        TxnLogSink { log: "sink-log".into(), topic: "output".into(), prefix: "connsim-sink".into() }
    }
}

fn run(decoder: Decoder) -> Vec<RunReport> {
    let mut r = Runner::new(Pipeline(
        GeneratorSetup { splits: 2, records_per_split: 50, ..Default::default() },
        DecodedBy(decoder),
    ));
    r.seeds(2).configure(|c| c.faults = FaultConfig::none());
    let out = r.run();
    assert_eq!(out.failures().len(), 2, "every seed must fail: {}", out.summary());
    out.reports
}

#[test]
fn visible_bytes_the_declared_decoder_rejects_are_corruption_named_by_output_partition_and_offset() {
    for (seed, report) in (1..).zip(run(Decoder::Rejects)) {
        let v = report.verdict("no-corruption").expect("judged");
        let evidence = v.evidence.join("\n");
        assert!(!v.passed, "{report}");
        assert!(evidence.contains("sink-log:output-") && evidence.contains(" offset "), "{evidence}");
        assert!(evidence.contains("field `amount` is missing"), "{evidence}");
        assert!(report.to_string().contains(&format!("replay: CONNSIM_SEED={seed} ")), "{report}");
    }
}

#[test]
fn a_decoder_that_panics_gives_a_report_naming_the_output_and_part_not_a_hung_run() {
    for (seed, report) in (1..).zip(run(Decoder::Panics)) {
        let text = report.to_string();
        assert!(text.contains("the output reader of sink-log:output panicked reading part output-"), "{text}");
        assert!(text.contains("decoder bug: amount out of range"), "{text}");
        assert!(text.contains(&format!("replay: CONNSIM_SEED={seed} ")), "{text}");
    }
}
