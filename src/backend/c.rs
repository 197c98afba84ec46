//! Prints flextile's loop tree ([`CNode`]) as C: loops, guards, OpenMP
//! pragmas, and stage bodies instantiated from their templates.

use crate::backend::ast::CNode;
use crate::diag::{Error, Result};
use crate::model::expr::Expr;
use crate::model::program::{AccessKind, Stage};
use crate::model::storage::{
    Affine, Alloc, Buffer, Condition, GroupStorage, Load, Placement, Slide, StmtRole, StoragePlan,
    Term,
};
use std::cell::Cell;
use std::collections::HashMap;

/// One indentation level of generated code.
const INDENT: &str = "  ";

/// The OpenMP lines of parallel loops (from the templates).
pub struct OmpLines {
    /// Before a parallel loop: `#pragma omp parallel for`.
    pub parallel_for: String,
    /// Before the block of a team of threads that allocate their own
    /// buffers: `#pragma omp parallel`.
    pub team: String,
    /// Before a parallel loop inside such a block: `#pragma omp for`.
    pub team_for: String,
}

/// Prints loop trees of one region.
pub struct CPrinter<'a> {
    stages: HashMap<&'a str, &'a Stage>,
    /// The region's stages in order (a store names its stage by index).
    by_index: &'a [Stage],
    /// The OpenMP lines.
    omp: OmpLines,
    /// The group whose tile buffers the threads of the parallel loop now
    /// printed allocated on their heaps (before the loop), if any.
    hoisted: Cell<Option<usize>>,
    /// Whether the code printed now runs in a team's block, outside its
    /// worksharing loops (a parallel loop is then an `omp for`).
    in_team: Cell<bool>,
    /// The region's storage plan (buffers and generated statements).
    storage: Option<&'a StoragePlan>,
    /// Prefix of buffer names.
    prefix: String,
    /// C type of loop counters.
    counter_type: &'static str,
}

