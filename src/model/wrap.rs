//! Fixed-width integer arithmetic the model reads as mathematical integers.
//!
//! The model reads loop bounds, `if` conditions and subscripts as integers
//! that never wrap; C computes them in fixed-width types. `i - 2 < 10` on an
//! `unsigned i` is false at `i = 1` (the difference wraps to 4294967295), and
//! `n - 1` converted to `unsigned` is 4294967295 at `n = 0`. Each such
//! expression the front end found ([`Wraps`]) must stay in its type's range
//! wherever it is evaluated. As Polly records the assumptions under which its
//! model of a region is exact (Grosser et al., "Polly — performing polyhedral
//! optimizations on a low-level intermediate representation", Parallel
//! Processing Letters 2012), this checks them, here statically: isl looks for
//! an iteration where the expression leaves its range, given the ranges of
//! the variables' C types and `--assume`. Where that happens only for some
//! parameter values, the transformed code runs under a run-time check that
//! the parameters are outside them (the region's original code runs
//! otherwise); where it happens for every parameter value, the model is not
//! the program, and the region keeps its original loops.

use crate::diag::{Diagnostic, Result};
use crate::model::isl_ext::isl_err;
use crate::model::polyhedral::{assume_context, isl_name, Names};
use crate::model::program::{Region, WrapCheck};
use isl_rs::{Context, Set};
use std::collections::BTreeSet;

/// What the region's fixed-width arithmetic means for the model.
pub enum Verdict {
    /// No expression the model reads can leave its type's range.
    Exact,
    /// None can where the parameters are in `safe` (a set of parameter
    /// values, not all those `--assume` allows): the transformed code must
    /// run only there.
    Guarded {
        /// The parameter values where nothing wraps.
        safe: Set,
        /// What the guard may take for granted: `--assume` and the
        /// parameters' type ranges.
        known: Set,
        /// The parameters of 64-bit unsigned types (the guard computes in
        /// `long long`, which holds them only below 2^63).
        unsigned64: Vec<String>,
        /// The expressions that may wrap elsewhere, for the banner.
        what: Vec<String>,
    },
    /// Some expression may wrap whatever the parameters (or isl cannot
    /// tell): the warning that says which, and that the region is left as
    /// written.
    Never(Diagnostic),
}

