//! A package's cargo targets, read from its manifest and its file layout: which `cargo test`
//! flag (`--lib`, `--bin NAME`, `--test NAME`) selects the test binary that is running.
//!
//! Cargo names a test binary `<crate name>-<hash>`, the crate name being the target's name
//! with `-` turned into `_`. The lib's crate name may differ from the package's (`[lib] name`),
//! a binary's unit tests run from a binary named after the `[[bin]]`, and a package with both
//! a lib and a binary of the same name builds two test binaries that read alike: then no flag
//! is given, and `cargo test -p <package> -- --exact <test>` still runs the test (in each).

use std::path::Path;

/// The kinds of targets that build a test binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Lib,
    Bin,
    Test,
}

/// The flag selecting the test binary named `stem` (its hash removed) in the package at `dir`
/// named `package`; `None` when no target or more than one reads `stem`.
pub(crate) fn target_flag(dir: &Path, package: &str, stem: &str) -> Option<String> {
    let targets = targets(dir, package);
    let mut matching = targets.iter().filter(|(_, name)| name.replace('-', "_") == stem);
    let (kind, name) = matching.next()?;
    if matching.next().is_some() {
        return None; // a lib and a binary of the same name: both binaries read `stem`
    }
    Some(match kind {
        Kind::Lib => "--lib".to_string(),
        Kind::Bin => format!("--bin {}", super::rerun::shell_quote(name)),
        Kind::Test => format!("--test {}", super::rerun::shell_quote(name)),
    })
}

/// Every lib, binary and integration-test target of the package, by name, without repeats.
fn targets(dir: &Path, package: &str) -> Vec<(Kind, String)> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    let tables = tables(&manifest);
    let declared = |table: &'static str| tables.iter().filter(move |(t, _)| t == table).map(|(_, keys)| keys);
    let key = |keys: &Vec<(String, String)>, k: &str| keys.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let mut out: Vec<(Kind, String)> = Vec::new();
    let mut add = |kind: Kind, name: String| {
        if !out.iter().any(|(k, n)| *k == kind && *n == name) {
            out.push((kind, name));
        }
    };
    let lib = declared("lib").next();
    if lib.is_some() || dir.join("src/lib.rs").is_file() {
        let name = lib.and_then(|keys| key(keys, "name")).unwrap_or_else(|| package.replace('-', "_"));
        add(Kind::Lib, name);
    }
    let mut main_declared = false;
    for keys in declared("[bin]") {
        main_declared |= key(keys, "path").as_deref() == Some("src/main.rs");
        if let Some(name) = key(keys, "name") {
            add(Kind::Bin, name);
        }
    }
    if !main_declared && dir.join("src/main.rs").is_file() {
        add(Kind::Bin, package.to_string());
    }
    for name in discovered(&dir.join("src/bin")) {
        add(Kind::Bin, name);
    }
    for keys in declared("[test]") {
        if let Some(name) = key(keys, "name") {
            add(Kind::Test, name);
        }
    }
    for name in discovered(&dir.join("tests")) {
        add(Kind::Test, name);
    }
    out
}

/// Targets cargo finds on its own in `dir`: `NAME.rs` files and `NAME/main.rs` directories.
fn discovered(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs") || p.join("main.rs").is_file())
        .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(String::from))
        .collect();
    names.sort(); // directory order is the file system's
    names
}

/// The manifest's tables with their `key = "string"` entries: `[lib]` is `lib`, `[[bin]]` is
/// `[bin]`. Only what naming targets needs; anything else is skipped.
fn tables(manifest: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut tables: Vec<(String, Vec<(String, String)>)> = vec![(String::new(), Vec::new())];
    for line in manifest.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split('#').next().unwrap_or_default().trim_end();
            tables.push((header.strip_suffix(']').unwrap_or(header).trim().to_string(), Vec::new()));
        } else if let Some((k, v)) = line.split_once('=') {
            let v = v.trim();
            if let Some(value) = v.strip_prefix('"').and_then(|v| v.split('"').next()) {
                tables.last_mut().expect("one table at least").1.push((k.trim().to_string(), value.to_string()));
            }
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A package laid out in a fresh temporary directory named after `tag`.
    fn package(tag: &str, manifest: &str, files: &[&str]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("connsim-targets-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for f in files {
            let path = dir.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        dir
    }

    #[test]
    fn a_lib_named_apart_from_its_package_is_the_lib() {
        let dir =
            package("lib", "[package]\nname = \"my-conn\"\n\n[lib]\nname = \"conn\"\n", &["src/lib.rs", "tests/it.rs"]);
        assert_eq!(target_flag(&dir, "my-conn", "conn").as_deref(), Some("--lib"));
        assert_eq!(target_flag(&dir, "my-conn", "my_conn"), None, "no target is called my_conn");
        assert_eq!(target_flag(&dir, "my-conn", "it").as_deref(), Some("--test it"));
    }

    #[test]
    fn a_binarys_unit_tests_are_selected_with_bin() {
        let manifest = "[package]\nname = \"tool-cli\"\n\n[[bin]]\nname = \"tool\"\npath = \"src/main.rs\"\n";
        let dir = package("bin", manifest, &["src/main.rs", "src/bin/extra.rs", "tests/e2e/main.rs"]);
        assert_eq!(target_flag(&dir, "tool-cli", "tool").as_deref(), Some("--bin tool"));
        assert_eq!(target_flag(&dir, "tool-cli", "extra").as_deref(), Some("--bin extra"));
        assert_eq!(target_flag(&dir, "tool-cli", "e2e").as_deref(), Some("--test e2e"));
        assert_eq!(target_flag(&dir, "tool-cli", "tool_cli"), None, "src/main.rs is declared as `tool`");
    }

    #[test]
    fn test_targets_keep_their_dashes() {
        let manifest = "[package]\nname = \"p\"\n\n[[test]]\nname = \"my-suite\"\nharness = false # per case\n";
        let dir = package("test", manifest, &["src/lib.rs"]);
        assert_eq!(target_flag(&dir, "p", "my_suite").as_deref(), Some("--test my-suite"));
        assert_eq!(target_flag(&dir, "p", "p").as_deref(), Some("--lib"));
    }

    #[test]
    fn a_lib_and_a_binary_reading_alike_get_no_flag() {
        let dir = package("both", "[package]\nname = \"both\"\n", &["src/lib.rs", "src/main.rs"]);
        assert_eq!(target_flag(&dir, "both", "both"), None);
    }
}