impl<'a> CPrinter<'a> {
    /// A printer for the given stages.
    pub fn new(
        stages: &'a [Stage],
        omp: OmpLines,
        storage: Option<&'a StoragePlan>,
        prefix: &str,
        counter_type: &'static str,
    ) -> CPrinter<'a> {
        CPrinter {
            stages: stages.iter().map(|s| (s.name.as_str(), s)).collect(),
            by_index: stages,
            omp,
            hoisted: Cell::new(None),
            in_team: Cell::new(false),
            storage,
            prefix: prefix.to_string(),
            counter_type,
        }
    }

    /// Appends `nodes` to `out`, each line prefixed by `indent`.
    pub fn print(&self, nodes: &[CNode], indent: &str, out: &mut String) -> Result<()> {
        for n in nodes {
            self.node(n, indent, out)?;
        }
        Ok(())
    }

    fn node(&self, n: &CNode, indent: &str, out: &mut String) -> Result<()> {
        if let Some(group) = self.per_thread_tiles(n) {
            return self.per_thread_team(n, group, indent, out);
        }
        let inner = format!("{indent}{INDENT}");
        match n {
            CNode::For {
                iter,
                init,
                cond,
                inc,
                body,
                parallel,
            } => {
                // The body of a worksharing loop is not the team's block.
                let in_team = self.in_team.get();
                if *parallel {
                    let line = match in_team {
                        true => &self.omp.team_for,
                        false => &self.omp.parallel_for,
                    };
                    out.push_str(&format!("{indent}{line}\n"));
                    self.in_team.set(false);
                }
                let step = if inc == "1" {
                    format!("{iter}++")
                } else {
                    format!("{iter} += {inc}")
                };
                out.push_str(&format!(
                    "{indent}for ({} {iter} = {init}; {cond}; {step}) {{\n",
                    self.counter_type
                ));
                self.print(body, &inner, out)?;
                self.in_team.set(in_team);
                out.push_str(&format!("{indent}}}\n"));
            }
            CNode::If { cond, then, els } => {
                out.push_str(&format!("{indent}if ({cond}) {{\n"));
                self.print(then, &inner, out)?;
                match els {
                    Some(e) => {
                        out.push_str(&format!("{indent}}} else {{\n"));
                        self.print(e, &inner, out)?;
                        out.push_str(&format!("{indent}}}\n"));
                    }
                    None => out.push_str(&format!("{indent}}}\n")),
                }
            }
            CNode::Stmt { stage, args } => self.statement(stage, args, indent, out)?,
            CNode::Buffers {
                at: at @ Placement::Scope { .. },
                body,
            } => {
                let buffers: Vec<&Buffer> = self
                    .storage
                    .iter()
                    .flat_map(|s| s.buffers_at(*at))
                    .collect();
                // Per-thread buffers: each thread of a team allocates its
                // own, then shares out the parallel loops (`omp for`). Where
                // isl generated no parallel loop, the code runs serially.
                let team = buffers.iter().any(|b| b.alloc == Alloc::PerThread)
                    && match team_shape(body) {
                        TeamShape::Worksharing => true,
                        TeamShape::Serial => false,
                        TeamShape::Mixed => {
                            return Err(Error::internal(format!(
                                "buffer scope {at:?}: statements outside the parallel loops \
                                 of a team that allocates per-thread buffers"
                            )))
                        }
                    };
                out.push_str(&format!("{indent}{{\n"));
                let inner = match team {
                    true => {
                        out.push_str(&format!("{inner}{}\n{inner}{{\n", self.omp.team));
                        format!("{inner}{INDENT}")
                    }
                    false => inner,
                };
                out.push_str(&self.declarations(&buffers, &inner));
                let was = self.in_team.replace(team);
                self.print(body, &inner, out)?;
                self.in_team.set(was);
                for b in buffers
                    .iter()
                    .filter(|b| b.alloc.is_heap() && b.pool.is_none())
                {
                    out.push_str(&format!(
                        "{inner}__builtin_free({});\n",
                        scratch_name(&self.prefix, b)
                    ));
                }
                let mut pools: Vec<usize> = buffers.iter().filter_map(|b| b.pool).collect();
                pools.sort_unstable();
                pools.dedup();
                for p in pools {
                    out.push_str(&format!("{inner}__builtin_free({}pool{p});\n", self.prefix));
                }
                if team {
                    out.push_str(&format!("{indent}{INDENT}}}\n"));
                }
                out.push_str(&format!("{indent}}}\n"));
            }
            CNode::Buffers {
                at: at @ Placement::Tile { .. },
                body,
            } => {
                out.push_str(&format!("{indent}{{\n"));
                let buffers: Vec<&Buffer> = self
                    .storage
                    .iter()
                    .flat_map(|s| s.buffers_at(*at))
                    .collect();
                let array = |sp: &Buffer| {
                    let dims: String = sp
                        .extents
                        .iter()
                        .map(|n| format!("[{}]", offset_text(n, &param_term)))
                        .collect();
                    format!("{} {}{}{dims}", sp.elem_type, self.prefix, sp.name)
                };
                let mut pools_done = Vec::new();
                let (heap, buffers): (Vec<&Buffer>, Vec<&Buffer>) =
                    buffers.into_iter().partition(|b| b.alloc.is_heap());
                // Heap buffers no thread allocated for its tiles: each tile
                // allocates its own.
                let own_heap = match (at, self.hoisted.get()) {
                    (Placement::Tile { group }, Some(h)) if *group == h => Vec::new(),
                    _ => heap,
                };
                out.push_str(&self.tile_heap_declarations(&own_heap, &inner));
                for sp in &buffers {
                    // Cache-line aligned. The explicit alignment also makes
                    // gcc 12 realign the OpenMP outlined function's frame: at
                    // -O3 -march=native it otherwise vectorised fused point
                    // loops with 32-byte aligned loads from arrays the frame
                    // only aligned to 16 (heat-1d --rectangle crashed).
                    match sp.pool {
                        None => out.push_str(&format!(
                            "{inner}{} __attribute__((aligned(64))); /* tile-local '{}' */\n",
                            array(sp),
                            sp.data.join("', '")
                        )),
                        Some(p) if !pools_done.contains(&p) => {
                            pools_done.push(p);
                            let members: Vec<&&Buffer> =
                                buffers.iter().filter(|b| b.pool == Some(p)).collect();
                            let fields: String =
                                members.iter().map(|b| format!(" {};", array(b))).collect();
                            let data: Vec<String> =
                                members.iter().map(|b| b.data.join("', '")).collect();
                            out.push_str(&format!(
                                "{inner}union {{{fields} }} {}shared{p} __attribute__((aligned(64))); /* tile-local '{}', lifetimes apart */\n",
                                self.prefix,
                                data.join("', '")
                            ));
                        }
                        Some(_) => {}
                    }
                }
                self.print(body, &inner, out)?;
                out.push_str(&tile_heap_frees(&self.prefix, &own_heap, &inner));
                out.push_str(&format!("{indent}}}\n"));
            }
        }
        Ok(())
    }

    /// The group whose tile buffers the threads running `n` allocate first:
    /// `n` is a parallel loop (no such allocation printed around it yet) and
    /// the tiles in it are all of one group, whose buffers live on the heap.
    fn per_thread_tiles(&self, n: &CNode) -> Option<usize> {
        let CNode::For {
            parallel: true,
            body,
            ..
        } = n
        else {
            return None;
        };
        if self.hoisted.get().is_some() {
            return None;
        }
        let mut groups = Vec::new();
        tile_groups(body, &mut groups);
        let [group] = groups[..] else {
            return None;
        };
        let storage = self.storage?;
        storage
            .buffers_at(Placement::Tile { group })
            .any(|b| b.alloc == Alloc::PerThread)
            .then_some(group)
    }

    /// Prints the parallel loop `n` inside a team of threads that each
    /// allocate the heap buffers of `group`'s tiles once, before the loop's
    /// `omp for`, and free them after it.
    fn per_thread_team(
        &self,
        n: &CNode,
        group: usize,
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let storage = self
            .storage
            .ok_or_else(|| Error::internal("tile buffers without a storage plan"))?;
        let heap: Vec<&Buffer> = storage
            .buffers_at(Placement::Tile { group })
            .filter(|b| b.alloc.is_heap())
            .collect();
        let was_team = self.in_team.get();
        let mut inner = format!("{indent}{INDENT}");
        out.push_str(&format!("{indent}{{\n"));
        if !was_team {
            out.push_str(&format!("{inner}{}\n{inner}{{\n", self.omp.team));
            inner.push_str(INDENT);
        }
        out.push_str(&self.tile_heap_declarations(&heap, &inner));
        self.in_team.set(true);
        self.hoisted.set(Some(group));
        let printed = self.node(n, &inner, out);
        self.hoisted.set(None);
        self.in_team.set(was_team);
        printed?;
        out.push_str(&tile_heap_frees(&self.prefix, &heap, &inner));
        if !was_team {
            out.push_str(&format!("{indent}{INDENT}}}\n"));
        }
        out.push_str(&format!("{indent}}}\n"));
        Ok(())
    }

    /// Declarations of a tile's heap buffers (a pool once, as a pointer to
    /// its union): each allocated with `malloc`, its start aligned to a
    /// cache line, as the stack arrays are.
    fn tile_heap_declarations(&self, heap: &[&Buffer], indent: &str) -> String {
        let prefix = &self.prefix;
        let array = |sp: &Buffer, star: bool| {
            let dims: String = sp
                .extents
                .iter()
                .skip(usize::from(star))
                .map(|n| format!("[{}]", offset_text(n, &param_term)))
                .collect();
            match star {
                true => format!("{} (*restrict {prefix}{}){dims}", sp.elem_type, sp.name),
                false => format!("{} {prefix}{}{dims}", sp.elem_type, sp.name),
            }
        };
        let mut out = String::new();
        let mut pools_done = Vec::new();
        for sp in heap {
            let (pointer, bytes, what) = match sp.pool {
                None => (
                    array(sp, true),
                    format!(
                        "sizeof({}){}",
                        sp.elem_type,
                        sp.extents
                            .iter()
                            .map(|n| format!(" * (size_t){}", offset_text(n, &param_term)))
                            .collect::<String>()
                    ),
                    format!("'{}'", sp.data.join("', '")),
                ),
                Some(p) if !pools_done.contains(&p) => {
                    pools_done.push(p);
                    let members: Vec<&&Buffer> =
                        heap.iter().filter(|b| b.pool == Some(p)).collect();
                    let fields: String = members
                        .iter()
                        .map(|b| format!(" {};", array(b, false)))
                        .collect();
                    let data: Vec<String> = members.iter().map(|b| b.data.join("', '")).collect();
                    (
                        format!("union {{{fields} }} *restrict {prefix}shared{p}"),
                        format!("sizeof(*{prefix}shared{p})"),
                        format!("'{}', lifetimes apart", data.join("', '")),
                    )
                }
                Some(_) => continue,
            };
            let name = heap_name(prefix, sp);
            out.push_str(&format!(
                "{indent}{pointer}; /* tile-local {what}, on the heap */\n\
                 {indent}void *{name}_mem = __builtin_malloc({bytes} + 63);\n\
                 {indent}if (!{name}_mem)\n\
                 {indent}  __builtin_abort();\n\
                 {indent}{name} = __builtin_assume_aligned((void *)(((__UINTPTR_TYPE__){name}_mem + 63) & ~(__UINTPTR_TYPE__)63), 64);\n"
            ));
        }
        out
    }
}

