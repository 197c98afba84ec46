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
//! Restrictions, each an [`Error::Inapplicable`] with the reason (the
//! driver then compiles the region without overlapped tiling and warns):
//! one statement per loop nest
//! of the body (in a shared nest, which step's values a statement reads
//! depends on the nest's iteration order), statements analysable, each array
//! written by one statement of the body, which does not read it; the time
//! iterator in no subscript and only in the time loop's bounds;
//! [`running_time_blocks`] also refuses blocks that never run (a time loop
//! of fewer steps) or hold a statement that never runs.

use crate::diag::{Error, Result, Span};
use crate::model::expr::Expr;
use crate::model::isl_ext::{isl_err, new_context};
use crate::model::polyhedral::{assume_context, empty_stages, isl_name, Names};
use crate::model::program::{
    Access, AccessKind, BodyTemplate, CmpOp, Constraint, DataVersion, OrigNode, Piece, Region,
    RegionKind, Stage,
};
use crate::transform::shadow::{copy_back_stage, rename_access_text, Shadow};
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
    let [OrigNode::Loop {
        iter: time, body, ..
    }] = region.tree.as_slice()
    else {
        return Err(Error::internal(
            "time blocks of a scop without one outer loop",
        ));
    };
    let stages = &region.stages;
    if let Some(k) = crate::transform::overlap_groups::shared_nest(body) {
        return Err(Error::inapplicable_at(
            stages[k].span,
            format!(
                "overlapped tiling of the time loop '{time}': {} shares its loop nest with another statement; each nest in the time loop must hold one statement (which step's values a statement reads depends on the order of its nest's iterations)",
                stages[k].label
            ),
        ));
    }
    if stages.is_empty() {
        return Err(Error::inapplicable_at(
            span,
            "overlapped tiling: the time loop has no statement",
        ));
    }
    let refuse = |at: Span, why: String| {
        Err(Error::inapplicable_at(
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
                || !c.lhs.is_plain_c()
                || !c.rhs.is_plain_c()
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
            let pieces: Option<Vec<Piece>> = s
                .body
                .pieces
                .iter()
                .map(|p| {
                    shift_piece(p, &when, &|k| {
                        s.accesses.get(k).map(|a| (a.data.clone(), rename(a)))
                    })
                })
                .collect();
            let Some(pieces) = pieces else {
                return refuse(
                    s.span,
                    format!(
                        "an array access of {} is not written as 'NAME[...]' (parentheses or a macro around the name), so it cannot be redirected to a time step's copy",
                        s.label
                    ),
                );
            };
            let body = BodyTemplate { pieces };
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
                iterator_types: s.iterator_types.get(1..).unwrap_or_default().to_vec(),
                domain,
                accesses,
                body,
                analysable: true,
                observed: None,
                gathered: None,
                time_step: Some(step as usize),
                loop_bounds: None,
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
        if write.index.iter().any(|e| !e.is_plain_c()) {
            return refuse(
                write.span,
                format!("{} writes '{}' through a division", w.label, sh.array),
            );
        }
        let mut domain: Vec<Constraint> = w
            .domain
            .iter()
            .filter(|c| !bounds.contains(c))
            .cloned()
            .collect();
        domain.extend(full.iter().cloned());
        let (stage, node) = copy_back_stage(w, write, &sh.name, 1, domain, copies.len());
        tree.push(node);
        copies.push(stage);
    }
    let blocks = Region {
        kind: RegionKind::Chain(Default::default()),
        stages: copies,
        tree,
        data_types,
        versions,
        // Time blocks store the last version of each array (temporaries
        // are not supported there: their arrays are written as before).
        temporaries: Vec::new(),
        ..region.clone()
    };
    // The remainder: the original statements from step `rest` on.
    let mut remainder = region.clone();
    remainder.temporaries.clear();
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

/// [`time_blocks`], refused ([`Error::Inapplicable`], at the region's
/// pragma) where a stage of the block never runs ([`idle_block`]).
pub fn running_time_blocks(
    region: &Region,
    names: &Names,
    steps: i64,
    prefix: &str,
    assume: Option<&str>,
) -> Result<TimeBlocked> {
    let tb = time_blocks(region, names, steps, prefix)?;
    match idle_block(&tb, assume)? {
        Some(why) => Err(Error::inapplicable_at(
            region.pragma_span,
            format!("overlapped tiling of the time loop: {why}"),
        )),
        None => Ok(tb),
    }
}

/// Why the block chain of `tb` has a stage that never runs, in words: no
/// block runs at all (the time loop runs fewer steps than a block holds), or
/// one statement's copy in a block never runs; `None` when every stage runs
/// for some parameter values (under `--assume` where given). Overlapped
/// tiling needs every stage of a chain to run: isl drops the relations of an
/// empty stage, and the tiles of a block that never runs would be dead code.
pub fn idle_block(tb: &TimeBlocked, assume: Option<&str>) -> Result<Option<String>> {
    let ctx = new_context();
    let under = match assume {
        Some(a) => format!(" under --assume {a}"),
        None => String::new(),
    };
    let full: Vec<String> = tb
        .full
        .iter()
        .map(|c| {
            let isl = |e: &Expr| e.to_isl(&isl_name);
            format!("{} {} {}", isl(&c.lhs), c.op.as_str(), isl(&c.rhs))
        })
        .collect();
    let text = match full.is_empty() {
        true => format!("{}{{ : true }}", tb.names.params_prefix()),
        false => format!("{}{{ : {} }}", tb.names.params_prefix(), full.join(" and ")),
    };
    let never = isl_rs::Set::read_from_str(&ctx, &text)
        .map_err(|e| Error::internal(format!("isl cannot read '{text}': {e}")))?
        .intersect(assume_context(&ctx, &tb.names, assume)?)
        .and_then(|s| s.is_empty())
        .map_err(isl_err)?;
    if never {
        return Ok(Some(format!(
            "no block of {} time steps runs: the time loop runs fewer steps{under} (its tile size, the first of --tile-sizes, is the number of steps per block)",
            tb.steps
        )));
    }
    let (empty, _) = empty_stages(&ctx, &tb.blocks, &tb.names, assume)?;
    Ok(empty.first().map(|(k, _)| {
        format!(
            "{} never runs (its iteration domain is empty{under}): overlapped tiling needs every statement of a block to run",
            tb.blocks.stages[*k].label
        )
    }))
}

/// Whether `e` uses variable `v`.
pub(crate) fn mentions(e: &Expr, v: &str) -> bool {
    let mut vars = BTreeSet::new();
    e.collect_vars(&mut vars);
    vars.contains(v)
}

/// `c` with variable `v` replaced by `by`.
fn substitute(c: &Constraint, v: &str, by: &Expr) -> Constraint {
    Constraint {
        lhs: c.lhs.substitute(v, by),
        op: c.op,
        rhs: c.rhs.substitute(v, by),
    }
}

/// A body piece of a time-loop statement in a block stage: the time
/// iterator (0) becomes `when`, the others move down by one; an access's
/// array name becomes its version (`rename(access)`: original and new name).
/// `None` when an access's text cannot be renamed ([`rename_access_text`]).
fn shift_piece(
    p: &Piece,
    when: &str,
    rename: &dyn Fn(usize) -> Option<(String, String)>,
) -> Option<Piece> {
    Some(match p {
        Piece::Text(t) => Piece::Text(t.clone()),
        Piece::Iter(0) => Piece::Text(when.to_string()),
        Piece::Iter(k) => Piece::Iter(k - 1),
        // Time blocks need analysable bodies, which have no gathers.
        Piece::Access {
            gather: Some(_), ..
        } => return None,
        Piece::Access {
            access,
            text,
            reads_too,
            gather: None,
        } => {
            let mut text: Vec<Piece> = text
                .iter()
                .map(|p| shift_piece(p, when, rename))
                .collect::<Option<_>>()?;
            if let Some((old, new)) = rename(*access) {
                if !rename_access_text(&mut text, &old, &new) {
                    return None;
                }
            }
            Piece::Access {
                access: *access,
                text,
                reads_too: *reads_too,
                gather: None,
            }
        }
    })
}

/// `node` with its stage numbers moved up by `by`.
fn renumber(node: &OrigNode, by: usize) -> OrigNode {
    match node {
        OrigNode::Stage(k) => OrigNode::Stage(k + by),
        OrigNode::Loop { iter, body, down } => OrigNode::Loop {
            iter: iter.clone(),
            body: body.iter().map(|n| renumber(n, by)).collect(),
            down: *down,
        },
    }
}
