//! `connsim sweep`: every catalogue target through its suite over a range of seeds, with a
//! progress bar on a terminal, a summary table (or JSON, or JUnit XML) and saved case files
//! for failures of reference connectors. `--suite random` runs the random-fault catalogue.

use crate::args::{Format, Shard, SweepArgs};
use crate::summary::{case_rows, Status, Summary, TargetRow};
use crate::{junit, progress, random};
use connectors_under_test::catalogue as targets;
use connsim::run::{shell_quote, with_rerun_command};
use std::time::Instant;

/// The seeds of shard `k` of `n` of `1..=total` as (first, count): contiguous chunks, so
/// each case runs a consecutive range.
pub fn shard(total: u64, shard: Option<Shard>) -> (u64, u64) {
    match shard {
        None => (1, total),
        Some(Shard { k, n }) => {
            let (start, end) = ((k - 1) * total / n, k * total / n);
            (start + 1, end - start)
        }
    }
}

/// The targets `filter` picks: the one named exactly so if there is one, else those whose
/// name contains it (every target without a filter).
pub fn pick<T>(targets: Vec<T>, filter: Option<&str>, name: impl Fn(&T) -> &String) -> Vec<T> {
    let Some(f) = filter else { return targets };
    match targets.iter().any(|t| name(t) == f) {
        true => targets.into_iter().filter(|t| name(t) == f).collect(),
        false => targets.into_iter().filter(|t| name(t).contains(f)).collect(),
    }
}

/// The table's header and rows.
pub fn header(out: Format) {
    if out == Format::Text {
        println!(
            "{:<44} {:<8} {:>5} {:>7} {:>8} {:>10} {:>7} {:>7}  verdict",
            "target", "suite", "cases", "seeds", "failures", "first fail", "minimal", "wall s"
        );
    }
}

/// Prints a finished target's row (text format only).
pub fn row(out: Format, t: &TargetRow) {
    if out != Format::Text {
        return;
    }
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    println!(
        "{:<44} {:<8} {:>5} {:>7} {:>8} {:>10} {:>7} {:>7.1}  {}",
        t.name,
        t.suite,
        t.cases.len(),
        t.seeds,
        t.failures,
        or_dash(t.first_failing_seed.map(|s| s.to_string())),
        or_dash(t.minimal_blocks.map(|n| format!("{n} blk"))),
        t.wall_secs,
        t.verdict
    );
    for path in t.saved.iter().take(3) {
        match t.suite == "random" {
            true => println!("    report saved: {path}"),
            false => {
                println!("    case saved: {path} (rerun: cargo run --release -p connsim-cli -- replay {path})");
                let page = connsim_scenarios::suites::timeline_path(std::path::Path::new(path));
                if page.exists() {
                    println!("    timeline: {}", page.display());
                }
            }
        }
    }
}

/// Writes the summary: JSON to standard output, the last line of the table, JUnit XML.
pub fn finish(args: &SweepArgs, summary: &Summary) -> Result<(), String> {
    match args.format {
        Format::Text => println!("{} targets, {:.1} s", summary.targets.len(), summary.wall_secs),
        Format::Json => println!("{}", serde_json::to_string_pretty(summary).map_err(|e| e.to_string())?),
    }
    if let Some(path) = &args.junit {
        std::fs::write(path, junit::render(summary))
            .map_err(|e| format!("--junit {}: cannot write it: {e}", path.display()))?;
    }
    Ok(())
}

