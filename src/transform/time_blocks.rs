//! Overlapped tiling of time-iterated stencils (Zhao & Cohen §3.7 and §4.3:
//! heat-1d/2d/3d with the time dimension in the tile band).
//!
//! A scop whose statements all sit in one outer *time loop* is tiled along
//! time in blocks of `h` steps: the steps of a block become a loop chain of
//! `h` copies of the loop body (one stage per statement and step), which
//! [`crate::transform::overlap`] tiles with overlap in space like any chain.
//! A tile then computes, step after step, the trapezoid of every statement
//! that its part of the block's last step needs; the tiles of a block run in
//! parallel, the blocks in order. Blocks are full; the last `< h` steps run
//! with the original schedule (the *remainder*).
//!
//! Storage: the value a statement writes at step `k` of the block is a
//! *version* of its array (`DataVersion`), so the chain is in single
//! assignment form and every version lives in a tile-local scratchpad; only
//! the last step's versions are stored. A statement reads the version of the
//! step before (or of the same step when its writer comes first in the
//! body); elements no statement writes (borders) are read from the array.
//! When the block reads an array from before it and also writes it, its
//! tiles store the last step into a *shadow* copy, which is copied back to
//! the array after the block (overlapping tiles would otherwise overwrite
//! values their neighbours still load).
//!
//! Restrictions, each refused with a diagnostic: one statement per loop nest
//! of the body (in a shared nest, which step's values a statement reads
//! depends on the nest's iteration order), statements analysable, each array
//! written by one statement of the body, which does not read it; the time
//! iterator in no subscript and only in the time loop's bounds.

use crate::diag::{Error, Result, Span};
use crate::model::expr::Expr;
use crate::model::isl_ext::isl_err;
use crate::model::polyhedral::{isl_name, Names, RegionModel};
use crate::model::program::{
    Access, AccessKind, BodyTemplate, CmpOp, Constraint, DataVersion, OrigNode, Piece, Region,
    RegionKind, Stage,
};
use isl_rs::DimType;
use std::collections::{BTreeMap, BTreeSet};

/// Most time steps per block: each step adds a copy of the body to the chain.
pub const MAX_STEPS: i64 = 64;

/// A time-iterated scop split into full time blocks and a remainder.
#[derive(Clone, Debug)]
pub struct TimeBlocked {
    /// One time block as a loop chain: `steps` copies of the body's
    /// statements, then one copy-back stage per shadow. Parametric in the
    /// block's first step (`start`).
    pub blocks: Region,
    /// The original statements from time step `rest` on.
    pub remainder: Region,
    /// The parameters, with `start` and `rest` added.
    pub names: Names,
    /// Time steps per block.
    pub steps: i64,
    /// C name of the first step of the current block.
    pub start: String,
    /// C name of the first step of the remainder.
    pub rest: String,
    /// The time loop's first step (C expression over the parameters).
    pub first: Expr,
    /// Constraints of the time loop, at a block's first step and at its last
    /// (the block runs when they hold).
    pub full: Vec<Constraint>,
    /// Shadow copies of arrays, declared around the block loop.
    pub shadows: Vec<Shadow>,
}

/// A heap copy of an array's rows, written by a block's last step and copied
/// back to the array after the block.
#[derive(Clone, Debug)]
pub struct Shadow {
    /// C name of the copy.
    pub name: String,
    /// The array it copies.
    pub array: String,
    /// The array's number of dimensions.
    pub rank: usize,
    /// The writer of the array (index into the body's statements).
    pub writer: usize,
}

