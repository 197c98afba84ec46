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
    let tl = time_loop(region, steps)?;
    let writer = writers(&tl, &region.stages)?;
    let start = format!("{prefix}t_start");
    let rest = format!("{prefix}t_rest");
    let mut names = names.clone();
    names.params.insert(isl_name(&start), start.clone());
    names.params.insert(isl_name(&rest), rest.clone());
    let at = |k: i64| Expr::sum(Expr::Var(start.clone()), Expr::Int(k));
    let full: Vec<Constraint> = tl
        .bounds
        .iter()
        .flat_map(|c| {
            [
                substitute(c, tl.time, &at(0)),
                substitute(c, tl.time, &at(steps - 1)),
            ]
        })
        .collect();
    let v = Versions {
        read_before: read_before(&region.stages, &writer),
        writer,
        steps,
        prefix,
    };
    let VersionPlan {
        data_types,
        versions,
        shadows,
    } = v.plan(&tl, region)?;
    let block = Block {
        tl: &tl,
        v: &v,
        full: &full,
        start: &start,
    };
    let mut copies = block.copies(&region.stages)?;
    let m = region.stages.len();
    let mut tree: Vec<OrigNode> = Vec::new();
    for step in 0..steps as usize {
        tree.extend(tl.body.iter().map(|n| renumber(n, step * m)));
    }
    for sh in &shadows {
        let (stage, node) = block.copy_back(&region.stages[sh.writer], sh, copies.len())?;
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
            lhs: Expr::Var(tl.time.clone()),
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
        first: tl.first,
        full,
        shadows,
    })
}

/// The time loop of a scop, checked for time blocks.
struct TimeLoop<'a> {
    /// Its iterator.
    time: &'a String,
    /// Its body.
    body: &'a [OrigNode],
    /// Its bounds: the constraints that mention the time iterator, the same
    /// for every statement.
    bounds: Vec<Constraint>,
    /// Its first step.
    first: Expr,
    /// The region's pragma.
    span: Span,
}

impl TimeLoop<'_> {
    /// The refusal of time blocks for this loop, at `at`, saying `why`.
    fn refuse(&self, at: Span, why: String) -> Error {
        Error::inapplicable_at(
            at,
            format!("overlapped tiling of the time loop '{}': {why}", self.time),
        )
    }
}

/// The outer time loop of `region`, or why its statements cannot be run in
/// time blocks of `steps` steps.
fn time_loop(region: &Region, steps: i64) -> Result<TimeLoop<'_>> {
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
    let Some(s0) = stages.first() else {
        return Err(Error::inapplicable_at(
            span,
            "overlapped tiling: the time loop has no statement",
        ));
    };
    let mut tl = TimeLoop {
        time,
        body,
        bounds: timed(s0, time),
        first: Expr::Int(0),
        span,
    };
    for s in stages {
        check_stage(&tl, s)?;
    }
    tl.first = first_step(&tl)?;
    Ok(tl)
}

/// The constraints of `s` that mention the time iterator.
fn timed(s: &Stage, time: &str) -> Vec<Constraint> {
    s.domain
        .iter()
        .filter(|c| mentions(&c.lhs, time) || mentions(&c.rhs, time))
        .cloned()
        .collect()
}

/// Refuses a statement `s` that is not inside the time loop, runs under a
/// condition on time, is not analysable, is bounded by other than affine
/// expressions of the parameters, or subscripts an array with time.
fn check_stage(tl: &TimeLoop, s: &Stage) -> Result<()> {
    let time = tl.time;
    if s.iterators.first() != Some(time) {
        return Err(tl.refuse(s.span, format!("{} is not inside it", s.label)));
    }
    if timed(s, time) != tl.bounds {
        return Err(tl.refuse(
            s.span,
            format!("{} runs under a condition on '{time}'", s.label),
        ));
    }
    if !s.analysable || s.analysed().is_none() {
        return Err(tl.refuse(
            s.span,
            format!(
                "the body of {} is not analysable (macros, calls or pointer arithmetic)",
                s.label
            ),
        ));
    }
    for c in &tl.bounds {
        let mut vars = BTreeSet::new();
        c.lhs.collect_vars(&mut vars);
        c.rhs.collect_vars(&mut vars);
        if vars.iter().any(|v| v != time && s.iterators.contains(v))
            || !c.lhs.is_plain_c()
            || !c.rhs.is_plain_c()
        {
            return Err(tl.refuse(
                s.span,
                format!(
                    "its bound '{} {} {}' is not an affine expression of the parameters without min, max or division",
                    c.lhs,
                    c.op.as_str(),
                    c.rhs
                ),
            ));
        }
    }
    if let Some(a) = s
        .accesses
        .iter()
        .find(|a| a.index.iter().any(|e| mentions(e, time)))
    {
        return Err(tl.refuse(
            a.span,
            format!("{} subscripts an array with '{time}'", s.label),
        ));
    }
    Ok(())
}

