//! The command line: subcommands and their options, parsed by `clap` (which also writes
//! `--help` and the errors for bad arguments, exit code 2).

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// connsim: deterministic simulation tests of stream-processing connectors.
#[derive(Debug, Parser)]
#[command(
    name = "connsim",
    version,
    after_help = "Examples:
  connsim sweep                                  every target, 200 seeds per case
  connsim sweep --seeds 10 --format json --junit sweep.xml
  connsim sweep --suite random --target file-sink
  connsim bench --peer                           the hand-written madsim test's scenario
  connsim bench --peer --engine                  the same, the engine alone (nothing verified)
  connsim replay target/connsim-failures/FILE    rerun a saved case
  connsim timeline target/connsim-failures/FILE  draw it as an HTML timeline

Failures are saved under $CARGO_TARGET_DIR/connsim-failures/ when CARGO_TARGET_DIR is set."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// What to run.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the reference connectors and the mutants through their suites.
    ///
    /// Every case of a reference connector must pass on every seed; some case of a mutant
    /// must fail the check its story predicts. Exits 1 if a reference connector fails or a
    /// mutant survives. Failures of reference connectors are saved as case files under
    /// target/connsim-failures/ ($CARGO_TARGET_DIR/connsim-failures/ when CARGO_TARGET_DIR
    /// is set), their timelines in timelines/ beside them.
    Sweep(SweepArgs),
    /// Measure the simulator on the log-source -> file-sink scenario.
    ///
    /// Prints wall time per seed, seeds per second, virtual seconds per wall second, the
    /// cost of each phase and peak memory.
    Bench(BenchArgs),
    /// Run generated scenarios against the reference pipelines and a mutant.
    ///
    /// Generated scenarios (swarm mode) against the reference pipelines, then a generated
    /// search for the premature-commit mutant, shrunk.
    Generate(GenerateArgs),
    /// Rerun a saved case file and print its report.
    ///
    /// The case runs against the catalogue target that recorded it; the history hash is
    /// compared with the recorded one.
    Replay(ReplayArgs),
    /// Rerun a saved case file and draw it as an HTML timeline.
    ///
    /// One self-contained page (no network): a lane per node, every event on a virtual-time
    /// axis, the first bad event highlighted, zoom and a filter by split or record id.
    /// Written to timelines/ beside the case file (same name, .html; a directory git ignores)
    /// unless --out says where.
    Timeline(TimelineArgs),
}

/// Which catalogue a sweep runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SuiteKind {
    /// Source connectors through the source suite.
    Source,
    /// Sink connectors through the sink suite.
    Sink,
    /// Sources and sinks together through the pipeline suite.
    Pipeline,
    /// The random-fault catalogue instead of the suites.
    Random,
}

impl SuiteKind {
    /// The name the catalogue uses.
    pub fn as_str(self) -> &'static str {
        match self {
            SuiteKind::Source => "source",
            SuiteKind::Sink => "sink",
            SuiteKind::Pipeline => "pipeline",
            SuiteKind::Random => "random",
        }
    }
}

/// How a sweep writes its result to standard output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table, a row per target as it finishes.
    Text,
    /// One JSON document at the end (targets, cases, verdicts, replay lines).
    Json,
}

/// The K-th of N seed ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: u64,
    pub n: u64,
}

fn shard(v: &str) -> Result<Shard, String> {
    let (k, n) = v.split_once('/').ok_or("expected K/N, e.g. 1/4")?;
    let k: u64 = k.parse().map_err(|_| "K is not a number")?;
    let n: u64 = n.parse().map_err(|_| "N is not a number")?;
    if n == 0 || k == 0 || k > n {
        return Err("need 1 <= K <= N".into());
    }
    Ok(Shard { k, n })
}

/// Options of `connsim sweep`.
#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// Seeds per case.
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    pub seeds: u64,
    /// Seeds run at once [default: one per core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// Only targets whose name contains this.
    #[arg(long, value_name = "SUBSTRING")]
    pub target: Option<String>,
    /// Only targets of this suite; `random` runs the random-fault catalogue.
    #[arg(long, value_enum)]
    pub suite: Option<SuiteKind>,
    /// Run only the K-th of N contiguous seed ranges (spread a sweep over N machines).
    #[arg(long, value_name = "K/N", value_parser = shard)]
    pub shard: Option<Shard>,
    /// What standard output gets.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also write the result as JUnit XML to FILE (a test suite per target).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// Options of `connsim bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Seeds to run.
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    pub seeds: u64,
    /// Seeds run at once.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: u64,
    /// Records in the source.
    #[arg(long, value_name = "N", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..))]
    pub records: u64,
    /// Run the scenario of the hand-written madsim test scripts/bench-peer compares with.
    #[arg(long)]
    pub peer: bool,
    /// The engine alone: no history kept, no output observed, no check run (nothing is
    /// verified; this measures what the engine costs).
    #[arg(long)]
    pub engine: bool,
}

/// Options of `connsim generate`.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// Generated seeds per target.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub seeds: u64,
}

/// Options of `connsim replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// A case file a sweep or a suite saved.
    pub file: PathBuf,
}

/// Options of `connsim timeline`.
#[derive(Debug, clap::Args)]
pub struct TimelineArgs {
    /// A case file a sweep or a suite saved.
    pub file: PathBuf,
    /// Where to write the page [default: timelines/ beside the case file, .html; git
    /// ignores that directory].
    #[arg(long, value_name = "PAGE")]
    pub out: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_checked() {
        assert_eq!(shard("2/4"), Ok(Shard { k: 2, n: 4 }));
        for bad in ["0/4", "5/4", "1/0", "x/2", "3"] {
            assert!(shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_rerun_line_printed_by_these_unit_tests_selects_the_binary() {
        // They run from the `connsim` binary's test build, whose name is not the package's.
        let cmd = connsim::run::cargo_test("args::tests::x");
        assert!(cmd.ends_with(" -p connsim-cli --bin connsim -- --exact args::tests::x"), "{cmd}");
    }

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
