//! The run-time alias guard.
//!
//! flextile, like other polyhedral compilers, assumes that distinct names
//! denote disjoint memory. Where two variables of a region may share memory
//! (a pointer, and another pointer or an array or a scalar whose address is
//! taken; not two `restrict` pointers, nor what the front end's facts keep
//! apart: fresh allocations, a parameter the function never assigns and
//! its local arrays, incompatible element types under strict aliasing; see
//! `frontend::storage`) and the region writes through one of them, the generated code first compares the address ranges the region
//! touches through each, and runs the transformed loops only when every
//! such pair is disjoint; otherwise it runs the region's original code, as
//! the user wrote it.
//!
//! A variable's range is the bounding box of the elements the region's
//! reads and writes touch (isl: per subscript, the parametric minimum and
//! maximum over the access relations), at the addresses C gives them:
//! subscript `d` steps by `sizeof` of the variable subscripted `d + 1`
//! times, so the declared inner sizes (constants, macros, variable lengths)
//! are the C compiler's own. Where a range cannot be bounded (a `*` index,
//! rows that are pointers, a variable flextile does not see declared), the
//! region always runs its original code ([`Guard::Unbounded`]).

use crate::backend::ast::AstReader;
use crate::backend::c::expr;
use crate::backend::int_range;
use crate::backend::tree::Helper;
use crate::backend::Naming;
use crate::diag::{Error, Result};
use crate::model::isl_ext::{ast_expr_from_pw_aff, ast_expr_from_set, isl_err};
use crate::model::polyhedral::{isl_name, Names, RegionModel};
use crate::model::program::{Access, AccessKind, Element, Origin, Region, Storage, StorageKind};
use isl_rs::{PwAff, Set};
use std::collections::{BTreeMap, BTreeSet};

/// What a region needs to be safe against overlapping variables.
pub enum Guard {
    /// No two of its variables can share memory where that would matter.
    Unneeded,
    /// These ranges are compared at run time.
    Check(Check),
    /// The variables of `pairs` may share memory, but the addresses the
    /// region touches through `data` (of one of them) cannot be bounded
    /// (`why`): the region always runs its original code.
    Unbounded {
        /// Every pair that may share memory, in order of first access
        /// (`data`'s first one first).
        pairs: Vec<(String, String)>,
        /// The variable whose range cannot be bounded.
        data: String,
        /// Why its range cannot be bounded.
        why: String,
    },
    /// More than [`MAX_PAIRS`] pairs of its variables may share memory:
    /// the region always runs its original code.
    TooMany,
}

/// The ranges a guard compares.
pub struct Check {
    /// One per variable of some pair, in order of first access.
    pub ranges: Vec<Range>,
    /// Pairs of [`Check::ranges`] indices that must not overlap.
    pub pairs: Vec<(usize, usize)>,
}

/// The elements a region touches through one variable.
pub struct Range {
    /// The C variable.
    pub data: String,
    /// How it is declared.
    pub storage: Storage,
    /// Per subscript, the smallest and largest index (functions of the parameters).
    pub bounds: Vec<(PwAff, PwAff)>,
}

/// The first access of each variable of `region` indexed through rows
/// that are pointers (`double **a` used as `a[i][j]`): the model takes its
/// rows to be distinct memory, which nothing checks.
pub fn pointer_rows(region: &Region) -> Vec<&Access> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for a in region.stages.iter().flat_map(|s| &s.accesses) {
        let rows = matches!(region.storage.get(&a.data), Some(Some(s)) if s.levels < a.index.len());
        if rows && seen.insert(a.data.as_str()) {
            out.push(a);
        }
    }
    out
}

/// Why a variable's storage makes no range: `None` when it has one.
fn unknown_storage(region: &Region, data: &str, rank: usize) -> Option<String> {
    match region.storage.get(data) {
        None => Some(
            "flextile does not see it declared as a C variable (a loop chain's logical name, or an access in a call or other code it does not analyse)"
                .to_string(),
        ),
        Some(None) => Some("its name denotes different variables in different statements".to_string()),
        Some(Some(s)) if s.levels != rank => Some(format!(
            "it is used with {rank} subscript(s) but only {} index contiguous memory (rows that are pointers, as in 'double **')",
            s.levels
        )),
        Some(Some(_)) => None,
    }
}

