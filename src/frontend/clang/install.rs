//! Where clang's resource directory (builtin headers such as `stddef.h`)
//! is: Debian's libclang does not find it by itself.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::clang_version;

/// The major version in a clang version string (`"Debian clang version 14.0.6"` → 14).
pub(super) fn major_version(version: &str) -> Option<u32> {
    let rest = &version[version.find("version ")? + "version ".len()..];
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// True when `dir` is a clang resource directory (it has `include/stddef.h`).
fn is_resource_dir(dir: &Path) -> bool {
    dir.join("include").join("stddef.h").is_file()
}

/// Resource directories under `base/<version>` (e.g. `/usr/lib/llvm-14/lib/clang/14.0.6`),
/// newest first.
fn versioned_dirs(base: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(base)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| is_resource_dir(p))
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs.reverse();
    dirs
}

/// Asks a clang executable for its resource directory.
fn ask_clang(exe: &str) -> Option<PathBuf> {
    let out = std::process::Command::new(exe)
        .arg("-print-resource-dir")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    is_resource_dir(&p).then_some(p)
}

/// clang's resource directory matching the loaded libclang, found once per
/// process: `/usr/lib/llvm-<major>/lib/clang/*`, then `clang-<major>
/// -print-resource-dir`, then `clang -print-resource-dir`, then any
/// `/usr/lib/llvm-*/lib/clang/*`, `/usr/lib/clang/*` or `/usr/local/lib/clang/*`.
pub fn resource_dir() -> Option<PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let major = major_version(&clang_version());
        if let Some(m) = major {
            if let Some(d) = versioned_dirs(Path::new(&format!("/usr/lib/llvm-{m}/lib/clang")))
                .into_iter()
                .next()
            {
                return Some(d);
            }
            if let Some(d) = ask_clang(&format!("clang-{m}")) {
                return Some(d);
            }
        }
        if let Some(d) = ask_clang("clang") {
            return Some(d);
        }
        let mut bases: Vec<PathBuf> = std::fs::read_dir("/usr/lib")
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("llvm-"))
                    })
                    .map(|p| p.join("lib").join("clang"))
                    .collect()
            })
            .unwrap_or_default();
        bases.sort();
        bases.reverse();
        bases.push(PathBuf::from("/usr/lib/clang"));
        bases.push(PathBuf::from("/usr/local/lib/clang"));
        bases.iter().flat_map(|b| versioned_dirs(b)).next()
    })
    .clone()
}
