//! Reads isl's AST into flextile's own loop tree ([`CNode`]), resolving
//! expressions to C text. This is the only place that walks isl AST objects.

use crate::diag::{Error, Result};
use crate::model::isl_ext::{ast_node_kind, isl_err, AstKind};
use crate::model::marks::Mark;
use crate::model::polyhedral::Names;
use crate::model::storage::Placement;
use isl_rs::{ASTExpr, ASTExprOpType, ASTExprType, ASTNode};
use std::collections::BTreeSet;

/// A statement of the generated code.
#[derive(Clone, Debug, PartialEq)]
pub enum CNode {
    /// `for (int iter = init; cond; iter += inc) { body }`.
    For {
        /// Counter name.
        iter: String,
        /// Initial value.
        init: String,
        /// Loop condition.
        cond: String,
        /// Increment.
        inc: String,
        /// Loop body.
        body: Vec<CNode>,
        /// Run with `#pragma omp parallel for`.
        parallel: bool,
        /// Run with `#pragma omp simd` (it carries no dependence).
        simd: bool,
    },
    /// `if (cond) { then } else { els }`.
    If {
        /// Condition.
        cond: String,
        /// Then branch.
        then: Vec<CNode>,
        /// Else branch, if any.
        els: Option<Vec<CNode>>,
    },
    /// A scope of the storage plan (an overlapped tile's body, or a buffer
    /// scope): the buffers placed there are declared first.
    Buffers {
        /// Where the buffers are placed.
        at: Placement,
        /// The tile's statements.
        body: Vec<CNode>,
    },
    /// One instance of stage `stage` (isl name) with its iterators' values.
    Stmt {
        /// Statement name (`S3`).
        stage: String,
        /// C expressions of the stage's iterators, outermost first.
        args: Vec<String>,
    },
}

/// Helper functions the generated expressions call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Helper {
    /// `ft_min(a, b)`
    Min,
    /// `ft_max(a, b)`
    Max,
    /// `ft_floord(n, d)`: floor division by a positive constant.
    Floord,
    /// `ft_min_ll(a, b)`: [`Helper::Min`] on `long long`.
    MinLL,
    /// `ft_max_ll(a, b)`: [`Helper::Max`] on `long long`.
    MaxLL,
    /// `ft_floord_ll(n, d)`: [`Helper::Floord`] on `long long`.
    FloordLL,
}

/// Converts an isl AST to [`CNode`]s.
pub struct AstReader<'a> {
    names: &'a Names,
    /// Prefix of generated loop counters (`c` unless the file uses `c0`...).
    counter_prefix: String,
    /// Prefix of helper functions (`ft_` unless the input uses it).
    helper_prefix: String,
    /// Helpers used so far.
    pub helpers: BTreeSet<Helper>,
    /// `long long` helpers, parameters cast to `long long` (see [`crate::backend::Naming::wide`]).
    wide: bool,
}

/// C operator precedence levels (higher binds tighter).
const P_COND: u8 = 3;
const P_OR: u8 = 4;
const P_AND: u8 = 5;
const P_EQ: u8 = 9;
const P_REL: u8 = 10;
const P_ADD: u8 = 12;
const P_MUL: u8 = 13;
const P_UNARY: u8 = 14;
const P_PRIMARY: u8 = 16;

