//! `connsim sweep`: every catalogue target through its suite over a range of seeds, with a
//! progress line, a summary table and saved case files for failures of reference
//! connectors. `--suite random` runs the random-fault catalogue instead.

use crate::args::Args;
use crate::{random, targets};
use std::io::{IsTerminal, Write};
use std::time::Instant;

/// The seeds of shard `k` of `n` of `1..=total`: contiguous chunks, so each case runs a
/// consecutive range.
fn shard(total: u64, shard: Option<(u64, u64)>) -> (u64, u64) {
    match shard {
        None => (1, total),
        Some((k, n)) => {
            let (start, end) = ((k - 1) * total / n, k * total / n);
            (start + 1, end - start)
        }
    }
}

pub fn run(args: Args) -> Result<bool, String> {
    if args.suite.as_deref() == Some("random") {
        return random::sweep(args);
    }
    let (first, seeds) = shard(args.seeds.unwrap_or(200), args.shard);
    if let Some(jobs) = args.jobs {
        std::env::set_var("CONNSIM_JOBS", jobs.to_string()); // read by every runner, before any runs
    }
    let targets: Vec<_> = targets::all()
        .into_iter()
        .filter(|t| args.target.as_ref().is_none_or(|f| t.name.contains(f.as_str())))
        .filter(|t| args.suite.as_ref().is_none_or(|s| t.suite == s))
        .collect();
    if targets.is_empty() {
        return Err("no target matches the --target/--suite filters".into());
    }
    let dir = std::path::PathBuf::from("target/connsim-failures");
    println!("seeds {first}..={} per case", first + seeds - 1);
    println!(
        "{:<44} {:<8} {:>5} {:>7} {:>8} {:>10} {:>7} {:>7}  verdict",
        "target", "suite", "cases", "seeds", "failures", "first fail", "minimal", "wall s"
    );
    let started = Instant::now();
    let mut ok = true;
    for (i, t) in targets.iter().enumerate() {
        let t0 = Instant::now();
        let mut suite = (t.make)().seeds(seeds).first_seed(first);
        if t.expect_failed_check.is_none() {
            suite = suite.save_failures(&dir);
        }
        // The progress line rewrites itself on a terminal; logs (CI) get only the table.
        let tty = std::io::stderr().is_terminal();
        let progress = |c: usize, n: usize, case: &str| {
            if tty {
                eprint!("\r\x1b[2K[{}/{}] {} — case {}/{}: {case}", i + 1, targets.len(), t.name, c + 1, n);
                let _ = std::io::stderr().flush();
            }
        };
        let outcome = match t.expect_failed_check {
            None => suite.run_with_progress(progress),
            Some(check) => suite.run_until(progress, |r| r.reports.iter().any(|x| x.failed_checks().contains(&check))),
        };
        if tty {
            eprint!("\r\x1b[2K");
        }
        let failed: Vec<_> = outcome.cases.iter().flat_map(|c| c.failures()).collect();
        let first_fail = failed.iter().map(|r| r.seed).min().map_or("-".into(), |s| s.to_string());
        let minimal = outcome
            .cases
            .iter()
            .filter_map(|c| c.minimal.as_ref())
            .map(|s| s.size())
            .min()
            .map_or("-".into(), |n| format!("{n} blk"));
        let verdict = match t.expect_failed_check {
            None if outcome.failed_cases().is_empty() => "ok".to_string(),
            None => {
                let c = outcome.failed_cases()[0];
                match c.failures().first() {
                    Some(r) => format!("FAILED in {:?}: {} (seed {})", c.case, r.failed_checks().join(", "), r.seed),
                    None => format!(
                        "FAILED in {:?}: never reached {} in {} seeds (run more seeds)",
                        c.case,
                        c.missed_marks.join(", "),
                        c.reports.len()
                    ),
                }
            }
            Some(check) => match outcome.caught_by(check) {
                Some((case, r)) => format!("caught by {check} in {case:?} (seed {})", r.seed),
                None => format!("SURVIVED: no case failed {check}"),
            },
        };
        ok &= verdict.starts_with("ok") || verdict.starts_with("caught");
        println!(
            "{:<44} {:<8} {:>5} {:>7} {:>8} {:>10} {:>7} {:>7.1}  {verdict}",
            t.name,
            t.suite,
            outcome.cases.len(),
            outcome.seeds(),
            failed.len(),
            first_fail,
            minimal,
            t0.elapsed().as_secs_f64()
        );
        for path in outcome.cases.iter().flat_map(|c| &c.saved).take(3) {
            println!("    case saved: {} (rerun: connsim replay {})", path.display(), path.display());
        }
    }
    println!("{} targets, {:.1} s", targets.len(), started.elapsed().as_secs_f64());
    Ok(ok)
}
