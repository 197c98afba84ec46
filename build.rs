//! Records the git commit flextile is built from (`--version`), or
//! "unknown" outside a git checkout.

use std::process::Command;

/// The output of `git ARGS`, trimmed, if git ran and succeeded.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=FLEXTILE_COMMIT={commit}");
    // The isl-rs crate (which builds isl) in Cargo.lock.
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    let isl_rs = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"isl-rs\""))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=FLEXTILE_ISL_RS={isl_rs}");
    println!("cargo:rerun-if-changed=Cargo.lock");
    // Rebuild when HEAD moves (a commit, a checkout). Only files that
    // exist: cargo takes a missing one (`packed-refs` in a fresh clone) as
    // changed, and rebuilt the crate on every cargo command.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for path in watched {
        if let Some(p) = git(&["rev-parse", "--git-path", &path]) {
            if std::path::Path::new(&p).exists() {
                println!("cargo:rerun-if-changed={p}");
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
