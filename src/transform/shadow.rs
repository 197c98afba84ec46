//! Shadow copies of arrays updated in place, for overlapped tiling (Zhao &
//! Cohen §3.7: the tiles of a group run in parallel and recompute their
//! neighbours' values, so every value a tile reads from before the group
//! must still be there when it reads it).
//!
//! A chain that overwrites data it reads from before (`B = f(A); A = g(B)`)
//! cannot be tiled with overlap as it is: one tile's stores of `A` would
//! overwrite values that a neighbouring tile still reads. [`rename_inplace`]
//! gives the one stage that writes such an array a *shadow*, a heap copy of
//! the array's rows: that stage writes the shadow, the stages after it read
//! the shadow, and a copy-back stage appended to the region copies what was
//! written back to the array. The renaming keeps the program's meaning when
//! the writer reads no value it wrote itself (no recurrence; a body that
//! writes several arrays reads none of the renamed one), writes
//! unconditionally, and every element a later stage reads of the array is
//! one it writes; otherwise the region is left as it is (and overlapped
//! tiling leaves the writer in its loops, with its own diagnostic). Time blocks
//! ([`crate::transform::time_blocks`]) use the same shadows for the last step
//! of a block.

use crate::diag::{Error, Result};
use crate::model::deps::Dependences;
use crate::model::expr::Expr;
use crate::model::isl_ext::isl_err;
use crate::model::polyhedral::{isl_name, Names, RegionModel};
use crate::model::program::{
    Access, AccessKind, BodyTemplate, Constraint, OrigNode, Piece, Region, Stage,
};
use crate::transform::overlap::stage_universe;
use crate::transform::overlap_groups::shared_nest;
use isl_rs::{DimType, UnionMap, UnionSet};
use log::info;
use std::collections::BTreeMap;

/// A heap copy of an array's rows: its one writer writes the copy, which a
/// copy-back stage copies to the array afterwards.
#[derive(Clone, Debug)]
pub struct Shadow {
    /// C name of the copy.
    pub name: String,
    /// The array it copies.
    pub array: String,
    /// The array's number of dimensions.
    pub rank: usize,
    /// The writer of the array (index into the stages it was made for).
    pub writer: usize,
}

/// `array[e0][e1]...` as body pieces, the iterators as holes.
pub(crate) fn access_pieces(array: &str, index: &[Expr], iterators: &[String]) -> Vec<Piece> {
    // Iterators print as markers, which are then cut out into holes.
    let marked: Vec<(String, Expr)> = iterators
        .iter()
        .enumerate()
        .map(|(k, it)| (it.clone(), Expr::Var(format!("\u{1}{k}\u{2}"))))
        .collect();
    let mut text = array.to_string();
    for e in index {
        let e = marked
            .iter()
            .fold(e.clone(), |e, (it, m)| e.substitute(it, m));
        text.push_str(&format!("[{e}]"));
    }
    let mut pieces = Vec::new();
    for (n, part) in text.split('\u{1}').enumerate() {
        if n == 0 {
            pieces.push(Piece::Text(part.to_string()));
            continue;
        }
        let (k, rest) = part.split_once('\u{2}').unwrap_or((part, ""));
        pieces.push(Piece::Iter(k.parse().unwrap_or(0)));
        pieces.push(Piece::Text(rest.to_string()));
    }
    pieces
}