/// The C variable of a tile heap buffer: its pool's pointer, or its own.
fn heap_name(prefix: &str, sp: &Buffer) -> String {
    match sp.pool {
        Some(p) => format!("{prefix}shared{p}"),
        None => format!("{prefix}{}", sp.name),
    }
}

/// The `free`s of a tile's heap buffers (a pool once).
fn tile_heap_frees(prefix: &str, heap: &[&Buffer], indent: &str) -> String {
    let mut names: Vec<String> = Vec::new();
    for n in heap.iter().map(|b| heap_name(prefix, b)) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
        .iter()
        .map(|n| format!("{indent}__builtin_free({n}_mem);\n"))
        .collect()
}

/// The groups of the tile buffer blocks in `nodes`.
fn tile_groups(nodes: &[CNode], groups: &mut Vec<usize>) {
    for n in nodes {
        match n {
            CNode::Buffers {
                at: Placement::Tile { group },
                body,
            } => {
                if !groups.contains(group) {
                    groups.push(*group);
                }
                tile_groups(body, groups);
            }
            CNode::For { body, .. } | CNode::Buffers { body, .. } => tile_groups(body, groups),
            CNode::If { then, els, .. } => {
                tile_groups(then, groups);
                if let Some(e) = els {
                    tile_groups(e, groups);
                }
            }
            CNode::Stmt { .. } => {}
        }
    }
}

