//! Fuzzes the pragma scanner and parser (`flextile::frontend::pragma::scan`)
//! on arbitrary text, and renders every diagnostic it returns (which slices
//! the text at the diagnostics' spans). Any panic is a bug.
#![no_main]

use flextile::diag::SourceFile;
use flextile::frontend::pragma;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (_pragmas, diags) = pragma::scan(&text);
    let file = SourceFile::new("fuzz.c", text.as_ref());
    for d in &diags {
        let _ = file.render(d);
    }
});