/// What a variable's declaration says of the memory it may share.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Kind {
    /// Its own (a local scalar whose address is not taken).
    Private,
    /// An array or scalar object (`local`: of the function, automatic).
    Object {
        /// Of automatic storage, declared in the function.
        local: bool,
    },
    /// A pointer; a data set whose storage is unknown counts as one.
    Pointer {
        /// `restrict`-qualified.
        restrict: bool,
        /// Where its values come from.
        origin: Origin,
    },
}

/// What decides whether two variables may share memory: their [`Kind`]
/// and their element type (see [`Storage::element`]).
type Class = (Kind, Option<Element>);

/// `s`'s [`Class`]. `all_restrict`: every pointer the region's code names is
/// `restrict`; then a data set whose storage is unknown (a loop chain's
/// logical name), which the code can only reach through the variables it
/// names, counts as a `restrict` pointer; otherwise it may share anything.
fn kind(s: Option<Storage>, all_restrict: bool) -> Class {
    let Some(s) = s else {
        let restrict = all_restrict;
        return (
            Kind::Pointer {
                restrict,
                origin: Origin::Any,
            },
            None,
        );
    };
    let k = match s.kind {
        StorageKind::Private => Kind::Private,
        StorageKind::Object { local } => Kind::Object { local },
        StorageKind::Pointer { restrict, origin } => Kind::Pointer { restrict, origin },
    };
    (k, s.element)
}

/// Whether variables of classes `a` and `b` may share memory.
fn overlap_kinds(a: Class, b: Class) -> bool {
    if let (Some(x), Some(y)) = (a.1, b.1) {
        // Strict aliasing: no object is accessed as both.
        if x != y {
            return false;
        }
    }
    let fresh = |k: Kind| {
        matches!(
            k,
            Kind::Pointer {
                origin: Origin::Fresh,
                ..
            }
        )
    };
    let entry = |k: Kind| {
        matches!(
            k,
            Kind::Pointer {
                origin: Origin::Entry,
                ..
            }
        )
    };
    let local = |k: Kind| matches!(k, Kind::Object { local: true });
    match (a.0, b.0) {
        (Kind::Private, _) | (_, Kind::Private) => false,
        (Kind::Object { .. }, Kind::Object { .. }) => false,
        (Kind::Pointer { restrict: true, .. }, Kind::Pointer { restrict: true, .. }) => false,
        // A fresh allocation: only a pointer that may hold anything reaches it.
        (f, other) | (other, f) if fresh(f) => {
            matches!(
                other,
                Kind::Pointer {
                    origin: Origin::Any,
                    ..
                }
            )
        }
        // The function's own arrays did not exist when it was called.
        (e, l) | (l, e) if entry(e) && local(l) => false,
        _ => true,
    }
}

/// Whether the pair may share memory, judging by declarations alone (see
/// [`kind`] for `all_restrict`).
#[cfg(test)]
fn may_overlap(a: Option<Storage>, b: Option<Storage>, all_restrict: bool) -> bool {
    overlap_kinds(kind(a, all_restrict), kind(b, all_restrict))
}

/// Most pairs of variables a run-time guard compares. Each pair is a term
/// of the guard's condition: a region of 4 000 pointers, all written, has
/// eight million pairs (a guard of hundreds of megabytes, which took minutes
/// to build). A region past it is left as written ([`Guard::TooMany`]).
pub const MAX_PAIRS: usize = 10_000;

/// Whether [`plan`] needs the region's model: the region's statement
/// instances may run in another order (`reorders`) and the declarations of
/// two of its data sets, one of them written, let them share memory (the
/// model then tells what the region touches of each).
pub fn needs_model(region: &Region, reorders: bool) -> bool {
    reorders && !pairs_by_declaration(region, |_| true, 1).1.is_empty()
}

/// A region's data sets in the order of their first access, with their
/// ranks.
type Accessed = Vec<(String, usize)>;