pub fn run(args: SweepArgs) -> Result<bool, String> {
    if args.suite.is_some_and(|s| s.as_str() == "random") {
        return random::sweep(args);
    }
    let (first, seeds) = shard(args.seeds, args.shard);
    if seeds == 0 {
        return Err(format!("--shard of {} seeds is empty: use fewer shards", args.seeds));
    }
    if let Some(jobs) = args.jobs {
        std::env::set_var("CONNSIM_JOBS", jobs.to_string()); // read by every runner, before any runs
    }
    let targets: Vec<_> =
        targets::all().into_iter().filter(|t| args.suite.is_none_or(|s| t.suite == s.as_str())).collect();
    let targets = pick(targets, args.target.as_deref(), |t| &t.name);
    if targets.is_empty() {
        return Err("no target matches the --target/--suite filters".into());
    }
    let dir = crate::failures_dir();
    if args.format == Format::Text {
        println!("seeds {first}..={} per case", first + seeds - 1);
    }
    header(args.format);
    let started = Instant::now();
    let bar = progress::bar(targets.len());
    let mut rows = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        let t0 = Instant::now();
        let mut suite = (t.make)().seeds(seeds).first_seed(first);
        if t.expect_failed_check.is_none() {
            // A directory per target: targets sharing a testbed and case names must not rerun
            // each other's saved cases under their own settings.
            suite = suite.save_failures(dir.join(connsim_scenarios::suites::harness::slug(&t.name)));
        }
        let progress = |c: usize, n: usize, case: &str| {
            bar.set_position(i as u64);
            bar.set_message(format!("{} — case {}/{n}: {case}", t.name, c + 1));
        };
        // Reports print a command that reruns their seed of this target (the suite adds the case).
        let rerun = format!("cargo run --release -p connsim-cli -- sweep --target {}", shell_quote(&t.name));
        let outcome = with_rerun_command(Some(rerun), || match t.expect_failed_check {
            None => suite.run_with_progress(progress),
            Some(check) => suite.run_until(progress, |r| r.reports.iter().any(|x| x.failed_checks().contains(&check))),
        });
        let cases = case_rows(&outcome);
        let failures: usize = cases.iter().map(|c| c.failures).sum();
        let first_failing_seed = cases.iter().filter_map(|c| c.first_failing_seed).min();
        let minimal_blocks = outcome.cases.iter().filter_map(|c| c.minimal.as_ref()).map(|s| s.size()).min();
        let (outcome_kind, verdict) = match t.expect_failed_check {
            None => match cases.iter().find(|c| !c.passed()) {
                None => (Status::Ok, "ok".to_string()),
                Some(c) => {
                    let why = match c.first_failing_seed {
                        Some(seed) => format!("{} (seed {seed})", c.failed_checks.join(", ")),
                        None => {
                            format!(
                                "marks reached on too few of {} seeds: {} (run more seeds)",
                                c.seeds,
                                c.missed_marks.join(", ")
                            )
                        }
                    };
                    (Status::Failed, format!("FAILED in {:?}: {why}", c.name))
                }
            },
            Some(check) => match outcome.caught_by(check) {
                Some((case, r)) => (Status::Caught, format!("caught by {check} in {case:?} (seed {})", r.seed)),
                None => (Status::Survived, format!("SURVIVED: no case failed {check}")),
            },
        };
        let saved = outcome.cases.iter().flat_map(|c| &c.saved).map(|p| p.display().to_string()).collect();
        let target_row = TargetRow {
            name: t.name.clone(),
            suite: t.suite.to_string(),
            expect_failed_check: t.expect_failed_check.map(String::from),
            status: outcome_kind,
            verdict,
            seeds: outcome.seeds(),
            failures,
            first_failing_seed,
            minimal_blocks,
            wall_secs: t0.elapsed().as_secs_f64(),
            cases,
            saved,
        };
        bar.suspend(|| row(args.format, &target_row));
        rows.push(target_row);
    }
    bar.finish_and_clear();
    let summary = Summary::new("suites", first, seeds, rows, started);
    finish(&args, &summary)?;
    Ok(summary.ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_seed_once() {
        for (total, n) in [(200, 4), (10, 3), (7, 7)] {
            let mut next = 1;
            for k in 1..=n {
                let (first, count) = shard(total, Some(Shard { k, n }));
                assert_eq!(first, next, "shard {k}/{n} of {total} starts where the last ended");
                next = first + count;
            }
            assert_eq!(next, total + 1);
        }
    }
}
