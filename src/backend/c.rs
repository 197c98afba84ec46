//! The C target: prints flextile's loop tree ([`Node`]) as C with OpenMP:
//! loops, guards, OpenMP pragmas, and stage bodies instantiated from their
//! templates.

use crate::backend::tree::{self, LoopExpr, Node};
use crate::backend::Naming;
use crate::diag::{Error, Result};
use crate::model::expr::Expr;
use crate::model::program::{AccessKind, ReductionOp, Stage};
use crate::model::storage::{
    Affine, Alloc, Buffer, Condition, GroupStorage, Load, Placement, Slide, StmtRole, StoragePlan,
    Term,
};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};

mod buffers;
pub mod expr;

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
    /// Before a loop that carries no dependence, for the compiler's
    /// vectoriser: `#pragma omp simd`.
    pub simd_for: String,
}

impl OmpLines {
    /// No OpenMP lines (CUDA kernels: no OpenMP inside them).
    pub fn none() -> OmpLines {
        OmpLines {
            parallel_for: String::new(),
            team: String::new(),
            team_for: String::new(),
            simd_for: String::new(),
        }
    }
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
    /// The file's names (counter and helper prefixes, widths).
    naming: &'a Naming,
    /// How the user's data outside scratchpads is spelled (`None`: the
    /// statement's own text; CUDA: device buffers).
    data: Option<&'a dyn DataAccess>,
    /// The statement printed now in its register part (hybrid tiles), and
    /// how it spells its register-held accesses.
    overrides: RefCell<Option<Overrides>>,
    /// The counters of the enclosing loops printed with a `long long`
    /// counter ([`CPrinter::long_counter`]).
    long_counters: RefCell<Vec<u32>>,
}

/// How one statement, printed in the register part of a hybrid tile
/// ([`crate::model::storage::RegisterTiles`]), spells the accesses that go
/// to registers instead of its scratchpads.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// The statement (isl name).
    pub stmt: String,
    /// By the access's position among the statement's accesses.
    pub access: HashMap<usize, Spelling>,
    /// A store statement's copies, by the data set they copy.
    pub data: HashMap<String, String>,
}

/// An access spelled in a register part.
#[derive(Clone, Debug)]
pub enum Spelling {
    /// This text (a register, a shuffled value).
    Text(String),
    /// `cond ? then : els`, either side the scratchpad access where `None`.
    Select {
        /// The condition (on the lane).
        cond: String,
        /// Where it holds.
        then: Option<String>,
        /// Where it does not.
        els: Option<String>,
    },
}

/// How a printed statement spells an element of the user's data that no
/// scratchpad holds: C keeps the user's own access text, a CUDA kernel
/// reads and writes device buffers.
pub trait DataAccess {
    /// The element `data[index]`, the index over `iterators` whose values
    /// (C text) are `values`.
    fn element(
        &self,
        data: &str,
        index: &[Expr],
        iterators: &[String],
        values: &[String],
    ) -> String;

    /// The element `data[subscripts]` read or written at a data-dependent
    /// index (a gather), each subscript as C text.
    fn gather(&self, data: &str, subscripts: &[String]) -> String;
}

