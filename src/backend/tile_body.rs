//! flextile's own code generator for the bodies of overlapped tiles
//! (the subtrees below the expansion nodes of Zhao & Cohen §3.4, Fig.
//! 12-15, as `transform/overlap_tree.rs` builds them).
//!
//! isl's AST generator spent most of an overlapped output's compile time
//! inside the tiles: ordering every pair of a fused band's statements and
//! computing each statement's loop bounds at every level with its
//! polyhedral operations (local-laplacian, 99 stages: 85-93% of code
//! generation). A tile body has a fixed vocabulary (atomic bands whose
//! members are each statement's shifted, scaled or chunked iterator,
//! sequences of plain filters, marks, leaves; one polyhedron of instances
//! per statement and tile), over which code generation is reading bounds
//! off constraints: `tile_body/gen.rs`. [`cut`] reads each tile body into
//! that form and replaces its expansion by a leaf, so that isl generates
//! the loops over tiles only (one call of the group's tile token per tile),
//! and the AST reader expands each call ([`TileBodies::expand`]). A tile
//! body outside the vocabulary keeps its expansion and is isl's, as before.
//!
//! A statement's constraints on its tile coordinates alone that the tiles'
//! domain implies are dropped (isl's gist, on those few dimensions), and
//! bounds that others dominate where the tiles' constant bounds and
//! constraints hold, as isl's generator drops them.

mod gen;
mod lin;

use crate::backend::tree::{LoopExpr, Node};
use crate::diag::{Error, Result};
use crate::model::isl_ext::isl_err;
use crate::model::marks::Mark;
use crate::model::polyhedral::Names;
use gen::{BNode, Body, Con, Member, Rel, Stmt};
use isl_rs::{ASTLoopType, Aff, DimType, Schedule, ScheduleNode, ScheduleNodeType, Set};
use lin::{Lin, Ranges, Var};
use std::collections::{BTreeMap, HashMap};

/// The tile bodies [`cut`] took from a schedule, by their tile token.
#[derive(Default)]
pub struct TileBodies {
    bodies: Vec<Body>,
    by_token: HashMap<String, usize>,
}

impl TileBodies {
    /// The code of one tile of the group whose token isl's call names
    /// (`token`, with the tile coordinates `args`); `None` when the token
    /// is not one of a cut body.
    pub fn expand(&self, token: &str, args: &[LoopExpr]) -> Option<Result<Vec<Node>>> {
        let body = &self.bodies[*self.by_token.get(token)?];
        if args.len() != body.n_tile {
            return Some(Err(Error::internal(
                "tile body: a call with the wrong number of tile coordinates",
            )));
        }
        Some(body.generate(&|d| Ok(args[d].clone())))
    }

    /// How many tile bodies were cut.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }
}

/// `schedule` with the expansion node of every tile body in the generator's
/// vocabulary replaced by a leaf, and those bodies; `context` bounds the
/// parameters, `names` maps them to C.
pub fn cut(schedule: &Schedule, context: &Set, names: &Names) -> Result<(Schedule, TileBodies)> {
    let mut out = TileBodies::default();
    let root = schedule.get_root().map_err(isl_err)?;
    let root = visit(root, context, names, &mut out)?;
    Ok((root.get_schedule().map_err(isl_err)?, out))
}

fn visit(
    node: ScheduleNode,
    context: &Set,
    names: &Names,
    out: &mut TileBodies,
) -> Result<ScheduleNode> {
    if node.get_type().map_err(isl_err)? == ScheduleNodeType::Expansion {
        return match read_body(&node, context, names)? {
            Ok((token, body)) => {
                // The tiles' calls, under a filter that keeps them all:
                // isl prints a mark whose child is a leaf without one, and
                // cannot read that text back.
                let vars: Vec<String> = (0..body.n_tile).map(|d| format!("T{d}")).collect();
                let all = isl_rs::UnionSet::read_from_str(
                    &node.get_ctx(),
                    &format!("{{ {token}[{}] }}", vars.join(", ")),
                )
                .map_err(isl_err)?;
                out.by_token.insert(token, out.bodies.len());
                out.bodies.push(body);
                node.cut()
                    .and_then(|leaf| leaf.insert_filter(all))
                    .map_err(isl_err)
            }
            Err(why) => {
                log::debug!("tile body left to isl: {why}");
                Ok(node)
            }
        };
    }
    let mut node = node;
    for i in 0..node.n_children().map_err(isl_err)? {
        node = node.child(i).map_err(isl_err)?;
        node = visit(node, context, names, out)?;
        node = node.parent().map_err(isl_err)?;
    }
    Ok(node)
}

