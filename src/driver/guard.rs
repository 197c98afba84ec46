//! The region's run-time guard: the alias guard that compares the
//! addresses a region touches through pointers that may overlap, and the
//! test that keeps parameters within the range where the generated loops'
//! integer arithmetic cannot wrap; in both cases the original code runs
//! where the test fails.

use super::*;

/// The run-time alias guard of `region` ([`alias::plan`], printed), or the
/// warning that leaves the region as written (and why, for its
/// output): two variables that may
/// overlap where the region's addresses cannot be bounded, or more pairs
/// than a guard compares.
pub(super) fn guard_parts(
    shared: &Shared,
    region: &Region,
    modelled: Option<&Modelled>,
    reorders: bool,
    helpers: &mut BTreeSet<Helper>,
) -> Result<std::result::Result<Option<GuardParts>, (Diagnostic, String)>> {
    let Some(Modelled { model, ctx }) = modelled else {
        return Ok(Ok(None));
    };
    let (why, pairs) = match alias::plan(region, model, reorders)? {
        Guard::Unneeded => return Ok(Ok(None)),
        Guard::Check(check) => {
            let original = original_code(shared.program, region);
            let parts = alias::print(check, &model.context, shared.names, shared.naming, helpers, original)?;
            return Ok(Ok(Some(parts)));
        }
        Guard::Unbounded { pairs, data, why } => (
            format!(
                "{} may overlap in memory, and the addresses the region touches through '{data}' cannot be bounded for a run-time check ({why})",
                overlapping_pairs(&pairs)
            ),
            pairs,
        ),
        Guard::TooMany => (
            format!(
                "more than {} pairs of the region's variables may overlap in memory, more than a run-time check compares (declare its pointers 'restrict')",
                alias::MAX_PAIRS
            ),
            Vec::new(),
        ),
    };
    polyhedral::check_declared_accesses(ctx, region, shared.names)?;
    let warning = Diagnostic::warning(
        region.pragma_span,
        format!("{why}: the region is left as written, without any transformation"),
    );
    Ok(Err((restrict_notes(warning, region, &pairs), why)))
}

/// Most pairs the warning of a region left as written names.
const LISTED_PAIRS: usize = 16;

/// The pairs in words: `'a' and 'b'` for one, `the pairs 'a'/'b', 'a'/'c'
/// and 'b'/'c'` for more (past [`LISTED_PAIRS`], how many others).
fn overlapping_pairs(pairs: &[(String, String)]) -> String {
    if let [(a, b)] = pairs {
        return format!("'{a}' and '{b}'");
    }
    let mut named: Vec<String> = pairs
        .iter()
        .take(LISTED_PAIRS)
        .map(|(a, b)| format!("'{a}'/'{b}'"))
        .collect();
    if pairs.len() > LISTED_PAIRS {
        named.push(format!("{} other pairs", pairs.len() - LISTED_PAIRS));
    }
    let last = named.pop().unwrap_or_default();
    match named.is_empty() {
        true => format!("the pairs {last}"),
        false => format!("the pairs {} and {last}", named.join(", ")),
    }
}

/// `warning` with a note at the declaration of each pointer of the listed
/// `pairs` that is not `restrict`, saying how to mark it.
fn restrict_notes(
    mut warning: Diagnostic,
    region: &Region,
    pairs: &[(String, String)],
) -> Diagnostic {
    let mut seen = BTreeSet::new();
    let names = pairs.iter().take(LISTED_PAIRS).flat_map(|(a, b)| [a, b]);
    for name in names {
        let Some(d) = region.declarations.get(name) else {
            continue;
        };
        if !seen.insert(name) {
            continue;
        }
        let how = match &d.restrict {
            Some(text) => format!("declare '{name}' as '{text}'"),
            None => format!("declare '{name}' 'restrict'"),
        };
        warning = warning.with_note(d.span, format!("{how} if it never overlaps another array"));
    }
    warning
}

/// The region's run-time guard, with a first term that checks the
/// parameters where the generated loops' integer arithmetic fits its type
/// only for parameters within `[-B, B]` ([`int_range`]); the guard as
/// decided otherwise.
pub(super) fn with_int_bound(
    shared: &Shared,
    region: &Region,
    bound: &int_range::Bound,
) -> Option<GuardParts> {
    let int_range::Bound::Within(b, read) = bound else {
        if *bound == int_range::Bound::Unknown {
            info!("the generated loops read an expression whose range is not checked");
        }
        return shared.guard.cloned();
    };
    let ranges = counters::param_ranges(shared.program, region);
    let mut tests = Vec::new();
    // Names of flextile's own (a time block's first step) are set inside
    // the region: its parameters are checked.
    let user: BTreeSet<&String> = shared.names.params.values().collect();
    for p in read.iter().filter(|p| user.contains(p)) {
        let (lo, hi) = ranges.get(p).copied().unwrap_or(int_range::INT);
        if lo < -b {
            tests.push(format!("{p} >= -{b}LL"));
        }
        if hi > *b {
            tests.push(format!("{p} <= {b}LL"));
        }
    }
    if tests.is_empty() {
        return shared.guard.cloned();
    }
    let original = original_code(shared.program, region);
    let what = format!(
        "the generated loops' {} arithmetic (for a parameter beyond ±{b})",
        shared.naming.counter_type()
    );
    Some(alias::with_wraps(
        shared.guard.cloned(),
        format!("({})", tests.join(" && ")),
        vec![what],
        original,
    ))
}

/// What the banner says about the run-time guard, if the region has one.
pub(super) fn guard_note(guard: Option<&GuardParts>) -> Option<String> {
    guard.map(|g| {
        let mut why = Vec::new();
        if !g.wraps.is_empty() {
            why.push(format!("the parameters let {} wrap", g.wraps.join(", ")));
        }
        if !g.pairs.is_empty() {
            why.push(format!("{} overlap in memory", g.pairs.join(", ")));
        }
        let kind = if g.pairs.is_empty() {
            "run-time guard"
        } else {
            "alias guard"
        };
        format!(
            "{kind}: the original code runs where {} (checked at run time)",
            why.join(", or where ")
        )
    })
}