impl CPrinter<'_> {
    /// Prints one statement instance: a stage body (with its accesses to
    /// tile-local data redirected to scratchpads) or a store statement.
    fn statement(
        &self,
        stage: &str,
        args: &[String],
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let found = self.storage.and_then(|p| Some((p, p.group_of(stage)?)));
        let group = found.map(|(p, (g, storage))| Tile {
            plan: p,
            group: g,
            storage,
        });
        let role = group.and_then(|g| g.storage.statements.get(stage));
        let stored = match (role, group) {
            (Some(StmtRole::Load(l)), Some(g)) => {
                return load(&self.prefix, g, l, args, indent, out)
            }
            (Some(StmtRole::Slide(sl)), Some(g)) => {
                return slide(&self.prefix, g, sl, args, indent, out)
            }
            (Some(StmtRole::Store { stage }), Some(g)) => Some((g, *stage)),
            _ => None,
        };
        let s = match stored {
            Some((_, k)) => self.by_index.get(k),
            None => self.stages.get(stage).copied(),
        };
        let Some(s) = s else {
            return Err(Error::internal(format!(
                "AST names unknown statement {stage}"
            )));
        };
        let tile_dims = group
            .map(|g| g.storage.tile_dims)
            .unwrap_or(0)
            .min(args.len());
        let (tile, iters) = args.split_at(if args.len() > s.iterators.len() {
            tile_dims
        } else {
            0
        });
        let iters: Vec<String> = iters.iter().map(|a| wrap(a)).collect();
        let tile: Vec<String> = tile.iter().map(|a| wrap(a)).collect();
        if let Some((g, _)) = stored {
            out.push_str(&format!(
                "{indent}/* {}: store its own tile part */\n",
                s.name
            ));
            for a in s.analysed().unwrap_or_default() {
                if a.kind != AccessKind::Write || g.storage.unstored.contains(&a.data) {
                    continue;
                }
                if let Some(sp) = g.buffer(&a.data) {
                    let target =
                        format!("{}{}", a.data, subscripts(&a.index, &s.iterators, &iters));
                    out.push_str(&format!(
                        "{indent}{target} = {};\n",
                        scratch_access(&self.prefix, sp, &a.index, &s.iterators, &iters, &tile)
                    ));
                }
            }
            return Ok(());
        }
        let scoped = |data: &str| self.storage.and_then(|p| p.scope_buffer(data));
        let text = match s.analysed() {
            Some(analysed)
                if group.is_some() || analysed.iter().any(|a| scoped(&a.data).is_some()) =>
            {
                s.body.instantiate_with(&iters, &mut |k| {
                    let a = analysed.get(k)?;
                    let sp = group
                        .and_then(|g| g.buffer(&a.data))
                        .or_else(|| scoped(&a.data))?;
                    Some(scratch_access(
                        &self.prefix,
                        sp,
                        &a.index,
                        &s.iterators,
                        &iters,
                        &tile,
                    ))
                })
            }
            _ => s.body.instantiate(&iters),
        };
        out.push_str(&format!(
            "{indent}/* {}: {} */\n",
            s.name,
            super::comment_text(&s.label)
        ));
        out.push_str(&reindent(&text, indent));
        Ok(())
    }
}

/// An overlapped group of the storage plan, as a statement in its tiles sees it.
#[derive(Clone, Copy)]
struct Tile<'a> {
    plan: &'a StoragePlan,
    group: usize,
    storage: &'a GroupStorage,
}

impl<'a> Tile<'a> {
    /// The tile buffer holding `data`.
    fn buffer(&self, data: &str) -> Option<&'a Buffer> {
        self.plan.tile_buffer(self.group, data)
    }
}