/// What keeps a tile body from the generator.
type Refusal = String;

/// The tile body below `node` (an expansion) with its token, or why the
/// generator does not take it.
fn read_body(
    node: &ScheduleNode,
    context: &Set,
    names: &Names,
) -> Result<std::result::Result<(String, Body), Refusal>> {
    let expansion = node.expansion_get_expansion().map_err(isl_err)?;
    let tokens = expansion
        .copy()
        .and_then(|e| e.domain())
        .and_then(|d| d.get_set_list())
        .map_err(isl_err)?;
    if tokens.size().map_err(isl_err)? != 1 {
        return Ok(Err("more than one tile token".to_string()));
    }
    let tiles = tokens.get_at(0).map_err(isl_err)?;
    let token = tiles.get_tuple_name().map_err(isl_err)?.to_string();
    let n_tile = tiles.dim(DimType::Set).map_err(isl_err)? as usize;
    let tiles = tiles
        .intersect_params(context.copy().map_err(isl_err)?)
        .map_err(isl_err)?;
    // The tiles' constraints, and from them constant bounds of the tile
    // coordinates and parameters.
    let mut ranges = Ranges::default();
    for c in &constraints(&tiles, names, n_tile)?.unwrap_or_default() {
        ranges.learn(&c.lin, c.rel == Rel::Eq);
    }
    let instances = expansion
        .range()
        .and_then(|r| r.get_set_list())
        .map_err(isl_err)?;
    let mut stmts = Vec::new();
    let mut gisted: HashMap<String, Set> = HashMap::new();
    // Statement name -> its pieces in `stmts`.
    let mut index: HashMap<String, Vec<usize>> = HashMap::new();
    for i in 0..instances.size().map_err(isl_err)? {
        let set = instances.get_at(i).map_err(isl_err)?;
        let name = set.get_tuple_name().map_err(isl_err)?.to_string();
        let n = set.dim(DimType::Set).map_err(isl_err)? as usize;
        let Some(n_iter) = n.checked_sub(n_tile) else {
            return Ok(Err(format!("{name} has fewer dimensions than its tiles")));
        };
        // One statement per polyhedron of its instances, disjoint.
        let pieces = match set.n_basic_set().map_err(isl_err)? {
            1 => set,
            _ => set.make_disjoint().map_err(isl_err)?,
        };
        let list = pieces.get_basic_set_list().map_err(isl_err)?;
        index.entry(name.clone()).or_default();
        for b in 0..list.size().map_err(isl_err)? {
            index.entry(name.clone()).or_default().push(stmts.len());
            let bset = list.get_at(b).map_err(isl_err)?;
            let piece = Set::from_basic_set(bset.copy().map_err(isl_err)?).map_err(isl_err)?;
            let Some(mut cons) = constraints(&piece, names, n_tile)? else {
                return Ok(Err(format!("{name}'s instances have local variables")));
            };
            // The constraints of the tile coordinates alone are guards, less
            // what the tiles' domain ensures (isl's gist, on the tile
            // coordinates only: cheap).
            cons.retain(|c| !c.lin.iters().is_empty());
            let outer = bset
                .drop_constraints_involving_dims(DimType::Set, n_tile as u32, n_iter as u32)
                .and_then(|b| b.remove_dims(DimType::Set, n_tile as u32, n_iter as u32))
                .and_then(|b| b.set_tuple_name(&token))
                .and_then(Set::from_basic_set)
                .map_err(isl_err)?;
            // Pieces of one body often share their tiles' constraints: each
            // distinct set is simplified once.
            let key = outer.to_str().map_err(isl_err)?.to_string();
            let guards = match gisted.get(&key) {
                Some(g) => g.copy().map_err(isl_err)?,
                None => {
                    let g = outer
                        .gist(tiles.copy().map_err(isl_err)?)
                        .map_err(isl_err)?;
                    gisted.insert(key, g.copy().map_err(isl_err)?);
                    g
                }
            };
            match constraints(&guards, names, n_tile)? {
                Some(g) => cons.extend(g),
                None => return Ok(Err(format!("{name}'s guard is not one polyhedron"))),
            }
            stmts.push(Stmt {
                name: name.clone(),
                n_iter,
                cons,
            });
        }
    }
    log::debug!(
        "tile body of {token}: {} pieces, {} guards simplified",
        stmts.len(),
        gisted.len()
    );
    let below = node.get_child(0).map_err(isl_err)?;
    let tree = match read_tree(&below, &index, names, n_tile)? {
        Ok(t) => t,
        Err(why) => return Ok(Err(why)),
    };
    let body = Body {
        depth: node.get_schedule_depth().map_err(isl_err)? as u32,
        n_tile,
        stmts,
        tree,
        ranges,
    };
    // Generated once with the tile coordinates as placeholders: a body the
    // generator refuses stays with isl.
    let placeholder = |d: usize| Ok(LoopExpr::Name(format!("T{d}")));
    if let Err(e) = body.generate(&placeholder) {
        return Ok(Err(format!("{e:?}")));
    }
    Ok(Ok((token, body)))
}