impl<'a> AstReader<'a> {
    /// A reader mapping isl parameter names back to C through `names`.
    pub fn new(names: &'a Names, naming: &crate::backend::Naming) -> AstReader<'a> {
        AstReader {
            names,
            counter_prefix: naming.counter.clone(),
            helper_prefix: naming.helper.clone(),
            helpers: BTreeSet::new(),
            wide: naming.wide,
        }
    }

    /// Reads `node` and everything below it.
    pub fn read(&mut self, node: &ASTNode) -> Result<Vec<CNode>> {
        Ok(match ast_node_kind(node)? {
            AstKind::For => {
                let iter = self.expr(&node.for_get_iterator().map_err(isl_err)?)?;
                let init = self.expr(&node.for_get_init().map_err(isl_err)?)?;
                let cond = self.expr(&node.for_get_cond().map_err(isl_err)?)?;
                let inc = self.expr(&node.for_get_inc().map_err(isl_err)?)?;
                let body = hoist_tile_storage(self.read(&node.for_get_body().map_err(isl_err)?)?)?;
                vec![CNode::For {
                    iter,
                    init,
                    cond,
                    inc,
                    body,
                    parallel: false,
                    simd: false,
                }]
            }
            AstKind::If => {
                let cond = self.expr(&node.if_get_cond().map_err(isl_err)?)?;
                let then = self.read(&node.if_get_then_node().map_err(isl_err)?)?;
                let els = if node.if_has_else_node().map_err(isl_err)? {
                    Some(self.read(&node.if_get_else_node().map_err(isl_err)?)?)
                } else {
                    None
                };
                vec![CNode::If { cond, then, els }]
            }
            AstKind::Block => {
                let list = node.block_get_children().map_err(isl_err)?;
                let mut out = Vec::new();
                for i in 0..list.size().map_err(isl_err)? {
                    out.extend(self.read(&list.get_at(i).map_err(isl_err)?)?);
                }
                out
            }
            AstKind::Mark => {
                let id = node.mark_get_id().map_err(isl_err)?;
                let mark = Mark::from_id(id.get_name().map_err(isl_err)?);
                let mut body = self.read(&node.mark_get_node().map_err(isl_err)?)?;
                match mark {
                    Some(Mark::Parallel { depths }) => {
                        let iters: Vec<String> = depths
                            .iter()
                            .map(|d| format!("{}{}", self.counter_prefix, d))
                            .collect();
                        body.iter_mut().for_each(|n| set_parallel(n, &iters));
                    }
                    Some(Mark::Simd { depth }) => {
                        let iter = format!("{}{}", self.counter_prefix, depth);
                        body.iter_mut().for_each(|n| set_simd(n, &iter));
                    }
                    Some(Mark::TileBody { group }) => {
                        body = vec![CNode::Buffers {
                            at: Placement::Tile { group },
                            body,
                        }];
                    }
                    Some(Mark::BufferScope { scope }) => {
                        body = vec![CNode::Buffers {
                            at: Placement::Scope { scope },
                            body,
                        }];
                    }
                    _ => {}
                }
                body
            }
            AstKind::User => {
                let e = node.user_get_expr().map_err(isl_err)?;
                let n = e.get_op_n_arg().map_err(isl_err)?;
                let callee = e
                    .get_op_arg(0)
                    .map_err(isl_err)?
                    .get_id()
                    .map_err(isl_err)?;
                let stage = callee.get_name().map_err(isl_err)?.to_string();
                let mut args = Vec::new();
                for i in 1..n {
                    args.push(self.expr(&e.get_op_arg(i).map_err(isl_err)?)?);
                }
                vec![CNode::Stmt { stage, args }]
            }
        })
    }

    /// The C text of an expression.
    pub fn expr(&mut self, e: &ASTExpr) -> Result<String> {
        Ok(self.expr_prec(e)?.0)
    }

    fn expr_prec(&mut self, e: &ASTExpr) -> Result<(String, u8)> {
        match e.get_type().map_err(isl_err)? {
            ASTExprType::Int => {
                let v = e.get_val().map_err(isl_err)?;
                let n = v.get_num_si().map_err(isl_err)?;
                Ok(if n < 0 {
                    (format!("-{}", -n as i128), P_UNARY)
                } else {
                    (n.to_string(), P_PRIMARY)
                })
            }
            ASTExprType::Id => {
                let id = e.get_id().map_err(isl_err)?;
                let name = id.get_name().map_err(isl_err)?;
                // With wide counters, `int` parameters are widened before any
                // arithmetic: `N + T - 1` must not overflow in `int`.
                if self.wide && self.names.c_param(name).is_some() {
                    return Ok((format!("(long long){}", self.id_name(name)), P_UNARY));
                }
                Ok((self.id_name(name), P_PRIMARY))
            }
            ASTExprType::Op => self.op(e),
            ASTExprType::Error => Err(Error::internal("isl AST expression error")),
        }
    }

    /// Generated counters `cN` get the chosen prefix; parameters their C names.
    fn id_name(&self, isl: &str) -> String {
        if let Some(c) = self.names.c_param(isl) {
            return c.to_string();
        }
        match isl.strip_prefix('c') {
            Some(num) if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) => {
                format!("{}{}", self.counter_prefix, num)
            }
            _ => isl.to_string(),
        }
    }

