//! The random-fault catalogue (`connsim sweep --suite random`): reference connectors under
//! the configuration's random faults (must pass) and two mutants (must fail the check their
//! story predicts). Also where `connsim replay` finds testbeds of random-fault runs.

use crate::args::{Format, SweepArgs};
use crate::summary::{CaseRow, Status, Summary, TargetRow};
use crate::{progress, sweep};
use connectors_under_test::contexts::{ALIGNMENT_SKEW_MS, LOG_ALIGNED, LOG_WATERMARKS};
use connectors_under_test::log_sink::{BarrierMode, LogSinkSetup};
use connectors_under_test::mutants::{IgnoresSplitsBackSetup, PrematureCommitSetup};
use connectors_under_test::{
    FileSinkSetup, KafkaSinkSetup, KafkaSourceSetup, LogSourceSetup, LogStart, TableSinkSetup, TxnLogSinkSetup,
    UpsertSinkSetup,
};
use connsim::cluster::Exchange;
use connsim::cluster::FailoverStrategy::{self, Global, Region};
use connsim::probes::{CollectorSetup, GeneratorSetup};
use connsim::run::{shell_quote, with_rerun_command};
use connsim::systems::TxnProtocol;
use connsim::{Outcome, Pipeline, RunReport, Runner, Testbed};
use connsim_scenarios::CaseFile;
use std::time::Instant;

/// Runs a target over the given seeds with the given parallelism.
pub type RunFn = Box<dyn Fn(&[u64], usize) -> Outcome>;

/// Replays a saved case against the target's testbed.
pub type ReplayFn = Box<dyn Fn(&CaseFile) -> RunReport>;

/// One entry of the catalogue.
pub struct Target {
    pub name: String,
    /// The testbed's name (what case files record).
    pub testbed: String,
    pub replay: ReplayFn,
    /// For a mutant: the check that must fail in some seed. `None`: a reference connector.
    pub expect_failed_check: Option<&'static str>,
    pub run: RunFn,
}

fn target<T: Testbed>(
    name: &str,
    failover: FailoverStrategy,
    expect: Option<&'static str>,
    make: impl Fn() -> T + 'static,
) -> Target {
    target_over(name, failover, Exchange::Forward, expect, make)
}

/// A target whose readers send to its writers over `exchange`.
fn target_over<T: Testbed>(
    name: &str,
    failover: FailoverStrategy,
    exchange: Exchange,
    expect: Option<&'static str>,
    make: impl Fn() -> T + 'static,
) -> Target {
    let make = std::rc::Rc::new(make);
    let again = make.clone();
    let over = if exchange == Exchange::Forward { String::new() } else { format!(" over {exchange:?}") };
    Target {
        name: format!("{name}{over} [{failover:?}, {} at once]", checkpoints_at_once(failover)),
        testbed: make().name(),
        replay: Box::new(move |case| case.replay(&Runner::erased(again()))),
        expect_failed_check: expect,
        run: Box::new(move |seeds, jobs| {
            let mut outcome = Outcome { reports: Vec::new(), nondeterministic: Vec::new() };
            let mut r = Runner::erased(make());
            r.jobs(jobs).configure(|c| {
                c.job.failover = failover;
                c.job.checkpoints.max_concurrent = checkpoints_at_once(failover);
                c.job.exchange = exchange;
            });
            // Consecutive runs keep the seeds of a shard together.
            for chunk in seeds.chunk_by(|a, b| b == &(a + 1)) {
                r.first_seed(chunk[0]).seeds(chunk.len() as u64);
                let part = r.run();
                outcome.reports.extend(part.reports);
                outcome.nondeterministic.extend(part.nondeterministic);
            }
            outcome
        }),
    }
}

/// Checkpoints pending at once: region-failover targets let two overlap, global ones one, so
/// the sweep covers both.
fn checkpoints_at_once(failover: FailoverStrategy) -> usize {
    match failover {
        Region => 2,
        Global => 1,
    }
}