/// A load statement: one element of `data` copied into its scratchpad,
/// under the load's guard when it has one.
fn load(
    prefix: &str,
    storage: Tile<'_>,
    l: &Load,
    args: &[String],
    indent: &str,
    out: &mut String,
) -> Result<()> {
    let data = &l.data;
    let Some(sp) = storage.buffer(data) else {
        return Err(Error::internal(format!(
            "load of '{data}' without a scratchpad"
        )));
    };
    let (tile, index) = args.split_at(storage.storage.tile_dims.min(args.len()));
    let names: Vec<String> = (0..index.len()).map(|d| format!("ft_x{d}")).collect();
    let vars: Vec<Expr> = names.iter().map(|n| Expr::Var(n.clone())).collect();
    let values: Vec<String> = index.iter().map(|a| wrap(a)).collect();
    let tile: Vec<String> = tile.iter().map(|a| wrap(a)).collect();
    let copy = format!(
        "{} = {}{};",
        scratch_access(prefix, sp, &vars, &names, &values, &tile),
        l.source,
        subscripts(&vars, &names, &values)
    );
    match &l.guard {
        None => out.push_str(&format!("{indent}{copy}\n")),
        Some(g) => {
            let term = |t: &Term| match t {
                Term::Index(d) => values.get(*d).cloned().unwrap_or_default(),
                Term::Tile(d) => tile.get(*d).cloned().unwrap_or_default(),
                Term::Param(p) => p.clone(),
            };
            out.push_str(&format!(
                "{indent}if ({})\n{indent}  {copy}\n",
                c_condition(g, &term)
            ));
        }
    }
    Ok(())
}

/// C text of a [`Condition`] (`1` when it has a disjunct with no
/// constraint, `0` when it has no disjunct); `term` gives each term's C text.
fn c_condition(g: &Condition, term: &dyn Fn(&Term) -> String) -> String {
    if g.disjuncts.is_empty() {
        return "0".to_string();
    }
    let mut ors = Vec::new();
    for conj in &g.disjuncts {
        if conj.is_empty() {
            return "1".to_string();
        }
        let ands: Vec<String> = conj
            .iter()
            .map(|(e, eq)| {
                let op = if *eq { "==" } else { ">=" };
                format!("{} {op} 0", c_expr(&e.to_expr(term), &|_| None))
            })
            .collect();
        ors.push(format!("({})", ands.join(" && ")));
    }
    ors.join(" || ")
}

/// A slide statement: one scratchpad element moved down by one tile along the
/// classically tiled loop (`ft_D[x0][x1] = ft_D[x0][x1 + step]`).
fn slide(
    prefix: &str,
    storage: Tile<'_>,
    sl: &Slide,
    args: &[String],
    indent: &str,
    out: &mut String,
) -> Result<()> {
    let Some(sp) = storage.buffer(&sl.data) else {
        return Err(Error::internal(format!(
            "slide of '{}' without a scratchpad",
            sl.data
        )));
    };
    let (_, index) = args.split_at(storage.storage.tile_dims.min(args.len()));
    let to: String = index.iter().map(|a| format!("[{a}]")).collect();
    let from: String = index
        .iter()
        .enumerate()
        .map(|(d, a)| {
            if d == sl.dim {
                format!("[{} + {}]", wrap(a), sl.step)
            } else {
                format!("[{a}]")
            }
        })
        .collect();
    let name = scratch_name(prefix, sp);
    out.push_str(&format!("{indent}{name}{to} = {name}{from};\n"));
    Ok(())
}

/// `[e0][e1]...` with the stage's iterators replaced by their values.
fn subscripts(index: &[Expr], iterators: &[String], values: &[String]) -> String {
    let subst = |v: &str| {
        iterators
            .iter()
            .position(|i| i == v)
            .and_then(|k| values.get(k).cloned())
    };
    index
        .iter()
        .map(|e| format!("[{}]", c_expr(e, &subst)))
        .collect()
}

/// The buffer element for data index `index`, by the buffer's index
/// function: `ft_D[x0 - (o0)][(x1 - (o1)) % m1]`; a dimension of modulus 1
/// is dropped, and a zero offset of a buffer scope's buffer is not written.
fn scratch_access(
    prefix: &str,
    sp: &Buffer,
    index: &[Expr],
    iterators: &[String],
    values: &[String],
    tile: &[String],
) -> String {
    let subst = |v: &str| {
        iterators
            .iter()
            .position(|i| i == v)
            .and_then(|k| values.get(k).cloned())
    };
    let term = |t: &Term| match t {
        Term::Tile(d) => tile.get(*d).cloned().unwrap_or_default(),
        Term::Index(d) => values.get(*d).cloned().unwrap_or_default(),
        Term::Param(p) => p.clone(),
    };
    let tile_buffer = matches!(sp.placement, Placement::Tile { .. });
    let subs: String = index
        .iter()
        .enumerate()
        .filter_map(|(d, e)| {
            let m = sp.index.moduli.get(d).copied().flatten();
            if m == Some(1) {
                return None;
            }
            let x = c_expr(e, &subst);
            let shifted = match sp.index.offsets.get(d) {
                Some(o) if tile_buffer || *o != Affine::constant(0) => {
                    format!("{x} - ({})", offset_text(o, &term))
                }
                _ => x,
            };
            Some(match m {
                None => format!("[{shifted}]"),
                Some(m) => format!("[({shifted}) % {m}]"),
            })
        })
        .collect();
    format!("{}{subs}", scratch_name(prefix, sp))
}

