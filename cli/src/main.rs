//! `connsim`: sweep the reference connectors and the mutants, or benchmark the simulator.
//!
//! ```text
//! connsim sweep [--seeds N] [--jobs N] [--target SUBSTRING] [--suite S] [--shard K/N]
//! connsim bench [--seeds N] [--jobs N] [--records N] [--peer]
//! connsim generate [--seeds N]
//! connsim replay FILE
//! ```

mod args;
mod bench;
mod generate;
mod random;
mod replay;
mod sweep;
mod targets;

use std::process::ExitCode;

const USAGE: &str = "usage:
  connsim sweep [--seeds N] [--jobs N] [--target SUBSTRING] [--suite S] [--shard K/N]
      run every reference connector (every suite case must pass) and every mutant (some
      case must fail the check its story predicts), N seeds per case (default 200);
      --suite source|sink|pipeline picks one suite, --suite random the random-fault
      catalogue; --shard K/N runs the K-th of N contiguous seed ranges; failures of
      reference connectors are saved as case files under target/connsim-failures/;
      exits 1 if a reference connector fails or a mutant survives
  connsim bench [--seeds N] [--jobs N] [--records N] [--peer]
      run the log-source -> file-sink scenario (on one thread unless --jobs) and print wall
      time per seed, seeds per second, virtual seconds per wall second and peak memory
      (--records: records in the source, default 5000);
      --peer runs the scenario of the hand-written madsim test in scripts/bench-peer";

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = match argv.first().map(String::as_str) {
        Some("sweep") => args::Args::parse(&argv[1..]).and_then(sweep::run),
        Some("bench") => bench::run(&argv[1..]),
        Some("generate") => args::Args::parse(&argv[1..]).and_then(generate::run),
        Some("replay") => match argv.get(1..) {
            Some([file]) => replay::run(file),
            _ => Err("replay needs exactly one case file".into()),
        },
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(true)
        }
        Some(other) => Err(format!("unknown command {other:?}")),
        None => Err("no command given".into()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("connsim: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
