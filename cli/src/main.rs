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
//!
//! Failures of reference connectors are saved under `connsim-failures/` in cargo's target
//! directory: `$CARGO_TARGET_DIR` when set, else `target/` of the directory it runs in.

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

/// Where a sweep saves the failures of reference connectors: `connsim-failures/` in cargo's
/// target directory, `$CARGO_TARGET_DIR` when set (as cargo reads it), else `target/`.
fn failures_dir() -> std::path::PathBuf {
    failures_dir_in(std::env::var_os("CARGO_TARGET_DIR"))
}

/// [`failures_dir`] for the given `CARGO_TARGET_DIR`.
fn failures_dir_in(target_dir: Option<std::ffi::OsString>) -> std::path::PathBuf {
    let target = target_dir.filter(|d| !d.is_empty()).unwrap_or_else(|| "target".into());
    std::path::PathBuf::from(target).join("connsim-failures")
}

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

#[cfg(test)]
mod tests {
    use super::failures_dir_in;
    use std::path::Path;

    #[test]
    fn failures_go_to_the_target_directory_cargo_uses() {
        assert_eq!(failures_dir_in(None), Path::new("target/connsim-failures"));
        assert_eq!(failures_dir_in(Some("".into())), Path::new("target/connsim-failures"));
        assert_eq!(failures_dir_in(Some("/tmp/t".into())), Path::new("/tmp/t/connsim-failures"));
    }
}
