//! Front end: reads a C file with libclang and builds the program model.
//!
//! `#pragma omplc` loop chains and `#pragma scop` regions are found in the
//! file's text (clang drops unknown pragmas from its AST), tied to the
//! statements clang parsed after them, and turned into [`Region`]s.

pub mod clang;
pub mod pragma;

use crate::diag::Result;
use crate::model::program::Program;

/// Parses `path` with the user's clang flags (`-I`, `-D`, `-std=`) and returns
/// the regions flextile will rewrite.
pub fn parse_file(path: &std::path::Path, clang_args: &[String]) -> Result<Program> {
    let _ = (path, clang_args);
    Err(crate::diag::Error::internal("front end not written yet"))
}
