//! Reads isl's AST into flextile's loop tree ([`Node`], [`LoopExpr`]): the
//! only place that walks isl AST objects. Expressions stay structured; the
//! targets print them.

use crate::backend::tile_body::TileBodies;
use crate::backend::tree::{
    hoist_tile_storage, set_independent, set_parallel, set_simd, BinOp, LoopExpr, Node,
};
use crate::diag::{Error, Result};
use crate::model::isl_ext::{ast_node_kind, isl_err, AstKind};
use crate::model::marks::Mark;
use crate::model::polyhedral::Names;
use crate::model::storage::Placement;
use isl_rs::{ASTExpr, ASTExprOpType, ASTExprType, ASTNode};

/// Converts an isl AST to [`Node`]s.
pub struct AstReader<'a> {
    names: &'a Names,
    bodies: Option<&'a TileBodies>,
}

impl<'a> AstReader<'a> {
    /// A reader mapping isl parameter names back to C through `names`.
    pub fn new(names: &'a Names) -> AstReader<'a> {
        AstReader {
            names,
            bodies: None,
        }
    }

    /// The reader, expanding each call of a tile token of `bodies` into
    /// the tile's code.
    pub fn with_tile_bodies(self, bodies: &'a TileBodies) -> AstReader<'a> {
        AstReader {
            bodies: Some(bodies),
            ..self
        }
    }

    /// Reads `node` and everything below it.
    pub fn read(&self, node: &ASTNode) -> Result<Vec<Node>> {
        Ok(match ast_node_kind(node)? {
            AstKind::For => {
                let iter = self.expr(&node.for_get_iterator().map_err(isl_err)?)?;
                let init = self.expr(&node.for_get_init().map_err(isl_err)?)?;
                let cond = self.expr(&node.for_get_cond().map_err(isl_err)?)?;
                let inc = self.expr(&node.for_get_inc().map_err(isl_err)?)?;
                let body = hoist_tile_storage(self.read(&node.for_get_body().map_err(isl_err)?)?)?;
                vec![Node::For {
                    iter,
                    init,
                    cond,
                    inc,
                    body,
                    parallel: false,
                    simd: false,
                    independent: false,
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
                vec![Node::If { cond, then, els }]
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
                apply_mark(mark, self.read(&node.mark_get_node().map_err(isl_err)?)?)
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
                // A call of an overlapped group's tile token: the tile body.
                if let Some(body) = self.bodies.and_then(|b| b.expand(&stage, &args)) {
                    return body;
                }
                vec![Node::Stmt { stage, args }]
            }
        })
    }

    /// The structured expression of `e`: parameters by their C names,
    /// isl's counters `c<N>` as [`LoopExpr::Counter`].
    pub fn expr(&self, e: &ASTExpr) -> Result<LoopExpr> {
        match e.get_type().map_err(isl_err)? {
            ASTExprType::Int => {
                let v = e.get_val().map_err(isl_err)?;
                Ok(LoopExpr::Int(v.get_num_si().map_err(isl_err)?))
            }
            ASTExprType::Id => {
                let id = e.get_id().map_err(isl_err)?;
                let name = id.get_name().map_err(isl_err)?;
                Ok(self.id(name))
            }
            ASTExprType::Op => self.op(e),
            ASTExprType::Error => Err(Error::internal("isl AST expression error")),
        }
    }

    /// Parameters by their C names; isl's counters `cN` by number.
    fn id(&self, isl: &str) -> LoopExpr {
        if let Some(c) = self.names.c_param(isl) {
            return LoopExpr::Param(c.to_string());
        }
        match isl.strip_prefix('c') {
            Some(num)
                if !num.is_empty()
                    && num.bytes().all(|b| b.is_ascii_digit())
                    && (num == "0" || !num.starts_with('0')) =>
            {
                match num.parse() {
                    Ok(n) => LoopExpr::Counter(n),
                    Err(_) => LoopExpr::Name(isl.to_string()),
                }
            }
            _ => LoopExpr::Name(isl.to_string()),
        }
    }

    fn arg(&self, e: &ASTExpr, i: i32) -> Result<Box<LoopExpr>> {
        Ok(Box::new(self.expr(&e.get_op_arg(i).map_err(isl_err)?)?))
    }

    fn op(&self, e: &ASTExpr) -> Result<LoopExpr> {
        let n = e.get_op_n_arg().map_err(isl_err)?;
        let ty = e.get_op_type().map_err(isl_err)?;
        let bin = |op: BinOp| -> Result<LoopExpr> {
            Ok(LoopExpr::Op(op, self.arg(e, 0)?, self.arg(e, 1)?))
        };
        match ty {
            ASTExprOpType::And | ASTExprOpType::AndThen => bin(BinOp::And),
            ASTExprOpType::Or | ASTExprOpType::OrElse => bin(BinOp::Or),
            ASTExprOpType::Add => bin(BinOp::Add),
            ASTExprOpType::Sub => bin(BinOp::Sub),
            ASTExprOpType::Mul => bin(BinOp::Mul),
            ASTExprOpType::Div | ASTExprOpType::PdivQ => bin(BinOp::Div),
            ASTExprOpType::PdivR | ASTExprOpType::ZdivR => bin(BinOp::Rem),
            ASTExprOpType::Eq => bin(BinOp::Eq),
            ASTExprOpType::Le => bin(BinOp::Le),
            ASTExprOpType::Lt => bin(BinOp::Lt),
            ASTExprOpType::Ge => bin(BinOp::Ge),
            ASTExprOpType::Gt => bin(BinOp::Gt),
            ASTExprOpType::Minus => Ok(LoopExpr::Neg(self.arg(e, 0)?)),
            ASTExprOpType::Min | ASTExprOpType::Max => {
                let args = (0..n)
                    .map(|i| self.arg(e, i).map(|b| *b))
                    .collect::<Result<Vec<_>>>()?;
                Ok(match ty {
                    ASTExprOpType::Min => LoopExpr::Min(args),
                    _ => LoopExpr::Max(args),
                })
            }
            ASTExprOpType::FdivQ => Ok(LoopExpr::FloorDiv(self.arg(e, 0)?, self.arg(e, 1)?)),
            ASTExprOpType::Cond | ASTExprOpType::Select => Ok(LoopExpr::Select(
                self.arg(e, 0)?,
                self.arg(e, 1)?,
                self.arg(e, 2)?,
            )),
            other => Err(Error::internal(format!(
                "unsupported isl AST operator {:?} in generated code",
                other.to_i32()
            ))),
        }
    }
}

/// The code `body` below a mark: a parallel, SIMD or threads mark sets its
/// loops' flags, a tile body or buffer scope mark opens a scope of the
/// storage plan there, other marks leave it as it is.
pub(crate) fn apply_mark(mark: Option<Mark>, body: Vec<Node>) -> Vec<Node> {
    let mut body = body;
    match mark {
        Some(Mark::Parallel { depths }) => {
            // Each member carries no dependence: every loop of
            // theirs is independent (CUDA spreads them).
            body.iter_mut().for_each(|n| set_parallel(n, &depths));
            body.iter_mut().for_each(|n| set_independent(n, &depths));
        }
        Some(Mark::Simd { depth }) => {
            body.iter_mut().for_each(|n| set_simd(n, depth));
        }
        Some(Mark::Threads { depths }) => {
            body.iter_mut().for_each(|n| set_independent(n, &depths));
        }
        Some(Mark::TileBody { group }) => {
            body = vec![Node::Buffers {
                at: Placement::Tile { group },
                body,
            }];
        }
        Some(Mark::BufferScope { scope }) => {
            body = vec![Node::Buffers {
                at: Placement::Scope { scope },
                body,
            }];
        }
        _ => {}
    }
    body
}