/// Splits `region` (a scop) into time blocks of `steps` steps, or says why
/// it cannot. `prefix` is the prefix of generated names.
pub fn time_blocks(
    region: &Region,
    names: &Names,
    steps: i64,
    prefix: &str,
) -> Result<TimeBlocked> {
    let span = region.pragma_span;
    if !matches!(region.kind, RegionKind::Scop) {
        return Err(Error::internal("time blocks of a loop chain"));
    }
    if !(1..=MAX_STEPS).contains(&steps) {
        return Err(Error::at(
            span,
            format!("overlapped tiling of a time loop: {steps} time steps per block; give the time loop a tile size from 1 to {MAX_STEPS} (--tile-sizes, outermost first)"),
        ));
    }
    let [OrigNode::Loop { iter: time, body }] = region.tree.as_slice() else {
        return Err(Error::internal(
            "time blocks of a scop without one outer loop",
        ));
    };
    let stages = &region.stages;
    if let Some(k) = crate::transform::overlap::shared_nest(body) {
        return Err(Error::at(
            stages[k].span,
            format!(
                "overlapped tiling of the time loop '{time}': {} shares its loop nest with another statement; each nest in the time loop must hold one statement (which step's values a statement reads depends on the order of its nest's iterations)",
                stages[k].label
            ),
        ));
    }
    if stages.is_empty() {
        return Err(Error::at(
            span,
            "overlapped tiling: the time loop has no statement",
        ));
    }
    let refuse = |at: Span, why: String| {
        Err(Error::at(
            at,
            format!("overlapped tiling of the time loop '{time}': {why}"),
        ))
    };
    // The time loop's bounds: the constraints that mention the time iterator,
    // the same for every statement.
    let timed = |s: &Stage| -> Vec<Constraint> {
        s.domain
            .iter()
            .filter(|c| mentions(&c.lhs, time) || mentions(&c.rhs, time))
            .cloned()
            .collect()
    };
    let bounds = timed(&stages[0]);
    let mut first: Option<Expr> = None;
    for s in stages {
        if s.iterators.first() != Some(time) {
            return refuse(s.span, format!("{} is not inside it", s.label));
        }
        if timed(s) != bounds {
            return refuse(
                s.span,
                format!("{} runs under a condition on '{time}'", s.label),
            );
        }
        if !s.analysable || s.analysed().is_none() {
            return refuse(
                s.span,
                format!(
                    "the body of {} is not analysable (macros, calls or pointer arithmetic)",
                    s.label
                ),
            );
        }
        for c in &bounds {
            let mut vars = BTreeSet::new();
            c.lhs.collect_vars(&mut vars);
            c.rhs.collect_vars(&mut vars);
            if vars.iter().any(|v| v != time && s.iterators.contains(v))
                || not_plain_c(&c.lhs)
                || not_plain_c(&c.rhs)
            {
                return refuse(
                    s.span,
                    format!(
                        "its bound '{} {} {}' is not an affine expression of the parameters without min, max or division",
                        c.lhs,
                        c.op.as_str(),
                        c.rhs
                    ),
                );
            }
        }
        for a in &s.accesses {
            if a.index.iter().any(|e| mentions(e, time)) {
                return refuse(
                    a.span,
                    format!("{} subscripts an array with '{time}'", s.label),
                );
            }
        }
    }
    for c in &bounds {
        let lower = match (&c.lhs, c.op, &c.rhs) {
            (Expr::Var(v), CmpOp::Ge, e) | (e, CmpOp::Le, Expr::Var(v)) if v == time => {
                Some(e.clone())
            }
            (Expr::Var(v), CmpOp::Gt, e) | (e, CmpOp::Lt, Expr::Var(v)) if v == time => {
                Some(Expr::sum(e.clone(), Expr::Int(1)))
            }
            _ => None,
        };
        if let Some(l) = lower {
            if first.is_some() {
                return refuse(span, "it has several lower bounds".to_string());
            }
            first = Some(l);
        }
    }
    let Some(first) = first else {
        return refuse(span, "it has no lower bound".to_string());
    };
    // One writer per array, which does not read it.
    let mut writer: BTreeMap<String, usize> = BTreeMap::new();
    for (k, s) in stages.iter().enumerate() {
        for a in s.accesses.iter().filter(|a| a.kind == AccessKind::Write) {
            if a.index.iter().any(Expr::has_any) || a.conditional {
                return refuse(
                    a.span,
                    format!(
                        "{} writes '{}' at a data-dependent or conditional place",
                        s.label, a.data
                    ),
                );
            }
            if let Some(w) = writer.insert(a.data.clone(), k) {
                if w != k {
                    return refuse(
                        a.span,
                        format!("'{}' is written by two statements of the body", a.data),
                    );
                }
            }
        }
    }
    for (k, s) in stages.iter().enumerate() {
        if let Some(a) = s
            .accesses
            .iter()
            .find(|a| a.kind == AccessKind::Read && writer.get(&a.data) == Some(&k))
        {
            return refuse(
                a.span,
                format!(
                    "{} reads '{}', which it writes (an in-place update in time)",
                    s.label, a.data
                ),
            );
        }
    }

    let start = format!("{prefix}t_start");
    let rest = format!("{prefix}t_rest");
    let mut names = names.clone();
    names.params.insert(isl_name(&start), start.clone());
    names.params.insert(isl_name(&rest), rest.clone());
    let at = |k: i64| Expr::sum(Expr::Var(start.clone()), Expr::Int(k));
    let full: Vec<Constraint> = bounds
        .iter()
        .flat_map(|c| {
            [
                substitute(c, time, &at(0)),
                substitute(c, time, &at(steps - 1)),
            ]
        })
        .collect();

    // Versions: (array, step) -> data set name. An array read at step -1
    // (from before the block) and written gets a shadow for its last step.
    let read_before: BTreeSet<String> = stages
        .iter()
        .enumerate()
        .flat_map(|(k, s)| {
            let writer = &writer;
            s.accesses
                .iter()
                .filter(move |a| {
                    a.kind == AccessKind::Read && writer.get(&a.data).is_some_and(|w| *w > k)
                })
                .map(|a| a.data.clone())
        })
        .collect();
    let mut shadows = Vec::new();
    let mut versions = BTreeMap::new();
    let mut data_types = region.data_types.clone();
    let version = |data: &str, step: i64| -> String {
        if step == steps - 1 {
            if read_before.contains(data) {
                format!("{prefix}next_{data}")
            } else {
                data.to_string()
            }
        } else {
            format!("{prefix}{data}_{step}")
        }
    };
    for (data, w) in &writer {
        let Some(ty) = region.data_types.get(data).cloned() else {
            return refuse(span, format!("the element type of '{data}' is unknown"));
        };
        for step in 0..steps {
            let v = version(data, step);
            if v == *data {
                continue;
            }
            data_types.insert(v.clone(), ty.clone());
            versions.insert(
                v,
                DataVersion {
                    array: data.clone(),
                    stored: step == steps - 1,
                },
            );
        }
        if read_before.contains(data) {
            let rank = stages[*w]
                .accesses
                .iter()
                .find(|a| &a.data == data)
                .map_or(0, |a| a.index.len());
            shadows.push(Shadow {
                name: version(data, steps - 1),
                array: data.clone(),
                rank,
                writer: *w,
            });
        }
    }

    // The block: `steps` copies of the body, then the copy-back stages.
    let m = stages.len();
    let mut copies = Vec::new();
    for step in 0..steps {
        for (k, s) in stages.iter().enumerate() {
            let rename = |a: &Access| -> String {
                match (a.kind, writer.get(&a.data)) {
                    (AccessKind::Write, _) => version(&a.data, step),
                    (AccessKind::Read, Some(w)) if *w < k => version(&a.data, step),
                    (AccessKind::Read, Some(_)) if step > 0 => version(&a.data, step - 1),
                    _ => a.data.clone(),
                }
            };
            let accesses: Vec<Access> = s
                .accesses
                .iter()
                .map(|a| Access {
                    data: rename(a),
                    ..a.clone()
                })
                .collect();
            let when = format!("({})", at(step));
            let body = BodyTemplate {
                pieces: s
                    .body
                    .pieces
                    .iter()
                    .map(|p| {
                        shift_piece(p, &when, &|k| {
                            s.accesses.get(k).map(|a| (a.data.clone(), rename(a)))
                        })
                    })
                    .collect(),
            };
            let mut domain: Vec<Constraint> = s
                .domain
                .iter()
                .filter(|c| !bounds.contains(c))
                .cloned()
                .collect();
            domain.extend(full.iter().cloned());
            copies.push(Stage {
                name: format!("{}_b{step}", s.name),
                label: format!("{} at step {step} of a time block", s.label),
                span: s.span,
                iterators: s.iterators[1..].to_vec(),
                domain,
                accesses,
                body,
                analysable: true,
                observed: None,
            });
        }
    }
    let mut tree: Vec<OrigNode> = Vec::new();
    for step in 0..steps as usize {
        tree.extend(body.iter().map(|n| renumber(n, step * m)));
    }
    for sh in &shadows {
        let w = &stages[sh.writer];
        let Some(write) = w
            .accesses
            .iter()
            .find(|a| a.kind == AccessKind::Write && a.data == sh.array)
        else {
            return Err(Error::internal("shadow without a write"));
        };
        if write.index.iter().any(not_plain_c) {
            return refuse(
                write.span,
                format!("{} writes '{}' through a division", w.label, sh.array),
            );
        }
        let iterators = w.iterators[1..].to_vec();
        let mut domain: Vec<Constraint> = w
            .domain
            .iter()
            .filter(|c| !bounds.contains(c))
            .cloned()
            .collect();
        domain.extend(full.iter().cloned());
        let access = |kind, data: &str| Access {
            kind,
            data: data.to_string(),
            index: write.index.clone(),
            span: write.span,
            conditional: false,
        };
        let mut pieces = vec![Piece::Access {
            access: 0,
            text: access_pieces(&sh.array, &write.index, &iterators),
        }];
        pieces.push(Piece::Text(" = ".to_string()));
        pieces.push(Piece::Access {
            access: 1,
            text: access_pieces(&sh.name, &write.index, &iterators),
        });
        pieces.push(Piece::Text(";".to_string()));
        let k = copies.len();
        let mut node = OrigNode::Stage(k);
        for it in iterators.iter().rev() {
            node = OrigNode::Loop {
                iter: it.clone(),
                body: vec![node],
            };
        }
        tree.push(node);
        copies.push(Stage {
            name: format!("{}_back", w.name),
            label: format!("the copy of '{}' back from its shadow", sh.array),
            span: w.span,
            iterators,
            domain,
            accesses: vec![
                access(AccessKind::Write, &sh.array),
                access(AccessKind::Read, &sh.name),
            ],
            body: BodyTemplate { pieces },
            analysable: true,
            observed: None,
        });
    }
    let blocks = Region {
        kind: RegionKind::Chain(Default::default()),
        stages: copies,
        tree,
        data_types,
        versions,
        ..region.clone()
    };
    // The remainder: the original statements from step `rest` on.
    let mut remainder = region.clone();
    for s in &mut remainder.stages {
        s.domain.push(Constraint {
            lhs: Expr::Var(time.clone()),
            op: CmpOp::Ge,
            rhs: Expr::Var(rest.clone()),
        });
    }
    Ok(TimeBlocked {
        blocks,
        remainder,
        names,
        steps,
        start,
        rest,
        first,
        full,
        shadows,
    })
}

