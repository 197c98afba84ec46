//! Counter width of the generated code (issue 17, finding 11): `int` unless a
//! parameter or iterator is declared wider or a size is large, then `long long`.

use super::*;

/// Whether the generated loop counters must be `long long`: a parameter or
/// iterator of a region is declared wider than `int`, or a tile size, shift,
/// point chunk or domain constant is above [`WIDE_ABOVE`]. A size or shift of
/// a pragma above [`MAX_SIZE`] is an error at it.
pub(super) fn wide_counters(opts: &Options, program: &Program, names: &Names) -> Result<bool> {
    let mut big = opts
        .tile_sizes
        .iter()
        .flatten()
        .chain([&opts.point_chunk])
        .any(|v| v.unsigned_abs() > WIDE_ABOVE as u64);
    big |= names.params.values().any(|p| program.wide_vars.contains(p));
    let mut errors = Vec::new();
    for region in &program.regions {
        for s in &region.stages {
            big |= s.iterators.iter().any(|i| program.wide_vars.contains(i));
            big |= s
                .domain
                .iter()
                .any(|c| max_constant(&c.lhs).max(max_constant(&c.rhs)) > WIDE_ABOVE as u64);
        }
        let RegionKind::Chain(chain) = &region.kind else {
            continue;
        };
        let mut check = |values: &mut dyn Iterator<Item = i64>, span: Span, what: &str| {
            let largest = values.map(i64::unsigned_abs).max().unwrap_or(0);
            big |= largest > WIDE_ABOVE as u64;
            if largest > MAX_SIZE as u64 {
                errors.push(Diagnostic::error(
                    span,
                    format!(
                        "{what} {largest} is too large: at most {MAX_SIZE} (2^40), so that the generated loop counters cannot overflow"
                    ),
                ));
            }
        };
        for item in &chain.items {
            match item {
                ScheduleItem::Fuse {
                    shifts: Some(s),
                    span,
                } => check(&mut s.iter().flatten().copied(), *span, "shift"),
                ScheduleItem::Tile(spec) => {
                    let mut spec = Some(spec);
                    while let Some(t) = spec {
                        check(&mut t.sizes.iter().copied(), t.span, "tile size");
                        spec = match &t.inner {
                            LoopTreatment::Tile(inner) => Some(inner),
                            _ => None,
                        };
                    }
                }
                _ => {}
            }
        }
    }
    if errors.is_empty() {
        Ok(big)
    } else {
        Err(Error::User(errors))
    }
}

/// The largest magnitude of an integer literal in `e`.
fn max_constant(e: &Expr) -> u64 {
    match e {
        Expr::Int(v) => v.unsigned_abs(),
        Expr::Var(_) | Expr::Any => 0,
        Expr::Neg(a) => max_constant(a),
        Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) | Expr::Div(a, b) | Expr::Mod(a, b) => {
            max_constant(a).max(max_constant(b))
        }
        Expr::Min(v) | Expr::Max(v) => v.iter().map(max_constant).max().unwrap_or(0),
    }
}

/// The value range of each parameter of `region`, by its C name, for the
/// check that the generated loops' arithmetic fits its type
/// ([`int_range`](crate::backend::int_range)): a macro's value, the range
/// of the variable's C type where the front end read it, `long long`'s for
/// variables declared wider than `int`, `int`'s otherwise.
pub(super) fn param_ranges(program: &Program, region: &Region) -> BTreeMap<String, (i128, i128)> {
    let mut out: BTreeMap<String, (i128, i128)> = program
        .wide_vars
        .iter()
        .map(|v| (v.clone(), int_range::LONG_LONG))
        .collect();
    out.extend(region.wraps.ranges.iter().map(|(v, r)| (v.clone(), *r)));
    out.extend(
        region
            .macro_params
            .iter()
            .map(|(v, k)| (v.clone(), (i128::from(*k), i128::from(*k)))),
    );
    out
}
