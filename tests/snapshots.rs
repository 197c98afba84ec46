//! Snapshots of the generated code: every testsuite option set and benchmark
//! variant against `tests/snapshots/manifest.tsv` (`tools/snapshot.py`;
//! `make snapshot` rewrites it after review). With `FLEXTILE_SNAPSHOT=sample`
//! (`make check`) only the first run of each input and target is compared;
//! with `FLEXTILE_TEST_SHARE=K/N` (`make test`, chosen by the commit) those
//! and one share in N of the others, so that every run is compared over N
//! commits; without either (`make test-all`), every run.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

/// Runs `tools/snapshot.py --check` with `flextile` and `extra` arguments.
fn snapshot_check(flextile: &Path, extra: &[&str]) -> Output {
    Command::new("python3")
        .arg("tools/snapshot.py")
        .arg("--check")
        .arg("--flextile")
        .arg(flextile)
        .args(extra)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run python3 tools/snapshot.py")
}

/// Every output flextile writes is the one recorded, byte for byte.
#[test]
fn outputs_match_the_snapshots() {
    let sample = std::env::var("FLEXTILE_SNAPSHOT").is_ok_and(|v| v == "sample");
    let share = std::env::var("FLEXTILE_TEST_SHARE").ok();
    let mut extra = vec!["-j", "2"];
    match (&share, sample) {
        (_, true) => extra.push("--sample"),
        (Some(share), false) => extra.extend(["--share", share.as_str()]),
        (None, false) => {}
    }
    let out = snapshot_check(Path::new(env!("CARGO_BIN_EXE_flextile")), &extra);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The check fails on a changed output and names the run: a flextile that
/// appends a comment to what it writes is caught.
#[test]
fn a_changed_output_is_named() {
    let dir = std::env::temp_dir().join(format!("flextile-snapshot-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("create the temporary directory");
    let wrapper = dir.join("flextile-changed");
    let script = format!(
        "#!/bin/sh\n\"{}\" \"$@\"; st=$?\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=\"$2\"; shift; done\n\
         [ -f \"$out\" ] && echo '/* changed */' >> \"$out\"\nexit $st\n",
        env!("CARGO_BIN_EXE_flextile")
    );
    fs::write(&wrapper, script).expect("write the wrapper");
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).expect("chmod the wrapper");
    let out = snapshot_check(&wrapper, &["--sample", "--only", "chain_1d_two_nests"]);
    let _ = fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("testsuite/programs/chain_1d_two_nests.c | c | default: exit 0 -> 0"),
        "{stdout}"
    );
    assert!(stdout.contains("make snapshot"), "{stdout}");
}