/// C text of an offset of an index function.
fn offset_text(o: &Affine, term: &dyn Fn(&Term) -> String) -> String {
    c_expr(&o.to_expr(term), &|_| None)
}

/// A term of an extent, which may name parameters only.
fn param_term(t: &Term) -> String {
    match t {
        Term::Param(p) => p.clone(),
        Term::Tile(d) | Term::Index(d) => format!("/* not a parameter: {d} */ 0"),
    }
}

/// What runs in the block of a team of threads: only parallel loops (and
/// the conditions and serial loops around them), no parallel loop, or both
/// parallel loops and statements outside them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TeamShape {
    Worksharing,
    Serial,
    Mixed,
}

fn team_shape(nodes: &[CNode]) -> TeamShape {
    let mut shapes = Vec::new();
    for n in nodes {
        match n {
            CNode::For { parallel: true, .. } => shapes.push(TeamShape::Worksharing),
            CNode::For { body, .. } | CNode::Buffers { body, .. } => shapes.push(team_shape(body)),
            CNode::If { then, els, .. } => {
                shapes.push(team_shape(then));
                if let Some(e) = els {
                    shapes.push(team_shape(e));
                }
            }
            CNode::Stmt { .. } => shapes.push(TeamShape::Serial),
        }
    }
    let has = |s| shapes.contains(&s);
    if has(TeamShape::Mixed) || (has(TeamShape::Worksharing) && has(TeamShape::Serial)) {
        TeamShape::Mixed
    } else if has(TeamShape::Worksharing) {
        TeamShape::Worksharing
    } else {
        TeamShape::Serial
    }
}

/// The extents of a scope buffer as C text, its dimensions of modulus 1 dropped.
fn scope_extents(b: &Buffer) -> Vec<String> {
    b.extents
        .iter()
        .enumerate()
        .filter(|(d, _)| b.index.moduli.get(*d).copied().flatten() != Some(1))
        .map(|(_, e)| offset_text(e, &param_term))
        .collect()
}

/// Extents as C text that are at least 1: a region that runs no iteration
/// still declares a valid type and calls a valid `malloc`.
fn positive_extents(extents: &[String]) -> Vec<String> {
    extents
        .iter()
        .map(|e| match e.parse::<i64>() {
            Ok(_) => e.clone(),
            Err(_) => format!("({e} > 0 ? {e} : 1)"),
        })
        .collect()
}

/// The size in bytes of a heap buffer, as C text.
fn heap_bytes(b: &Buffer) -> String {
    let size: String = positive_extents(&scope_extents(b))
        .iter()
        .map(|e| format!(" * (size_t){e}"))
        .collect();
    format!("sizeof({}){size}", b.elem_type)
}

impl CPrinter<'_> {
    /// The declarations of a buffer scope's buffers, each pool allocated
    /// (the size of its largest member) before its first member.
    fn declarations(&self, buffers: &[&Buffer], indent: &str) -> String {
        let mut out = String::new();
        let mut pools_done = Vec::new();
        for b in buffers {
            if let Some(p) = b.pool.filter(|p| !pools_done.contains(p)) {
                pools_done.push(p);
                let members: Vec<&&Buffer> = buffers.iter().filter(|m| m.pool == Some(p)).collect();
                let pool = format!("{}pool{p}", self.prefix);
                let data: Vec<String> = members.iter().map(|m| m.data.join("', '")).collect();
                let first = heap_bytes(members[0]);
                out.push_str(&format!(
                    "{indent}size_t {pool}_bytes = {first}; /* '{}', lifetimes apart */\n",
                    data.join("', '")
                ));
                let mut sizes: Vec<String> = members.iter().map(|m| heap_bytes(m)).collect();
                sizes.retain(|s| *s != first);
                sizes.sort();
                sizes.dedup();
                for bytes in sizes {
                    out.push_str(&format!(
                        "{indent}if ({pool}_bytes < {bytes})\n{indent}  {pool}_bytes = {bytes};\n"
                    ));
                }
                out.push_str(&format!(
                    "{indent}void *{pool} = __builtin_malloc({pool}_bytes);\n{indent}if (!{pool})\n{indent}  __builtin_abort();\n"
                ));
            }
            out.push_str(&self.declaration(b, indent));
        }
        out
    }

    /// The declaration of a buffer scope's buffer (its dimensions of modulus
    /// 1 dropped): a scalar, a stack array, or a heap array of parametric
    /// extents (a pointer into its pool, if it has one).
    fn declaration(&self, b: &Buffer, indent: &str) -> String {
        let name = scratch_name(&self.prefix, b);
        let extents = scope_extents(b);
        let what = format!("/* contracted '{}' */", b.data.join("', '"));
        // The arrays are no longer used here (no unused-parameter warning).
        let unused: String = b
            .data
            .iter()
            .map(|d| format!("{indent}(void){d};\n"))
            .collect();
        unused
            + &match b.alloc {
                Alloc::Stack => {
                    let dims: String = extents.iter().map(|e| format!("[{e}]")).collect();
                    format!("{indent}{} {name}{dims}; {what}\n", b.elem_type)
                }
                Alloc::Heap | Alloc::PerThread => {
                    let inner: String = positive_extents(&extents)
                        .iter()
                        .skip(1)
                        .map(|e| format!("[{e}]"))
                        .collect();
                    let ty = &b.elem_type;
                    match b.pool {
                        Some(p) => format!(
                            "{indent}{ty} (*{name}){inner} = {}pool{p}; {what}\n",
                            self.prefix
                        ),
                        None => format!(
                            "{indent}{ty} (*{name}){inner} = __builtin_malloc({}); {what}\n{indent}if (!{name})\n{indent}  __builtin_abort();\n",
                            heap_bytes(b)
                        ),
                    }
                }
            }
    }
}

