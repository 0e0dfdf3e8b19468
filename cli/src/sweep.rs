//! `connsim sweep`: every target over a range of seeds, a summary table, failures saved.

use crate::args::Args;
use crate::targets;
use std::io::Write;
use std::time::Instant;

pub fn run(args: Args) -> Result<bool, String> {
    let seeds_total = args.seeds.unwrap_or(200);
    let seeds: Vec<u64> = (1..=seeds_total)
        .filter(|s| args.shard.is_none_or(|(k, n)| (s - 1) % n == k - 1))
        .collect();
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let targets: Vec<_> = targets::all()
        .into_iter()
        .filter(|t| args.target.as_ref().is_none_or(|f| t.name.contains(f.as_str())))
        .collect();
    if targets.is_empty() {
        return Err(format!("no target matches {:?}", args.target.unwrap_or_default()));
    }
    let dir = std::path::PathBuf::from("target/connsim-failures");
    println!("{:<54} {:>6} {:>8} {:>10} {:>9}  verdict", "target", "seeds", "failures", "first fail", "wall s");
    let started = Instant::now();
    let mut ok = true;
    for t in &targets {
        print!("{:<54} ", t.name);
        let _ = std::io::stdout().flush();
        let t0 = Instant::now();
        let outcome = (t.run)(&seeds, jobs);
        let failures = outcome.failures();
        let first = failures.first().map_or("-".to_string(), |r| r.seed.to_string());
        let verdict = match t.expect_failed_check {
            None if failures.is_empty() && outcome.nondeterministic.is_empty() => "ok".to_string(),
            None => format!("FAILED: {}", failures.first().map(|r| r.failed_checks().join(", ")).unwrap_or_default()),
            Some(check) => match failures.iter().find(|r| r.failed_checks().contains(&check)) {
                Some(r) => format!("caught by {check} (seed {})", r.seed),
                None => format!("SURVIVED: no seed failed {check}"),
            },
        };
        ok &= verdict.starts_with("ok") || verdict.starts_with("caught");
        println!("{:>6} {:>8} {:>10} {:>9.1}  {verdict}", outcome.reports.len(), failures.len(), first, t0.elapsed().as_secs_f64());
        if t.expect_failed_check.is_none() {
            for r in failures.iter().take(3) {
                let _ = std::fs::create_dir_all(&dir);
                let file = dir.join(format!("{}-seed-{}.txt", t.name.replace([' ', '>', '[', ']', ':'], "_"), r.seed));
                let _ = std::fs::write(&file, r.to_string());
                println!("    report saved: {}", file.display());
            }
        }
    }
    println!("{} targets, {} seeds each, {:.1} s", targets.len(), seeds.len(), started.elapsed().as_secs_f64());
    Ok(ok)
}