/// Whether `e` uses variable `v`.
fn mentions(e: &Expr, v: &str) -> bool {
    let mut vars = BTreeSet::new();
    e.collect_vars(&mut vars);
    vars.contains(v)
}

/// Whether `e` is not plain C arithmetic as [`Expr`]'s display prints it:
/// divisions (C's `/` and `%` round differently from isl's), `min`, `max`.
fn not_plain_c(e: &Expr) -> bool {
    match e {
        Expr::Div(..) | Expr::Mod(..) | Expr::Min(_) | Expr::Max(_) => true,
        Expr::Int(_) | Expr::Var(_) | Expr::Any => false,
        Expr::Neg(a) => not_plain_c(a),
        Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) => not_plain_c(a) || not_plain_c(b),
    }
}

/// `e` with variable `v` replaced by `by`.
fn subst_expr(e: &Expr, v: &str, by: &Expr) -> Expr {
    let go = |a: &Expr| Box::new(subst_expr(a, v, by));
    match e {
        Expr::Var(x) if x == v => by.clone(),
        Expr::Int(_) | Expr::Var(_) | Expr::Any => e.clone(),
        Expr::Neg(a) => Expr::Neg(go(a)),
        Expr::Add(a, b) => Expr::Add(go(a), go(b)),
        Expr::Sub(a, b) => Expr::Sub(go(a), go(b)),
        Expr::Mul(a, b) => Expr::Mul(go(a), go(b)),
        Expr::Div(a, b) => Expr::Div(go(a), go(b)),
        Expr::Mod(a, b) => Expr::Mod(go(a), go(b)),
        Expr::Min(xs) => Expr::Min(xs.iter().map(|x| subst_expr(x, v, by)).collect()),
        Expr::Max(xs) => Expr::Max(xs.iter().map(|x| subst_expr(x, v, by)).collect()),
    }
}