/// The data sets of `region` (see [`Accessed`]), and the pairs of them
/// (indices) that may share memory by their declarations, one of the two
/// written, both kept by `keep`: at most `limit + 1` pairs (the first
/// ones), so that a caller sees when there are more than `limit`.
fn pairs_by_declaration(
    region: &Region,
    keep: impl Fn(&str) -> bool,
    limit: usize,
) -> (Accessed, Vec<(usize, usize)>) {
    let mut order: Accessed = Vec::new();
    let mut position: BTreeMap<&str, usize> = BTreeMap::new();
    let mut written = BTreeSet::new();
    for s in &region.stages {
        for a in &s.accesses {
            let k = *position.entry(a.data.as_str()).or_insert_with(|| {
                order.push((a.data.clone(), a.index.len()));
                order.len() - 1
            });
            if a.kind == AccessKind::Write {
                written.insert(k);
            }
        }
    }
    let all_restrict = region.storage.values().all(|s| {
        s.is_some_and(|s| {
            !matches!(
                s.kind,
                StorageKind::Pointer {
                    restrict: false,
                    ..
                }
            )
        })
    });
    let storage: Vec<Option<Storage>> = order
        .iter()
        .map(|(d, _)| region.storage.get(d).copied().flatten())
        .collect();
    // The variables by kind (kept ones only): a written variable is paired
    // with those of the kinds it may overlap, not compared with every
    // other (4 000 written `restrict` pointers make no pair, and need not
    // be compared 16 million times).
    let mut by_kind: BTreeMap<Class, Vec<usize>> = BTreeMap::new();
    for (k, (d, _)) in order.iter().enumerate() {
        if keep(d) {
            by_kind
                .entry(kind(storage[k], all_restrict))
                .or_default()
                .push(k);
        }
    }
    let mut pairs = Vec::new();
    for &i in &written {
        let ki = kind(storage[i], all_restrict);
        // Only a kept variable is paired.
        if by_kind
            .get(&ki)
            .is_none_or(|v| v.binary_search(&i).is_err())
        {
            continue;
        }
        for (_, members) in by_kind.iter().filter(|(kj, _)| overlap_kinds(ki, **kj)) {
            for &j in members {
                if j == i || (written.contains(&j) && j < i) {
                    continue;
                }
                pairs.push((i.min(j), i.max(j)));
                if pairs.len() > limit {
                    pairs.sort_unstable();
                    return (order, pairs);
                }
            }
        }
    }
    pairs.sort_unstable();
    (order, pairs)
}

/// The guard `region` needs, from its model (the region as read, before
/// any renaming). `reorders`: the compiled region may run its statement
/// instances in another order than the original (tiling, fusion, parallel
/// loops); when it does not, aliasing cannot change its results.
pub fn plan(region: &Region, model: &RegionModel, reorders: bool) -> Result<Guard> {
    if !reorders {
        return Ok(Guard::Unneeded);
    }
    let touched = model.touched_sets()?;
    let mut empty = BTreeSet::new();
    for (name, set) in &touched {
        if set.is_empty().map_err(isl_err)? {
            empty.insert(name.clone());
        }
    }
    let is_touched = |d: &str| {
        let name = isl_name(d);
        touched.contains_key(&name) && !empty.contains(&name)
    };
    let (order, pairs) = pairs_by_declaration(region, is_touched, MAX_PAIRS);
    if pairs.is_empty() {
        return Ok(Guard::Unneeded);
    }
    if pairs.len() > MAX_PAIRS {
        return Ok(Guard::TooMany);
    }
    let storage = |d: &str| region.storage.get(d).copied().flatten();
    let mut index: BTreeMap<usize, usize> = BTreeMap::new();
    let mut ranges = Vec::new();
    for &(i, j) in &pairs {
        for (k, other) in [(i, j), (j, i)] {
            if index.contains_key(&k) {
                continue;
            }
            let (data, rank) = &order[k];
            let unbounded = |why: String| {
                let name = |(a, b): (usize, usize)| (order[a].0.clone(), order[b].0.clone());
                let mut named = vec![name((k, other))];
                named.extend(pairs.iter().filter(|p| **p != (i, j)).map(|p| name(*p)));
                Guard::Unbounded {
                    pairs: named,
                    data: data.clone(),
                    why,
                }
            };
            if let Some(why) = unknown_storage(region, data, *rank) {
                return Ok(unbounded(why));
            }
            let Some(st) = storage(data) else {
                return Ok(unbounded("its declaration is unknown".to_string()));
            };
            let Some(set) = touched.get(&isl_name(data)) else {
                return Ok(unbounded("isl has no access to it".to_string()));
            };
            let Some(bounds) = box_bounds(set, *rank)? else {
                return Ok(unbounded(
                    "its subscripts have no bound in the parameters (a '*' index or a data-dependent subscript)"
                        .to_string(),
                ));
            };
            index.insert(k, ranges.len());
            ranges.push(Range {
                data: data.clone(),
                storage: st,
                bounds,
            });
        }
    }
    let pairs = pairs
        .into_iter()
        .filter_map(|(i, j)| Some((*index.get(&i)?, *index.get(&j)?)))
        .collect();
    Ok(Guard::Check(Check { ranges, pairs }))
}

