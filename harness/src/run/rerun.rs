//! The command a report prints to rerun its seed: `CONNSIM_SEED=<seed> <command>`, a line
//! that runs as printed from the workspace root.
//!
//! Inside `cargo test` the command is built from the test running: the package, the target
//! that built the test binary (`--lib`, `--bin NAME`, `--test NAME`, `--bench NAME` or
//! `--example NAME`, from the binary's name and the package's manifest:
//! [`cargo_targets`](super::cargo_targets)) and `--exact TEST`.
//! Front ends that know better (a suite harness naming its per-case tests, the `connsim`
//! command line) set it with [`set_rerun_command`].

use std::cell::RefCell;

thread_local! {
    /// What reruns the current test, without the seed.
    static COMMAND: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Sets the command reports on this thread (and the seed threads it starts) print to rerun
/// a seed, without the `CONNSIM_SEED=` prefix; `None` goes back to naming the test running.
pub fn set_rerun_command(command: Option<String>) {
    COMMAND.with(|c| *c.borrow_mut() = command);
}

/// Runs `f` with `command` set as the rerun command, then puts back what was set before.
pub fn with_rerun_command<R>(command: Option<String>, f: impl FnOnce() -> R) -> R {
    let before = COMMAND.with(|c| c.replace(command));
    let result = f();
    COMMAND.with(|c| *c.borrow_mut() = before);
    result
}

/// The command set for this thread, or the one that reruns the test this thread runs
/// (libtest names its threads after the test); `None` outside a test with nothing set.
pub fn rerun_command() -> Option<String> {
    current()
}

pub(crate) fn current() -> Option<String> {
    COMMAND.with(|c| c.borrow().clone()).or_else(|| {
        // libtest names a test's thread after the test; "main" and connsim's own seed threads
        // name no test.
        let name = std::thread::current().name().map(String::from)?;
        (name != "main" && !name.starts_with("connsim-")).then(|| cargo_test(&name))
    })
}

/// `s` quoted for a POSIX shell when it needs it.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.:/=,+@%".contains(&b));
    match plain {
        true => s.to_string(),
        false => format!("'{}'", s.replace('\'', r"'\''")),
    }
}

/// `cargo test` of exactly `test` in the package and test target running now.
pub fn cargo_test(test: &str) -> String {
    // No `--release`: a seed runs the same in every profile, and the line stays the same
    // whichever profile printed it.
    let mut cmd = String::from("cargo test");
    let package = std::env::var("CARGO_PKG_NAME").ok().filter(|p| !p.is_empty());
    if let Some(p) = &package {
        cmd.push_str(&format!(" -p {}", shell_quote(p)));
    }
    // Test binaries are named `<target>-<hash>`; a package's unit tests carry its crate name.
    let exe = std::env::current_exe().ok();
    let stem = exe.as_ref().and_then(|e| e.file_stem()).and_then(|s| s.to_str()).unwrap_or_default();
    let target = match stem.rsplit_once('-') {
        Some((t, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => t,
        _ => stem,
    };
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from);
    let flag = match (package.as_deref(), dir) {
        // Under cargo: the manifest and the layout say which target built this binary.
        (Some(p), Some(dir)) => super::cargo_targets::target_flag(&dir, p, target),
        (Some(p), None) if p.replace('-', "_") == target => Some("--lib".to_string()),
        _ => None,
    };
    // Else a test target named as the binary reads: cargo says if there is none.
    if let Some(flag) = flag.or_else(|| (!target.is_empty()).then(|| format!("--test {}", shell_quote(target)))) {
        cmd.push(' ');
        cmd.push_str(&flag);
    }
    format!("{cmd} -- --exact {}", shell_quote(test))
}

/// The line a report prints for `seed`.
pub(crate) fn line(seed: u64, command: Option<&str>) -> String {
    match command {
        Some(c) => format!("CONNSIM_SEED={seed} {c}"),
        None => format!("CONNSIM_SEED={seed} <rerun the same command>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_what_a_shell_would_split_or_expand() {
        assert_eq!(shell_quote("sink::single_split"), "sink::single_split");
        assert_eq!(shell_quote("mutant: it's late"), r"'mutant: it'\''s late'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn inside_cargo_test_the_command_names_package_target_and_test() {
        // This very test runs as the harness's unit tests.
        let cmd = cargo_test("run::rerun::tests::x");
        assert!(cmd.contains(" -p connsim --lib -- --exact run::rerun::tests::x"), "{cmd}");
        set_rerun_command(Some("connsim replay f".into()));
        assert_eq!(current().as_deref(), Some("connsim replay f"));
        set_rerun_command(None);
        assert!(current()
            .unwrap()
            .ends_with("--exact run::rerun::tests::inside_cargo_test_the_command_names_package_target_and_test"));
    }
}
