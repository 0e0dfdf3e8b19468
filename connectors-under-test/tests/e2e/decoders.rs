//! The built-in models hold bytes; a declared format decodes what a downstream reader reads
//! (a log topic's `LogFormat`, a key-value store's or a table's `ValueFormat`), and bytes it
//! rejects, or a decoder that panics, become a report naming the output, the part and the
//! seed: never a hung run.

use connectors_under_test::file_sink::FileSink;
use connectors_under_test::row::{BinaryRowFormat, JsonRowFormat, RowCodec};
use connectors_under_test::table_sink::TableSink;
use connectors_under_test::txn_log_sink::TxnLogSink;
use connectors_under_test::upsert_sink::UpsertSink;
use connsim::api::ElementSink;
use connsim::probes::GeneratorSetup;
use connsim::record::Seen;
use connsim::run::FaultConfig;
use connsim::systems::{
    Entry, FileFormat, FileSystem, KvStore, LogEntry, LogFormat, PartitionedLog, RecordLogFormat, RecordValueFormat,
    SnapshotTable, ValueFormat,
};
use connsim::{Pipeline, Record, RunReport, Runner, SinkSetup, World};
use std::sync::Arc;

/// How the downstream consumer's decoder treats the entries of records whose id ends in 7.
#[derive(Clone, Copy, Debug)]
enum Decoder {
    /// Decodes what the writer wrote: a correct declared format.
    Accepts,
    Rejects,
    Panics,
}

impl Decoder {
    fn judge(self, seen: Seen) -> Result<Seen, String> {
        match (self, seen.id.0 % 10 == 7) {
            (_, false) | (Decoder::Accepts, _) => Ok(seen),
            (Decoder::Rejects, true) => Err("field `amount` is missing".into()),
            (Decoder::Panics, true) => panic!("decoder bug: amount out of range"),
        }
    }
}

impl LogFormat for Decoder {
    fn entry(&self, record: &Record) -> LogEntry {
        RecordLogFormat::encode(record)
    }
    fn seen(&self, entry: &LogEntry) -> Result<Seen, String> {
        self.judge(RecordLogFormat.seen(entry)?)
    }
}

impl ValueFormat for Decoder {
    fn seen(&self, value: &[u8]) -> Result<Seen, String> {
        self.judge(RecordValueFormat.seen(value)?)
    }
}

impl FileFormat for Decoder {
    fn entries(&self, path: &str, bytes: &[u8]) -> Vec<Entry> {
        let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
        let torn = lines.pop().filter(|last| !last.is_empty()); // after the last newline
        let decode = |(n, line): (usize, &[u8])| {
            let (id, digest) = match Record::digest_line(line) {
                Some(decoded) => decoded,
                None => return Entry::Garbage(format!("{path} line {n}: not a record")),
            };
            match self.judge(Seen { id, digest }) {
                Ok(seen) => Entry::Record(seen),
                Err(why) => Entry::Garbage(format!("{path} line {n}: {why}")),
            }
        };
        let mut entries: Vec<Entry> =
            lines.into_iter().enumerate().filter(|(_, l)| !l.is_empty()).map(decode).collect();
        if let Some(torn) = torn {
            entries.push(Entry::Garbage(format!("{path}: a last line without its newline, {} bytes", torn.len())));
        }
        entries
    }
}

/// The reference file sink, its files decoded by `Decoder`.
struct FilesDecodedBy(Decoder);

impl SinkSetup for FilesDecodedBy {
    type Sink = FileSink;
    fn name(&self) -> String {
        format!("file-sink decoded by {:?}", self.0)
    }
    fn build(&self, world: &mut World) -> FileSink {
        let fs = FileSystem::new("fs", "out/").reading_with(Arc::new(self.0));
        world.set_output(fs.output());
        world.add_system(Arc::new(fs));
        FileSink { fs: "fs".into(), dir: "out/".into(), in_progress: "out/.inprogress/".into() }
    }
}

/// `Decoder` over the upsert sink's JSON rows.
#[derive(Clone, Copy, Debug)]
struct JsonRows(Decoder);

impl ValueFormat for JsonRows {
    fn seen(&self, value: &[u8]) -> Result<Seen, String> {
        self.0.judge(JsonRowFormat.seen(value)?)
    }
}

/// `Decoder` over the table sink's binary rows.
#[derive(Clone, Copy, Debug)]
struct BinaryRows(Decoder);

impl ValueFormat for BinaryRows {
    fn seen(&self, value: &[u8]) -> Result<Seen, String> {
        self.0.judge(BinaryRowFormat.seen(value)?)
    }
}

/// The reference upsert sink, its store's values decoded by `Decoder`.
struct UpsertDecodedBy(Decoder);

