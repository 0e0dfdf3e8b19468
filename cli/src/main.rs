//! `connsim`: sweep the reference connectors and the mutants, benchmark the simulator, run
//! generated scenarios, replay a saved case. `connsim --help` and `connsim <command> --help`
//! list the options.
//!
//! ```text
//! connsim sweep [--seeds N] [--jobs N] [--target SUBSTRING] [--suite S] [--shard K/N]
//!               [--format text|json] [--junit FILE]
//! connsim bench [--seeds N] [--jobs N] [--records N] [--peer]
//! connsim generate [--seeds N]
//! connsim replay FILE
//! connsim timeline FILE [--out PAGE]
//! ```
//!
//! Exit codes: 0 all good, 1 a reference connector failed or a mutant survived, 2 bad
//! arguments or a file that could not be read or written.

mod args;
mod bench;
mod generate;
mod junit;
mod progress;
mod random;
mod replay;
mod summary;
mod sweep;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

/// Simulated seeds allocate and free small objects at a high rate (messages, history events,
/// records); mimalloc serves them faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sweep(a) => sweep::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Generate(a) => generate::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Timeline(a) => replay::timeline(a),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("connsim: {e}\n(connsim --help lists the commands and their options)");
            ExitCode::from(2)
        }
    }
}