/// The largest first subscript of `array` written in `model` (its only
/// writer is one statement), as an expression over the parameters' C names:
/// a bound of the writes' simple hull with a unit coefficient; `None` when
/// there is none.
pub fn shadow_rows(model: &RegionModel, names: &Names, array: &str) -> Result<Option<Expr>> {
    let written = model
        .must_writes
        .copy()
        .and_then(|w| w.range())
        .and_then(|r| r.get_set_list())
        .map_err(isl_err)?;
    for k in 0..written.size().map_err(isl_err)? {
        let set = written.get_at(k).map_err(isl_err)?;
        if set.get_tuple_name().map_err(isl_err)? != isl_name(array) {
            continue;
        }
        let hull = set.simple_hull().map_err(isl_err)?;
        // A linearised subscript (`i*W + j`) leaves existentially quantified
        // variables, whose constraints isl does not list: no bound here.
        if hull.dim(DimType::Div).map_err(isl_err)? > 0 {
            continue;
        }
        let cons = hull.get_constraint_list().map_err(isl_err)?;
        let int = |v: isl_rs::Val| v.get_num_si().map_err(isl_err);
        'constraint: for c in 0..cons.size().map_err(isl_err)? {
            let c = cons.get_at(c).map_err(isl_err)?;
            // `-x0 + rest >= 0` with no other index: `x0 <= rest`.
            if c.is_equality().map_err(isl_err)?
                || int(c.get_coefficient_val(DimType::Set, 0).map_err(isl_err)?)? != -1
            {
                continue;
            }
            for d in 1..hull.dim(DimType::Set).map_err(isl_err)? {
                if int(c.get_coefficient_val(DimType::Set, d).map_err(isl_err)?)? != 0 {
                    continue 'constraint;
                }
            }
            let mut e = Expr::Int(int(c.get_constant_val().map_err(isl_err)?)?);
            for p in 0..hull.dim(DimType::Param).map_err(isl_err)? {
                let k = int(c.get_coefficient_val(DimType::Param, p).map_err(isl_err)?)?;
                if k != 0 {
                    let isl = hull
                        .get_dim_name(DimType::Param, p as u32)
                        .map_err(isl_err)?;
                    let c_name = names.c_param(isl).unwrap_or(isl).to_string();
                    e = Expr::sum(e, Expr::product(Expr::Int(k), Expr::Var(c_name)));
                }
            }
            return Ok(Some(e));
        }
    }
    Ok(None)
}

/// A region whose in-place updates write shadows, and the shadows.
#[derive(Clone, Debug)]
pub struct Renamed {
    /// The region: writers and later readers renamed, copy-back stages appended.
    pub region: Region,
    /// The shadows, to allocate around the region's code.
    pub shadows: Vec<Shadow>,
}

/// Gives every array that `region` updates in place a shadow where that keeps
/// the program's meaning (see the module header); `None` when no array gets
/// one. `model` and `deps` are the region's; `prefix` starts generated names.
pub fn rename_inplace(
    region: &Region,
    model: &RegionModel,
    deps: &Dependences,
    prefix: &str,
) -> Result<Option<Renamed>> {
    // Stages sharing a loop nest interleave: "before" and "after" in the
    // region's order would not be the order they run in.
    if shared_nest(&region.tree).is_some() {
        return Ok(None);
    }
    let mut writers: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (k, s) in region.stages.iter().enumerate() {
        for a in s.accesses.iter().filter(|a| a.kind == AccessKind::Write) {
            let w = writers.entry(a.data.as_str()).or_default();
            if !w.contains(&k) {
                w.push(k);
            }
        }
    }
    let reads = |k: usize, data: &str| {
        region.stages[k]
            .accesses
            .iter()
            .any(|a| a.kind == AccessKind::Read && a.data == data)
    };
    let mut out = region.clone();
    let mut shadows = Vec::new();
    for (data, ws) in writers {
        let [w] = ws[..] else { continue };
        if !(0..=w).any(|k| reads(k, data)) {
            continue;
        }
        let later: Vec<usize> = (w + 1..region.stages.len())
            .filter(|k| reads(*k, data))
            .collect();
        let why_not = why_no_shadow(region, model, deps, data, w, &later)?;
        if let Some(why) = why_not {
            info!("shadow: '{data}' is updated in place and keeps no shadow: {why}");
            continue;
        }
        let name = format!("{prefix}next_{data}");
        info!(
            "shadow: {} writes '{data}' into a copy, {name}, copied back after the region",
            region.stages[w].label
        );
        let mut renamed = rename_stage(&mut out.stages[w], data, &name, AccessKind::Write);
        for k in &later {
            renamed &= rename_stage(&mut out.stages[*k], data, &name, AccessKind::Read);
        }
        if !renamed {
            return Err(Error::inapplicable_at(
                region.stages[w].span,
                format!(
                    "overlapped tiling: an access to '{data}' is not written as '{data}[...]' (parentheses or a macro around the name), so it cannot be redirected to a copy of '{data}'"
                ),
            ));
        }
        if let Some(ty) = region.data_types.get(data).cloned() {
            out.data_types.insert(name.clone(), ty);
        }
        let rank = region.stages[w]
            .accesses
            .iter()
            .find(|a| a.data == data)
            .map_or(0, |a| a.index.len());
        shadows.push(Shadow {
            name,
            array: data.to_string(),
            rank,
            writer: w,
        });
    }
    if shadows.is_empty() {
        return Ok(None);
    }
    for sh in &shadows {
        let w = &out.stages[sh.writer];
        let Some(write) = w
            .analysed()
            .and_then(|a| {
                a.iter()
                    .find(|a| a.kind == AccessKind::Write && a.data == sh.name)
            })
            .cloned()
        else {
            continue;
        };
        let write = Access {
            data: sh.array.clone(),
            ..write
        };
        let (stage, node) =
            copy_back_stage(w, &write, &sh.name, 0, w.domain.clone(), out.stages.len());
        out.tree.push(node);
        out.stages.push(stage);
    }
    Ok(Some(Renamed {
        region: out,
        shadows,
    }))
}

