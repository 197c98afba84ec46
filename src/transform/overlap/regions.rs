//! The per-tile relations of one stage of an overlapped group (Zhao &
//! Cohen §3.2–3.3): which tile computes each instance as its own part
//! (`tile_map`), and the trapezoid of eq. 3 around the region a tile must
//! compute (`box_region`). Each is built from its constraints (isl's parser
//! was most of their cost) and kept in the region's [`AnalysisMemo`], keyed
//! by the stage and those constraints: the analyses of the candidate groups
//! holding a stage at the same sizes, shifts and scales share it.

use super::memo::AnalysisMemo;
use super::WHOLE;
use crate::diag::Result;
use crate::model::isl_ext::{dim_range, isl_err};
use crate::model::polyhedral::{Names, RegionModel};
use crate::model::program::Stage;
use crate::model::relations::{constrained, Row};
use isl_rs::{Context, DimType, Map, Space};

/// How one stage is tiled: its shift and scale per loop, the tile sizes,
/// and the loop tiled classically (its tiles run in order, without overlap).
#[derive(Clone, Copy, Debug)]
pub(super) struct StageTiling<'a> {
    pub shift: &'a [i64],
    pub scale: &'a [i64],
    pub sizes: &'a [i64],
    pub classic: Option<usize>,
}

/// The stage's own tile part: `{ Sk[i] -> [T] : T_d = floor((a_d*i_d + s_d) / size_d) }`
/// (scale `a`, shift `s`) restricted to its domain.
pub(super) fn tile_map(
    model: &RegionModel,
    names: &Names,
    s: &Stage,
    tiling: StageTiling<'_>,
    memo: &AnalysisMemo,
) -> Result<Map> {
    let StageTiling {
        shift,
        scale,
        sizes,
        ..
    } = tiling;
    let ctx = model.schedule.get_ctx();
    let n = s.iterators.len();
    let (i_, t_) = (DimType::In, DimType::Out);
    // T = floor((a*i + shift)/size): size*T <= a*i + shift <= size*T + size - 1.
    let rows: Vec<Row> = (0..n)
        .flat_map(|d| match sizes[d] >= WHOLE {
            // Not tiled: one tile spans the loop.
            true => vec![Row {
                eq: true,
                terms: vec![(t_, d, 1)],
                constant: 0,
            }],
            false => vec![
                Row {
                    eq: false,
                    terms: vec![(i_, d, scale[d]), (t_, d, -sizes[d])],
                    constant: shift[d],
                },
                Row {
                    eq: false,
                    terms: vec![(i_, d, -scale[d]), (t_, d, sizes[d])],
                    constant: sizes[d] - 1 - shift[d],
                },
            ],
        })
        .collect();
    let key = format!("tile {} {rows:?}", s.name);
    memo.map_built(&key, Some(&model.domain), false, || {
        constrained(&stage_space(&ctx, names, &s.name, n)?, &rows)
    })
}