pub fn all() -> Vec<Target> {
    let log = || LogSourceSetup::bounded(8, 5000);
    let gen = || GeneratorSetup { splits: 8, records_per_split: 625, ..Default::default() };
    let mut t = Vec::new();
    for f in [Region, Global] {
        t.push(target("log-source -> file-sink", f, None, move || Pipeline(log(), FileSinkSetup)));
        t.push(target("log-source -> txn-log-sink", f, None, move || {
            Pipeline(log(), TxnLogSinkSetup { partitions: 4 })
        }));
        t.push(target("log-source -> table-sink (global committer)", f, None, move || Pipeline(log(), TableSinkSetup)));
        t.push(target("unbounded log-source (event time) -> file-sink", f, None, move || {
            Pipeline(LogSourceSetup::unbounded(6, 5000, 2).with_watermarks(LOG_WATERMARKS), FileSinkSetup)
        }));
        t.push(target("unbounded log-source (aligned, skewed) -> file-sink", f, None, move || {
            let source = LogSourceSetup::unbounded(6, 5000, 2).with_watermarks(LOG_ALIGNED).skewed(ALIGNMENT_SKEW_MS);
            Pipeline(source, FileSinkSetup)
        }));
        t.push(target("log-source (event time) -> probe", f, None, move || {
            Pipeline(log().with_watermarks(LOG_WATERMARKS), CollectorSetup)
        }));
        t.push(target("probe -> file-sink", f, None, move || Pipeline(gen(), FileSinkSetup)));
        t.push(target("probe -> txn-log-sink", f, None, move || Pipeline(gen(), TxnLogSinkSetup { partitions: 4 })));
        t.push(target("probe -> upsert-sink (idempotent)", f, None, move || {
            Pipeline(gen(), UpsertSinkSetup::default())
        }));
        t.push(target("probe -> log-sink (at-least-once, state)", f, None, move || {
            Pipeline(gen(), LogSinkSetup { partitions: 4, mode: BarrierMode::BufferInState })
        }));
        t.push(target("log-source (offset 20, paced) -> txn-log-sink", f, None, move || {
            let source = LogSourceSetup::bounded(8, 5000).paced(1_000).starting(LogStart::Offset(20), 20);
            Pipeline(source, TxnLogSinkSetup { partitions: 4 })
        }));
        for protocol in [TxnProtocol::Classic, TxnProtocol::Kip890] {
            let name = format!("kafka-source -> kafka-sink ({protocol:?})");
            t.push(target(&name, f, None, move || {
                Pipeline(KafkaSourceSetup::new(log().with_aborted_head(3)), KafkaSinkSetup { partitions: 4, protocol })
            }));
        }
        t.push(target_over("log-source -> txn-log-sink", f, Exchange::Rebalance, None, move || {
            Pipeline(log(), TxnLogSinkSetup { partitions: 4 })
        }));
        t.push(target_over("unbounded log-source (event time) -> file-sink", f, Exchange::KeyBy, None, move || {
            Pipeline(LogSourceSetup::unbounded(6, 5000, 2).with_watermarks(LOG_WATERMARKS), FileSinkSetup)
        }));
    }
    t.push(target("mutant: premature commit", Region, Some("no-premature-visibility"), move || {
        Pipeline(log(), PrematureCommitSetup)
    }));
    t.push(target("mutant: ignores add_splits_back", Region, Some("no-loss"), move || {
        Pipeline(IgnoresSplitsBackSetup(log()), FileSinkSetup)
    }));
    t
}

/// `connsim sweep --suite random`: every random-fault target over a range of seeds.
pub fn sweep(args: SweepArgs) -> Result<bool, String> {
    let (first, count) = sweep::shard(args.seeds, args.shard);
    if count == 0 {
        return Err(format!("--shard of {} seeds is empty: use fewer shards", args.seeds));
    }
    let seeds: Vec<u64> = (first..first + count).collect();
    let jobs = args.jobs.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |j| j as usize);
    let targets = sweep::pick(all(), args.target.as_deref(), |t| &t.name);
    if targets.is_empty() {
        return Err(format!("no target matches {:?}", args.target.unwrap_or_default()));
    }
    let dir = crate::failures_dir();
    if args.format == Format::Text {
        println!("seeds {first}..={} per target", first + count - 1);
    }
    sweep::header(args.format);
    let started = Instant::now();
    let bar = progress::bar(targets.len());
    let mut rows = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        bar.set_position(i as u64);
        bar.set_message(t.name.clone());
        let t0 = Instant::now();
        let rerun =
            format!("cargo run --release -p connsim-cli -- sweep --suite random --target {}", shell_quote(&t.name));
        let outcome = with_rerun_command(Some(rerun), || (t.run)(&seeds, jobs));
        let mut case = CaseRow::of_reports("random faults", &outcome.reports, 0.0);
        case.wall_secs = t0.elapsed().as_secs_f64();
        case.nondeterministic(&outcome.nondeterministic.iter().map(|(seed, ..)| *seed).collect::<Vec<_>>());
        let failures = outcome.failures();
        let (kind, verdict) = match t.expect_failed_check {
            None if failures.is_empty() && outcome.nondeterministic.is_empty() => (Status::Ok, "ok".to_string()),
            None if failures.is_empty() => {
                let (seed, ..) = outcome.nondeterministic[0];
                (Status::Failed, format!("FAILED: seed {seed} is not deterministic"))
            }
            None => (Status::Failed, format!("FAILED: {} (seed {})", case.failed_checks.join(", "), failures[0].seed)),
            Some(check) => match failures.iter().find(|r| r.failed_checks().contains(&check)) {
                Some(r) => (Status::Caught, format!("caught by {check} (seed {})", r.seed)),
                None => (Status::Survived, format!("SURVIVED: no seed failed {check}")),
            },
        };
        let mut saved = Vec::new();
        if t.expect_failed_check.is_none() {
            for r in failures.iter().take(3) {
                let _ = std::fs::create_dir_all(&dir);
                let file = dir.join(format!("{}-seed-{}.txt", t.name.replace([' ', '>', '[', ']', ':'], "_"), r.seed));
                if std::fs::write(&file, r.to_string()).is_ok() {
                    saved.push(file.display().to_string());
                }
            }
        }
        let row = TargetRow {
            name: t.name.clone(),
            suite: "random".into(),
            expect_failed_check: t.expect_failed_check.map(String::from),
            status: kind,
            verdict,
            seeds: case.seeds,
            failures: case.failures,
            first_failing_seed: case.first_failing_seed,
            minimal_blocks: None,
            wall_secs: case.wall_secs,
            cases: vec![case],
            saved,
        };
        bar.suspend(|| sweep::row(args.format, &row));
        rows.push(row);
    }
    bar.finish_and_clear();
    let summary = Summary::new("random", first, count, rows, started);
    sweep::finish(&args, &summary)?;
    Ok(summary.ok)
}
