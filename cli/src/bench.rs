//! `connsim bench`: the log-source -> file-sink scenario, on one thread unless `--jobs` says
//! otherwise; `--peer` runs the scenario of the hand-written madsim test it is compared with,
//! `--engine` the engine alone (verification off).

use crate::args::BenchArgs;
use connectors_under_test::{FileSinkSetup, LogSourceSetup};
use connsim::cluster::FailoverStrategy;
use connsim::run::Verification;
use connsim::{Pipeline, RunConfig, Runner};
use std::time::Instant;

/// Peak resident memory of this process, from /proc (Linux), in MiB.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// The peer's scenario: 8 partitions, `records` (the peer's 5,000) fetched 100 at a time, parallelism 4 on
/// 4 task executors (no spare), checkpoints every 100 ms, about two crashes per seed, each
/// restarted within 500 ms, 1% of messages lost, global failover.
fn peer(records: u64) -> (LogSourceSetup, RunConfig) {
    let mut config = RunConfig::default();
    config.job.spare_task_executors = 0;
    config.job.failover = FailoverStrategy::Global;
    config.faults.crash_interval_ms_mean = config.faults.safety_ms / 2;
    config.faults.restart_delay_ms_max = 500;
    config.faults.rpc_drop_probability = 0.01;
    (LogSourceSetup::bounded(8, records).fetching(100), config)
}

/// Runs the bench.
pub fn run(args: BenchArgs) -> Result<bool, String> {
    let (seeds, jobs, records, is_peer) = (args.seeds, args.jobs as usize, args.records, args.peer);
    let (source, config, name) = match is_peer {
        true => {
            let (source, config) = peer(records);
            (source, config, "the peer's scenario: fetches of 100, ~2 crashes, 1% loss, global failover")
        }
        false => (LogSourceSetup::bounded(8, records), RunConfig::default(), "default faults"),
    };
    let mut config = config;
    if args.engine {
        config.verification = Verification::Off;
    }
    let mut r = Runner::erased(Pipeline(source, FileSinkSetup));
    r.config(config).seeds(seeds).jobs(jobs);
    let t0 = Instant::now();
    let outcome = r.run();
    let wall = t0.elapsed().as_secs_f64();
    let virtual_s: f64 = outcome.reports.iter().map(|r| r.stats.virtual_ms as f64 / 1e3).sum();
    let events: usize = outcome.reports.iter().map(|r| r.stats.events).sum();
    println!("scenario: log-source(8 partitions, {records} records) -> file-sink, parallelism 4, {name}");
    if args.engine {
        println!("verification: off (the engine alone: no history, no observed output, no checks)");
    }
    println!("seeds: {seeds} on {jobs} thread(s), {} failed", outcome.failures().len());
    println!("wall time per seed: {:.2} ms", wall * 1e3 / seeds as f64);
    println!("seeds per second: {:.1}", seeds as f64 / wall);
    println!("virtual seconds per wall second: {:.0}", virtual_s / wall);
    println!("history events per second: {:.0}", events as f64 / wall);
    let phase = |f: fn(&connsim::run::Cost) -> std::time::Duration| {
        let total: f64 = outcome.reports.iter().map(|r| f(&r.cost).as_secs_f64()).sum();
        format!("{:.2} ms ({:.0}%)", total * 1e3 / seeds as f64, 100.0 * total / (wall * jobs as f64))
    };
    println!(
        "per seed: simulation {}, history {}, checks {}, report {}",
        phase(|c| c.simulate),
        phase(|c| c.history),
        phase(|c| c.checks),
        phase(|c| c.report)
    );
    match peak_rss_mib() {
        Some(m) => println!("peak memory (VmHWM): {m:.0} MiB"),
        None => println!("peak memory: unavailable (no /proc/self/status)"),
    }
    Ok(outcome.failures().is_empty())
}
