//! A package's cargo targets, read from its manifest and its file layout: which `cargo test`
//! flag (`--lib`, `--bin NAME`, `--test NAME`, `--bench NAME`, `--example NAME`) selects the
//! test binary that is running.
//!
//! Cargo names a test binary `<crate name>-<hash>`, the crate name being the target's name
//! with `-` turned into `_`. The lib's crate name may differ from the package's (`[lib] name`),
//! a binary's unit tests run from a binary named after the `[[bin]]`, and a package with both
//! a lib and a binary of the same name builds two test binaries that read alike: then the
//! flags of both are given, and cargo runs the test in each. The manifest is read only as far
//! as naming targets needs (tables, `key = "string"` and `key = bool` lines).

use std::path::Path;

/// The kinds of targets that build a test binary, with the `cargo test` flag selecting one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Lib,
    Bin,
    Test,
    Bench,
    Example,
}

impl Kind {
    fn flag(self, name: &str) -> String {
        let name = super::rerun::shell_quote(name);
        match self {
            Kind::Lib => "--lib".to_string(),
            Kind::Bin => format!("--bin {name}"),
            Kind::Test => format!("--test {name}"),
            Kind::Bench => format!("--bench {name}"),
            Kind::Example => format!("--example {name}"),
        }
    }
}

/// The flags selecting the test binary named `stem` (its hash removed) in the package at
/// `dir` named `package`; `None` when no target reads `stem`.
pub(crate) fn target_flag(dir: &Path, package: &str, stem: &str) -> Option<String> {
    let flags: Vec<String> = targets(dir, package)
        .iter()
        .filter(|(_, name)| name.replace('-', "_") == stem)
        .map(|(kind, name)| kind.flag(name))
        .collect();
    (!flags.is_empty()).then(|| flags.join(" "))
}

type Table = (String, Vec<(String, Value)>);

#[derive(Clone, Debug, PartialEq)]
enum Value {
    Str(String),
    Bool(bool),
}

/// Every target of the package that builds a test binary, by kind and name, without repeats.
fn targets(dir: &Path, package: &str) -> Vec<(Kind, String)> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    let tables = tables(&manifest);
    let declared = |table: &'static str| tables.iter().filter(move |(t, _)| t == table).map(|(_, keys)| keys);
    let string = |keys: &Vec<(String, Value)>, k: &str| {
        keys.iter().find_map(|(n, v)| match v {
            Value::Str(s) if n == k => Some(s.trim_start_matches("./").to_string()),
            _ => None,
        })
    };
    // `autobins = false` and the like in [package] turn discovery of that kind off.
    let discovers =
        |key: &str| !declared("package").any(|keys| keys.iter().any(|(n, v)| n == key && *v == Value::Bool(false)));
    let mut out: Vec<(Kind, String)> = Vec::new();
    let mut add = |kind: Kind, name: String| {
        if !out.iter().any(|(k, n)| *k == kind && *n == name) {
            out.push((kind, name));
        }
    };
    let lib = declared("lib").next();
    if lib.is_some() || dir.join("src/lib.rs").is_file() {
        let name = lib.and_then(|keys| string(keys, "name")).unwrap_or_else(|| package.replace('-', "_"));
        add(Kind::Lib, name);
    }
    let kinds = [
        (Kind::Bin, "[bin]", "autobins", "src/bin"),
        (Kind::Test, "[test]", "autotests", "tests"),
        (Kind::Bench, "[bench]", "autobenches", "benches"),
        (Kind::Example, "[example]", "autoexamples", "examples"),
    ];
    for (kind, table, auto, folder) in kinds {
        let mut claimed: Vec<String> = Vec::new(); // paths declared targets take
        for keys in declared(table) {
            claimed.extend(string(keys, "path"));
            if let Some(name) = string(keys, "name") {
                add(kind, name);
            }
        }
        if !discovers(auto) {
            continue;
        }
        // The package's own binary, src/main.rs, unless a declared binary took that path.
        if kind == Kind::Bin && dir.join("src/main.rs").is_file() && !claimed.iter().any(|p| p == "src/main.rs") {
            add(Kind::Bin, package.to_string());
        }
        for (name, path) in discovered(dir, folder) {
            if !claimed.contains(&path) {
                add(kind, name);
            }
        }
    }
    out
}

/// Targets cargo finds on its own in `folder`: `NAME.rs` files and `NAME/main.rs` folders,
/// with their paths as a manifest would write them.
fn discovered(dir: &Path, folder: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = std::fs::read_dir(dir.join(folder))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            if name.starts_with('.') {
                return None;
            }
            if let Some(stem) = name.strip_suffix(".rs") {
                return Some((stem.to_string(), format!("{folder}/{name}")));
            }
            e.path().join("main.rs").is_file().then(|| (name.clone(), format!("{folder}/{name}/main.rs")))
        })
        .collect();
    found.sort(); // directory order is the file system's
    found
}