/// The constraints of `set` when it is one polyhedron without local
/// variables: its first `n_tile` dimensions tile coordinates, the others
/// iterators.
fn constraints(set: &Set, names: &Names, n_tile: usize) -> Result<Option<Vec<Con>>> {
    let list = set.get_basic_set_list().map_err(isl_err)?;
    if list.size().map_err(isl_err)? != 1 {
        return Ok(None);
    }
    let bset = list.get_at(0).map_err(isl_err)?;
    if bset.dim(DimType::Div).map_err(isl_err)? > 0 {
        return Ok(None);
    }
    let n = bset.dim(DimType::Set).map_err(isl_err)?;
    let np = bset.dim(DimType::Param).map_err(isl_err)?;
    let list = bset.get_constraint_list().map_err(isl_err)?;
    let mut out = Vec::new();
    for k in 0..list.size().map_err(isl_err)? {
        let c = list.get_at(k).map_err(isl_err)?;
        let mut lin = Lin::constant(int(c.get_constant_val().map_err(isl_err)?)?);
        for d in 0..n {
            let k = int(c.get_coefficient_val(DimType::Set, d).map_err(isl_err)?)?;
            lin = lin.plus_var(k, dim_var(d as usize, n_tile));
        }
        for p in 0..np {
            let k = int(c.get_coefficient_val(DimType::Param, p).map_err(isl_err)?)?;
            let isl = bset
                .get_dim_name(DimType::Param, p as u32)
                .map_err(isl_err)?;
            lin = lin.plus_var(k, param(isl, names));
        }
        let rel = match c.is_equality().map_err(isl_err)? {
            true => Rel::Eq,
            false => Rel::Ge,
        };
        out.push(Con { lin, rel });
    }
    Ok(Some(out))
}

/// Dimension `d` of a statement: a tile coordinate, then its iterators.
fn dim_var(d: usize, n_tile: usize) -> Var {
    match d < n_tile {
        true => Var::Tile(d),
        false => Var::Iter(d - n_tile),
    }
}

fn param(isl: &str, names: &Names) -> Var {
    Var::Param(names.c_param(isl).unwrap_or(isl).to_string())
}

/// An integer value.
fn int(v: isl_rs::Val) -> Result<i64> {
    if !v.is_int().map_err(isl_err)? {
        return Err(Error::internal("tile body: a rational coefficient"));
    }
    v.get_num_si().map_err(isl_err)
}

