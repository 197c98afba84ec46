//! Bound on the nesting depth of the code flextile analyses.
//!
//! The body walkers ([`super::body`], [`super::cexpr`], [`super::scop`]) recurse
//! once per level of clang's AST, so a subscript of 20 000 terms (a binary
//! operator nested 20 000 deep) would overflow the stack. Before any of them
//! runs, [`check`] measures the depth of every function that holds a region,
//! without recursion, and refuses one deeper than [`MAX_DEPTH`] with a located
//! error.

use crate::diag::{Diagnostic, Span};

use super::ast::Unit;
use super::clang::Cursor;

/// Deepest AST nesting (statements and expressions, counted from the
/// function) that flextile analyses. Hand-written code stays far below it.
pub const MAX_DEPTH: usize = 1000;

/// One error per function that holds a byte of `regions` (pragma positions)
/// and nests deeper than [`MAX_DEPTH`], located at the node that passes the
/// limit.
pub fn check(unit: &Unit<'_>, regions: &[usize]) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for f in &unit.functions {
        let Some(fspan) = f.span() else { continue };
        if !regions.iter().any(|&p| fspan.start <= p && p < fspan.end) {
            continue;
        }
        if let Some(node) = too_deep(*f, MAX_DEPTH) {
            let at = node.location().unwrap_or(fspan.start);
            let end = unit
                .token_at_or_after(at)
                .map_or(at, |t| t.span.end.max(at));
            errors.push(Diagnostic::error(
                Span::new(at, end),
                format!(
                    "expression nested too deeply: flextile analyses at most {MAX_DEPTH} levels \
                     of nested statements and operators (split it into several statements)"
                ),
            ));
        }
    }
    errors
}

/// The first node (depth first) that lies more than `limit` levels below
/// `root`, found with an explicit stack.
fn too_deep<'tu>(root: Cursor<'tu>, limit: usize) -> Option<Cursor<'tu>> {
    let mut stack = vec![(root, 0usize)];
    while let Some((c, d)) = stack.pop() {
        if d > limit {
            return Some(c);
        }
        let kids = c.children();
        stack.extend(kids.into_iter().rev().map(|k| (k, d + 1)));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::testutil;

    fn nested_sum(terms: usize) -> String {
        let sum = std::iter::repeat_n("0", terms)
            .collect::<Vec<_>>()
            .join(" + ");
        format!(
            "void f(int N, double *A, double *B) {{\n#pragma scop\n  for (int i = 0; i < N; i++)\n    B[i] = A[i + {sum}];\n#pragma endscop\n}}\n"
        )
    }

    #[test]
    fn depth_limit_is_exact() {
        testutil::with_unit(&nested_sum(10), |unit| {
            let f = unit.functions[0];
            // function > body > for > assignment > subscript > sum (10 '+' deep) ...
            assert!(too_deep(f, 5).is_some());
            assert!(too_deep(f, 40).is_none());
        });
    }

    #[test]
    fn deep_subscript_is_a_located_error() {
        let errs = testutil::errors(&nested_sum(5000));
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].0.contains("nested too deeply"), "{errs:?}");
        // A subscript just below the limit still compiles.
        testutil::ok(&nested_sum(900));
    }
}
