//! The code rules of the repository that a compiler does not check: no
//! function in `src/` over 150 lines, no `too_many_arguments` allow (a
//! context struct where arguments travel together), papers cited by name
//! (never by a number of a list users do not have), and nothing pointing
//! outside the repository.

use std::fs;
use std::path::{Path, PathBuf};

/// The most lines a function of `src/` may have, its signature and closing
/// brace included.
const MAX_FUNCTION_LINES: usize = 150;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` whose name ends with one of `exts`, sorted.
fn files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, exts, out);
        } else if exts
            .iter()
            .any(|e| p.to_string_lossy().ends_with(&format!(".{e}")))
        {
            out.push(p);
        }
    }
}

/// The name of the function a line declares (`fn`, after any `pub(...)`,
/// `const`, `async` or `unsafe`), with the line's indentation.
fn declared_fn(line: &str) -> Option<(&str, &str)> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let mut rest = body;
    if let Some(r) = rest.strip_prefix("pub") {
        rest = match r.strip_prefix('(') {
            Some(r) => r.split_once(')')?.1,
            None => r,
        };
        rest = rest.strip_prefix(' ')?;
    }
    for q in ["const ", "async ", "unsafe "] {
        rest = rest.strip_prefix(q).unwrap_or(rest);
    }
    let name = rest.strip_prefix("fn ")?;
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    Some((indent, &name[..end]))
}

/// The functions of `text` longer than `max` lines: (first line, name,
/// lines). A function runs from its `fn` line to the first `}` line at its
/// indentation (rustfmt's layout); declarations without a body are skipped.
fn long_functions(text: &str, max: usize) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some((indent, name)) = declared_fn(line) else {
            continue;
        };
        let Some(open) = (i..lines.len()).find(|j| {
            let l = lines[*j].trim_end();
            l.ends_with('{') || l.ends_with(';')
        }) else {
            continue;
        };
        if lines[open].trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        let end = (open + 1..lines.len())
            .find(|k| lines[*k] == close)
            .unwrap_or(lines.len() - 1);
        let n = end - i + 1;
        if n > max {
            long.push((i + 1, name.to_string(), n));
        }
    }
    long
}

/// `path:line: text` for every line of the files holding one of `needles`.
fn lines_with(paths: &[PathBuf], needles: &[&str]) -> Vec<String> {
    let mut hits = Vec::new();
    for p in paths {
        let Ok(text) = fs::read_to_string(p) else {
            continue;
        };
        for (i, l) in text.lines().enumerate() {
            if needles.iter().any(|n| l.contains(n)) {
                hits.push(format!("{}:{}: {}", p.display(), i + 1, l.trim()));
            }
        }
    }
    hits
}

fn sources() -> Vec<PathBuf> {
    let mut out = Vec::new();
    files(&root().join("src"), &["rs"], &mut out);
    assert!(out.len() > 50, "src/ not found from {}", root().display());
    out
}

#[test]
fn the_scanner_finds_long_functions() {
    let body = "    let x = 1;\n".repeat(8);
    let text = format!(
        "/// doc\npub(crate) fn short() {{\n}}\n\nimpl A {{\n    pub fn long(\n        a: u32,\n    ) -> u32 {{\n{body}        0\n    }}\n    fn decl(&self);\n}}\n"
    );
    assert_eq!(long_functions(&text, 10), vec![(6, "long".to_string(), 13)]);
    assert!(long_functions(&text, 13).is_empty());
    assert_eq!(
        declared_fn("    pub(super) unsafe fn f<'a>("),
        Some(("    ", "f"))
    );
    assert_eq!(declared_fn("    let f = fn_name();"), None);
}

#[test]
fn no_function_over_150_lines() {
    let mut long = Vec::new();
    for p in sources() {
        let text = fs::read_to_string(&p).unwrap_or_default();
        for (line, name, n) in long_functions(&text, MAX_FUNCTION_LINES) {
            long.push(format!("{}:{line}: {name}: {n} lines", p.display()));
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them along their seams):\n{}",
        long.join("\n")
    );
}

#[test]
fn no_too_many_arguments_allow() {
    let hits = lines_with(&sources(), &["too_many_arguments"]);
    assert!(
        hits.is_empty(),
        "clippy's too_many_arguments silenced (pass a context struct instead):\n{}",
        hits.join("\n")
    );
}

#[test]
fn papers_by_name_and_nothing_outside_the_repository() {
    let mut paths = sources();
    files(&root().join("docs"), &["md"], &mut paths);
    files(&root().join("bench"), &["md", "py"], &mut paths);
    files(&root().join("templates"), &["tera"], &mut paths);
    paths.push(root().join("README.md"));
    paths.push(root().join("Makefile"));
    // Spelt in two pieces so that this file does not match itself.
    let seed = format!("{} 0", "seed");
    let shared = format!("../{}", "shared");
    let hits = lines_with(&paths, &[&seed, &shared, "shared/spec", "shared/seeds"]);
    assert!(
        hits.is_empty(),
        "cite a paper by its authors, venue and section (docs/bibliography.md), and point at nothing outside the repository:\n{}",
        hits.join("\n")
    );
}
