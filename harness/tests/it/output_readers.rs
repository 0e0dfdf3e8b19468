//! The harness reads outputs itself, so a bad output reader, or a model that changes its
//! output outside the requests it serves, is a verdict in a report with its seed, never a
//! hung or aborted run.

use connsim::history::EventKind;
use connsim::probes::{GeneratorSetup, ProbeSink};
use connsim::run::FaultConfig;
use connsim::systems::{Collector, Entry, OutputReader, Part};
use connsim::{Pipeline, RecordId, RunReport, Runner, SinkSetup, World};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What is wrong with the output.
#[derive(Clone, Copy, Debug)]
enum Wrong {
    /// The reader panics on its 4th listing.
    Panics,
    /// Every record's entry is garbage.
    Undecodable,
    /// A background task adds a record to the output without any request, after the run's
    /// last served request (while the output settles).
    ChangedBehindTheHarness,
}

/// The collector's output, read through a reader that is wrong in one way.
struct Reader {
    inner: Arc<dyn OutputReader>,
    wrong: Wrong,
    listings: AtomicUsize,
    sneaked: Arc<Mutex<Vec<RecordId>>>,
}

impl OutputReader for Reader {
    fn location(&self) -> String {
        "wrong-output".into()
    }
    fn parts(&self) -> Vec<Part> {
        if matches!(self.wrong, Wrong::Panics) && self.listings.fetch_add(1, Ordering::Relaxed) == 3 {
            panic!("reader bug: offset out of range");
        }
        let mut parts = self.inner.parts();
        parts.push(Part { name: "sneaked".into(), version: 0, end: self.sneaked.lock().unwrap().len() as u64 });
        parts
    }
    fn read(&self, part: &str, from: u64) -> Vec<Entry> {
        if part == "sneaked" {
            let ids = self.sneaked.lock().unwrap();
            return ids[from as usize..].iter().map(|id| Entry::record(*id, 0)).collect();
        }
        let entries = self.inner.read(part, from);
        match self.wrong {
            Wrong::Undecodable => {
                entries.iter().map(|_| Entry::Garbage(format!("{part}: bytes that are not a record"))).collect()
            }
            _ => entries,
        }
    }
}

struct WrongSetup(Wrong);

impl SinkSetup for WrongSetup {
    type Sink = ProbeSink;
    fn name(&self) -> String {
        format!("collector with a wrong output ({:?})", self.0)
    }
    fn build(&self, world: &mut World) -> ProbeSink {
        let collector = Collector::new("collector");
        let inner = collector.output();
        world.add_system(Arc::new(collector));
        let sneaked: Arc<Mutex<Vec<RecordId>>> = Arc::default();
        if matches!(self.0, Wrong::ChangedBehindTheHarness) {
            let (sneaked, history) = (sneaked.clone(), world.history().clone());
            world.during_run(async move {
                let converged = || history.with_events(|e| e.iter().any(|e| matches!(e.kind, EventKind::Converged)));
                while !converged() {
                    madsim::time::sleep(std::time::Duration::from_millis(1)).await;
                }
                madsim::time::sleep(std::time::Duration::from_millis(20)).await;
                sneaked.lock().unwrap().push(RecordId(1)); // no request: only the final read sees it
            });
        }
        world.set_output(Arc::new(Reader { inner, wrong: self.0, listings: AtomicUsize::new(0), sneaked }));
        ProbeSink::new("collector")
    }
}

fn run_one(wrong: Wrong) -> RunReport {
    let source = GeneratorSetup { splits: 2, records_per_split: 100, ..Default::default() };
    let mut r = Runner::new(Pipeline(source, WrongSetup(wrong)));
    r.seeds(2).configure(|c| c.faults = FaultConfig::none());
    let out = r.run();
    assert_eq!(out.failures().len(), 2, "every seed must fail: {}", out.summary());
    let report = out.reports[0].clone();
    assert!(report.to_string().contains("replay: CONNSIM_SEED=1 "), "{report}");
    report
}

#[test]
fn a_panicking_output_reader_is_a_verdict_naming_the_output() {
    let report = run_one(Wrong::Panics);
    let v = report.verdict("no-unobserved-visibility").unwrap();
    assert!(!v.passed && v.summary.contains("wrong-output") && v.summary.contains("reader bug"), "{v:?}");
    assert_eq!(report.verdict("liveness").map(|v| v.passed), Some(true), "the job itself ran to its end: {report}");
}

#[test]
fn undecodable_output_is_corruption_naming_the_output() {
    let report = run_one(Wrong::Undecodable);
    let v = report.verdict("no-corruption").unwrap();
    assert!(!v.passed && v.summary.contains("wrong-output"), "{v:?}");
    assert!(v.evidence.iter().any(|e| e.contains("bytes that are not a record")), "{v:?}");
}

#[test]
fn output_that_changed_outside_any_served_request_is_unobserved_visibility() {
    let report = run_one(Wrong::ChangedBehindTheHarness);
    let v = report.verdict("no-unobserved-visibility").unwrap();
    assert!(!v.passed && v.evidence.iter().any(|e| e.contains("r1") && e.contains("sneaked")), "{v:?}");
    // The records the collector committed were all seen appearing as they were committed.
    assert!(report.verdict("no-premature-visibility").unwrap().passed, "{report}");
}