/// `c` with variable `v` replaced by `by`.
fn substitute(c: &Constraint, v: &str, by: &Expr) -> Constraint {
    Constraint {
        lhs: subst_expr(&c.lhs, v, by),
        op: c.op,
        rhs: subst_expr(&c.rhs, v, by),
    }
}

/// A body piece of a time-loop statement in a block stage: the time
/// iterator (0) becomes `when`, the others move down by one; an access's
/// array name becomes its version (`rename(access)`: original and new name).
fn shift_piece(p: &Piece, when: &str, rename: &dyn Fn(usize) -> Option<(String, String)>) -> Piece {
    match p {
        Piece::Text(t) => Piece::Text(t.clone()),
        Piece::Iter(0) => Piece::Text(when.to_string()),
        Piece::Iter(k) => Piece::Iter(k - 1),
        Piece::Access { access, text } => {
            let mut text: Vec<Piece> = text.iter().map(|p| shift_piece(p, when, rename)).collect();
            if let (Some((old, new)), Some(Piece::Text(t))) = (rename(*access), text.first_mut()) {
                if let Some(after) = t.trim_start().strip_prefix(old.as_str()) {
                    if after.trim_start().starts_with('[') {
                        *t = format!("{new}{after}");
                    }
                }
            }
            Piece::Access {
                access: *access,
                text,
            }
        }
    }
}

/// `node` with its stage numbers moved up by `by`.
fn renumber(node: &OrigNode, by: usize) -> OrigNode {
    match node {
        OrigNode::Stage(k) => OrigNode::Stage(k + by),
        OrigNode::Loop { iter, body } => OrigNode::Loop {
            iter: iter.clone(),
            body: body.iter().map(|n| renumber(n, by)).collect(),
        },
    }
}

/// `array[e0][e1]...` as body pieces, the iterators as holes.
fn access_pieces(array: &str, index: &[Expr], iterators: &[String]) -> Vec<Piece> {
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
            .fold(e.clone(), |e, (it, m)| subst_expr(&e, it, m));
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
            if hull.dim(DimType::Div).map_err(isl_err)? > 0 {
                continue;
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
