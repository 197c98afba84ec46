//! What flextile writes besides the loops: the `--report` table of
//! overlapped tiles and of the macro dataflow graph's costs, and the output file: each region's generated code
//! spliced into the input's text, generated names that avoid the input's
//! identifiers (the file itself is written by [`crate::files`]).

use crate::diag::Span;
use crate::model::mdg::{Costs, Mdg};
use crate::transform::overlap::{Footprint, GroupingStrategy, Shape};
use std::collections::BTreeSet;

/// The `--report` text of one region: per stage, the box it computes per
/// tile, its expansion on each side, and the fraction of recomputation.
pub(crate) fn report(path: &str, line: usize, shape: Shape, footprints: &[Footprint]) -> String {
    let mut s = format!("{path}:{line}: overlapped tiling, {shape:?} trapezoids\n");
    for f in footprints {
        let dims: Vec<String> = f
            .dims
            .iter()
            .map(|d| match d {
                // Signed movements of the box's faces from the tile's:
                // `-2/+2` expanded by 2 on each side, `+2/-3` shrunk.
                Some((n, l, r)) => format!("{n} ({})", faces(*l, *r)),
                None => "all".to_string(),
            })
            .collect();
        s.push_str(&format!(
            "  {}: per tile {} of {}, redundant {:.1}%\n",
            f.stage,
            dims.join(" x "),
            f.tile
                .iter()
                .zip(&f.dims)
                .map(|(t, d)| match d {
                    Some(_) => t.to_string(),
                    None => "all".to_string(),
                })
                .collect::<Vec<_>>()
                .join(" x "),
            100.0 * f.redundancy()
        ));
    }
    s
}

/// The `--explain` text of one region: how its nests were grouped, and why
/// each group ends where it does.
pub(crate) fn explain(
    path: &str,
    line: usize,
    strategy: &GroupingStrategy,
    lines: &[String],
) -> String {
    let mut s = format!("{path}:{line}: grouping ({})\n", strategy.name());
    for l in lines {
        s.push_str(&format!("  {l}\n"));
    }
    s
}

/// The `--report` lines of a region's macro dataflow graph: the cost
/// figures of Davis et al. (CGO'18 §3.3) and the storage the values take,
/// before the transformation and after it.
pub(crate) fn mdg_report(path: &str, line: usize, m: &Mdg) -> String {
    let before = m.costs_before();
    let after = m.costs_after();
    let groups = m.after.as_ref().map_or_else(
        || m.after_note.clone().unwrap_or_default(),
        |(_, g)| {
            let fused = g.groups.iter().filter(|g| g.len() > 1).count();
            format!(
                "{} stage(s) in {} macro node(s), {fused} fused",
                m.stages.len(),
                g.groups.len()
            )
        },
    );
    let row = |what: &str, f: &dyn Fn(&Costs) -> String| {
        let a = after.as_ref().map_or_else(|| "unknown".to_string(), f);
        format!("  {what}: {} before, {a} after\n", f(&before))
    };
    let mut s = format!("{path}:{line}: macro dataflow graph, {groups}\n");
    s.push_str(&row("S_R (elements read from memory)", &|c| {
        c.s_r.to_string()
    }));
    s.push_str(&row("S_C (streams read at once)", &|c| c.s_c.to_string()));
    s.push_str(&row("storage (bytes)", &|c| c.bytes.to_string()));
    s
}

/// The face movements of `--report`, signed, for a box `l` before the tile's
/// left face and `r` after its right one (`-0/+0` when neither moves).
fn faces(l: i64, r: i64) -> String {
    let left = if l == 0 {
        "-0".to_string()
    } else {
        format!("{:+}", -l)
    };
    format!("{left}/{r:+}")
}

/// Replaces each region's span of `text` by its generated code.
pub(crate) fn splice(text: &str, generated: &[(Span, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for (span, code) in generated {
        out.push_str(&text[pos..span.start]);
        out.push_str(code);
        pos = span.end;
    }
    out.push_str(&text[pos..]);
    out
}

/// A prefix for helper functions and scratchpads that no identifier of the
/// input and no name of `reserved` (macros and file-scope names of the
/// headers, `-D`) starts with (`ft_`, else `flextile_`, ...).
pub(crate) fn helper_prefix(text: &str, reserved: &BTreeSet<String>) -> String {
    let mut idents = identifiers(text);
    idents.extend(reserved.iter().map(String::as_str));
    for prefix in ["ft_", "flextile_", "flextile_gen_"] {
        if !idents.iter().any(|id| id.starts_with(prefix)) {
            return prefix.to_string();
        }
    }
    "flextile_generated_".to_string()
}

/// Every identifier-like word of `text`.
fn identifiers(text: &str) -> BTreeSet<&str> {
    let mut idents = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            idents.insert(&text[start..i]);
        } else {
            i += 1;
        }
    }
    idents
}

/// A prefix for generated loop counters that no identifier of the input and
/// no name of `reserved` uses with a number after it (`c`, else `ft_c`, ...).
pub(crate) fn counter_prefix(text: &str, reserved: &BTreeSet<String>) -> String {
    let mut idents = identifiers(text);
    idents.extend(reserved.iter().map(String::as_str));
    for prefix in ["c", "ft_c", "flextile_c"] {
        let clash = idents.iter().any(|id| {
            id.strip_prefix(prefix)
                .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
        });
        if !clash {
            return prefix.to_string();
        }
    }
    "flextile_generated_c".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_prefix_avoids_user_names() {
        let none = BTreeSet::new();
        assert_eq!(counter_prefix("int a; int b1;", &none), "c");
        assert_eq!(counter_prefix("double c0 = 1;", &none), "ft_c");
        assert_eq!(counter_prefix("int cx;", &none), "c");
        assert_eq!(helper_prefix("int a;", &none), "ft_");
        assert_eq!(helper_prefix("double *ft_min;", &none), "flextile_");
        // Macros of headers and -D, which the main file's text does not show.
        let macros: BTreeSet<String> = ["c1", "ft_max", "flextile_T0"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(counter_prefix("int a;", &macros), "ft_c");
        assert_eq!(helper_prefix("int a;", &macros), "flextile_gen_");
    }

    #[test]
    fn splices_regions() {
        let t = "aaXXbbYYcc";
        let g = vec![
            (Span::new(2, 4), "1".to_string()),
            (Span::new(6, 8), "2".to_string()),
        ];
        assert_eq!(splice(t, &g), "aa1bb2cc");
    }
}