    fn arg(&mut self, e: &ASTExpr, i: i32) -> Result<(String, u8)> {
        self.expr_prec(&e.get_op_arg(i).map_err(isl_err)?)
    }

    fn op(&mut self, e: &ASTExpr) -> Result<(String, u8)> {
        let n = e.get_op_n_arg().map_err(isl_err)?;
        let ty = e.get_op_type().map_err(isl_err)?;
        let bin = |s: &mut Self, op: &str, p: u8| -> Result<(String, u8)> {
            let (a, pa) = s.arg(e, 0)?;
            let (b, pb) = s.arg(e, 1)?;
            // Left-associative: the right operand needs parentheses at equal precedence.
            Ok((
                format!("{} {} {}", paren(a, pa, p), op, paren(b, pb, p + 1)),
                p,
            ))
        };
        match ty {
            ASTExprOpType::And | ASTExprOpType::AndThen => bin(self, "&&", P_AND),
            ASTExprOpType::Or | ASTExprOpType::OrElse => bin(self, "||", P_OR),
            ASTExprOpType::Add => bin(self, "+", P_ADD),
            ASTExprOpType::Sub => bin(self, "-", P_ADD),
            ASTExprOpType::Mul => bin(self, "*", P_MUL),
            ASTExprOpType::Div | ASTExprOpType::PdivQ => bin(self, "/", P_MUL),
            ASTExprOpType::PdivR | ASTExprOpType::ZdivR => bin(self, "%", P_MUL),
            ASTExprOpType::Eq => bin(self, "==", P_EQ),
            ASTExprOpType::Le => bin(self, "<=", P_REL),
            ASTExprOpType::Lt => bin(self, "<", P_REL),
            ASTExprOpType::Ge => bin(self, ">=", P_REL),
            ASTExprOpType::Gt => bin(self, ">", P_REL),
            ASTExprOpType::Minus => {
                let (a, pa) = self.arg(e, 0)?;
                Ok((format!("-{}", paren(a, pa, P_UNARY)), P_UNARY))
            }
            ASTExprOpType::Min | ASTExprOpType::Max => {
                let (helper, name) = match (matches!(ty, ASTExprOpType::Min), self.wide) {
                    (true, false) => (Helper::Min, "min"),
                    (false, false) => (Helper::Max, "max"),
                    (true, true) => (Helper::MinLL, "min_ll"),
                    (false, true) => (Helper::MaxLL, "max_ll"),
                };
                self.helpers.insert(helper);
                let mut acc = self.arg(e, 0)?.0;
                for i in 1..n {
                    let b = self.arg(e, i)?.0;
                    acc = format!("{}{name}({acc}, {b})", self.helper_prefix);
                }
                Ok((acc, P_PRIMARY))
            }
            ASTExprOpType::FdivQ => {
                let (helper, name) = if self.wide {
                    (Helper::FloordLL, "floord_ll")
                } else {
                    (Helper::Floord, "floord")
                };
                self.helpers.insert(helper);
                let a = self.arg(e, 0)?.0;
                let b = self.arg(e, 1)?.0;
                Ok((format!("{}{name}({a}, {b})", self.helper_prefix), P_PRIMARY))
            }
            ASTExprOpType::Cond | ASTExprOpType::Select => {
                let (c, pc) = self.arg(e, 0)?;
                let (a, pa) = self.arg(e, 1)?;
                let (b, pb) = self.arg(e, 2)?;
                Ok((
                    format!(
                        "{} ? {} : {}",
                        paren(c, pc, P_COND + 1),
                        paren(a, pa, P_COND + 1),
                        paren(b, pb, P_COND)
                    ),
                    P_COND,
                ))
            }
            other => Err(Error::internal(format!(
                "unsupported isl AST operator {:?} in generated code",
                other.to_i32()
            ))),
        }
    }
}