impl SinkSetup for UpsertDecodedBy {
    type Sink = ElementSink<UpsertSink, RowCodec>;
    fn name(&self) -> String {
        format!("upsert-sink decoded by {:?}", self.0)
    }
    fn build(&self, world: &mut World) -> Self::Sink {
        let kv = KvStore::with_format("kv", Arc::new(JsonRows(self.0)));
        world.set_output(kv.output());
        world.add_system(Arc::new(kv));
        ElementSink::new(UpsertSink { store: "kv".into(), claims_exactly_once: false })
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
    }
}

/// The reference table sink, its rows decoded by `Decoder`.
struct TableDecodedBy(Decoder);

impl SinkSetup for TableDecodedBy {
    type Sink = ElementSink<TableSink, RowCodec>;
    fn name(&self) -> String {
        format!("table-sink decoded by {:?}", self.0)
    }
    fn build(&self, world: &mut World) -> Self::Sink {
        let table = SnapshotTable::with_format("table", Arc::new(BinaryRows(self.0)));
        world.set_output(table.output());
        world.add_system(Arc::new(table));
        ElementSink::new(TableSink { table: "table".into(), schema: None })
    }
    /// Its element type (a row) holds no null key or value and no headers; its payload any bytes.
    fn carries(&self) -> connsim::record::Carries {
        connsim::record::Carries { binary_payloads: true, ..connsim::record::Carries::PLAIN }
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

fn run<S: SinkSetup>(sink: S) -> Vec<RunReport> {
    let mut r = Runner::new(Pipeline(GeneratorSetup { splits: 2, records_per_split: 50, ..Default::default() }, sink));
    r.seeds(2).configure(|c| c.faults = FaultConfig::none());
    let out = r.run();
    assert_eq!(out.failures().len(), 2, "every seed must fail: {}", out.summary());
    out.reports
}

#[test]
fn declared_formats_that_decode_what_the_writers_wrote_pass_under_faults() {
    fn passes<S: SinkSetup>(sink: S) {
        let source = GeneratorSetup { splits: 4, records_per_split: 100, pace_ms: 300, ..Default::default() };
        let mut r = Runner::new(Pipeline(source, sink));
        r.seeds(10);
        let out = r.run();
        assert!(out.failures().is_empty(), "{}", out.summary());
    }
    passes(DecodedBy(Decoder::Accepts));
    passes(UpsertDecodedBy(Decoder::Accepts));
    passes(TableDecodedBy(Decoder::Accepts));
    passes(FilesDecodedBy(Decoder::Accepts));
}

#[test]
fn visible_bytes_the_declared_decoder_rejects_are_corruption_named_by_output_partition_and_offset() {
    rejected(run(DecodedBy(Decoder::Rejects)), &["sink-log:output-", " offset "]);
}

#[test]
fn a_value_the_key_value_stores_decoder_rejects_is_corruption_named_by_bucket_and_key() {
    rejected(run(UpsertDecodedBy(Decoder::Rejects)), &["kv/bucket-", " key r"]);
}

#[test]
fn a_row_the_tables_decoder_rejects_is_corruption_named_by_data_file_and_row() {
    rejected(run(TableDecodedBy(Decoder::Rejects)), &["table: data/", " row "]);
}

#[test]
fn a_file_line_the_declared_file_format_rejects_is_corruption_named_by_path_and_line() {
    rejected(run(FilesDecodedBy(Decoder::Rejects)), &["out/", " line "]);
}

/// Every report fails `no-corruption` with the decoder's reason at a place named by `at`.
fn rejected(reports: Vec<RunReport>, at: &[&str]) {
    for (seed, report) in (1..).zip(reports) {
        let v = report.verdict("no-corruption").expect("judged");
        let evidence = v.evidence.join("\n");
        assert!(!v.passed, "{report}");
        assert!(at.iter().all(|a| evidence.contains(a)), "{at:?} in {evidence}");
        assert!(evidence.contains("field `amount` is missing"), "{evidence}");
        assert!(report.to_string().contains(&format!("replay: CONNSIM_SEED={seed} ")), "{report}");
    }
}

#[test]
fn a_decoder_that_panics_gives_a_report_naming_the_output_and_part_not_a_hung_run() {
    for (seed, report) in (1..).zip(run(DecodedBy(Decoder::Panics))) {
        let text = report.to_string();
        assert!(text.contains("the output reader of sink-log:output panicked reading part output-"), "{text}");
        assert!(text.contains("decoder bug: amount out of range"), "{text}");
        // The decoder ran with the model unlocked: the panic poisoned nothing the run goes on with.
        assert!(!text.contains("PoisonError"), "{text}");
        assert!(text.contains(&format!("replay: CONNSIM_SEED={seed} ")), "{text}");
    }
}
