//! `#pragma scop` ... `#pragma endscop` regions (as PPCG and Pluto read them):
//! every expression statement between the pragmas is a stage whose domain
//! comes from the affine bounds of the enclosing loops and the affine `if`
//! conditions, and whose accesses come from its array subscripts.
//!
//! Loops: as [`crate::frontend::loops`] reads them (up or down, affine bounds
//! with `min`/`max`); a loop that counts down runs `-i` in the original
//! schedule. Conditions: `if` with an `&&` of affine comparisons; an `else`
//! branch where the condition is one inequality (the branch's domain has its
//! negation).

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::{is_label, Unit};
use crate::frontend::body::{analyse_all, assigned_vars, template_with_accesses, BodyScope, Mode};
use crate::frontend::cexpr::{push_wraps, wrap_nodes, WrapNode};
use crate::frontend::clang::{Cursor, CursorKind};
use crate::frontend::final_values::{final_values, uses_outside_loops, RegionLoops};
use crate::frontend::function::Functions;
use crate::frontend::loops::{affine, conjuncts, keyword, read_header};
use crate::frontend::pragma::PragmaLine;
use crate::frontend::reduction::{reduction, writes_only};
use crate::frontend::statement_locals::{self, first_loop, Group, Plan};
use crate::frontend::storage::Declared;
use crate::frontend::thread_state;
use crate::model::expr::Expr;
use crate::model::program::{CmpOp, Constraint, OrigNode, Piece, Region, RegionKind, Stage, Wraps};