fn paren(s: String, prec: u8, min: u8) -> String {
    if prec < min {
        format!("({s})")
    } else {
        s
    }
}

/// One overlapped tile is one iteration of the innermost tile loop, but isl
/// may split that iteration's body (at the tile's sequence, under guards) into
/// several copies of the storage mark. Each copy would declare its own
/// scratchpads, and a consumer would read a fresh, uninitialised one. This
/// gathers the copies of each mark into one scope (of a loop's body, or of
/// the region when no tile loop is left, as with constant bounds smaller than
/// a tile). Several groups' marks in one body are gathered one by one, each
/// over the run of nodes holding its copies; where the copies of two marks
/// interleave, no scope can hold both and compilation stops with an internal
/// error instead of printing a program whose stages lose their scratchpads.
pub fn hoist_tile_storage(body: Vec<CNode>) -> Result<Vec<CNode>> {
    let sets: Vec<Vec<Placement>> = body
        .iter()
        .map(|n| {
            let mut v = Vec::new();
            collect_marks(std::slice::from_ref(n), &mut v);
            v.sort();
            v.dedup();
            v
        })
        .collect();
    let mut ranges: Vec<(Placement, usize, usize)> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        for m in set {
            match ranges.iter_mut().find(|r| &r.0 == m) {
                Some(r) => r.2 = i,
                None => ranges.push((*m, i, i)),
            }
        }
    }
    match ranges.len() {
        0 => return Ok(body),
        1 => {
            if matches!(body.as_slice(), [CNode::Buffers { .. }]) {
                return Ok(body);
            }
            return Ok(vec![CNode::Buffers {
                at: ranges[0].0,
                body: strip_marks(body),
            }]);
        }
        _ => {}
    }
    // several marks: each run of nodes must hold one mark only, except a
    // single node holding every copy of its marks, which is gathered inside
    let mut owner: Vec<Option<usize>> = vec![None; body.len()];
    for (k, (mark, a, b)) in ranges.iter().enumerate() {
        if a == b && sets[*a].len() > 1 {
            if ranges
                .iter()
                .filter(|r| sets[*a].contains(&r.0))
                .any(|r| r.1 != *a || r.2 != *a)
            {
                return Err(interleaved(*mark));
            }
            continue;
        }
        for slot in owner.iter_mut().take(b + 1).skip(*a) {
            if slot.is_some() {
                return Err(interleaved(*mark));
            }
            *slot = Some(k);
        }
        if (*a..=*b).any(|i| sets[i].len() > 1) {
            return Err(interleaved(*mark));
        }
    }
    let mut out = Vec::new();
    let mut run: Vec<CNode> = Vec::new();
    let mut run_owner: Option<usize> = None;
    let flush = |run: &mut Vec<CNode>, k: Option<usize>, out: &mut Vec<CNode>| {
        if let Some(k) = k {
            let nodes = std::mem::take(run);
            match nodes.as_slice() {
                [CNode::Buffers { .. }] => out.extend(nodes),
                _ => out.push(CNode::Buffers {
                    at: ranges[k].0,
                    body: strip_marks(nodes),
                }),
            }
        }
    };
    for (i, node) in body.into_iter().enumerate() {
        if owner[i] != run_owner {
            flush(&mut run, run_owner, &mut out);
            run_owner = owner[i];
        }
        match owner[i] {
            Some(_) => run.push(node),
            None if sets[i].len() > 1 => out.push(hoist_inside(node)?),
            None => out.push(node),
        }
    }
    flush(&mut run, run_owner, &mut out);
    Ok(out)
}

/// Gathers the storage marks inside the branches of a conditional that holds
/// the copies of several marks.
fn hoist_inside(node: CNode) -> Result<CNode> {
    match node {
        CNode::If { cond, then, els } => Ok(CNode::If {
            cond,
            then: hoist_tile_storage(then)?,
            els: els.map(hoist_tile_storage).transpose()?,
        }),
        CNode::Buffers { at, .. } => Err(interleaved(at)),
        other => Ok(other),
    }
}