/// Per dimension of `set` (of `rank` dimensions), its smallest and largest
/// value as functions of the parameters; `None` where one has no bound.
pub fn box_bounds(set: &Set, rank: usize) -> Result<Option<Vec<(PwAff, PwAff)>>> {
    let mut out = Vec::new();
    for d in 0..rank {
        let Some(b) = dim_bounds(set, d)? else {
            return Ok(None);
        };
        out.push(b);
    }
    Ok(Some(out))
}

/// The smallest and largest value of dimension `d` of `set` as functions
/// of the parameters; `None` where one has no bound.
pub fn dim_bounds(set: &Set, d: usize) -> Result<Option<(PwAff, PwAff)>> {
    let d = i32::try_from(d).map_err(|_| Error::internal("too many subscripts"))?;
    // isl fails ("unbounded optimum") or gives NaN where a bound is infinite.
    let (Ok(lo), Ok(hi)) = (
        set.copy().map_err(isl_err)?.dim_min(d),
        set.copy().map_err(isl_err)?.dim_max(d),
    ) else {
        return Ok(None);
    };
    if lo.involves_nan().map_err(isl_err)? || hi.involves_nan().map_err(isl_err)? {
        return Ok(None);
    }
    Ok(Some((lo, hi)))
}

/// The guard as C, for the templates.
#[derive(Clone, Debug)]
pub struct GuardParts {
    /// Declarations of the range variables, one per line (no indentation).
    pub decls: Vec<String>,
    /// The terms of the condition (one per pair), each true when the pair is disjoint.
    pub terms: Vec<String>,
    /// The pairs in words, for the banner: `'A'/'B'`.
    pub pairs: Vec<String>,
    /// The region's original code (see [`original_code`]).
    pub original: String,
    /// The expressions of the model whose fixed-width arithmetic the guard
    /// checks does not wrap (`model::wrap`), in words; its first term
    /// checks them.
    pub wraps: Vec<String>,
}

/// The guard's term that the region's fixed-width arithmetic does not wrap:
/// the parameter values `safe` as a C condition (isl's AST expression
/// builder, taking `known` for granted), computed in `long long`, with each
/// 64-bit unsigned parameter of `unsigned64` checked to be below 2^63 first.
///
/// The check is computed in `long long`. Where its own arithmetic could
/// overflow for parameters in their types' ranges (`params`, by C name:
/// two `size_t` near 2^63 added), it first checks that the parameters lie
/// in a box where it cannot (as [`int_range::expr_bound`] finds); outside
/// the box the original code runs.
pub fn wrap_term(
    known: &Set,
    safe: Set,
    unsigned64: &[String],
    params: &BTreeMap<String, (i128, i128)>,
    names: &Names,
    naming: &Naming,
    helpers: &mut BTreeSet<Helper>,
) -> Result<String> {
    let reader = AstReader::new(names);
    let e = reader.expr(&ast_expr_from_set(known, safe)?)?;
    let wide = Naming {
        wide: true,
        ..naming.clone()
    };
    e.helpers(true, helpers);
    let mut terms: Vec<String> = unsigned64
        .iter()
        .map(|p| format!("{p} <= (unsigned long long)__LONG_LONG_MAX__"))
        .collect();
    let ranges = int_range::Ranges {
        params,
        counter: int_range::LONG_LONG,
    };
    match int_range::expr_bound(&e, &ranges) {
        int_range::Bound::Fits => {}
        int_range::Bound::Within(b, read) => {
            for p in &read {
                let (lo, hi) = params.get(p).copied().unwrap_or(int_range::INT);
                if lo < -b {
                    terms.push(format!("{p} >= -{b}LL"));
                }
                if hi > b {
                    terms.push(format!("{p} <= {b}LL"));
                }
            }
        }
        int_range::Bound::Unknown => {
            return Err(Error::Internal(
                "the check's own arithmetic may overflow 'long long'".into(),
            ))
        }
    }
    terms.push(format!("({})", expr::text(&e, &wide)));
    Ok(terms.join(" && "))
}