impl<'a> CPrinter<'a> {
    /// A printer for the given stages.
    pub fn new(
        stages: &'a [Stage],
        omp: OmpLines,
        storage: Option<&'a StoragePlan>,
        naming: &'a Naming,
    ) -> CPrinter<'a> {
        CPrinter {
            stages: stages.iter().map(|s| (s.name.as_str(), s)).collect(),
            by_index: stages,
            omp,
            hoisted: Cell::new(None),
            in_team: Cell::new(false),
            storage,
            prefix: naming.helper.clone(),
            naming,
            data: None,
            overrides: RefCell::new(None),
            long_counters: RefCell::new(Vec::new()),
        }
    }

    /// Prints the statement instances of `nodes` with `o`'s spellings for
    /// statement `o.stmt` (the register part of a hybrid tile).
    pub fn print_overridden(
        &self,
        o: Overrides,
        nodes: &[Node],
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        *self.overrides.borrow_mut() = Some(o);
        let r = self.print(nodes, indent, out);
        *self.overrides.borrow_mut() = None;
        r
    }

    /// The storage plan it prints with, if any.
    pub fn storage(&self) -> Option<&'a StoragePlan> {
        self.storage
    }

    /// The stage named `name`.
    pub fn stage(&self, name: &str) -> Option<&'a Stage> {
        self.stages.get(name).copied()
    }

    /// The same printer, spelling the user's data through `data`.
    pub fn with_data(self, data: &'a dyn DataAccess) -> CPrinter<'a> {
        CPrinter {
            data: Some(data),
            ..self
        }
    }

    /// `data[index]` as the statements spell it (see [`DataAccess`]).
    fn element(
        &self,
        data: &str,
        index: &[Expr],
        iterators: &[String],
        values: &[String],
    ) -> String {
        match self.data {
            Some(d) => d.element(data, index, iterators, values),
            None => format!("{data}{}", subscripts(index, iterators, values)),
        }
    }

    /// Appends `nodes` to `out`, each line prefixed by `indent`.
    pub fn print(&self, nodes: &[Node], indent: &str, out: &mut String) -> Result<()> {
        for n in nodes {
            self.node(n, indent, out)?;
        }
        Ok(())
    }

    /// OpenMP's clauses for the exact reductions in `body`, the body of a
    /// parallel loop (` reduction(+:s)`), one per scalar: the parallel-loop
    /// pass ignored the dependences between their instances
    /// (`transform::reductions`).
    fn reduction_clauses(&self, body: &[Node]) -> Result<String> {
        let mut by_var: BTreeMap<&str, ReductionOp> = BTreeMap::new();
        let mut todo: Vec<&Node> = body.iter().collect();
        while let Some(n) = todo.pop() {
            match n {
                Node::For { body, .. } | Node::Buffers { body, .. } => todo.extend(body),
                Node::If { then, els, .. } => {
                    todo.extend(then);
                    todo.extend(els.iter().flatten());
                }
                Node::Stmt { stage, .. } => {
                    let found = self
                        .stages
                        .get(stage.as_str())
                        .and_then(|s| s.reduction.as_ref());
                    let Some(r) = found.filter(|r| r.exact) else {
                        continue;
                    };
                    if by_var.insert(&r.var, r.op).is_some_and(|op| op != r.op) {
                        return Err(Error::internal(format!(
                            "a parallel loop reduces '{}' with two operators",
                            r.var
                        )));
                    }
                }
            }
        }
        Ok(by_var
            .iter()
            .map(|(var, op)| format!(" reduction({}:{var})", op.openmp()))
            .collect())
    }

    fn node(&self, n: &Node, indent: &str, out: &mut String) -> Result<()> {
        if let Some(group) = self.per_thread_tiles(n) {
            return self.per_thread_team(n, group, indent, out);
        }
        let inner = format!("{indent}{INDENT}");
        match n {
            Node::For {
                iter,
                init,
                cond,
                inc,
                body,
                parallel,
                simd,
                ..
            } => {
                // The body of a worksharing loop is not the team's block.
                let in_team = self.in_team.get();
                if *simd && !*parallel {
                    out.push_str(&format!("{indent}{}\n", self.omp.simd_for));
                }
                if *parallel {
                    let line = match in_team {
                        true => &self.omp.team_for,
                        false => &self.omp.parallel_for,
                    };
                    // A short loop over an independent one: the threads
                    // share the iterations of both.
                    let collapse =
                        match !line.is_empty() && tree::short_parallel_over_independent(n) {
                            true => " collapse(2)",
                            false => "",
                        };
                    let reductions = match line.is_empty() {
                        true => String::new(),
                        false => self.reduction_clauses(body)?,
                    };
                    out.push_str(&format!("{indent}{line}{collapse}{reductions}\n"));
                    self.in_team.set(false);
                }
                let long = self.long_counter(n);
                let header = match long {
                    Some(_) => expr::for_header_as("long long", iter, init, cond, inc, self.naming),
                    None => expr::for_header(iter, init, cond, inc, self.naming),
                };
                out.push_str(&format!("{indent}{header}\n"));
                self.long_counters.borrow_mut().extend(long);
                self.print(body, &inner, out)?;
                if long.is_some() {
                    self.long_counters.borrow_mut().pop();
                }
                self.in_team.set(in_team);
                out.push_str(&format!("{indent}}}\n"));
            }
            Node::If { cond, then, els } => {
                out.push_str(&format!(
                    "{indent}if ({}) {{\n",
                    expr::text(cond, self.naming)
                ));
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
            Node::Stmt { stage, args } => self.statement(stage, args, indent, out)?,
            Node::Buffers { at, body } => self.buffer_block(*at, body, indent, out)?,
        }
        Ok(())
    }
}
impl CPrinter<'_> {
    /// The counter of loop `n` where it is printed as `long long` instead of
    /// `int`: a vectorised point loop (`omp simd`) that does not start at a
    /// constant (a tile's point loops start at the tile's origin) over a
    /// statement that reads data only under a condition (an `if` or `?:` of
    /// its body). gcc's vectoriser cannot prove that an `int` subscript of
    /// such a loop does not wrap where the read is a masked load (`c >= 1 ?
    /// img[c - 1] : 0`), and falls back to a gather per element
    /// (multiscale-interp's border stage in tiles, 2.4x slower than its
    /// original loops, which start at 0). Other loops keep `int`: without
    /// conditional reads `long long` made pyramid-blend's up-sampling tiles
    /// 10-20% slower, and gcc if-converts (or splits the loop at) a
    /// conditional store, as pyramid-blend's every other column, only under
    /// an `int` counter (`tests/vectorise.rs`). The statements inside spell the
    /// counter as it is in the subscripts of their analysed accesses, and
    /// as `((int)c)` everywhere else, the type of today's counters
    /// ([`CPrinter::statement_body`]); so a loop with a statement whose
    /// subscripts are not all analysed (macros, gathers, pointer
    /// arithmetic) keeps `int`: there the casts would be in the addresses
    /// (minifluxdiv's macro bodies: 2x slower). Files with wide counters
    /// ([`Naming::wide`]) and targets without `omp simd` keep their type.
    fn long_counter(&self, n: &Node) -> Option<u32> {
        let Node::For {
            iter: LoopExpr::Counter(c),
            init,
            body,
            simd: true,
            parallel: false,
            ..
        } = n
        else {
            return None;
        };
        if self.omp.simd_for.is_empty() || self.naming.wide || matches!(init, LoopExpr::Int(_)) {
            return None;
        }
        let mut stmts = Vec::new();
        statements(body, &mut stmts);
        let mut conditional = false;
        for stage in stmts {
            let role = self
                .storage
                .and_then(|p| p.group_of(stage))
                .and_then(|(_, g)| g.statements.get(stage));
            if let Some(StmtRole::Load(_) | StmtRole::Slide(_) | StmtRole::Store { .. }) = role {
                continue; // a generated copy: flextile's own subscripts
            }
            let accesses = self.stages.get(stage).and_then(|s| s.analysed())?;
            let under_condition =
                |k: AccessKind| accesses.iter().any(|a| a.conditional && a.kind == k);
            if under_condition(AccessKind::Write) {
                return None;
            }
            conditional |= under_condition(AccessKind::Read);
        }
        conditional.then_some(*c)
    }

    /// Prints one statement instance: a stage body (with its accesses to
    /// tile-local data redirected to scratchpads) or a store statement. A
    /// statement with a register part (hybrid tiles) runs, outside it, only
    /// left of it along the split loop.
    fn statement(
        &self,
        stage: &str,
        args: &[LoopExpr],
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let overridden = self
            .overrides
            .borrow()
            .as_ref()
            .is_some_and(|o| o.stmt == stage);
        let part = self
            .storage
            .and_then(|p| p.group_of(stage))
            .and_then(|(_, g)| Some((g.tile_dims, g.registers.as_ref()?)))
            .and_then(|(dims, r)| Some((dims, r.dim, r.parts.iter().find(|p| p.stmt == stage)?)));
        match part {
            Some((dims, dim, p)) if !overridden && args.len() > dims + dim => {
                let text = |a: &LoopExpr| expr::operand(a, self.naming);
                let term = |t: &Term| match t {
                    Term::Tile(d) => args.get(*d).map(text).unwrap_or_default(),
                    Term::Index(d) => args.get(dims + d).map(text).unwrap_or_default(),
                    Term::Param(p) => p.clone(),
                };
                let first = p.first.get(dim).map(|f| offset_text(f, &term));
                out.push_str(&format!(
                    "{indent}if ({} < {}) {{\n",
                    text(&args[dims + dim]),
                    first.unwrap_or_default()
                ));
                self.statement_body(stage, args, &format!("{indent}{INDENT}"), out)?;
                out.push_str(&format!("{indent}}}\n"));
                Ok(())
            }
            _ => self.statement_body(stage, args, indent, out),
        }
    }

    /// [`CPrinter::statement`] without the guard of a register part.
    fn statement_body(
        &self,
        stage: &str,
        args: &[LoopExpr],
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let overrides = self.overrides.borrow();
        let overrides = overrides.as_ref().filter(|o| o.stmt == stage);
        let found = self.storage.and_then(|p| Some((p, p.group_of(stage)?)));
        let group = found.map(|(p, (g, storage))| Tile {
            plan: p,
            group: g,
            storage,
        });
        let role = group.and_then(|g| g.storage.statements.get(stage));
        let stored = match (role, group) {
            (Some(StmtRole::Load(l)), Some(g)) => {
                return self.load(g, l, args, indent, out);
            }
            (Some(StmtRole::Slide(sl)), Some(g)) => {
                return slide(&self.prefix, self.naming, g, sl, args, indent, out)
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
        let (tile, values) = args.split_at(if args.len() > s.iterators.len() {
            tile_dims
        } else {
            0
        });
        let iters: Vec<String> = values
            .iter()
            .map(|a| expr::operand(a, self.naming))
            .collect();
        let tile: Vec<String> = tile.iter().map(|a| expr::operand(a, self.naming)).collect();
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
                    let target = self.element(&a.data, &a.index, &s.iterators, &iters);
                    let value = match overrides.and_then(|o| o.data.get(&a.data)) {
                        Some(r) => r.clone(),
                        None => {
                            scratch_access(&self.prefix, sp, &a.index, &s.iterators, &iters, &tile)
                        }
                    };
                    out.push_str(&format!("{indent}{target} = {value};\n"));
                }
            }
            return Ok(());
        }
        // Outside subscripts each iterator has its own C type (an
        // `unsigned` one wraps as in the original), and an `int` one
        // computed from `long long` counters is `int` again.
        let long = self.long_counters.borrow();
        let plain: Vec<String> = values
            .iter()
            .zip(&iters)
            .enumerate()
            .map(|(k, (a, text))| {
                let ty = s.iterator_types.get(k).map_or("int", String::as_str);
                let wide = self.naming.wide || long.iter().any(|c| a.reads_counter(*c));
                match ty != "int" || wide {
                    true => format!("(({ty}){text})"),
                    false => text.clone(),
                }
            })
            .collect();
        let scoped = |data: &str| self.storage.and_then(|p| p.scope_buffer(data));
        // A back end that respells the user's data respells every access
        // (gathers too); C redirects the accesses of analysable bodies only.
        let accesses = match self.data {
            Some(_) => s.spelled(),
            None => s.analysed(),
        };
        let text = match accesses {
            Some(analysed)
                if group.is_some()
                    || self.data.is_some()
                    || analysed.iter().any(|a| scoped(&a.data).is_some()) =>
            {
                s.body
                    .instantiate_split(&plain, &iters, &mut |k, subscripts| {
                        let a = analysed.get(k)?;
                        if !subscripts.is_empty() {
                            // No scratchpad holds data a gathering (not
                            // analysable) body accesses (`storage::plan`).
                            return self.data.map(|d| d.gather(&a.data, subscripts));
                        }
                        let sp = group
                            .and_then(|g| g.buffer(&a.data))
                            .or_else(|| scoped(&a.data));
                        let scratch = |sp: &Buffer| {
                            scratch_access(&self.prefix, sp, &a.index, &s.iterators, &iters, &tile)
                        };
                        match (overrides.and_then(|o| o.access.get(&k)), sp) {
                            (Some(Spelling::Text(t)), _) => Some(t.clone()),
                            (Some(Spelling::Select { cond, then, els }), Some(sp)) => {
                                let side =
                                    |x: &Option<String>| x.clone().unwrap_or_else(|| scratch(sp));
                                Some(format!("({cond} ? {} : {})", side(then), side(els)))
                            }
                            (_, Some(sp)) => Some(scratch(sp)),
                            (_, None) => self
                                .data
                                .map(|d| d.element(&a.data, &a.index, &s.iterators, &iters)),
                        }
                    })
            }
            _ => s.body.instantiate_split(&plain, &iters, &mut |_, _| None),
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

/// Appends the stages of the statements of `nodes` to `out`.
fn statements<'n>(nodes: &'n [Node], out: &mut Vec<&'n str>) {
    for n in nodes {
        match n {
            Node::For { body, .. } | Node::Buffers { body, .. } => statements(body, out),
            Node::If { then, els, .. } => {
                statements(then, out);
                statements(els.as_deref().unwrap_or_default(), out);
            }
            Node::Stmt { stage, .. } => out.push(stage),
        }
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

impl CPrinter<'_> {
    /// A load statement: one element of `data` (spelled by
    /// [`DataAccess`]) copied into its scratchpad, under the load's guard
    /// when it has one.
    fn load(
        &self,
        storage: Tile<'_>,
        l: &Load,
        args: &[LoopExpr],
        indent: &str,
        out: &mut String,
    ) -> Result<()> {
        let (prefix, naming) = (&self.prefix, self.naming);
        let element =
            |d: &str, i: &[Expr], its: &[String], v: &[String]| self.element(d, i, its, v);
        let data = &l.data;
        let Some(sp) = storage.buffer(data) else {
            return Err(Error::internal(format!(
                "load of '{data}' without a scratchpad"
            )));
        };
        let (tile, index) = args.split_at(storage.storage.tile_dims.min(args.len()));
        let names: Vec<String> = (0..index.len()).map(|d| format!("ft_x{d}")).collect();
        let vars: Vec<Expr> = names.iter().map(|n| Expr::Var(n.clone())).collect();
        let values: Vec<String> = index.iter().map(|a| expr::operand(a, naming)).collect();
        let tile: Vec<String> = tile.iter().map(|a| expr::operand(a, naming)).collect();
        let copy = format!(
            "{} = {};",
            scratch_access(prefix, sp, &vars, &names, &values, &tile),
            element(&l.source, &vars, &names, &values)
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
}

/// C text of a [`Condition`] (`1` when it has a disjunct with no
/// constraint, `0` when it has no disjunct); `term` gives each term's C text.
pub(crate) fn c_condition(g: &Condition, term: &dyn Fn(&Term) -> String) -> String {
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
    naming: &Naming,
    storage: Tile<'_>,
    sl: &Slide,
    args: &[LoopExpr],
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
    let to: String = index
        .iter()
        .map(|a| format!("[{}]", expr::text(a, naming)))
        .collect();
    let from: String = index
        .iter()
        .enumerate()
        .map(|(d, a)| {
            if d == sl.dim {
                format!("[{} + {}]", expr::operand(a, naming), sl.step)
            } else {
                format!("[{}]", expr::text(a, naming))
            }
        })
        .collect();
    let name = scratch_name(prefix, sp);
    out.push_str(&format!("{indent}{name}{to} = {name}{from};\n"));
    Ok(())
}

/// `[e0][e1]...` with the stage's iterators replaced by their values.
pub(crate) fn subscripts(index: &[Expr], iterators: &[String], values: &[String]) -> String {
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
pub(crate) fn offset_text(o: &Affine, term: &dyn Fn(&Term) -> String) -> String {
    c_expr(&o.to_expr(term), &|_| None)
}

/// A term of an extent, which may name parameters only.
fn param_term(t: &Term) -> String {
    match t {
        Term::Param(p) => p.clone(),
        Term::Tile(d) | Term::Index(d) => format!("/* not a parameter: {d} */ 0"),
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
pub(crate) fn c_expr(e: &Expr, subst: &dyn Fn(&str) -> Option<String>) -> String {
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
        // Compound non-linear expressions: every operand printed (and
        // substituted) in turn, parenthesised.
        Expr::Add(a, b) => format!("({} + {})", c_expr(a, subst), c_expr(b, subst)),
        Expr::Sub(a, b) => format!("({} - {})", c_expr(a, subst), c_expr(b, subst)),
        Expr::Mul(a, b) => format!("({} * {})", c_expr(a, subst), c_expr(b, subst)),
        Expr::Neg(a) => format!("-({})", c_expr(a, subst)),
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

    pub(super) fn stmt() -> Node {
        Node::Stmt {
            stage: "S0".into(),
            args: vec![],
        }
    }

    pub(super) fn for_loop(parallel: bool, body: Vec<Node>) -> Node {
        Node::For {
            iter: LoopExpr::Counter(0),
            init: LoopExpr::Int(0),
            cond: LoopExpr::Op(
                crate::backend::tree::BinOp::Lt,
                Box::new(LoopExpr::Counter(0)),
                Box::new(LoopExpr::Param("N".into())),
            ),
            inc: LoopExpr::Int(1),
            body,
            parallel,
            simd: false,
            independent: false,
        }
    }

    /// A team's block may hold parallel loops under conditions and serial
    /// loops, but no statement outside a parallel loop beside them.
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
        // A C division inside a sum: the iterator is replaced there too.
        let d = Expr::sum(Expr::Div(Box::new(i), Box::new(Expr::Int(2))), Expr::Int(5));
        assert_eq!(
            c_expr(&d, &|_| Some("c0".to_string())),
            "((c0 - 1) / 2 + 5)"
        );
    }

    #[test]
    fn wraps_compound_values() {
        assert_eq!(wrap("c0"), "c0");
        assert_eq!(wrap("c0 + 1"), "(c0 + 1)");
        assert_eq!(wrap("(c0 + 1)"), "(c0 + 1)");
        assert_eq!(wrap("(a) + (b)"), "((a) + (b))");
    }
}