/// The subtree at `node` in the generator's form, or why not.
fn read_tree(
    node: &ScheduleNode,
    index: &HashMap<String, Vec<usize>>,
    names: &Names,
    n_tile: usize,
) -> Result<std::result::Result<BNode, Refusal>> {
    let child = |i: i32| -> Result<std::result::Result<BNode, Refusal>> {
        read_tree(&node.get_child(i).map_err(isl_err)?, index, names, n_tile)
    };
    let filter = |f: &ScheduleNode| -> Result<std::result::Result<Vec<usize>, Refusal>> {
        let list = f
            .filter_get_filter()
            .and_then(|u| u.get_set_list())
            .map_err(isl_err)?;
        let mut out = Vec::new();
        for i in 0..list.size().map_err(isl_err)? {
            let s = list.get_at(i).map_err(isl_err)?;
            if !s.plain_is_universe().map_err(isl_err)? {
                return Ok(Err("a filter with constraints".to_string()));
            }
            match index.get(s.get_tuple_name().map_err(isl_err)?) {
                Some(k) => out.extend(k),
                None => return Ok(Err("a filter on a statement of no tile".to_string())),
            }
        }
        Ok(Ok(out))
    };
    Ok(Ok(match node.get_type().map_err(isl_err)? {
        ScheduleNodeType::Leaf => BNode::Leaf,
        ScheduleNodeType::Mark => {
            let id = node.mark_get_id().map_err(isl_err)?;
            let mark = match Mark::from_id(id.get_name().map_err(isl_err)?) {
                Some(m @ (Mark::Simd { .. } | Mark::Threads { .. })) => m,
                other => return Ok(Err(format!("a mark {other:?} in a tile"))),
            };
            match child(0)? {
                Ok(c) => BNode::Mark(mark, Box::new(c)),
                Err(e) => return Ok(Err(e)),
            }
        }
        ScheduleNodeType::Filter => match (filter(node)?, child(0)?) {
            (Ok(keep), Ok(c)) => BNode::Filter(keep, Box::new(c)),
            (Err(e), _) | (_, Err(e)) => return Ok(Err(e)),
        },
        ScheduleNodeType::Sequence => {
            let mut children = Vec::new();
            for i in 0..node.n_children().map_err(isl_err)? {
                let f = node.get_child(i).map_err(isl_err)?;
                let keep = match filter(&f)? {
                    Ok(k) => k,
                    Err(e) => return Ok(Err(e)),
                };
                match read_tree(&f.get_child(0).map_err(isl_err)?, index, names, n_tile)? {
                    Ok(c) => children.push((keep, c)),
                    Err(e) => return Ok(Err(e)),
                }
            }
            BNode::Sequence(children)
        }
        ScheduleNodeType::Band => {
            let n = node.band_n_member().map_err(isl_err)?;
            for m in 0..n {
                if node.band_member_get_ast_loop_type(m).map_err(isl_err)? != ASTLoopType::Atomic {
                    return Ok(Err("a loop that is not atomic".to_string()));
                }
            }
            let isolate = node.band_get_ast_isolate_option().map_err(isl_err)?;
            if !isolate.is_empty().map_err(isl_err)? {
                return Ok(Err("an isolated part".to_string()));
            }
            let mupa = node.band_get_partial_schedule().map_err(isl_err)?;
            let mut members = Vec::new();
            for m in 0..n {
                let list = mupa
                    .get_at(m)
                    .and_then(|u| u.get_pw_aff_list())
                    .map_err(isl_err)?;
                let mut member = BTreeMap::new();
                for i in 0..list.size().map_err(isl_err)? {
                    let pa = list.get_at(i).map_err(isl_err)?;
                    let space = pa.get_domain_space().map_err(isl_err)?;
                    let Some(k) = index.get(space.get_tuple_name(DimType::Set).map_err(isl_err)?)
                    else {
                        return Ok(Err("a member of a statement of no tile".to_string()));
                    };
                    if pa.n_piece().map_err(isl_err)? != 1 {
                        return Ok(Err("a piecewise member".to_string()));
                    }
                    let aff = pa.as_aff().map_err(isl_err)?;
                    match read_member(&aff, names, n_tile)? {
                        Some(mb) => {
                            for piece in k {
                                member.insert(*piece, mb.clone());
                            }
                        }
                        None => return Ok(Err("a member outside the vocabulary".to_string())),
                    }
                }
                members.push(member);
            }
            match child(0)? {
                Ok(c) => BNode::Band(members, Box::new(c)),
                Err(e) => return Ok(Err(e)),
            }
        }
        other => return Ok(Err(format!("a {other:?} node in a tile"))),
    }))
}