/// `guard` with the wrap check `term` of the expressions `what` as its first
/// term (a guard of its own where the region has none).
pub fn with_wraps(
    guard: Option<GuardParts>,
    term: String,
    what: Vec<String>,
    original: String,
) -> GuardParts {
    let mut g = guard.unwrap_or(GuardParts {
        decls: Vec::new(),
        terms: Vec::new(),
        pairs: Vec::new(),
        original,
        wraps: Vec::new(),
    });
    g.terms.insert(0, term);
    g.wraps.extend(what);
    g
}

/// `check` printed in C: each range's first byte and the byte after its
/// last, as `__UINTPTR_TYPE__` (wrapping unsigned arithmetic), bounds
/// printed by isl's AST expression builder under `context` with the
/// output's names. Helpers the expressions use are added to `helpers`.
pub fn print(
    check: Check,
    context: &Set,
    names: &Names,
    naming: &Naming,
    helpers: &mut BTreeSet<Helper>,
    original: String,
) -> Result<GuardParts> {
    const UINTPTR: &str = "__UINTPTR_TYPE__";
    let reader = AstReader::new(names);
    let mut decls = Vec::new();
    let mut sets = Vec::new();
    let mut vars = Vec::new();
    for (k, r) in check.ranges.into_iter().enumerate() {
        let (lo_var, end_var) = (
            format!("{}alias_lo{k}", naming.helper),
            format!("{}alias_end{k}", naming.helper),
        );
        let base = match (r.storage.kind, r.storage.levels) {
            (StorageKind::Pointer { .. }, _) | (_, 1..) => format!("({UINTPTR})({})", r.data),
            _ => format!("({UINTPTR})&{}", r.data),
        };
        // Offsets in wrapping unsigned arithmetic: exact wherever the
        // original program's accesses are, never undefined.
        let step = |d: usize| format!("sizeof({}{})", r.data, "[0]".repeat(d + 1));
        let mut lo_terms = Vec::new();
        let mut hi_terms = Vec::new();
        for (d, (lo, hi)) in r.bounds.into_iter().enumerate() {
            let lo = reader.expr(&ast_expr_from_pw_aff(context, lo)?)?;
            let hi = reader.expr(&ast_expr_from_pw_aff(context, hi)?)?;
            lo.helpers(naming.wide, helpers);
            hi.helpers(naming.wide, helpers);
            let (lo, hi) = (expr::text(&lo, naming), expr::text(&hi, naming));
            lo_terms.push(format!("({UINTPTR})(long long)({lo}) * {}", step(d)));
            hi_terms.push(format!("({UINTPTR})(long long)({hi}) * {}", step(d)));
        }
        let element = match r.storage.levels {
            0 => format!("sizeof({})", r.data),
            n => format!("sizeof({}{})", r.data, "[0]".repeat(n)),
        };
        let (lo, end) = if lo_terms.is_empty() {
            (base.clone(), format!("{base} + {element}"))
        } else {
            (
                format!("{base} + ({UINTPTR})({})", lo_terms.join(" + ")),
                format!("{base} + ({UINTPTR})({}) + {element}", hi_terms.join(" + ")),
            )
        };
        decls.push(format!(
            "{UINTPTR} {lo_var}, {end_var}; /* the bytes the region touches through '{}' */",
            r.data
        ));
        sets.push(format!("{lo_var} = {lo}"));
        sets.push(format!("{end_var} = {end}"));
        vars.push((r.data, lo_var, end_var));
    }
    // The ranges are computed in the condition, after the guard's checks
    // on the parameters (inserted before this term), so that their
    // arithmetic runs only where those checks say it fits.
    let mut terms = vec![format!("({}, 1)", sets.join(", "))];
    let mut pairs = Vec::new();
    for (i, j) in check.pairs {
        let (a, b) = (&vars[i], &vars[j]);
        terms.push(format!("({} <= {} || {} <= {})", a.2, b.1, b.2, a.1));
        pairs.push(format!("'{}'/'{}'", a.0, b.0));
    }
    Ok(GuardParts {
        decls,
        terms,
        pairs,
        original,
        wraps: Vec::new(),
    })
}

