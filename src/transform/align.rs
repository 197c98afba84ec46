//! Alignment and scaling (Zhao & Cohen §3.7): overlapped tiling needs
//! constant dependence distances, which up- and down-sampling stages of image
//! pipelines (`B[x]` reads `A[2x+k]`, `U[2xh+a]` written from `xh`) do not
//! have. [`aligned_scales`] finds, per stage and loop, a scale factor that
//! makes every flow dependence of a group uniform (PolyMage scales the same
//! way, from the image size ratios); [`scale_deps`] rewrites dependences into
//! the scaled coordinates, where `overlap.rs` tiles, shifts and expands.

use crate::diag::{Error, Result};
use crate::model::isl_ext::isl_err;
use crate::model::program::{Region, Stage};
use isl_rs::{DimType, Map, UnionMap};

/// A flow dependence between two stages of a group (indices into its
/// stages) and how it aligns along each loop ([`edge_alignment`]).
#[derive(Clone, Debug)]
pub struct FlowEdge {
    /// The producer.
    pub from: usize,
    /// The consumer.
    pub to: usize,
    /// Per loop; `None` where no ratio bounds the distance.
    pub aligned: Vec<Option<Aligned>>,
}

/// Scale factors per stage (of `stages`, in order) and loop that make every
/// flow dependence of the group (`edges`) uniform: a
/// dependence from `Sa[y]` to `Sb[x]` needs `scale_b*x_d - scale_a*y_d`
/// bounded in every loop `d` (`Sb` reads `2*x` of `Sa`: `Sb` is scaled by
/// twice `Sa`'s factor). The ratio of each dependence is found among small
/// integer ratios, propagated over the group, and the factors made integral
/// (1 for the finest stage). Groups without such factors are split, with
/// the reason.
pub fn aligned_scales(
    stages: &[&Stage],
    edges: &[FlowEdge],
    depth: usize,
) -> Result<Vec<Vec<i64>>> {
    let n = stages.len();
    // Per loop: edges (a, b, p, q) meaning scale_b / scale_a = p / q.
    let mut ratios: Vec<Vec<(usize, usize, i64, i64)>> = vec![Vec::new(); depth];
    for FlowEdge {
        from: a,
        to: b,
        aligned,
    } in edges
    {
        for (d, aligned) in aligned.iter().enumerate() {
            let Some(al) = aligned else {
                return Err(Error::internal(format!(
                    "the dependences of {} on {} along loop {d} are neither uniform nor a fixed up- or down-sampling, so no scaling aligns them",
                    stages[*b].label, stages[*a].label
                )));
            };
            ratios[d].push((*a, *b, al.p, al.q));
        }
    }
    let mut scales = vec![vec![1i64; depth]; n];
    for (d, ratios) in ratios.iter().enumerate() {
        let ints = propagate_scales(n, ratios).map_err(|(a, b)| {
            Error::internal(format!(
                "{} and {} need conflicting scalings along loop {d}",
                stages[a].label, stages[b].label
            ))
        })?;
        for k in 0..n {
            scales[k][d] = ints[k];
        }
    }
    Ok(scales)
}

/// How a flow dependence from `Sa[y]` to `Sb[x]` aligns along one loop `d`:
/// `p*x_d - q*y_d` lies in `min..=max` (so `scale_b / scale_a = p / q`, and
/// in the scaled coordinates the distance `X_d - Y_d` is
/// `scale_b / p * (p*x_d - q*y_d)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aligned {
    /// The consumer's factor.
    pub p: i64,
    /// The producer's factor.
    pub q: i64,
    /// Least `p*x_d - q*y_d` over the dependence.
    pub min: i64,
    /// Greatest `p*x_d - q*y_d` over the dependence.
    pub max: i64,
}

