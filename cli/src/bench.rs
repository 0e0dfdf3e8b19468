//! `connsim bench`: the log-source -> file-sink scenario on one thread.

use crate::args::Args;
use connectors_under_test::{FileSinkSetup, LogSourceSetup};
use connsim::{Pipeline, Runner};
use std::time::Instant;

/// Peak resident memory of this process, from /proc (Linux), in MiB.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

pub fn run(args: Args) -> Result<bool, String> {
    let seeds = args.seeds.unwrap_or(200);
    let mut r = Runner::new(Pipeline(LogSourceSetup::bounded(8, 5000), FileSinkSetup));
    r.seeds(seeds).jobs(1);
    let t0 = Instant::now();
    let outcome = r.run();
    let wall = t0.elapsed().as_secs_f64();
    let virtual_s: f64 = outcome.reports.iter().map(|r| r.stats.virtual_ms as f64 / 1e3).sum();
    let events: usize = outcome.reports.iter().map(|r| r.stats.events).sum();
    println!("scenario: log-source(8 partitions, 5000 records) -> file-sink, parallelism 4, default faults");
    println!("seeds: {seeds} on one thread, {} failed", outcome.failures().len());
    println!("wall time per seed: {:.2} ms", wall * 1e3 / seeds as f64);
    println!("seeds per second (one thread): {:.1}", seeds as f64 / wall);
    println!("virtual seconds per wall second: {:.0}", virtual_s / wall);
    println!("history events per second: {:.0}", events as f64 / wall);
    match peak_rss_mib() {
        Some(m) => println!("peak memory (VmHWM): {m:.0} MiB"),
        None => println!("peak memory: unavailable (no /proc/self/status)"),
    }
    Ok(outcome.failures().is_empty())
}