/// Builds the region between `scop` and `endscop`. `Ok(None)` when it holds
/// no statement. What the user should know without refusing goes to
/// `warnings`.
pub fn build<'tu>(
    unit: &Unit<'tu>,
    walks: &Functions<'tu>,
    scop: &PragmaLine,
    endscop: &PragmaLine,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<Region>, Vec<Diagnostic>> {
    let Some(parent) = unit.statement_containing(scop.span.start) else {
        return Err(vec![Diagnostic::error(
            scop.span,
            "'#pragma scop' must be inside a function body",
        )]);
    };
    let same_block = unit
        .statement_containing(endscop.span.start)
        .is_some_and(|p| p == parent);
    if !same_block {
        return Err(vec![Diagnostic::error(
            endscop.span,
            "'#pragma endscop' must be in the same block as its '#pragma scop'",
        )
        .with_note(scop.span, "the scop starts here")]);
    }
    let stmts = match unit.statements_between(parent, scop.span.end, endscop.span.start) {
        Ok(s) => s,
        Err(c) => return Err(vec![straddles(c, scop, endscop)]),
    };
    let mut region_writes = BTreeSet::new();
    for s in &stmts {
        assigned_vars(unit, *s, &mut region_writes);
    }
    let plan = statement_locals::plan(unit, &stmts, Span::new(scop.span.end, endscop.span.start));
    if !plan.errors.is_empty() {
        return Err(plan.errors);
    }
    let shared_scalars: BTreeMap<String, String> = plan
        .shared
        .iter()
        .map(|(d, why)| (d.spelling(), why.clone()))
        .collect();
    let mut b = Builder {
        unit,
        plan,
        region_writes,
        stages: Vec::new(),
        errors: Vec::new(),
        data_types: BTreeMap::new(),
        scalars: BTreeMap::new(),
        bodies: Vec::new(),
        declared: Declared::default(),
        iter_types: Vec::new(),
        loop_spans: Vec::new(),
        wraps: Wraps::default(),
    };
    let mut tree = Vec::new();
    unit.take_frozen();
    tree.extend(b.block(&stmts, &[], &[]));
    let macro_values = unit.take_frozen();
    if b.errors.is_empty() {
        let stages: Vec<Cursor<'_>> = b.bodies.iter().map(|(c, _)| *c).collect();
        b.errors = unaccounted(unit, &stmts, &stages);
    }
    let loops: Vec<(Cursor<'_>, usize)> = stmts.iter().map(|s| (*s, usize::MAX)).collect();
    if b.errors.is_empty() {
        let bodies: Vec<(Cursor<'_>, &[String])> =
            b.bodies.iter().map(|(c, i)| (*c, i.as_slice())).collect();
        b.errors = uses_outside_loops(unit, &loops, &bodies);
    }
    if !b.errors.is_empty() {
        return Err(b.errors);
    }
    if b.stages.is_empty() {
        return Ok(None);
    }
    let span = Span::new(scop.line_start, endscop.line_end);
    let final_values = final_values(
        unit,
        walks,
        &RegionLoops {
            span,
            stmts: &loops,
            chain_writes: None,
        },
    )?;
    let mut region = Region {
        kind: RegionKind::Scop,
        span,
        pragma_span: scop.span,
        indent: scop.indent.clone(),
        stages: b.stages,
        tree,
        data_types: b.data_types,
        scalars: b.scalars,
        versions: BTreeMap::new(),
        macro_values,
        macro_params: unit.macro_params.borrow().clone(),
        function_start: unit
            .function_around(span)
            .and_then(|f| f.span())
            .map(|s| s.start),
        final_values,
        storage: b.declared.storage(),
        declarations: b.declared.declarations(),
        pragma_lines: [scop, endscop]
            .iter()
            .map(|p| Span::new(p.line_start, p.line_end))
            .collect(),
        temporaries: Vec::new(),
        whole_depth: None,
        wraps: b.wraps,
        thread_state: Vec::new(),
        shared_scalars,
    };
    let bodies: Vec<Span> = region.stages.iter().map(|s| s.span).collect();
    thread_state::serialize(unit, walks, &mut region, &bodies, warnings);
    Ok(Some(region))
}

/// The error for a statement `c` that starts before `#pragma scop` and ends
/// inside the region, or starts inside it and ends after `#pragma endscop`.
fn straddles(c: Cursor<'_>, scop: &PragmaLine, endscop: &PragmaLine) -> Diagnostic {
    let sp = c.span().unwrap_or(scop.span);
    let (pragma, word) = if sp.start < scop.span.start {
        (scop, "scop")
    } else {
        (endscop, "endscop")
    };
    Diagnostic::error(
        pragma.span,
        format!("a statement straddles '#pragma {word}': the region must hold whole statements of its block"),
    )
    .with_note(sp, "this statement starts on one side of the pragma and ends on the other")
}

/// A located error for each statement under `stmts` (through blocks, loop
/// bodies, `if` branches and labels) that is neither one of `stages` nor a
/// null statement: every statement of a region must be accounted for.
fn unaccounted<'tu>(
    unit: &Unit<'tu>,
    stmts: &[Cursor<'tu>],
    stages: &[Cursor<'tu>],
) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let mut todo: Vec<Cursor<'tu>> = stmts.iter().rev().copied().collect();
    while let Some(c) = todo.pop() {
        let kids = c.children();
        let inner: &[Cursor<'tu>] = match c.kind() {
            _ if stages.contains(&c) => continue,
            CursorKind::NullStmt => continue,
            CursorKind::CompoundStmt => &kids,
            CursorKind::ForStmt => kids.last().map(std::slice::from_ref).unwrap_or(&[]),
            CursorKind::IfStmt => kids.get(1..).unwrap_or(&[]),
            k if is_label(k) => kids.last().map(std::slice::from_ref).unwrap_or(&[]),
            _ => {
                let text: String = c
                    .span()
                    .map(|s| unit.slice(s))
                    .unwrap_or("")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                errors.push(Diagnostic::error(
                    c.span().unwrap_or_default(),
                    format!("the statement '{text}' of the scop is neither a stage nor kept by the region: flextile refuses a region it does not account for completely"),
                ));
                continue;
            }
        };
        todo.extend(inner.iter().rev().copied());
    }
    errors
}

struct Builder<'a, 'tu> {
    unit: &'a Unit<'tu>,
    /// The statements that become one stage, to keep a scalar local to it.
    plan: Plan<'tu>,
    /// Variables assigned anywhere in the region.
    region_writes: BTreeSet<String>,
    stages: Vec<Stage>,
    errors: Vec<Diagnostic>,
    /// Element types of the arrays accessed by analysable statements.
    data_types: BTreeMap<String, String>,
    /// Scalars analysable statements use, with their types.
    scalars: BTreeMap<String, String>,
    /// Each stage's statement and iterators.
    bodies: Vec<(Cursor<'tu>, Vec<String>)>,
    /// How the variables the statements access are declared.
    declared: Declared,
    /// The C types of the enclosing loops' variables, outermost first.
    iter_types: Vec<String>,
    /// The `for` keywords of the enclosing loops, outermost first.
    loop_spans: Vec<Span>,
    /// What the model reads that may wrap (see [`Wraps`]).
    wraps: Wraps,
}

impl<'tu> Builder<'_, 'tu> {
    fn error(&mut self, span: Option<Span>, msg: impl Into<String>) {
        self.errors
            .push(Diagnostic::error(span.unwrap_or_default(), msg));
    }

    /// Records `nodes`, evaluated over the iterations of `iters` under `cons`.
    fn wraps(&mut self, nodes: Vec<WrapNode>, iters: &[String], cons: &[Constraint]) {
        push_wraps(&mut self.wraps, nodes, iters, cons);
    }

    /// Source text of a node, white space collapsed.
    fn text(&self, c: Cursor<'tu>) -> String {
        let t = c.span().map(|s| self.unit.slice(s)).unwrap_or("");
        t.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The statements `kids` of a block, one after another: a group of the
    /// plan is one stage.
    fn block(
        &mut self,
        kids: &[Cursor<'tu>],
        iters: &[String],
        cons: &[Constraint],
    ) -> Vec<OrigNode> {
        let mut nodes = Vec::new();
        let mut k = 0;
        while k < kids.len() {
            if let Some(g) = self.plan.group_at(kids[k]).cloned() {
                nodes.extend(self.statement(&g.stmts, Some(&g), iters, cons));
                k += g.stmts.len();
            } else {
                nodes.extend(self.one(kids[k], iters, cons));
                k += 1;
            }
        }
        nodes
    }

    fn stmt(&mut self, c: Cursor<'tu>, iters: &[String], cons: &[Constraint]) -> Vec<OrigNode> {
        self.block(&[c], iters, cons)
    }

    fn one(&mut self, c: Cursor<'tu>, iters: &[String], cons: &[Constraint]) -> Vec<OrigNode> {
        match c.kind() {
            CursorKind::CompoundStmt => self.block(&c.children(), iters, cons),
            CursorKind::NullStmt => Vec::new(),
            CursorKind::ForStmt => self.for_loop(c, iters, cons),
            CursorKind::IfStmt if !self.splits(c, iters) && first_loop(c).is_none() => {
                // A condition the domains cannot express (data-dependent, an
                // `||`, an `else` of an equality): the whole `if` is one
                // stage, whose accesses under it are conditional (as pet
                // reads it).
                self.statement(&[c], None, iters, cons)
            }
            CursorKind::IfStmt => {
                let kids = c.children();
                let Some((cond, then)) = kids.first().zip(kids.get(1)) else {
                    self.error(c.span(), "unsupported condition in scop");
                    return Vec::new();
                };
                let mut parts = Vec::new();
                for part in conjuncts(self.unit, *cond) {
                    // `&&` evaluates a part where the parts before it hold.
                    let nodes = wrap_nodes(self.unit, part, &mut self.wraps.ranges);
                    self.wraps(nodes, iters, &[cons, &parts[..]].concat());
                    match self.comparison(part, iters) {
                        Some(k) => parts.push(k),
                        None => return Vec::new(),
                    }
                }
                let then_cons = [cons, &parts[..]].concat();
                let mut nodes = self.stmt(*then, iters, &then_cons);
                if let Some(e) = kids.get(2) {
                    // The else branch runs where the condition fails: one
                    // constraint when the condition is one inequality.
                    let negated = match parts.as_slice() {
                        [k] => k.negated(),
                        _ => None,
                    };
                    let Some(negated) = negated else {
                        self.error(
                            e.span(),
                            format!(
                                "unsupported condition in scop: an 'else' branch needs a condition of one inequality ('<', '<=', '>=', '>'), not '{}'",
                                self.text(*cond)
                            ),
                        );
                        return Vec::new();
                    };
                    let else_cons = [cons, &[negated]].concat();
                    nodes.extend(self.stmt(*e, iters, &else_cons));
                }
                nodes
            }
            CursorKind::DeclStmt => {
                let name = c
                    .children()
                    .first()
                    .map(|v| v.spelling())
                    .unwrap_or_default();
                self.error(
                    c.span(),
                    format!("declarations inside a scop are not supported; declare '{name}' before '#pragma scop'"),
                );
                Vec::new()
            }
            k if k.is_expression() => self.statement(&[c], None, iters, cons),
            _ => {
                self.error(
                    c.span(),
                    "unsupported statement in scop: only 'for', 'if' and expression statements",
                );
                Vec::new()
            }
        }
    }

    /// An expression statement, or the statements of a group (which keep
    /// the group's scalars local): one stage.
    fn statement(
        &mut self,
        stmts: &[Cursor<'tu>],
        group: Option<&Group<'tu>>,
        iters: &[String],
        cons: &[Constraint],
    ) -> Vec<OrigNode> {
        let spans = stmts
            .first()
            .and_then(|f| f.span())
            .zip(stmts.last().and_then(|l| l.span()));
        let Some((first, last)) = spans else {
            self.error(None, "a scop statement is not in the main file");
            return Vec::new();
        };
        let span = Span::new(first.start, self.unit.with_semicolon(last).end);
        let scope = BodyScope {
            mode: Mode::Scop,
            iterators: iters,
            local_range: span,
            locals: group.map_or(&[], |g| g.locals.as_slice()),
            region_writes: &self.region_writes,
        };
        let analysis = analyse_all(self.unit, stmts, span, &scope);
        if !analysis.errors.is_empty() {
            self.errors.extend(analysis.errors);
            return Vec::new();
        }
        for (a, t) in analysis.types.iter().filter(|_| analysis.analysable) {
            self.data_types
                .entry(a.clone())
                .or_insert_with(|| t.clone());
        }
        for (v, t) in &analysis.scalars {
            self.scalars.entry(v.clone()).or_insert_with(|| t.clone());
        }
        self.declared.merge(&analysis.declared);
        self.wraps.ranges.extend(analysis.ranges.clone());
        self.wraps(analysis.wraps.clone(), iters, cons);
        let text = self
            .unit
            .slice(span)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let short: String = text.chars().take(30).collect();
        let dots = if short.len() < text.len() { "..." } else { "" };
        let short = short.trim_end();
        let reduction = match (stmts, group) {
            ([one], None) if analysis.analysable => {
                reduction(self.unit, *one).filter(|r| writes_only(&analysis.accesses, &r.var))
            }
            _ => None,
        };
        let k = self.stages.len();
        self.bodies
            .extend(stmts.iter().map(|c| (*c, iters.to_vec())));
        let mut body = template_with_accesses(self.unit, span, iters, &analysis.holes);
        if let Some(g) = group {
            let open = format!(
                "{{ {}",
                g.copies.iter().map(|c| format!("{c} ")).collect::<String>()
            );
            body.pieces.insert(0, Piece::Text(open));
            body.pieces.push(Piece::Text(" }".into()));
        }
        self.stages.push(Stage {
            name: String::new(),
            label: format!(
                "statement '{short}{dots}' (line {})",
                self.unit.line_of(span.start)
            ),
            span,
            iterators: iters.to_vec(),
            iterator_types: self.iter_types.clone(),
            domain: cons.to_vec(),
            gathered: analysis.gathered(),
            accesses: analysis.accesses,
            body,
            analysable: analysis.analysable,
            observed: None,
            time_step: None,
            loop_bounds: None,
            loop_spans: self.loop_spans.clone(),
            reduction,
        });
        vec![OrigNode::Stage(k)]
    }

    fn for_loop(&mut self, c: Cursor<'tu>, iters: &[String], cons: &[Constraint]) -> Vec<OrigNode> {
        let h = match read_header(self.unit, c, iters, &self.region_writes) {
            Ok(h) => h,
            Err(d) => {
                self.errors.push(d);
                return Vec::new();
            }
        };
        let mut inner_iters = iters.to_vec();
        inner_iters.push(h.var.clone());
        let mut inner_cons = cons.to_vec();
        inner_cons.extend(h.constraints);
        self.wraps.ranges.extend(h.ranges);
        self.wraps(h.outer_wraps, iters, cons);
        self.wraps(h.inner_wraps, &inner_iters, &inner_cons);
        self.iter_types.push(h.ty);
        self.loop_spans
            .push(c.span().map_or(Span::default(), keyword));
        let body = self.stmt(h.body, &inner_iters, &inner_cons);
        self.loop_spans.pop();
        self.iter_types.pop();
        if body.is_empty() {
            // A loop without statements does nothing: leave it out of the tree.
            return Vec::new();
        }
        vec![OrigNode::Loop {
            iter: h.var,
            body,
            down: h.down,
        }]
    }

    /// Whether the `if` statement `c` splits into domains: its condition is
    /// an `&&` of affine comparisons, one inequality where it has an `else`.
    fn splits(&self, c: Cursor<'tu>, iters: &[String]) -> bool {
        let kids = c.children();
        let Some(cond) = kids.first() else {
            return false;
        };
        let parts = conjuncts(self.unit, *cond);
        let op = |p: &Cursor<'tu>| {
            (p.kind() == CursorKind::BinaryOperator)
                .then(|| self.unit.binary_op(*p))
                .flatten()
        };
        let comparison = |p: &Cursor<'tu>| {
            let sides = p.children();
            matches!(op(p).as_deref(), Some("<" | "<=" | "==" | ">=" | ">"))
                && sides.len() == 2
                && sides
                    .iter()
                    .all(|s| affine(self.unit, *s, iters, &self.region_writes, "condition").is_ok())
        };
        if !parts.iter().all(comparison) {
            return false;
        }
        kids.get(2).is_none() || (parts.len() == 1 && op(&parts[0]).as_deref() != Some("=="))
    }

    /// An affine comparison of an `if` condition as a constraint.
    fn comparison(&mut self, c: Cursor<'tu>, iters: &[String]) -> Option<Constraint> {
        let kids = c.children();
        let op = if c.kind() == CursorKind::BinaryOperator {
            self.unit.binary_op(c)
        } else {
            None
        };
        let op = match op.as_deref() {
            Some("<") => CmpOp::Lt,
            Some("<=") => CmpOp::Le,
            Some("==") => CmpOp::Eq,
            Some(">=") => CmpOp::Ge,
            Some(">") => CmpOp::Gt,
            _ => {
                let text = self.text(c);
                self.error(
                    c.span(),
                    format!(
                        "unsupported condition in scop: '{text}' (only '&&' of affine comparisons)"
                    ),
                );
                return None;
            }
        };
        let [l, r] = kids.as_slice() else {
            self.error(c.span(), "unsupported condition in scop");
            return None;
        };
        let lhs = self.bound(*l, iters, "condition")?;
        let rhs = self.bound(*r, iters, "condition")?;
        Some(Constraint { lhs, op, rhs })
    }

    /// An affine expression of the enclosing iterators and loop-invariant
    /// variables; errors name it `what`.
    fn bound(&mut self, c: Cursor<'tu>, iters: &[String], what: &str) -> Option<Expr> {
        match affine(self.unit, c, iters, &self.region_writes, what) {
            Ok(e) => Some(e),
            Err(d) => {
                self.errors.push(d);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::frontend::testutil::*;
    use crate::model::program::RegionKind;

    const HEAT: &str = "\
void heat(int T, int N, double *A, double *B) {
  int t, i;
  #pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < N - 1; i++)
      B[i] = 0.25 * (A[i-1] + 2.0 * A[i] + A[i+1]);
    for (i = 1; i <= N - 2; ++i) A[i] = B[i];
  }
  #pragma endscop
}
";

    #[test]
    fn time_iterated_stencil() {
        let p = ok(HEAT);
        assert_eq!(p.regions.len(), 1);
        let r = &p.regions[0];
        assert!(matches!(r.kind, RegionKind::Scop));
        let start = HEAT.find("  #pragma scop").unwrap();
        let end = HEAT.find("#pragma endscop").unwrap() + "#pragma endscop".len();
        assert_eq!((r.span.start, r.span.end), (start, end));
        assert_eq!(r.indent, "  ");
        assert_eq!(tree(&r.tree), "t(i(#0) i(#1))");
        let s0 = &r.stages[0];
        assert_eq!(s0.name, "S0");
        assert_eq!(
            s0.label,
            "statement 'B[i] = 0.25 * (A[i-1] + 2.0 *...' (line 6)"
        );
        assert_eq!(s0.iterators, ["t", "i"]);
        assert_eq!(domain(s0), ["t >= 0", "t < T", "i >= 1", "i < (N - 1)"]);
        assert_eq!(
            accesses(&s0.accesses),
            ["W B[i]", "R A[(i - 1)]", "R A[i]", "R A[(i + 1)]"]
        );
        assert!(s0.analysable);
        assert!(s0.observed.is_none());
        assert_eq!(
            &HEAT[s0.span.start..s0.span.end],
            "B[i] = 0.25 * (A[i-1] + 2.0 * A[i] + A[i+1]);"
        );
        assert_eq!(
            template(s0),
            "B[<1>] = 0.25 * (A[<1>-1] + 2.0 * A[<1>] + A[<1>+1]);"
        );
        // Scop statements: holes index `accesses`.
        assert_eq!(
            holes(s0),
            "«0:B[<1>]» = 0.25 * («1:A[<1>-1]» + 2.0 * «2:A[<1>]» + «3:A[<1>+1]»);"
        );
        assert!(std::ptr::eq(s0.analysed().unwrap(), s0.accesses.as_slice()));
        assert_eq!(
            s0.body.instantiate(&["t".into(), "i".into()]),
            &HEAT[s0.span.start..s0.span.end]
        );
        assert_eq!(r.data_types.len(), 2);
        assert_eq!(
            (&r.data_types["A"], &r.data_types["B"]),
            (&"double".into(), &"double".into())
        );
        let s1 = &r.stages[1];
        assert_eq!(s1.label, "statement 'A[i] = B[i];' (line 7)");
        assert_eq!(domain(s1), ["t >= 0", "t < T", "i >= 1", "i <= (N - 2)"]);
        assert_eq!(accesses(&s1.accesses), ["W A[i]", "R B[i]"]);
    }

    #[test]
    fn min_max_steps_and_guards() {
        let src = "\
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define max(x, y) ((x) > (y) ? (x) : (y))
int min(int a, int b);
void f(int N, int M, double A[N][M]) {
#pragma scop
  for (int i = max(0, M - 4); i < MIN(N, M + 1); i += 2)
    for (int j = (i < 3 ? i : 3); j <= min(M - 1, 2 * i) && j < N; j = j + 1)
      if (i + j < N && j >= 1)
        A[i][j] = A[i][j-1] + 1.0;
#pragma endscop
}
";
        let p = ok(src);
        let s = &p.regions[0].stages[0];
        assert_eq!(
            domain(s),
            [
                "i >= max(0, (M - 4))",
                "i < min(N, (M + 1))",
                "((i - max(0, (M - 4))) % 2) = 0",
                "j >= min(i, 3)",
                "j <= min((M - 1), (2 * i))",
                "j < N",
                "(i + j) < N",
                "j >= 1",
            ]
        );
        assert_eq!(accesses(&s.accesses), ["W A[i][j]", "R A[i][(j - 1)]"]);
        assert!(s.analysable);
    }

    #[test]
    fn data_dependent_subscripts_and_scalars() {
        let src = "\
void f(int n, int *img, int *hist, double *x, double *y) {
  double s;
#pragma scop
  s = 0.0;
  for (int i = 0; i < n; i++) {
    hist[img[i]]++;
    s += x[i] * x[i];
    y[i] = x[i] / s;
  }
#pragma endscop
}
";
        let p = ok(src);
        let r = &p.regions[0];
        assert_eq!(tree(&r.tree), "#0 i(#1 #2 #3)");
        assert!(r.stages[0].iterators.is_empty());
        assert!(r.stages[0].domain.is_empty());
        assert_eq!(accesses(&r.stages[0].accesses), ["W s[]"]);
        let h = &r.stages[1];
        assert!(!h.analysable);
        assert!(h.analysed().is_none());
        assert!(h.spelled().is_some());
        assert_eq!(holes(h), "«1:hist[img[<0>]]»++;");
        assert_eq!(holes(&r.stages[0]), "s = 0.0;");
        assert_eq!(holes(&r.stages[2]), "s += «2:x[<0>]» * «2:x[<0>]»;");
        assert_eq!(holes(&r.stages[3]), "«0:y[<0>]» = «1:x[<0>]» / s;");
        // img and hist are only accessed in a body that is not analysable.
        let types: Vec<&str> = r.data_types.keys().map(String::as_str).collect();
        assert_eq!(types, ["x", "y"]);
        assert_eq!(
            accesses(&h.accesses),
            ["R img[i]", "W hist[*]", "R hist[*]"]
        );
        assert_eq!(
            accesses(&r.stages[2].accesses),
            ["W s[]", "R s[]", "R x[i]"]
        );
        assert_eq!(
            accesses(&r.stages[3].accesses),
            ["W y[i]", "R x[i]", "R s[]"]
        );
        assert!(r.stages[3].analysable);
    }

    #[test]
    fn polybench_style_macros() {
        let src = "\
#include <math.h>
#define N 1000
#define _PB_N POLYBENCH_LOOP_BOUND(N,n)
#define POLYBENCH_LOOP_BOUND(x,y) y
#define SCALAR_VAL(x) x
#define SQRT_FUN(x) sqrt(x)
#define FULL (n + 4)
enum { K = 3 };
void kernel(int n, int tsteps, double A[N][N], double B[N][N], double alpha) {
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; -j > -(FULL - K); j += K)
        B[i][j] = SCALAR_VAL(0.2) * (A[i][j] + A[i][j-1] + SQRT_FUN(A[i][1+j]) + alpha);
    for (i = 1; _PB_N - 1 > i; i++)
      for (j = 1; j < (n - 1) / 2; j++)
        A[i][2*j] = B[i][j] + fabs(B[i][j]);
  }
#pragma endscop
}
";
        let errs = errors(src);
        assert_eq!(errs.len(), 1);
        assert!(errs[0].0.starts_with("unsupported loop form"), "{errs:?}");
        assert_eq!(errs[0].1, "-j > -(FULL - K)");
        let p = ok(&src.replace("-j > -(FULL - K)", "j < FULL - K"));
        let r = &p.regions[0];
        assert_eq!(tree(&r.tree), "t(i(j(#0)) i(j(#1)))");
        let (s0, s1) = (&r.stages[0], &r.stages[1]);
        assert_eq!(
            domain(s0),
            [
                "t >= 0",
                "t < tsteps",
                "i >= 1",
                "i < (n - 1)",
                "j >= 1",
                "j < ((n + 4) - 3)",
                "((j - 1) % 3) = 0"
            ]
        );
        // Macros that expand to arithmetic and pure calls are analysed
        // through the expansion; the body keeps their spelling (issue 17).
        assert!(s0.analysable, "macros in the statement");
        assert_eq!(
            holes(s0),
            "«0:B[<1>][<2>]» = SCALAR_VAL(0.2) * («1:A[<1>][<2>]» + «2:A[<1>][<2>-1]» \
             + SQRT_FUN(«3:A[<1>][1+<2>]») + alpha);"
        );
        assert_eq!(
            holes(s1),
            "«0:A[<1>][2*<2>]» = «1:B[<1>][<2>]» + fabs(«1:B[<1>][<2>]»);"
        );
        assert_eq!(r.data_types.len(), 2);
        assert_eq!(r.data_types["A"], "double");
        assert_eq!(
            accesses(&s0.accesses),
            [
                "W B[i][j]",
                "R A[i][j]",
                "R A[i][(j - 1)]",
                "R A[i][(1 + j)]"
            ]
        );
        assert_eq!(domain(s1)[3], "i < (n - 1)");
        assert_eq!(domain(s1)[5], "j < ((n - 1) / 2)");
        assert!(s1.analysable);
        assert_eq!(accesses(&s1.accesses), ["W A[i][(2 * j)]", "R B[i][j]"]);
    }

    #[test]
    fn loops_counting_down() {
        let src = "\
void f(int T, int N, double *A) {
  int t, i, j;
#pragma scop
  for (t = T - 1; t >= 0; t--)
    for (i = N - 1; 0 < i; i -= 2)
      for (j = i; j > 1; j = j - 3)
        A[i + j] = A[i + j + 1];
  for (i = N; i >= 2; --i) A[i] = A[i - 1];
#pragma endscop
}
";
        let p = ok(src);
        let r = &p.regions[0];
        assert_eq!(tree(&r.tree), "-t(-i(-j(#0))) -i(#1)");
        assert_eq!(
            domain(&r.stages[0]),
            [
                "t <= (T - 1)",
                "t >= 0",
                "i <= (N - 1)",
                "i > 0",
                "(((N - 1) - i) % 2) = 0",
                "j <= i",
                "j > 1",
                "((i - j) % 3) = 0",
            ]
        );
        assert_eq!(domain(&r.stages[1]), ["i <= N", "i >= 2"]);
    }

    #[test]
    fn every_statement_is_accounted_for() {
        // Statements under labels, unbraced bodies and constant conditions:
        // with no stages, each is reported, and null statements are not.
        let src = "\
void f(int m, int n, double *A) {
  int i;
  switch (m) {
  case 1: L: A[0] = 1.0;
  default:
    for (i = 0; i < n; i++)
      if (0) { A[i] = 2.0; ; } else A[i] += g(i);
  }
}
";
        with_unit(src, |u| {
            let cases = u.statement_containing(src.find("case").unwrap()).unwrap();
            let stmts = cases.children();
            let errs = super::unaccounted(u, &stmts, &[]);
            assert_eq!(errs.len(), 3, "{errs:?}");
            for (d, t) in errs
                .iter()
                .zip(["A[0] = 1.0", "A[i] = 2.0", "A[i] += g(i)"])
            {
                assert!(d.message.contains(&format!("'{t}'")), "{}", d.message);
            }
        });
        // The stages of a built region account for all its statements.
        let p = ok(HEAT);
        assert_eq!(p.regions[0].stages.len(), 2);
    }

    #[test]
    fn scop_errors() {
        let err = |from: &str, to: &str| {
            let src = HEAT.replace(from, to);
            let e = errors(&src);
            assert_eq!(e.len(), 1, "{e:?}");
            e.into_iter().next().unwrap()
        };
        assert_eq!(
            err("i < N - 1", "i < N * T"),
            ("non-affine loop bound 'N * T'".into(), "N * T".into())
        );
        // A loop counting down needs a lower bound, not an upper one.
        let (m, t) = err("++i)", "i--)");
        assert!(m.starts_with("unsupported loop form in scop"), "{m}");
        assert_eq!(t, "i <= N - 2");
        let (m, t) = err("++i)", "i -= 0)");
        assert!(m.starts_with("unsupported loop form in scop"), "{m}");
        assert_eq!(t, "i -= 0");
        let (m, t) = err("A[i] = B[i];", "A[i] = B[i] + g(i);");
        assert!(m.starts_with("a call to 'g' in a scop statement"), "{m}");
        assert_eq!(t, "g(i)");
        assert_eq!(
            err("A[i] = B[i];", "A[i] = B[t++];"),
            (
                "the loop iterator 't' is assigned in the body of a stage".into(),
                "t".into()
            )
        );
        let (m, t) = err("  #pragma endscop\n", "");
        assert_eq!(m, "'#pragma scop' without a matching '#pragma endscop'");
        assert_eq!(t, "#pragma scop");
        let p = ok(&HEAT.replace("A[i] = B[i];", ";"));
        assert_eq!(tree(&p.regions[0].tree), "t(i(#0))");
        let (m, _) = err("i < N - 1; i++", "i < N - 1; i++, t++");
        assert!(m.starts_with("unsupported loop form"), "{m}");
    }

    /// A condition the domains cannot express (`||`, the `else` of an `==`, a
    /// non-affine one) makes its `if` one stage with conditional accesses, and a
    /// block-scope scalar written before it is read makes its statements one
    /// stage that declares it (issue 56, classes 1 and 3).
    #[test]
    fn opaque_conditions_and_block_locals_are_one_stage() {
        for to in [
            "if (i < 3 || i > 5) A[i] = B[i];",
            "if (i == 3) A[i] = B[i]; else A[i] = 0;",
            "if (i * i < N) A[i] = B[i];",
            "{ double z = B[i]; A[i] = z; }",
        ] {
            let p = ok(&HEAT.replace("A[i] = B[i];", to));
            assert_eq!(tree(&p.regions[0].tree), "t(i(#0) i(#1))", "{to}");
        }
    }
}