/// The manifest's tables with their string and boolean entries: `[lib]` is `lib`, `[[bin]]`
/// is `[bin]`. Strings in double or single quotes; anything else is skipped.
fn tables(manifest: &str) -> Vec<Table> {
    let mut tables: Vec<Table> = vec![(String::new(), Vec::new())];
    for line in manifest.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split('#').next().unwrap_or_default().trim_end();
            let header = header.strip_suffix(']').unwrap_or(header);
            let name = match header.strip_prefix('[') {
                Some(array) => format!("[{}]", array.strip_suffix(']').unwrap_or(array).trim()),
                None => header.trim().to_string(),
            };
            tables.push((name, Vec::new()));
        } else if let Some((k, v)) = line.split_once('=') {
            let v = v.trim();
            let quoted = |q: char| v.strip_prefix(q).and_then(|v| v.split(q).next()).map(String::from);
            let value = match quoted('"').or_else(|| quoted('\'')) {
                Some(s) => Value::Str(s),
                None => match v.split('#').next().unwrap_or_default().trim() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    _ => continue,
                },
            };
            tables.last_mut().expect("one table at least").1.push((k.trim().to_string(), value));
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A package laid out in a temporary folder named after `tag`, removed when dropped.
    struct Package(std::path::PathBuf);

    impl Package {
        fn new(tag: &str, manifest: &str, files: &[&str]) -> Self {
            let dir = std::env::temp_dir().join(format!("connsim-targets-{}-{tag}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            for f in files {
                let path = dir.join(f);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, "").unwrap();
            }
            std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
            Package(dir)
        }
    }

    impl Drop for Package {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_lib_named_apart_from_its_package_is_the_lib() {
        let p = Package::new(
            "lib",
            "[package]\nname = \"my-conn\"\n\n[lib]\nname = 'conn'\n",
            &["src/lib.rs", "tests/it.rs"],
        );
        assert_eq!(target_flag(&p.0, "my-conn", "conn").as_deref(), Some("--lib"));
        assert_eq!(target_flag(&p.0, "my-conn", "my_conn"), None, "no target is called my_conn");
        assert_eq!(target_flag(&p.0, "my-conn", "it").as_deref(), Some("--test it"));
    }

    #[test]
    fn a_binarys_unit_tests_are_selected_with_bin() {
        let manifest = "[package]\nname = \"tool-cli\"\n\n[[ bin ]]\nname = \"tool\"\npath = \"./src/main.rs\"\n";
        let p = Package::new("bin", manifest, &["src/main.rs", "src/bin/extra.rs", "tests/e2e/main.rs"]);
        assert_eq!(target_flag(&p.0, "tool-cli", "tool").as_deref(), Some("--bin tool"));
        assert_eq!(target_flag(&p.0, "tool-cli", "extra").as_deref(), Some("--bin extra"));
        assert_eq!(target_flag(&p.0, "tool-cli", "e2e").as_deref(), Some("--test e2e"));
        assert_eq!(target_flag(&p.0, "tool-cli", "tool_cli"), None, "src/main.rs is declared as `tool`");
    }

    #[test]
    fn test_targets_keep_their_dashes_and_benches_and_examples_have_their_flags() {
        let manifest = "[package]\nname = \"p\"\n\n[[test]]\nname = \"my-suite\"\nharness = false # per case\n";
        let p = Package::new("test", manifest, &["src/lib.rs", "benches/codec.rs", "examples/demo/main.rs"]);
        assert_eq!(target_flag(&p.0, "p", "my_suite").as_deref(), Some("--test my-suite"));
        assert_eq!(target_flag(&p.0, "p", "p").as_deref(), Some("--lib"));
        assert_eq!(target_flag(&p.0, "p", "codec").as_deref(), Some("--bench codec"));
        assert_eq!(target_flag(&p.0, "p", "demo").as_deref(), Some("--example demo"));
    }

    #[test]
    fn a_lib_and_a_binary_reading_alike_are_both_selected() {
        let p = Package::new("both", "[package]\nname = \"both\"\n", &["src/lib.rs", "src/main.rs"]);
        assert_eq!(targets(&p.0, "both"), vec![(Kind::Lib, "both".into()), (Kind::Bin, "both".into())]);
        assert_eq!(target_flag(&p.0, "both", "both").as_deref(), Some("--lib --bin both"));
    }

    #[test]
    fn discovery_turned_off_or_claimed_paths_add_no_target() {
        let manifest =
            "[package]\nname = \"q\"\nautobins = false\n\n[[test]]\nname = \"all\"\npath = \"tests/one.rs\"\n";
        let p = Package::new(
            "auto",
            manifest,
            &["src/main.rs", "src/bin/x.rs", "tests/one.rs", "tests/two.rs", "tests/.hidden.rs"],
        );
        assert_eq!(targets(&p.0, "q"), vec![(Kind::Test, "all".into()), (Kind::Test, "two".into())]);
    }
}