/// Per loop of the flow dependence `m` (`Sa[y] -> Sb[x]`, both of `depth`
/// loops), its alignment among small integer ratios; `None` for a loop where
/// no ratio bounds the distance (neither uniform nor a fixed sampling).
pub fn edge_alignment(m: &Map, depth: usize) -> Result<Vec<Option<Aligned>>> {
    let pairs = m
        .copy()
        .and_then(|m| m.wrap())
        .and_then(|w| w.project_out_all_params())
        .map_err(isl_err)?;
    let (src, dst) = (
        m.get_tuple_name(DimType::In).map_err(isl_err)?.to_string(),
        m.get_tuple_name(DimType::Out).map_err(isl_err)?.to_string(),
    );
    let ctx = m.get_ctx();
    let ys: Vec<String> = (0..depth).map(|k| format!("y{k}")).collect();
    let xs: Vec<String> = (0..depth).map(|k| format!("x{k}")).collect();
    let mut out = Vec::new();
    for d in 0..depth {
        let found = [(1, 1), (2, 1), (1, 2), (3, 1), (1, 3), (4, 1), (1, 4)]
            .into_iter()
            .find_map(|(p, q)| {
                // p*x_d - q*y_d bounded over the dependence?
                let text = format!(
                    "{{ [{src}[{}] -> {dst}[{}]] -> [{p}*x{d} - {q}*y{d}] }}",
                    ys.join(", "),
                    xs.join(", ")
                );
                let bounds = || -> std::result::Result<Option<(i64, i64)>, isl_rs::LibISLError> {
                    let f = Map::read_from_str(&ctx, &text)?;
                    let v = pairs.copy()?.apply(f)?;
                    let (lo, hi) = (v.copy()?.dim_min_val(0)?, v.dim_max_val(0)?);
                    if !(lo.is_int()? && hi.is_int()?) {
                        return Ok(None);
                    }
                    Ok(Some((lo.get_num_si()?, hi.get_num_si()?)))
                };
                bounds()
                    .ok()
                    .flatten()
                    .map(|(min, max)| Aligned { p, q, min, max })
            });
        out.push(found);
    }
    Ok(out)
}

/// Integral scale factors of `n` stages along one loop from `edges`
/// `(a, b, p, q)` (`scale_b / scale_a = p / q`): rational factors propagated
/// from every stage not reached yet, then made integral (1 for the finest
/// stage). `Err((a, b))` names an edge whose ratio conflicts with the others.
pub fn propagate_scales(
    n: usize,
    edges: &[(usize, usize, i64, i64)],
) -> std::result::Result<Vec<i64>, (usize, usize)> {
    let mut factor: Vec<Option<(i64, i64)>> = vec![None; n];
    for root in 0..n {
        if factor[root].is_some() {
            continue;
        }
        factor[root] = Some((1, 1));
        let mut changed = true;
        while changed {
            changed = false;
            for &(a, b, p, q) in edges {
                let (fa, fb) = (factor[a], factor[b]);
                let want_b = fa.map(|(nu, de)| reduce(nu * p, de * q));
                let want_a = fb.map(|(nu, de)| reduce(nu * q, de * p));
                match (fa, fb) {
                    (Some(_), None) => {
                        factor[b] = want_b;
                        changed = true;
                    }
                    (None, Some(_)) => {
                        factor[a] = want_a;
                        changed = true;
                    }
                    (Some(_), Some(have)) if want_b != Some(have) => return Err((a, b)),
                    _ => {}
                }
            }
        }
    }
    let factor: Vec<(i64, i64)> = factor.into_iter().map(|f| f.unwrap_or((1, 1))).collect();
    let lcm = factor.iter().fold(1, |l, (_, de)| l / gcd(l, *de) * de);
    let ints: Vec<i64> = factor.iter().map(|(nu, de)| nu * (lcm / de)).collect();
    let g = ints.iter().fold(0, |g, v| gcd(g, *v)).max(1);
    Ok(ints.into_iter().map(|v| v / g).collect())
}

/// Greatest common divisor (non-negative).
pub(crate) fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// `nu/de` in lowest terms.
fn reduce(nu: i64, de: i64) -> (i64, i64) {
    let g = gcd(nu, de).max(1);
    (nu / g, de / g)
}

/// `deps` in the stages' scaled coordinates: `{ Sa[scale_a*y] -> Sb[scale_b*x] }`.
pub fn scale_deps(deps: &UnionMap, region: &Region, scales: &[Vec<i64>]) -> Result<UnionMap> {
    if scales.iter().flatten().all(|a| *a == 1) {
        return deps.copy().map_err(isl_err);
    }
    let parts: Vec<String> = region
        .stages
        .iter()
        .zip(scales)
        .map(|(s, sc)| {
            let its: Vec<String> = (0..sc.len()).map(|d| format!("i{d}")).collect();
            let scaled: Vec<String> = sc
                .iter()
                .enumerate()
                .map(|(d, a)| format!("{a}*i{d}"))
                .collect();
            format!(
                "{}[{}] -> {}[{}]",
                s.name,
                its.join(", "),
                s.name,
                scaled.join(", ")
            )
        })
        .collect();
    let scale = UnionMap::read_from_str(&deps.get_ctx(), &format!("{{ {} }}", parts.join("; ")))
        .map_err(isl_err)?;
    deps.copy()
        .and_then(|d| d.apply_domain(scale.copy()?))
        .and_then(|d| d.apply_range(scale))
        .map_err(isl_err)
}