/// The region's code as the user wrote it: the text of its span without
/// the flextile pragma lines and the `#define`/`#undef` lines `directives`
/// (which the output keeps around the whole region), each removed with its
/// newline, and with `edits` (sorted, non-overlapping replacements: the
/// CUDA target's C++ edits, empty for C) applied inside it.
pub fn original_code(
    text: &str,
    region: &Region,
    directives: &[crate::diag::Span],
    edits: &[(crate::diag::Span, String)],
) -> String {
    let mut cuts: Vec<(usize, usize, &str)> = region
        .pragma_lines
        .iter()
        .chain(directives)
        .filter(|l| region.span.start <= l.start && l.end <= region.span.end)
        .map(|l| {
            let nl = usize::from(text.get(l.end..l.end + 1) == Some("\n"));
            (l.start, l.end + nl, "")
        })
        .collect();
    cuts.extend(
        edits
            .iter()
            .filter(|(e, _)| region.span.start <= e.start && e.end <= region.span.end)
            .map(|(e, t)| (e.start, e.end, t.as_str())),
    );
    cuts.sort_by_key(|c| (c.0, c.1));
    let mut out = String::new();
    let mut pos = region.span.start;
    for (start, end, rep) in cuts {
        if start < pos {
            continue;
        }
        out.push_str(text.get(pos..start).unwrap_or(""));
        out.push_str(rep);
        pos = end;
    }
    out.push_str(text.get(pos..region.span.end.max(pos)).unwrap_or(""));
    let trimmed = out.trim_end_matches([' ', '\t', '\r', '\n']);
    format!("{trimmed}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::isl_ext::new_context;

    fn pointer(levels: usize) -> Storage {
        Storage {
            kind: StorageKind::Pointer {
                restrict: false,
                origin: Origin::Any,
            },
            levels,
            element: None,
        }
    }

    /// The guard of two 2-D pointers `out` (written on the interior) and
    /// `in` (read around it), under `N >= 3`.
    #[test]
    fn ranges_are_the_accesses_bounding_boxes_in_bytes() {
        let ctx = new_context();
        let set = |s: &str| Set::read_from_str(&ctx, s).expect("set");
        let context = set("[N, P] -> { : N >= 3 }");
        let written = set("[N, P] -> { out[i, j] : 1 <= i <= N - 2 and 1 <= j <= P - 2 }");
        let read = set(
            "[N, P] -> { in[i, j] : 0 <= i <= N - 1 and 0 <= j <= P - 1 and -1 <= i + j - N <= 0 }",
        );
        let ranges: Vec<Range> = [("out", &written), ("in", &read)]
            .into_iter()
            .map(|(data, s)| Range {
                data: data.to_string(),
                storage: pointer(2),
                bounds: box_bounds(s, 2).expect("isl").expect("bounded"),
            })
            .collect();
        let names = Names {
            params: [("N", "N"), ("P", "P")]
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        };
        let naming = Naming {
            counter: "c".to_string(),
            helper: "ft_".to_string(),
            wide: false,
        };
        let mut helpers = BTreeSet::new();
        let g = print(
            Check {
                ranges,
                pairs: vec![(0, 1)],
            },
            &context,
            &names,
            &naming,
            &mut helpers,
            "orig\n".to_string(),
        )
        .expect("print");
        assert_eq!(
            g.decls,
            [
                "__UINTPTR_TYPE__ ft_alias_lo0, ft_alias_end0; /* the bytes the region touches through 'out' */",
                "__UINTPTR_TYPE__ ft_alias_lo1, ft_alias_end1; /* the bytes the region touches through 'in' */",
            ]
        );
        // The ranges are set in the condition's first term, in unsigned
        // arithmetic, after any checks on the parameters.
        let sets = &g.terms[0];
        assert!(sets.contains("ft_alias_lo0 = (__UINTPTR_TYPE__)(out) + (__UINTPTR_TYPE__)((__UINTPTR_TYPE__)(long long)(1) * sizeof(out[0]) + (__UINTPTR_TYPE__)(long long)(1) * sizeof(out[0][0]))"), "{sets}");
        assert!(sets.contains("ft_alias_end0 = (__UINTPTR_TYPE__)(out) + (__UINTPTR_TYPE__)((__UINTPTR_TYPE__)(long long)(N - 2) * sizeof(out[0]) + (__UINTPTR_TYPE__)(long long)(P - 2) * sizeof(out[0][0])) + sizeof(out[0][0])"), "{sets}");
        // `in`'s box: i and j each from 0, to N - 1 and to min(P - 1, N) (j <= N - i).
        assert!(sets.contains("(__UINTPTR_TYPE__)(long long)(N - 1) * sizeof(in[0])"));
        assert!(sets.contains("ft_min(P - 1, N)") || sets.contains("ft_min(N, P - 1)"));
        assert!(sets.ends_with(", 1)"));
        assert!(helpers.contains(&Helper::Min));
        assert_eq!(
            g.terms[1..],
            ["(ft_alias_end0 <= ft_alias_lo1 || ft_alias_end1 <= ft_alias_lo0)"]
        );
        assert_eq!(g.pairs, ["'out'/'in'"]);
    }

    #[test]
    fn unbounded_subscripts_have_no_range() {
        let ctx = new_context();
        let s = Set::read_from_str(&ctx, "[N] -> { A[i, j] : 0 <= i < N }").expect("set");
        assert!(box_bounds(&s, 2).expect("isl").is_none());
    }

    fn with(kind: StorageKind, element: Option<Element>) -> Option<Storage> {
        Some(Storage {
            kind,
            levels: 1,
            element,
        })
    }

    fn ptr(restrict: bool, origin: Origin) -> StorageKind {
        StorageKind::Pointer { restrict, origin }
    }

    #[test]
    fn which_pairs_may_overlap() {
        let restrict = with(ptr(true, Origin::Any), None);
        let object = with(StorageKind::Object { local: false }, None);
        let private = Some(Storage {
            kind: StorageKind::Private,
            levels: 0,
            element: None,
        });
        let p = Some(pointer(1));
        assert!(may_overlap(p, p, false));
        assert!(may_overlap(p, restrict, true));
        assert!(!may_overlap(restrict, restrict, false));
        assert!(may_overlap(restrict, object, true));
        assert!(!may_overlap(object, object, false));
        assert!(!may_overlap(p, private, false));
        // Unknown storage: anything, unless every pointer named is restrict.
        assert!(may_overlap(None, restrict, false));
        assert!(!may_overlap(None, restrict, true));
        assert!(!may_overlap(None, None, true));
        assert!(may_overlap(None, object, true));
    }

    #[test]
    fn what_the_functions_facts_keep_apart() {
        let any = with(ptr(false, Origin::Any), None);
        let entry = with(ptr(false, Origin::Entry), None);
        let fresh = with(ptr(false, Origin::Fresh), None);
        let local = with(StorageKind::Object { local: true }, None);
        let global = with(StorageKind::Object { local: false }, None);
        // A fresh allocation: only a pointer that may hold anything.
        assert!(may_overlap(fresh, any, false));
        assert!(!may_overlap(fresh, entry, false));
        assert!(!may_overlap(fresh, fresh, false));
        assert!(!may_overlap(fresh, local, false));
        assert!(!may_overlap(global, fresh, false));
        // A parameter never assigned: not the function's own arrays.
        assert!(!may_overlap(entry, local, false));
        assert!(may_overlap(entry, global, false));
        assert!(may_overlap(entry, entry, false));
        assert!(may_overlap(any, local, false));
        // Strict aliasing: incompatible elements never share memory; an
        // unknown element (a character type) may share any.
        let float = with(ptr(false, Origin::Any), Some(Element::Float));
        let int = with(ptr(false, Origin::Any), Some(Element::Int));
        assert!(!may_overlap(float, int, false));
        assert!(may_overlap(float, float, false));
        assert!(may_overlap(float, any, false));
    }
}