/// `aff` as a [`Member`]: integral, with at most one integer division of
/// coefficient 1 whose argument has no division itself.
fn read_member(aff: &Aff, names: &Names, n_tile: usize) -> Result<Option<Member>> {
    let den = |a: &Aff| a.get_denominator_val().and_then(|v| v.get_num_si());
    if den(aff).map_err(isl_err)? != 1 {
        return Ok(None);
    }
    // The affine part of `a`, its coefficients times `scale`.
    let affine = |a: &Aff, scale: i64| -> Result<Option<Lin>> {
        let part = |v: isl_rs::Val| -> Result<Option<i64>> {
            let (num, d) = (
                v.get_num_si().map_err(isl_err)?,
                v.get_den_si().map_err(isl_err)?,
            );
            Ok(((num * scale) % d == 0).then(|| num * scale / d))
        };
        let Some(c) = part(a.get_constant_val().map_err(isl_err)?)? else {
            return Ok(None);
        };
        let mut lin = Lin::constant(c);
        for d in 0..a.dim(DimType::In).map_err(isl_err)? {
            let Some(k) = part(a.get_coefficient_val(DimType::In, d).map_err(isl_err)?)? else {
                return Ok(None);
            };
            lin = lin.plus_var(k, dim_var(d as usize, n_tile));
        }
        for p in 0..a.dim(DimType::Param).map_err(isl_err)? {
            let Some(k) = part(a.get_coefficient_val(DimType::Param, p).map_err(isl_err)?)? else {
                return Ok(None);
            };
            let isl = a.get_dim_name(DimType::Param, p as u32).map_err(isl_err)?;
            lin = lin.plus_var(k, param(isl, names));
        }
        Ok(Some(lin))
    };
    let Some(lin) = affine(aff, 1)? else {
        return Ok(None);
    };
    let mut div = None;
    for k in 0..aff.dim(DimType::Div).map_err(isl_err)? {
        let c = aff.get_coefficient_val(DimType::Div, k).map_err(isl_err)?;
        match int(c)? {
            0 => continue,
            1 if div.is_none() => {}
            _ => return Ok(None),
        }
        // `e / d`: the division's argument over its denominator.
        let e = aff.get_div(k).map_err(isl_err)?;
        let d = den(&e).map_err(isl_err)?;
        for j in 0..e.dim(DimType::Div).map_err(isl_err)? {
            if int(e.get_coefficient_val(DimType::Div, j).map_err(isl_err)?)? != 0 {
                return Ok(None);
            }
        }
        let Some(num) = affine(&e, d)? else {
            return Ok(None);
        };
        div = Some((num, d));
    }
    Ok(Some(Member { lin, div }))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::backend::ast::AstReader;
    use crate::backend::tree::BinOp;
    use crate::model::isl_ext::{ast_from_schedule, new_context};
    use isl_rs::{Context, Schedule};

    /// Statement instances in execution order.
    pub(crate) type Trace = Vec<(String, Vec<i64>)>;

    /// Parameter values by name.
    pub(crate) type Params = HashMap<String, i64>;

    /// The statement instances `nodes` execute, in order, with the
    /// parameters `n`.
    pub(crate) fn run(nodes: &[Node], n: &Params, env: &mut HashMap<u32, i64>, out: &mut Trace) {
        for node in nodes {
            match node {
                Node::For {
                    iter: LoopExpr::Counter(k),
                    init,
                    cond,
                    inc,
                    body,
                    ..
                } => {
                    env.insert(*k, eval(init, n, env));
                    while eval(cond, n, env) != 0 {
                        run(body, n, env, out);
                        let step = eval(inc, n, env);
                        *env.get_mut(k).unwrap() += step;
                    }
                }
                Node::For { .. } => panic!("a loop without a counter"),
                Node::If { cond, then, els } => {
                    if eval(cond, n, env) != 0 {
                        run(then, n, env, out);
                    } else if let Some(e) = els {
                        run(e, n, env, out);
                    }
                }
                Node::Buffers { body, .. } => run(body, n, env, out),
                Node::Stmt { stage, args } => out.push((
                    stage.clone(),
                    args.iter().map(|a| eval(a, n, env)).collect(),
                )),
            }
        }
    }

    fn eval(e: &LoopExpr, n: &Params, env: &HashMap<u32, i64>) -> i64 {
        let v = |x: &LoopExpr| eval(x, n, env);
        match e {
            LoopExpr::Int(i) => *i,
            LoopExpr::Param(p) | LoopExpr::Name(p) => n[p],
            LoopExpr::Counter(k) => env[k],
            LoopExpr::Neg(a) => -v(a),
            LoopExpr::Min(xs) => xs.iter().map(v).min().unwrap(),
            LoopExpr::Max(xs) => xs.iter().map(v).max().unwrap(),
            LoopExpr::FloorDiv(a, d) => v(a).div_euclid(v(d)),
            // isl's exact and non-negative divisions, the generator's exact ones.
            LoopExpr::Select(c, a, b) => match v(c) != 0 {
                true => v(a),
                false => v(b),
            },
            LoopExpr::Op(op, a, b) => {
                let (a, b) = (v(a), v(b));
                match op {
                    BinOp::And => (a != 0 && b != 0) as i64,
                    BinOp::Or => (a != 0 || b != 0) as i64,
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => a.div_euclid(b),
                    BinOp::Rem => a % b,
                    BinOp::Eq => (a == b) as i64,
                    BinOp::Le => (a <= b) as i64,
                    BinOp::Lt => (a < b) as i64,
                    BinOp::Ge => (a >= b) as i64,
                    BinOp::Gt => (a > b) as i64,
                }
            }
        }
    }

    fn names() -> Names {
        Names {
            params: [("N".to_string(), "N".to_string())].into(),
        }
    }

    /// The instances isl's code and the tile body generator's code of
    /// `yaml` execute, for `N` from 0 to 40; asserts the generator took
    /// `cut` tile bodies.
    fn both(ctx: &Context, yaml: &str, cut: usize) -> Vec<(i64, Trace, Trace)> {
        let schedule = Schedule::read_from_str(ctx, yaml).unwrap();
        let context = Set::read_from_str(ctx, "[N] -> { : N >= 0 }").unwrap();
        let isl = ast_from_schedule(&schedule, &context, 0).unwrap().unwrap();
        let isl = AstReader::new(&names()).read(&isl).unwrap();
        let (mine, bodies) = super::cut(&schedule, &context, &names()).unwrap();
        assert_eq!(bodies.len(), cut);
        let mine = ast_from_schedule(&mine, &context, 0).unwrap().unwrap();
        let mine = AstReader::new(&names())
            .with_tile_bodies(&bodies)
            .read(&mine)
            .unwrap();
        (0..=40)
            .map(|n| {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let p = HashMap::from([("N".to_string(), n)]);
                run(&isl, &p, &mut HashMap::new(), &mut a);
                run(&mine, &p, &mut HashMap::new(), &mut b);
                (n, a, b)
            })
            .collect()
    }

    /// A 1-D group of two stages (`A` over a halo of 1, `B` at half
    /// resolution in a loop of its own), tiles of 8.
    fn group(points: &str) -> String {
        format!(
            r#"domain: "[N] -> {{ A_t[T0] : T0 >= 0 and 8T0 <= N }}"
child:
  schedule: "[N] -> [{{ A_t[T0] -> [(T0)] }}]"
  options: "{{ atomic[0] }}"
  child:
    mark: "tile_storage_0"
    child:
      contraction: "[N] -> {{ A[T0, i] -> A_t[(T0)]; B[T0, i] -> A_t[(T0)] }}"
      expansion: "[N] -> {{ A_t[T0] -> A[T0' = T0, i] : T0 >= 0 and 8T0 <= N and -1 + 8T0 <= i <= 8 + 8T0 and 0 <= i <= N; A_t[T0] -> B[T0' = T0, i] : T0 >= 0 and 8T0 <= N and 4T0 <= i <= 3 + 4T0 and 2i <= N }}"
      child:
{points}"#
        )
    }

    #[test]
    fn generated_bodies_run_the_instances_isl_runs_in_its_order() {
        let ctx = new_context();
        // Fused, B scaled: every value of the loop, B where it is even.
        let fused = r#"        schedule: "[N] -> [{ A[T0, i] -> [(i)]; B[T0, i] -> [(2i)] }]"
        options: "{ atomic[0] }"
        child:
          sequence:
          - filter: "{ A[T0, i] }"
          - filter: "{ B[T0, i] }""#;
        // Chunks of 4 fused, each stage's loop inside (B's scaled by 2).
        let chunked = r#"        schedule: "[N] -> [{ A[T0, i] -> [(floor((i - 8T0)/4))]; B[T0, i] -> [(floor((2i - 8T0)/4))] }]"
        options: "{ atomic[0] }"
        child:
          sequence:
          - filter: "{ A[T0, i] }"
            child:
              mark: "simd_2"
              child:
                schedule: "[N] -> [{ A[T0, i] -> [(1 + i)] }]"
                options: "{ atomic[0] }"
          - filter: "{ B[T0, i] }"
            child:
              schedule: "[N] -> [{ B[T0, i] -> [(2i)] }]"
              options: "{ atomic[0] }""#;
        for points in [fused, chunked] {
            for (n, isl, mine) in both(&ctx, &group(points), 1) {
                assert_eq!(isl, mine, "N = {n}:\n{points}");
                assert!(n < 1 || !mine.is_empty());
            }
        }
    }

    #[test]
    fn a_body_outside_the_vocabulary_stays_with_isl() {
        let ctx = new_context();
        // A loop isl separates (not atomic).
        let separated = r#"        schedule: "[N] -> [{ A[T0, i] -> [(i)]; B[T0, i] -> [(2i)] }]"
        child:
          sequence:
          - filter: "{ A[T0, i] }"
          - filter: "{ B[T0, i] }""#;
        for (n, isl, mine) in both(&ctx, &group(separated), 0) {
            assert_eq!(isl, mine, "N = {n}");
        }
    }

    /// The schedules `flextile --dump-schedule` printed into the files of
    /// the folder `FLEXTILE_TILE_BODY_DUMPS`: isl's code and the
    /// generator's run the same instances in the same order, for a sample
    /// of small parameter values.
    #[test]
    #[ignore]
    fn dumped_schedules_run_alike() {
        let dir = std::env::var("FLEXTILE_TILE_BODY_DUMPS")
            .expect("FLEXTILE_TILE_BODY_DUMPS: a folder of --dump-schedule output");
        let (mut checked, mut cut_bodies) = (0, 0);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            for part in text.split("# final schedule of the region at ").skip(1) {
                let yaml: String = part
                    .lines()
                    .skip(1)
                    .take_while(|l| !l.starts_with("flextile"))
                    .collect::<Vec<_>>()
                    .join("\n");
                let ctx = new_context();
                let Ok(schedule) = Schedule::read_from_str(&ctx, &yaml) else {
                    continue;
                };
                let domain = schedule.get_domain().unwrap();
                let params = domain.copy().unwrap().params().unwrap();
                let params =
                    Set::from_union_set(isl_rs::UnionSet::from_set(params).unwrap()).unwrap();
                let np = params.dim(DimType::Param).unwrap();
                let pnames: Vec<String> = (0..np)
                    .map(|p| {
                        params
                            .get_dim_name(DimType::Param, p as u32)
                            .unwrap()
                            .to_string()
                    })
                    .collect();
                let names = Names {
                    params: pnames.iter().map(|p| (p.clone(), p.clone())).collect(),
                };
                let (mine, bodies) = super::cut(&schedule, &params, &names).unwrap();
                if bodies.is_empty() {
                    continue;
                }
                cut_bodies += bodies.len();
                let isl = ast_from_schedule(&schedule, &params, 0).unwrap().unwrap();
                let isl = AstReader::new(&names).read(&isl).unwrap();
                let mine = ast_from_schedule(&mine, &params, 0).unwrap().unwrap();
                let mine = AstReader::new(&names)
                    .with_tile_bodies(&bodies)
                    .read(&mine)
                    .unwrap();
                for bound in [7, 13, 24] {
                    let conds: Vec<String> =
                        pnames.iter().map(|p| format!("{p} <= {bound}")).collect();
                    let small = Set::read_from_str(
                        &ctx,
                        &format!("[{}] -> {{ : {} }}", pnames.join(", "), conds.join(" and ")),
                    )
                    .unwrap();
                    let sample = params.copy().unwrap().intersect(small).unwrap();
                    if sample.is_empty().unwrap() {
                        continue;
                    }
                    let point = sample.sample_point().unwrap();
                    let values: Params = pnames
                        .iter()
                        .enumerate()
                        .map(|(i, p)| {
                            (
                                p.clone(),
                                point
                                    .get_coordinate_val(DimType::Param, i as i32)
                                    .unwrap()
                                    .get_num_si()
                                    .unwrap(),
                            )
                        })
                        .collect();
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    run(&isl, &values, &mut HashMap::new(), &mut a);
                    run(&mine, &values, &mut HashMap::new(), &mut b);
                    assert!(a == b, "{}: {values:?}: {} instances by isl, {} by the generator; first difference at {:?}", path.display(), a.len(), b.len(), a.iter().zip(&b).position(|(x, y)| x != y));
                    checked += 1;
                }
            }
        }
        assert!(checked > 0, "no tile body of {dir} was checked");
        eprintln!("{checked} runs of {cut_bodies} tile bodies alike");
    }
}
