//! Fuzzes the whole front end (`flextile::frontend::parse_file`: libclang,
//! pragmas, chains, scops, body analysis) on a C file holding the input.
//! Rejections must be diagnostics; any panic is a bug.
#![no_main]

use flextile::diag::{Error, SourceFile};
use flextile::frontend;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

fn input_path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("flextile-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir.join("input.c")
    })
}

fuzz_target!(|data: &[u8]| {
    let path = input_path();
    std::fs::write(path, data).expect("write input");
    let text = String::from_utf8_lossy(data);
    match frontend::parse_file(path, &[]) {
        Ok(_) => {}
        Err(Error::User(diags)) => {
            let file = SourceFile::new("input.c", text.as_ref());
            for d in &diags {
                let _ = file.render(d);
            }
        }
        Err(Error::Internal(msg)) => panic!("internal error in the front end: {msg}"),
    }
});