/// The time loop's first step: its one lower bound.
fn first_step(tl: &TimeLoop) -> Result<Expr> {
    let time = tl.time;
    let mut first: Option<Expr> = None;
    for c in &tl.bounds {
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
                return Err(tl.refuse(tl.span, "it has several lower bounds".to_string()));
            }
            first = Some(l);
        }
    }
    first.ok_or_else(|| tl.refuse(tl.span, "it has no lower bound".to_string()))
}

/// The statement that writes each array: one per array, at a place that is
/// neither data-dependent nor conditional, and not reading what it writes.
fn writers(tl: &TimeLoop, stages: &[Stage]) -> Result<BTreeMap<String, usize>> {
    let mut writer: BTreeMap<String, usize> = BTreeMap::new();
    for (k, s) in stages.iter().enumerate() {
        for a in s.accesses.iter().filter(|a| a.kind == AccessKind::Write) {
            if a.index.iter().any(Expr::has_any) || a.conditional {
                return Err(tl.refuse(
                    a.span,
                    format!(
                        "{} writes '{}' at a data-dependent or conditional place",
                        s.label, a.data
                    ),
                ));
            }
            if let Some(w) = writer.insert(a.data.clone(), k) {
                if w != k {
                    return Err(tl.refuse(
                        a.span,
                        format!("'{}' is written by two statements of the body", a.data),
                    ));
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
            return Err(tl.refuse(
                a.span,
                format!(
                    "{} reads '{}', which it writes (an in-place update in time)",
                    s.label, a.data
                ),
            ));
        }
    }
    Ok(writer)
}

/// The arrays some statement reads before their writer runs in the body:
/// read at step -1 (from before the block), so written into a shadow.
fn read_before(stages: &[Stage], writer: &BTreeMap<String, usize>) -> BTreeSet<String> {
    stages
        .iter()
        .enumerate()
        .flat_map(|(k, s)| {
            s.accesses
                .iter()
                .filter(move |a| {
                    a.kind == AccessKind::Read && writer.get(&a.data).is_some_and(|w| *w > k)
                })
                .map(|a| a.data.clone())
        })
        .collect()
}

/// The versions of the arrays a block writes: (array, step) -> data set.
struct Versions<'a> {
    writer: BTreeMap<String, usize>,
    read_before: BTreeSet<String>,
    steps: i64,
    prefix: &'a str,
}

impl Versions<'_> {
    /// The data set that holds `data` after `step`: a scratchpad version,
    /// the array itself at the last step, or its shadow there.
    fn version(&self, data: &str, step: i64) -> String {
        let prefix = self.prefix;
        if step == self.steps - 1 {
            if self.read_before.contains(data) {
                format!("{prefix}next_{data}")
            } else {
                data.to_string()
            }
        } else {
            format!("{prefix}{data}_{step}")
        }
    }

    /// The data set that access `a` of stage `k` touches at `step`.
    fn renamed(&self, a: &Access, k: usize, step: i64) -> String {
        match (a.kind, self.writer.get(&a.data)) {
            (AccessKind::Write, _) => self.version(&a.data, step),
            (AccessKind::Read, Some(w)) if *w < k => self.version(&a.data, step),
            (AccessKind::Read, Some(_)) if step > 0 => self.version(&a.data, step - 1),
            _ => a.data.clone(),
        }
    }

    /// The versions of the block's arrays and its shadows.
    fn plan(&self, tl: &TimeLoop, region: &Region) -> Result<VersionPlan> {
        let (steps, stages) = (self.steps, &region.stages);
        let mut shadows = Vec::new();
        let mut versions = BTreeMap::new();
        let mut data_types = region.data_types.clone();
        for (data, w) in &self.writer {
            let Some(ty) = region.data_types.get(data).cloned() else {
                return Err(tl.refuse(tl.span, format!("the element type of '{data}' is unknown")));
            };
            for step in 0..steps {
                let v = self.version(data, step);
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
            if self.read_before.contains(data) {
                let rank = stages[*w]
                    .accesses
                    .iter()
                    .find(|a| &a.data == data)
                    .map_or(0, |a| a.index.len());
                shadows.push(Shadow {
                    name: self.version(data, steps - 1),
                    array: data.clone(),
                    rank,
                    writer: *w,
                });
            }
        }
        Ok(VersionPlan {
            data_types,
            versions,
            shadows,
        })
    }
}

/// The data sets of a block: the versions of its arrays, with their element
/// types, and the shadows.
struct VersionPlan {
    /// Element types of every data set, the versions included.
    data_types: BTreeMap<String, String>,
    /// Each version's array.
    versions: BTreeMap<String, DataVersion>,
    /// Shadow copies of arrays read from before the block and written in it.
    shadows: Vec<Shadow>,
}

/// What the stages of one block are built from.
struct Block<'a> {
    tl: &'a TimeLoop<'a>,
    v: &'a Versions<'a>,
    /// The block's constraints on its first and last step.
    full: &'a [Constraint],
    /// The C name of the block's first step.
    start: &'a str,
}