/// The trapezoid of eq. 3 around a stage's exact per-tile region `exact`
/// (`{ Sk[i] -> [T] }`): per tiled dimension `d`,
/// `size_d*T_d - s_d - l_d <= i_d <= size_d*T_d - s_d + size_d - 1 + r_d`,
/// clipped to the stage's domain (eq. 1), with the smallest `l_d` and `r_d`
/// that contain the exact region (so each stage keeps its own,
/// dependence-derived expansion). A tile computes the stage wherever the box
/// meets the domain: the tile set is not clipped to the exact region's, whose
/// projection is a union of pieces with conditions on the parameters that
/// would turn into guards.
///
/// The exact region itself is a union of translates of the tile (one per
/// dependence distance, composed down the chain) with clipped corners; handing
/// it to the code generator makes isl's AST build explode on chains of a few
/// multi-dimensional stencils. The box computes at most the corners more.
pub(super) fn box_region(
    exact: &Map,
    model: &RegionModel,
    names: &Names,
    s: &Stage,
    tiling: StageTiling<'_>,
    memo: &AnalysisMemo,
) -> Result<Map> {
    let StageTiling {
        shift,
        scale,
        sizes,
        classic,
    } = tiling;
    let ctx = model.schedule.get_ctx();
    let n = s.iterators.len();
    let (i_, t_) = (DimType::In, DimType::Out);
    // Offsets of every computed iteration from its tile's origin:
    // d = a*i - size*T + shift, over the wrapped (i, T).
    let offset_rows: Vec<Row> = (0..n)
        .map(|d| match sizes[d] >= WHOLE {
            true => Row {
                eq: true,
                terms: vec![(t_, d, 1)],
                constant: 0,
            },
            false => Row {
                eq: true,
                terms: vec![(i_, d, scale[d]), (i_, n + d, -sizes[d]), (t_, d, -1)],
                constant: shift[d],
            },
        })
        .collect();
    let key = format!("offsets {} {offset_rows:?}", s.name);
    let to_offsets = memo.map_built(&key, None, false, || {
        let mut range = Space::set_alloc(&ctx, 0, n as u32).map_err(isl_err)?;
        for d in 0..n as u32 {
            range = range
                .set_dim_name(DimType::Set, d, &format!("d{d}"))
                .map_err(isl_err)?;
        }
        let space = stage_space(&ctx, &Names::default(), &s.name, n)?
            .wrap()
            .and_then(|w| w.map_from_domain_and_range(range))
            .map_err(isl_err)?;
        constrained(&space, &offset_rows)
    })?;
    let deltas = exact
        .copy()
        .and_then(|m| m.wrap())
        .and_then(|w| w.apply(to_offsets))
        .and_then(|d| d.project_out_all_params())
        .map_err(isl_err)?;
    let mut rows = Vec::new();
    for d in 0..n {
        if sizes[d] >= WHOLE {
            // Not tiled: one tile spans the loop.
            rows.push(Row {
                eq: true,
                terms: vec![(t_, d, 1)],
                constant: 0,
            });
            continue;
        }
        let Some((mut lo, mut hi)) = dim_range(&deltas, d)? else {
            // Unbounded or empty: keep the exact region.
            return exact.copy().map_err(isl_err);
        };
        if classic == Some(d) {
            // Not overlapped: the tile computes its own part; what it reads
            // before that was computed by the tiles before it.
            (lo, hi) = (0, sizes[d] - 1);
        }
        // size*T - shift + lo <= a*i <= size*T - shift + hi, in the order
        // isl's parser gave them (guards list their conjuncts so).
        let a = scale[d];
        rows.push(Row {
            eq: false,
            terms: vec![(i_, d, -a), (t_, d, sizes[d])],
            constant: hi - shift[d],
        });
        rows.push(Row {
            eq: false,
            terms: vec![(i_, d, a), (t_, d, -sizes[d])],
            constant: shift[d] - lo,
        });
    }
    let key = format!("box {} {rows:?}", s.name);
    memo.map_built(&key, Some(&model.domain), true, || {
        constrained(&stage_space(&ctx, names, &s.name, n)?, &rows)
    })
}

/// `[params] -> { name[i0..i(n-1)] -> [T0..T(n-1)] }`: the space of a
/// stage's relation to its tiles (or, wrapped, to offsets).
fn stage_space(ctx: &Context, names: &Names, name: &str, n: usize) -> Result<Space> {
    let mut space = Space::alloc(ctx, names.params.len() as u32, n as u32, n as u32)
        .and_then(|sp| sp.set_tuple_name(DimType::In, name))
        .map_err(isl_err)?;
    for (k, p) in names.params.keys().enumerate() {
        space = space
            .set_dim_name(DimType::Param, k as u32, p)
            .map_err(isl_err)?;
    }
    for d in 0..n as u32 {
        space = space
            .set_dim_name(DimType::In, d, &format!("i{d}"))
            .and_then(|sp| sp.set_dim_name(DimType::Out, d, &format!("T{d}")))
            .map_err(isl_err)?;
    }
    Ok(space)
}
