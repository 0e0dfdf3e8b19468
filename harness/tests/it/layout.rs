//! The runtime's shape stays small: in `src/cluster/` no struct holds more than 12 fields
//! (an operator or component owns its state, not one struct everything), no file is longer
//! than 400 lines, and no file reaches a sibling through the module's face (`mod.rs`'s
//! re-exports), so every import there runs one way. The oracle (`src/oracle/`) imports
//! nothing from `src/run/`, which calls it, and the connector API (`src/api/`) nothing from
//! the cluster.

use std::path::{Path, PathBuf};

const MAX_FIELDS: usize = 12;
const MAX_LINES: usize = 400;

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn src(folder: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(folder)
}

/// Each braced struct of `text`, with how many fields it declares.
fn struct_fields(text: &str) -> Vec<(String, usize)> {
    let mut out = vec![];
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let decl = ["struct ", "pub struct ", "pub(crate) struct ", "pub(super) struct "]
            .iter()
            .find_map(|p| t.strip_prefix(p));
        let Some(rest) = decl.filter(|_| line.ends_with('{')) else { continue };
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let indent = line.len() - t.len();
        let mut fields = 0;
        for body in lines.by_ref() {
            let bt = body.trim_start();
            if body.len() - bt.len() == indent && bt.starts_with('}') {
                break;
            }
            let field =
                bt.trim_start_matches("pub(crate) ").trim_start_matches("pub(super) ").trim_start_matches("pub ");
            let is_field = !bt.starts_with("//")
                && !bt.starts_with('#')
                && field
                    .split_once(':')
                    .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_'));
            if is_field && body.len() - bt.len() == indent + 4 {
                fields += 1;
            }
        }
        out.push((name, fields));
    }
    out
}

#[test]
fn no_struct_of_the_cluster_holds_more_than_twelve_fields_and_no_file_exceeds_400_lines() {
    let mut wide = vec![];
    let mut long = vec![];
    let files = rust_files(&src("cluster"));
    assert!(files.len() > 10, "the cluster's files were not found: {files:?}");
    let mut structs = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        if text.lines().count() > MAX_LINES {
            long.push(format!("{}: {} lines", file.display(), text.lines().count()));
        }
        for (name, fields) in struct_fields(&text) {
            structs += 1;
            if fields > MAX_FIELDS {
                wide.push(format!("{name} in {}: {fields} fields", file.display()));
            }
        }
    }
    assert!(structs > 20, "the struct scan found only {structs} structs");
    assert!(wide.is_empty(), "structs over {MAX_FIELDS} fields (split them by the concept each part owns): {wide:#?}");
    assert!(long.is_empty(), "files over {MAX_LINES} lines (one concept per file): {long:#?}");
}

#[test]
fn the_field_count_sees_a_wide_struct() {
    let fields: String = (0..13).map(|i| format!("    f{i}: u8,\n    /// doc\n")).collect();
    let text = format!("pub(crate) struct Wide {{\n{fields}}}\n\nstruct Narrow {{\n    a: Option<(u8, u8)>,\n}}\n");
    assert_eq!(struct_fields(&text), vec![("Wide".to_string(), 13), ("Narrow".to_string(), 1)]);
}

#[test]
fn imports_run_one_way() {
    let face = std::fs::read_to_string(src("cluster").join("mod.rs")).unwrap();
    // The names the cluster's face re-exports.
    let exported: Vec<String> = face
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub use ").or(l.trim_start().strip_prefix("pub(crate) use ")))
        .flat_map(|l| {
            let names = l.split_once('{').map_or(l.rsplit("::").next().unwrap_or(""), |(_, n)| n);
            names
                .trim_end_matches(';')
                .trim_end_matches('}')
                .split(',')
                .map(|n| n.trim().to_string())
                .collect::<Vec<_>>()
        })
        .filter(|n| !n.is_empty())
        .collect();
    assert!(exported.iter().any(|n| n == "JobConfig"), "the face's re-exports were not read: {exported:?}");
    let mut through_face = vec![];
    for file in rust_files(&src("cluster")) {
        if file.ends_with("cluster/mod.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim_start().starts_with("//")) {
            for name in &exported {
                let direct = [format!("crate::cluster::{name}")];
                let sibling =
                    file.parent().is_some_and(|p| p.ends_with("cluster")) && line.contains(&format!("super::{name}"));
                if direct.iter().any(|d| line.contains(d.as_str())) || sibling {
                    through_face.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        through_face.is_empty(),
        "cluster files reaching a sibling through mod.rs (import the defining file): {through_face:#?}"
    );
    let upward = |folder: &str, forbidden: &str| -> Vec<String> {
        rust_files(&src(folder))
            .into_iter()
            .flat_map(|f| {
                let text = std::fs::read_to_string(&f).unwrap();
                text.lines()
                    .enumerate()
                    .filter(|(_, l)| !l.trim_start().starts_with("//") && l.contains(forbidden))
                    .map(|(i, l)| format!("{}:{}: {}", f.display(), i + 1, l.trim()))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let oracle_up = upward("oracle", "crate::run::");
    assert!(oracle_up.is_empty(), "the oracle imports from run/, which calls it: {oracle_up:#?}");
    let api_up = upward("api", "crate::cluster::");
    assert!(api_up.is_empty(), "the connector API imports from the cluster: {api_up:#?}");
}
