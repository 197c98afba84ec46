//! C types of the variables a region's bounds and loops use.
//!
//! Generated loop counters are `int` unless a parameter or iterator of a
//! region is declared with a wider integer type (`long`, `unsigned`,
//! `size_t`, ...): then they are `long long` (see `backend::Naming::wide`).
//! This module finds the names of such variables.

use std::collections::BTreeSet;

use super::ast::Unit;
use super::clang::{Cursor, CursorKind};

/// Names of the integer variables wider than `int` declared at file scope
/// (`root`'s children) or anywhere in a function that holds one of `regions`
/// (pragma positions). A name declared both as `int` and wider somewhere is
/// listed: a wider counter is always correct.
pub fn wide_variables(unit: &Unit<'_>, root: Cursor<'_>, regions: &[usize]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let is_var = |c: &Cursor<'_>| matches!(c.kind(), CursorKind::VarDecl | CursorKind::ParmDecl);
    for c in root.children() {
        if c.kind() == CursorKind::VarDecl && c.is_wide_integer() {
            out.insert(c.spelling());
        }
    }
    for f in &unit.functions {
        let Some(fspan) = f.span() else { continue };
        if !regions.iter().any(|&p| fspan.start <= p && p < fspan.end) {
            continue;
        }
        // Depth is bounded by `depth::check`; the walk needs no recursion anyway.
        let mut stack = vec![*f];
        while let Some(c) = stack.pop() {
            if is_var(&c) && c.is_wide_integer() {
                out.insert(c.spelling());
            }
            stack.extend(c.children());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::testutil;

    #[test]
    fn finds_wide_integer_variables() {
        let src = "#include <stddef.h>\nlong G; int H;\nvoid f(long N, int M, size_t S, unsigned U, double *A) {\n  long long t; int i;\n#pragma scop\n  for (i = 0; i < M; i++) A[i] = 0;\n#pragma endscop\n}\nvoid g(long X) {}\n";
        let wide = testutil::with_unit(src, |unit| {
            let pos = src.find("#pragma scop").unwrap_or(0);
            wide_variables(unit, unit.functions[0].translation_root(), &[pos])
        });
        let names: Vec<&str> = wide.iter().map(String::as_str).collect();
        assert_eq!(names, ["G", "N", "S", "U", "t"]);
    }
}