fn interleaved(at: Placement) -> Error {
    Error::internal(format!(
        "the generated code splits the buffers of {at:?} into copies that \
         interleave with another group's; refusing to print a program whose stages \
         would lose their scratchpads"
    ))
}

/// Storage marks reachable without entering a loop.
fn collect_marks(nodes: &[CNode], out: &mut Vec<Placement>) {
    for n in nodes {
        match n {
            CNode::Buffers { at, .. } => out.push(*at),
            CNode::If { then, els, .. } => {
                collect_marks(then, out);
                if let Some(e) = els {
                    collect_marks(e, out);
                }
            }
            CNode::For { .. } | CNode::Stmt { .. } => {}
        }
    }
}

/// Replaces storage marks (outside loops) by their contents.
fn strip_marks(nodes: Vec<CNode>) -> Vec<CNode> {
    let mut out = Vec::new();
    for n in nodes {
        match n {
            CNode::Buffers { body, .. } => out.extend(strip_marks(body)),
            CNode::If { cond, then, els } => out.push(CNode::If {
                cond,
                then: strip_marks(then),
                els: els.map(strip_marks),
            }),
            other => out.push(other),
        }
    }
    out
}

/// Marks the outermost loops of `node` whose counter is one of `iters` (the
/// marked band's parallel loops, outermost first) as parallel. The first loop
/// under the mark is the band's outermost generated loop (isl generates none
/// for a member that runs once); no loop inside it is marked.
fn set_parallel(node: &mut CNode, iters: &[String]) {
    match node {
        CNode::For { parallel, iter, .. } => {
            if iters.contains(iter) {
                *parallel = true;
            }
        }
        CNode::If { then, els, .. } => {
            then.iter_mut().for_each(|n| set_parallel(n, iters));
            if let Some(e) = els {
                e.iter_mut().for_each(|n| set_parallel(n, iters));
            }
        }
        CNode::Stmt { .. } | CNode::Buffers { .. } => {}
    }
}

/// Sets `simd` on every loop of counter `iter` in `node` (isl may split
/// the member's loop into several).
fn set_simd(node: &mut CNode, iter: &str) {
    match node {
        CNode::For {
            simd,
            iter: it,
            body,
            ..
        } => match it == iter {
            true => *simd = true,
            false => body.iter_mut().for_each(|n| set_simd(n, iter)),
        },
        CNode::If { then, els, .. } => {
            then.iter_mut().for_each(|n| set_simd(n, iter));
            if let Some(e) = els {
                e.iter_mut().for_each(|n| set_simd(n, iter));
            }
        }
        CNode::Buffers { body, .. } => body.iter_mut().for_each(|n| set_simd(n, iter)),
        CNode::Stmt { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(group: usize, stage: &str) -> CNode {
        CNode::Buffers {
            at: Placement::Tile { group },
            body: vec![CNode::Stmt {
                stage: stage.into(),
                args: vec![],
            }],
        }
    }

    fn marks_of(nodes: &[CNode]) -> Vec<(Placement, usize)> {
        nodes
            .iter()
            .filter_map(|n| match n {
                CNode::Buffers { at, body } => Some((*at, body.len())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn copies_of_two_groups_are_gathered_per_group() {
        let body = vec![CNode::If {
            cond: "c".into(),
            then: vec![copy(0, "S0"), copy(0, "S1"), copy(1, "S2")],
            els: None,
        }];
        let out = hoist_tile_storage(body).unwrap();
        let [CNode::If { then, .. }] = out.as_slice() else {
            panic!("{out:?}")
        };
        let tile = |group| Placement::Tile { group };
        assert_eq!(marks_of(then), vec![(tile(0), 2), (tile(1), 1)]);
    }

    #[test]
    fn interleaved_copies_are_an_internal_error() {
        let body = vec![copy(0, "S0"), copy(1, "S1"), copy(0, "S2")];
        assert!(hoist_tile_storage(body).is_err());
    }
}
