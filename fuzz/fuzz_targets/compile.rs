//! Fuzzes the whole driver (`flextile::driver::compile`: front end, isl
//! model, dependences, fusion, tiling, parallel marks, code generation) on a
//! C file holding the input. The first byte picks the option set: bits 0-2
//! the tiling (none, `--tile` with several size lists), bits 3-4 overlapped
//! tiling (`--rectangle`, `--scalene`, then without `--tile`), bit 5
//! `--overlap-dims 0` (partial overlapped tiling), bit 6
//! `--overlap-tolerance 0.4`, bit 7
//! `--no-openmp`. Rejections must be user diagnostics; a panic or an
//! internal error is a bug.
#![no_main]

use flextile::diag::{Error, SourceFile};
use flextile::driver::{self, Options, Target};
use flextile::transform::overlap::Shape;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("flextile-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    })
}

fn options(selector: u8) -> Options {
    let (mut tile, sizes) = match selector & 7 {
        0 => (false, None),
        1 => (true, None),
        2 => (true, Some(vec![4])),
        3 => (true, Some(vec![3, 5])),
        4 => (true, Some(vec![8, 2, 7])),
        5 => (true, Some(vec![1, 1, 1, 1])),
        6 => (true, Some(vec![16, 16])),
        _ => (false, Some(vec![2, 3, 4])),
    };
    let overlap = match (selector >> 3) & 3 {
        1 => Some(Shape::Rectangle),
        2 => Some(Shape::Scalene),
        _ => None,
    };
    if overlap.is_some() {
        tile = false;
    }
    Options {
        input: dir().join("input.c"),
        output: dir().join("output.c"),
        target: Target::C,
        block_sizes: flextile::backend::cuda::DEFAULT_BLOCK,
        openmp: selector & 0x80 == 0,
        tile,
        tile_sizes: if tile || overlap.is_some() {
            sizes
        } else {
            None
        },
        clang_args: Vec::new(),
        assume: None,
        dump_schedule: false,
        overlap,
        // bit 5: partial overlapped tiling, the outer loop overlapping
        overlap_dims: (selector & 0x20 != 0).then(|| vec![0]),
        // bit 6: PolyMage's overlap tolerance 0.4
        overlap_tolerance: (selector & 0x40 != 0).then_some(0.4),
        report: false,
        emit_mdg: None,
        max_isl_operations: driver::DEFAULT_MAX_ISL_OPERATIONS,
        summary: String::new(),
        dep_file: None,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, source)) = data.split_first() else {
        return;
    };
    let opts = options(selector);
    std::fs::write(&opts.input, source).expect("write input");
    match driver::compile(&opts) {
        Ok(_) => {}
        Err(Error::User(diags)) => {
            let text = String::from_utf8_lossy(source);
            let file = SourceFile::new("input.c", text.as_ref());
            for d in &diags {
                let _ = file.render(d);
            }
        }
        Err(Error::Internal(msg)) => panic!("internal error: {msg}"),
    }
});