/// The C name of a buffer (in a tile, a member of its pool's union, if it
/// has one; in a scope, a pointer into its pool).
fn scratch_name(prefix: &str, sp: &Buffer) -> String {
    match (sp.placement, sp.pool) {
        (Placement::Tile { .. }, Some(p)) if sp.alloc.is_heap() => {
            format!("{prefix}shared{p}->{prefix}{}", sp.name)
        }
        (Placement::Tile { .. }, Some(p)) => format!("{prefix}shared{p}.{prefix}{}", sp.name),
        _ => format!("{prefix}{}", sp.name),
    }
}

/// C text of an affine expression; variables for which `subst` answers are
/// replaced (by C text, parenthesised unless atomic). Linear expressions are
/// printed normalised: `32 * c0 - 6`.
fn c_expr(e: &Expr, subst: &dyn Fn(&str) -> Option<String>) -> String {
    let mut terms: Vec<(String, i64)> = Vec::new();
    let mut constant = 0i64;
    if linear(e, 1, &mut terms, &mut constant, subst) {
        let mut s = String::new();
        for (v, c) in terms.iter().filter(|(_, c)| *c != 0) {
            let (sign, mag) = if *c < 0 { ("-", -c) } else { ("+", *c) };
            let term = if mag == 1 {
                v.clone()
            } else {
                format!("{mag} * {v}")
            };
            if s.is_empty() {
                s = if sign == "-" {
                    format!("-{term}")
                } else {
                    term
                };
            } else {
                s.push_str(&format!(" {sign} {term}"));
            }
        }
        if s.is_empty() {
            return constant.to_string();
        }
        if constant != 0 {
            s.push_str(&format!(
                " {} {}",
                if constant < 0 { "-" } else { "+" },
                constant.unsigned_abs()
            ));
        }
        return s;
    }
    match e {
        Expr::Min(v) | Expr::Max(v) => {
            let op = if matches!(e, Expr::Min(_)) { "<" } else { ">" };
            let mut acc = c_expr(&v[0], subst);
            for x in &v[1..] {
                let b = c_expr(x, subst);
                acc = format!("(({acc}) {op} ({b}) ? ({acc}) : ({b}))");
            }
            acc
        }
        Expr::Div(a, b) => format!("({}) / {}", c_expr(a, subst), c_expr(b, subst)),
        Expr::Mod(a, b) => format!("({}) % {}", c_expr(a, subst), c_expr(b, subst)),
        other => other.to_string(),
    }
}

/// Accumulates `scale * e` as `sum(c * term) + constant`; false when `e` is not linear.
fn linear(
    e: &Expr,
    scale: i64,
    terms: &mut Vec<(String, i64)>,
    constant: &mut i64,
    subst: &dyn Fn(&str) -> Option<String>,
) -> bool {
    match e {
        Expr::Int(v) => {
            *constant += scale * v;
            true
        }
        Expr::Var(v) => {
            let text = subst(v).map(|t| wrap(&t)).unwrap_or_else(|| v.clone());
            match terms.iter_mut().find(|(t, _)| *t == text) {
                Some((_, c)) => *c += scale,
                None => terms.push((text, scale)),
            }
            true
        }
        Expr::Neg(a) => linear(a, -scale, terms, constant, subst),
        Expr::Add(a, b) => {
            linear(a, scale, terms, constant, subst) && linear(b, scale, terms, constant, subst)
        }
        Expr::Sub(a, b) => {
            linear(a, scale, terms, constant, subst) && linear(b, -scale, terms, constant, subst)
        }
        Expr::Mul(a, b) => match (a.constant(), b.constant()) {
            (Some(c), _) => linear(b, scale * c, terms, constant, subst),
            (_, Some(c)) => linear(a, scale * c, terms, constant, subst),
            _ => false,
        },
        _ => false,
    }
}