/// The [`Verdict`] on `region`'s arithmetic under `--assume`.
pub fn verdict(
    ctx: &Context,
    region: &Region,
    names: &Names,
    assume: Option<&str>,
) -> Result<Verdict> {
    if region.wraps.checks.is_empty() {
        return Ok(Verdict::Exact);
    }
    let context = assume_context(ctx, names, assume)?;
    let never = |check: &WrapCheck| {
        Verdict::Never(Diagnostic::warning(
            check.span,
            format!(
                "the model reads {} as an integer that does not wrap, and cannot tell parameter values for which it stays in {}..={} (its C type's range) wherever it is evaluated: the region is left as written, without any transformation (--assume can state what the parameters satisfy)",
                check.what, check.lo, check.hi
            ),
        ))
    };
    let mut bad: Option<Set> = None;
    let mut what = Vec::new();
    let mut params = BTreeSet::new();
    for check in &region.wraps.checks {
        let Some((b, evaluated)) = wrap_params(ctx, region, check, &mut params)? else {
            return Ok(never(check));
        };
        let b = b
            .intersect(context.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
        if b.is_empty().map_err(isl_err)? {
            continue;
        }
        // Wrapping wherever it is evaluated at all is no corner case to
        // guard against: the model misreads the expression.
        if evaluated.is_subset(&b).map_err(isl_err)? {
            return Ok(never(check));
        }
        what.push(check.what.clone());
        let safe_here = context
            .copy()
            .map_err(isl_err)?
            .subtract(b.copy().map_err(isl_err)?)
            .map_err(isl_err)?;
        if safe_here.is_empty().map_err(isl_err)? {
            return Ok(never(check));
        }
        bad = Some(match bad {
            None => b,
            Some(a) => a.union(b).map_err(isl_err)?,
        });
    }
    let Some(bad) = bad else {
        return Ok(Verdict::Exact);
    };
    let ranges = range_set(ctx, region, &params)?;
    let known = context.intersect(ranges).map_err(isl_err)?;
    let safe = known
        .copy()
        .map_err(isl_err)?
        .subtract(bad)
        .map_err(isl_err)?;
    let unsigned64 = params
        .iter()
        .filter(|p| {
            region
                .wraps
                .ranges
                .get(*p)
                .is_some_and(|r| r.1 > i128::from(i64::MAX))
        })
        .cloned()
        .collect();
    match safe.is_empty().map_err(isl_err)? {
        true => Ok(never(&region.wraps.checks[0])),
        false => Ok(Verdict::Guarded {
            safe,
            known,
            unsigned64,
            what,
        }),
    }
}

/// What is known of variable `p`'s value: a macro's value (the front end
/// reads `-D` sizes and `#define`s as parameters with known values), or
/// its C type's range.
fn fact(region: &Region, p: &str) -> Option<(i128, i128)> {
    match region.macro_params.get(p) {
        Some(v) => Some((i128::from(*v), i128::from(*v))),
        None => region.wraps.ranges.get(p).copied(),
    }
}

/// The parameter values within their types' ranges, as a set of `params`.
fn range_set(ctx: &Context, region: &Region, params: &BTreeSet<String>) -> Result<Set> {
    let mut conds = Vec::new();
    for p in params {
        if let Some((lo, hi)) = fact(region, p) {
            conds.push(format!("{lo} <= {} <= {hi}", isl_name(p)));
        }
    }
    let names: Vec<String> = params.iter().map(|p| isl_name(p)).collect();
    let cond = match conds.is_empty() {
        true => String::new(),
        false => format!(" : {}", conds.join(" and ")),
    };
    let text = format!("[{}] -> {{ [] {cond} }}", names.join(", "));
    Set::read_from_str(ctx, &text)
        .and_then(|s| s.params())
        .map_err(|e| crate::diag::Error::internal(format!("isl cannot read '{text}': {e}")))
}

/// The parameter values (within their types' ranges) for which some
/// iteration where `check` is evaluated gives it a value out of its range,
/// and those for which it is evaluated at all; its parameters are added to
/// `all_params`. `None` when isl cannot read the sets (a division by a
/// variable).
fn wrap_params(
    ctx: &Context,
    region: &Region,
    check: &WrapCheck,
    all_params: &mut BTreeSet<String>,
) -> Result<Option<(Set, Set)>> {
    let mut vars = BTreeSet::new();
    check.expr.collect_vars(&mut vars);
    for c in &check.context {
        c.lhs.collect_vars(&mut vars);
        c.rhs.collect_vars(&mut vars);
    }
    let params: Vec<&String> = vars
        .iter()
        .filter(|v| !check.iterators.contains(v))
        .collect();
    all_params.extend(params.iter().map(|p| p.to_string()));
    let mut conds: Vec<String> = check
        .context
        .iter()
        .map(|c| {
            format!(
                "{} {} {}",
                c.lhs.to_isl(&isl_name),
                c.op.as_str(),
                c.rhs.to_isl(&isl_name)
            )
        })
        .collect();
    for p in &params {
        if let Some((lo, hi)) = fact(region, p) {
            conds.push(format!("{lo} <= {} <= {hi}", isl_name(p)));
        }
    }
    let iters: Vec<String> = check.iterators.iter().map(|v| isl_name(v)).collect();
    let params: Vec<String> = params.iter().map(|v| isl_name(v)).collect();
    let set = |conds: &[String]| {
        let text = format!(
            "[{}] -> {{ [{}] : {} }}",
            params.join(", "),
            iters.join(", "),
            if conds.is_empty() {
                "true".to_string()
            } else {
                conds.join(" and ")
            }
        );
        let s = Set::read_from_str(ctx, &text).ok()?.params().ok();
        if s.is_none() {
            log::debug!("wrap check: isl cannot read '{text}'; counted as wrapping");
        }
        s
    };
    let Some(evaluated) = set(&conds) else {
        return Ok(None);
    };
    let e = check.expr.to_isl(&isl_name);
    conds.push(format!("({e} < {} or {e} > {})", check.lo, check.hi));
    let Some(bad) = set(&conds) else {
        return Ok(None);
    };
    Ok(Some((bad, evaluated)))
}

#[cfg(test)]
mod tests {
    use crate::frontend::testutil::ok;
    use crate::model::isl_ext::new_context;
    use crate::model::polyhedral::collect_names;
    use crate::model::wrap::Verdict;

    /// The verdict on the only region of `src`: `None` when exact, the
    /// guarded expressions or the warning.
    fn wraps(src: &str, assume: Option<&str>) -> Option<String> {
        let p = ok(src);
        let names = collect_names(&p.regions);
        let ctx = new_context();
        match super::verdict(&ctx, &p.regions[0], &names, assume).expect("isl") {
            Verdict::Exact => None,
            Verdict::Guarded { what, .. } => Some(format!("guarded: {}", what.join("; "))),
            Verdict::Never(d) => Some(d.message),
        }
    }

    const SUB: &str = "void f(unsigned n, double *restrict A, double *restrict B) {
#pragma scop
  for (unsigned i = 0; i < n; i++)
    if (i - 2 < 10)
      B[i] = A[i];
#pragma endscop
}
";

    #[test]
    fn unsigned_difference_in_a_condition_may_wrap() {
        let w = wraps(SUB, None).expect("a warning");
        assert!(w.contains("'i - 2' computed in 'unsigned int'"), "{w}");
    }

    #[test]
    fn difference_that_cannot_wrap_is_accepted() {
        let src = SUB.replace("i = 0", "i = 2");
        assert_eq!(wraps(&src, None), None);
    }

    #[test]
    fn parameter_converted_to_unsigned_needs_an_assumption() {
        let src = "void f(int n, unsigned m, double *restrict A) {
#pragma scop
  for (unsigned i = 0; i < m; i++)
    if (i < n - 1)
      A[i] = 0;
#pragma endscop
}
";
        let w = wraps(src, None).expect("a guard");
        assert_eq!(w, "guarded: 'n - 1' converted to 'unsigned int'");
        assert_eq!(wraps(src, Some("n >= 1")), None);
    }

    #[test]
    fn unsigned_loop_down_to_zero_never_ends() {
        let src = "void f(unsigned n, double *A) {
#pragma scop
  for (unsigned i = n; i >= 0; i--)
    A[i] = 0;
#pragma endscop
}
";
        let w = wraps(src, None).expect("a warning");
        assert!(w.contains("one step past its last value"), "{w}");
        let ok = src.replace("i >= 0", "i >= 1");
        assert_eq!(wraps(&ok, None), None);
    }

    #[test]
    fn size_t_loops_with_int_bounds() {
        let src = "#include <stddef.h>
void f(size_t n, double *restrict A, double *restrict B) {
#pragma scop
  for (size_t i = 1; i < n; i++)
    B[i] = A[i - 1];
#pragma endscop
}
";
        assert_eq!(wraps(src, None), None);
    }
}