impl Block<'_> {
    /// A stage's domain in the block: the time loop's bounds replaced by
    /// the block's.
    fn domain(&self, s: &Stage) -> Vec<Constraint> {
        let mut domain: Vec<Constraint> = s
            .domain
            .iter()
            .filter(|c| !self.tl.bounds.contains(c))
            .cloned()
            .collect();
        domain.extend(self.full.iter().cloned());
        domain
    }

    /// The block's stages: `steps` copies of the body's, step after step.
    fn copies(&self, stages: &[Stage]) -> Result<Vec<Stage>> {
        let mut copies = Vec::new();
        for step in 0..self.v.steps {
            for (k, s) in stages.iter().enumerate() {
                copies.push(self.copy(s, k, step)?);
            }
        }
        Ok(copies)
    }

    /// Stage `s` (the `k`th of the body) at `step` of the block: its
    /// accesses redirected to the versions, its time iterator replaced by
    /// the step.
    fn copy(&self, s: &Stage, k: usize, step: i64) -> Result<Stage> {
        let accesses: Vec<Access> = s
            .accesses
            .iter()
            .map(|a| Access {
                data: self.v.renamed(a, k, step),
                ..a.clone()
            })
            .collect();
        let when = format!(
            "({})",
            Expr::sum(Expr::Var(self.start.to_string()), Expr::Int(step))
        );
        let pieces: Option<Vec<Piece>> = s
            .body
            .pieces
            .iter()
            .map(|p| {
                shift_piece(p, &when, &|i| {
                    s.accesses
                        .get(i)
                        .map(|a| (a.data.clone(), self.v.renamed(a, k, step)))
                })
            })
            .collect();
        let Some(pieces) = pieces else {
            return Err(self.tl.refuse(
                s.span,
                format!(
                    "an array access of {} is not written as 'NAME[...]' (parentheses or a macro around the name), so it cannot be redirected to a time step's copy",
                    s.label
                ),
            ));
        };
        Ok(Stage {
            name: format!("{}_b{step}", s.name),
            label: format!("{} at step {step} of a time block", s.label),
            span: s.span,
            iterators: s.iterators[1..].to_vec(),
            iterator_types: s.iterator_types.get(1..).unwrap_or_default().to_vec(),
            domain: self.domain(s),
            accesses,
            body: BodyTemplate { pieces },
            analysable: true,
            observed: None,
            gathered: None,
            time_step: Some(step as usize),
            loop_bounds: None,
            loop_spans: s.loop_spans.get(1..).unwrap_or_default().to_vec(),
            reduction: None,
        })
    }

    /// The stage (number `at` of the block) that copies shadow `sh` back to
    /// its array after the block, and its node in the block's tree; `w` is
    /// the shadowed array's writer.
    fn copy_back(&self, w: &Stage, sh: &Shadow, at: usize) -> Result<(Stage, OrigNode)> {
        let Some(write) = w
            .accesses
            .iter()
            .find(|a| a.kind == AccessKind::Write && a.data == sh.array)
        else {
            return Err(Error::internal("shadow without a write"));
        };
        if write.index.iter().any(|e| !e.is_plain_c()) {
            return Err(self.tl.refuse(
                write.span,
                format!("{} writes '{}' through a division", w.label, sh.array),
            ));
        }
        Ok(copy_back_stage(w, write, &sh.name, 1, self.domain(w), at))
    }
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