/// An iterator value as it replaces an iterator in a body: bare when it is a
/// name or a non-negative literal, parenthesised otherwise.
fn wrap(a: &str) -> String {
    let atomic = a.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if atomic || is_parenthesised(a) {
        a.to_string()
    } else {
        format!("({a})")
    }
}

/// True when `a` is `( ... )` with the outer parentheses matching each other.
fn is_parenthesised(a: &str) -> bool {
    if !(a.starts_with('(') && a.ends_with(')')) {
        return false;
    }
    let mut depth = 0i32;
    for (i, c) in a.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 < a.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// Re-indents a (possibly multi-line) body: its first line at `indent`, the
/// others keeping their indentation relative to each other.
fn reindent(text: &str, indent: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let min = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    // Continuation lines of a simple statement sit one level deeper than its
    // first line; the lines of a compound statement keep their own layout.
    let extra = if lines
        .first()
        .is_some_and(|l| l.trim_start().starts_with('{'))
    {
        ""
    } else {
        INDENT
    };
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        out.push_str(indent);
        if i == 0 {
            out.push_str(l.trim());
        } else {
            let lead = l.len() - l.trim_start().len();
            out.push_str(extra);
            out.push_str(&l[lead.min(min)..]);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::storage::IndexFn;

    /// A pool's allocation is freed once, its members in any order among
    /// the tile's other buffers.
    #[test]
    fn tile_heap_buffers_are_freed_once() {
        let buf = |d: &str, pool| Buffer {
            name: d.into(),
            data: vec![d.into()],
            elem_type: "float".into(),
            extents: vec![Affine::constant(1024)],
            index: IndexFn::default(),
            placement: Placement::Tile { group: 0 },
            alloc: Alloc::PerThread,
            pool,
        };
        let (a, b, c) = (buf("A", Some(0)), buf("B", None), buf("C", Some(0)));
        assert_eq!(
            tile_heap_frees("ft_", &[&a, &b, &c], ""),
            "__builtin_free(ft_shared0_mem);\n__builtin_free(ft_B_mem);\n"
        );
    }

    fn stmt() -> CNode {
        CNode::Stmt {
            stage: "S0".into(),
            args: vec![],
        }
    }

    fn for_loop(parallel: bool, body: Vec<CNode>) -> CNode {
        CNode::For {
            iter: "c0".into(),
            init: "0".into(),
            cond: "c0 < N".into(),
            inc: "1".into(),
            body,
            parallel,
        }
    }

    /// A team's block may hold parallel loops under conditions and serial
    /// loops, but no statement outside a parallel loop beside them.
    #[test]
    fn team_shapes() {
        let guarded = CNode::If {
            cond: "N > 0".into(),
            then: vec![for_loop(true, vec![stmt()])],
            els: None,
        };
        assert_eq!(team_shape(&[guarded]), TeamShape::Worksharing);
        let serial_around = for_loop(false, vec![for_loop(true, vec![stmt()])]);
        assert_eq!(team_shape(&[serial_around]), TeamShape::Worksharing);
        assert_eq!(
            team_shape(&[for_loop(false, vec![stmt()])]),
            TeamShape::Serial
        );
        let mixed = [for_loop(true, vec![stmt()]), stmt()];
        assert_eq!(team_shape(&mixed), TeamShape::Mixed);
    }

    #[test]
    fn reindents_relative() {
        let t = "{\n      a = 1;\n    }";
        assert_eq!(reindent(t, "  "), "  {\n    a = 1;\n  }\n");
        assert_eq!(reindent("a =\n        b;", ""), "a =\n  b;\n");
    }

    #[test]
    fn prints_normalised_linear_expressions() {
        let e = Expr::sum(
            Expr::Int(-6),
            Expr::product(Expr::Int(32), Expr::Var("T0".into())),
        );
        assert_eq!(
            c_expr(&e, &|v| (v == "T0").then(|| "c0".to_string())),
            "32 * c0 - 6"
        );
        let i = Expr::difference(Expr::Var("i".into()), Expr::Int(1));
        assert_eq!(c_expr(&i, &|_| Some("c1 + 2".to_string())), "(c1 + 2) - 1");
    }

    #[test]
    fn wraps_compound_values() {
        assert_eq!(wrap("c0"), "c0");
        assert_eq!(wrap("c0 + 1"), "(c0 + 1)");
        assert_eq!(wrap("(c0 + 1)"), "(c0 + 1)");
        assert_eq!(wrap("(a) + (b)"), "((a) + (b))");
    }
}