/// Why the single writer `w` of `data` in `region` cannot write a shadow
/// that the stages `later` (those after it that read `data`) read instead;
/// `None` when it can.
fn why_no_shadow(
    region: &Region,
    model: &RegionModel,
    deps: &Dependences,
    data: &str,
    w: usize,
    later: &[usize],
) -> Result<Option<String>> {
    let ctx = model.schedule.get_ctx();
    let stage = &region.stages[w];
    let Some(analysed) = stage.analysed() else {
        return Ok(Some(format!(
            "the body of {} is not analysable",
            stage.label
        )));
    };
    if let Some(k) = later
        .iter()
        .find(|k| region.stages[**k].analysed().is_none())
    {
        return Ok(Some(format!(
            "the body of {} is not analysable",
            region.stages[*k].label
        )));
    }
    // The model puts a stage's reads before its writes; in a body of
    // several assignments a read of the array may follow its write
    // (`A[i] = ...; B[i] = A[i];`) and must then see the new value.
    let writes = analysed
        .iter()
        .filter(|a| a.kind == AccessKind::Write)
        .count();
    if writes > 1
        && analysed
            .iter()
            .any(|a| a.kind == AccessKind::Read && a.data == data)
    {
        return Ok(Some(format!(
            "{} writes several arrays and reads '{data}', perhaps after writing it",
            stage.label
        )));
    }
    // `A[i] += ...` reads through the text it writes: renamed, it
    // would read the copy, which holds no value yet.
    let updates = stage.body.pieces.iter().any(|p| {
        matches!(p, Piece::Access { access, reads_too: true, .. }
            if analysed.get(*access).is_some_and(|a| a.data == data))
    });
    if updates {
        return Ok(Some(format!(
            "{} updates it with a compound assignment or '++'/'--', which reads the value it replaces",
            stage.label
        )));
    }
    let write = analysed
        .iter()
        .find(|a| a.kind == AccessKind::Write && a.data == data);
    if write.is_none_or(|a| a.conditional || !a.index.iter().all(Expr::is_plain_c)) {
        return Ok(Some(format!(
            "{} writes it under a condition or through a division",
            stage.label
        )));
    }
    let universe = stage_universe(&ctx, region, w)?;
    let own = deps
        .flow
        .copy()
        .and_then(|f| f.intersect_domain(universe.copy()?))
        .and_then(|f| f.intersect_range(universe.copy()?))
        .and_then(|f| f.is_empty())
        .map_err(isl_err)?;
    if !own {
        return Ok(Some(format!(
            "{} reads values it wrote itself",
            stage.label
        )));
    }
    let elements = |m: &UnionMap, k: usize| -> Result<UnionSet> {
        let universe = stage_universe(&ctx, region, k)?;
        m.copy()
            .and_then(|m| m.intersect_domain(universe))
            .and_then(|m| m.range())
            .and_then(|r| {
                r.intersect(UnionSet::read_from_str(
                    &ctx,
                    &format!(
                        "{{ {}[{}] }}",
                        isl_name(data),
                        dims(write.map_or(0, |a| a.index.len()))
                    ),
                )?)
            })
            .map_err(isl_err)
    };
    let written = elements(&model.must_writes, w)?;
    for k in later {
        let read = elements(&model.reads, *k)?;
        if !read.is_subset(&written).map_err(isl_err)? {
            return Ok(Some(format!(
                "{} reads elements of it that {} does not write",
                region.stages[*k].label, stage.label
            )));
        }
    }
    Ok(None)
}

/// `i0, i1, ...` for `n` dimensions.
fn dims(n: usize) -> String {
    (0..n)
        .map(|d| format!("i{d}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Renames `data` to `to` in the accesses of `kind` of `stage`: declared,
/// observed and in its body. False when an access's text could not be
/// renamed ([`rename_access_text`]).
#[must_use]
fn rename_stage(stage: &mut Stage, data: &str, to: &str, kind: AccessKind) -> bool {
    let renamed = |accesses: &mut Vec<Access>| -> Vec<usize> {
        let mut ks = Vec::new();
        for (k, a) in accesses.iter_mut().enumerate() {
            if a.kind == kind && a.data == data {
                a.data = to.to_string();
                ks.push(k);
            }
        }
        ks
    };
    let declared = renamed(&mut stage.accesses);
    let holes = match &mut stage.observed {
        Some(obs) => renamed(obs),
        None => declared,
    };
    let mut all = true;
    for p in &mut stage.body.pieces {
        if let Piece::Access { access, text, .. } = p {
            if holes.contains(access) {
                all &= rename_access_text(text, data, to);
            }
        }
    }
    all
}

/// Renames the array `old` at the start of an access's text (`old[...]`) to
/// `new`. False when the text does not start that way (`(A)[i]`, an
/// object-like macro naming the array): the access is then left as it is,
/// and the caller must not use the body.
#[must_use]
pub(crate) fn rename_access_text(text: &mut [Piece], old: &str, new: &str) -> bool {
    if old == new {
        return true;
    }
    if let Some(Piece::Text(t)) = text.first_mut() {
        if let Some(after) = t.trim_start().strip_prefix(old) {
            if after.trim_start().starts_with('[') {
                *t = format!("{new}{after}");
                return true;
            }
        }
    }
    false
}

/// The stage that copies a shadow back to its array after `w`, its writer:
/// `array[index] = shadow[index]` over `domain`, in `w`'s loops from the
/// `skip`-th on (time blocks drop the time loop), as stage number `k` of its
/// region; with its loop nest for the region's tree. `write` is `w`'s write
/// of the array.
pub(crate) fn copy_back_stage(
    w: &Stage,
    write: &Access,
    shadow: &str,
    skip: usize,
    domain: Vec<Constraint>,
    k: usize,
) -> (Stage, OrigNode) {
    let iterators = w.iterators[skip..].to_vec();
    let access = |kind, data: &str| Access {
        kind,
        data: data.to_string(),
        index: write.index.clone(),
        span: write.span,
        conditional: false,
    };
    let pieces = vec![
        Piece::Access {
            access: 0,
            reads_too: false,
            text: access_pieces(&write.data, &write.index, &iterators),
            gather: None,
        },
        Piece::Text(" = ".to_string()),
        Piece::Access {
            access: 1,
            reads_too: false,
            text: access_pieces(shadow, &write.index, &iterators),
            gather: None,
        },
        Piece::Text(";".to_string()),
    ];
    let node = OrigNode::nest(k, &iterators);
    let stage = Stage {
        name: format!("{}_back", w.name),
        label: format!("the copy of '{}' back from its shadow", write.data),
        span: w.span,
        iterators,
        iterator_types: Vec::new(),
        domain,
        accesses: vec![
            access(AccessKind::Write, &write.data),
            access(AccessKind::Read, shadow),
        ],
        body: BodyTemplate { pieces },
        analysable: true,
        observed: None,
        gathered: None,
        time_step: None,
        loop_bounds: None,
        loop_spans: Vec::new(),
        reduction: None,
    };
    (stage, node)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_text_is_renamed_only_where_it_names_the_array() {
        let mut text = vec![
            Piece::Text("A[".into()),
            Piece::Iter(0),
            Piece::Text("]".into()),
        ];
        assert!(rename_access_text(&mut text, "A", "A_1"));
        assert!(matches!(&text[0], Piece::Text(t) if t == "A_1["));
        for spelled in ["(A)[", "ARR_A[", "AT(A, "] {
            let mut text = vec![Piece::Text(spelled.into()), Piece::Iter(0)];
            assert!(!rename_access_text(&mut text, "A", "A_1"), "{spelled}");
            assert!(matches!(&text[0], Piece::Text(t) if t == spelled));
        }
        let mut text = vec![Piece::Text("(A)[".into())];
        assert!(rename_access_text(&mut text, "A", "A"));
    }
}
