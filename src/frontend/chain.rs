//! Loop chains: `#pragma omplc loopchain` and the compound statement after it,
//! whose annotated nests become the stages of a [`Region`].
//!
//! Each `#pragma omplc for` must directly precede a `for` nest with at least
//! as many perfectly nested loops as its `with` clause lists iterators (the
//! loops' variables must be those iterators, in order; braces around a single
//! inner loop are fine). The stage's domain and accesses are the pragma's; its
//! body is the innermost loop's body, whose accesses are analysed when
//! possible so the model can check them against the declared ones.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::Unit;
use crate::frontend::body::{
    analyse, assigned_vars, template_with_accesses, Analysis, BodyScope, Mode,
};
use crate::frontend::cexpr::referenced_vars;
use crate::frontend::cexpr::{freeze, push_wraps};
use crate::frontend::clang::{Cursor, CursorKind};
use crate::frontend::final_values::{final_values, uses_outside_loops, RegionLoops};
use crate::frontend::function::Functions;
use crate::frontend::loops::{keyword, loop_variable, read_header, var_type};
use crate::frontend::pragma::{NestPragma, PragmaKind, PragmaLine};
use crate::frontend::scalars::{serial_warning, verdict, written_outside, Verdict, Written};
use crate::frontend::storage::Declared;
use crate::frontend::thread_state;
use crate::model::expr::Expr;
use crate::model::program::{
    Access, AccessKind, ChainSchedule, CmpOp, Constraint, LoopBounds, OrigNode, Piece, Region,
    RegionKind, Stage, Wraps,
};

/// Builds the region of the chain opened by `pragma` (with `schedule`), whose
/// compound statement is `compound`. `inner` are the nest pragmas inside the
/// compound statement (well-formed or malformed), in order. What the user
/// should know without refusing goes to `warnings`.
pub fn build<'tu>(
    unit: &Unit<'tu>,
    walks: &Functions<'tu>,
    pragma: &PragmaLine,
    schedule: &ChainSchedule,
    compound: Cursor<'tu>,
    inner: &[&PragmaLine],
    warnings: &mut Vec<Diagnostic>,
) -> Result<Region, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let cspan = compound.span().unwrap_or(pragma.span);
    let mut stages: Vec<Stage> = Vec::new();
    let mut tree = Vec::new();
    let mut found = Found::default();
    let mut next = 0;
    // The annotated nests with their depths, and the stages' bodies with
    // their iterators.
    let mut loops = Vec::new();
    let mut bodies: Vec<(Cursor<'tu>, Vec<String>)> = Vec::new();
    // What the chain assigns (its loops' variables included).
    let mut writes = BTreeSet::new();
    assigned_vars(unit, compound, &mut writes);
    // Variables declared outside the chain that its bodies write: reads of
    // them are accesses, and they are not loop-invariant.
    let outside = written_outside(unit, compound, cspan, &nest_iterators(inner));
    let outside_names: BTreeSet<String> = outside.iter().map(|w| w.decl.spelling()).collect();
    unit.take_frozen();
    let not_a_loop =
        |p: &PragmaLine| Diagnostic::error(p.span, "expected a for loop after '#pragma omplc for'");
    for child in compound.children() {
        let Some(cs) = child.span() else { continue };
        let mut before = Vec::new();
        while let Some(p) = inner.get(next).filter(|p| p.span.start < cs.start) {
            before.push(*p);
            next += 1;
        }
        if let Some((last, extra)) = before.split_last() {
            errors.extend(extra.iter().map(|p| not_a_loop(p)));
            let PragmaKind::For(np) = &last.kind else {
                // A malformed pragma, already reported.
                continue;
            };
            match nest(
                unit,
                last,
                np,
                child,
                stages.len() + 1,
                (&writes, &outside_names),
                &mut found,
            ) {
                Ok((stage, body)) => {
                    loops.push((child, stage.iterators.len()));
                    bodies.push((body, stage.iterators.clone()));
                    tree.push(OrigNode::nest(stages.len(), &stage.iterators));
                    stages.push(stage);
                }
                Err(mut e) => errors.append(&mut e),
            }
        } else if child.kind() != CursorKind::NullStmt {
            errors.push(Diagnostic::error(
                cs,
                "statement inside a loop chain that is not an annotated nest",
            ));
        }
        while let Some(p) = inner.get(next).filter(|p| p.span.start < cs.end) {
            errors.push(Diagnostic::error(
                p.span,
                "'#pragma omplc for' must be directly inside the braces of its loop chain",
            ));
            next += 1;
        }
    }
    for p in inner.get(next..).unwrap_or(&[]) {
        errors.push(not_a_loop(p));
    }
    check_arity(&stages, &mut errors);
    // A malformed nest pragma was reported already: it is the only error.
    let malformed = inner
        .iter()
        .any(|p| matches!(p.kind, PragmaKind::Malformed { .. }));
    if stages.is_empty() && errors.is_empty() && !malformed {
        errors.push(Diagnostic::error(
            pragma.span,
            "loop chain without any '#pragma omplc for' nest",
        ));
    }
    if errors.is_empty() {
        let bodies: Vec<(Cursor<'_>, &[String])> =
            bodies.iter().map(|(c, i)| (*c, i.as_slice())).collect();
        errors = uses_outside_loops(unit, &loops, &bodies);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let function = unit.function_around(cspan);
    let body_spans: Vec<(Cursor<'_>, Span)> = bodies
        .iter()
        .filter_map(|(c, _)| Some((*c, c.span()?)))
        .collect();
    undeclared_scalars(unit, &outside, &body_spans, function, &mut stages, warnings);
    warnings.append(&mut found.unchecked);
    let span = Span::new(pragma.line_start, cspan.end);
    let final_values = final_values(
        unit,
        walks,
        &RegionLoops {
            span,
            stmts: &loops,
            chain_writes: Some(&writes),
        },
    )?;
    let mut region = Region {
        kind: RegionKind::Chain(schedule.clone()),
        span,
        pragma_span: pragma.span,
        indent: pragma.indent.clone(),
        stages,
        tree,
        data_types: found.types,
        scalars: found.scalars,
        versions: BTreeMap::new(),
        macro_values: unit.take_frozen(),
        macro_params: unit.macro_params.borrow().clone(),
        function_start: function.and_then(|f| f.span()).map(|s| s.start),
        final_values,
        storage: found.declared.storage(),
        declarations: found.declared.declarations(),
        pragma_lines: std::iter::once(pragma)
            .chain(inner.iter().copied())
            .map(|p| Span::new(p.line_start, p.line_end))
            .collect(),
        temporaries: Vec::new(),
        whole_depth: None,
        wraps: found.wraps,
        thread_state: Vec::new(),
        shared_scalars: BTreeMap::new(),
    };
    let nests: Vec<Span> = loops.iter().filter_map(|(c, _)| c.span()).collect();
    thread_state::serialize(unit, walks, &mut region, &nests, warnings);
    Ok(region)
}

/// The iterators the well-formed nest pragmas of `inner` declare.
fn nest_iterators(inner: &[&PragmaLine]) -> Vec<String> {
    inner
        .iter()
        .filter_map(|p| match &p.kind {
            PragmaKind::For(np) => Some(np.iterators.iter().map(|(n, _)| n.clone())),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Every data set must be used with the same number of indices throughout the chain.
fn check_arity(stages: &[Stage], errors: &mut Vec<Diagnostic>) {
    let mut first: BTreeMap<&str, (usize, Span)> = BTreeMap::new();
    for a in stages.iter().flat_map(|s| s.accesses.iter()) {
        match first.get(a.data.as_str()) {
            None => {
                first.insert(&a.data, (a.index.len(), a.span));
            }
            Some(&(n, sp)) if n != a.index.len() => {
                let plural = |k: usize| if k == 1 { "index" } else { "indices" };
                errors.push(
                    Diagnostic::error(
                        a.span,
                        format!(
                            "tuple arity mismatch: '{}' is accessed with {} {} here but with {} {} elsewhere in this chain",
                            a.data,
                            a.index.len(),
                            plural(a.index.len()),
                            n,
                            plural(n)
                        ),
                    )
                    .with_note(sp, format!("first access to '{}' is here", a.data)),
                );
            }
            Some(_) => {}
        }
    }
}

/// What the nests of a chain tell about the whole chain.
#[derive(Default)]
struct Found {
    /// The element types of the arrays analysable bodies access.
    types: BTreeMap<String, String>,
    /// The scalars the bodies use, with their types.
    scalars: BTreeMap<String, String>,
    /// How the bodies' variables are declared.
    declared: Declared,
    /// What the model reads of the loops and bodies that may wrap.
    wraps: Wraps,
    /// Warnings for bodies whose accesses cannot be checked against their
    /// declarations.
    unchecked: Vec<Diagnostic>,
}

impl Found {
    /// What the analysis of the body of nest `label` (whose pragma is at
    /// `pragma`) tells about the chain.
    fn record(&mut self, analysis: &Analysis, label: &str, pragma: Span) {
        if let Some((at, what)) = &analysis.inexact {
            self.unchecked.push(
                Diagnostic::warning(
                    pragma,
                    format!(
                        "the accesses of the body of {label} cannot be checked against its \
                         declaration ({what}): flextile trusts the declared accesses"
                    ),
                )
                .with_note(*at, "flextile cannot see this construct's accesses exactly"),
            );
        }
        for (a, t) in analysis.types.iter().filter(|_| analysis.analysable) {
            self.types.entry(a.clone()).or_insert_with(|| t.clone());
        }
        for (v, t) in &analysis.scalars {
            self.scalars.entry(v.clone()).or_insert_with(|| t.clone());
        }
        self.declared.merge(&analysis.declared);
    }
}

/// Gives each stage whose body (in `bodies`, by stage) mentions a variable
/// of `outside` (declared outside the chain, written in it) a local copy of
/// it when it is a per-iteration temporary, else a declared write and read
/// of it (its loops then stay serial: a warning says so).
fn undeclared_scalars(
    unit: &Unit<'_>,
    outside: &[Written<'_>],
    bodies: &[(Cursor<'_>, Span)],
    function: Option<Cursor<'_>>,
    stages: &mut [Stage],
    warnings: &mut Vec<Diagnostic>,
) {
    let mut copies: Vec<Vec<String>> = vec![Vec::new(); stages.len()];
    for w in outside {
        let mut refs = Vec::new();
        let users: Vec<usize> = (0..bodies.len().min(stages.len()))
            .filter(|&k| {
                refs.clear();
                crate::frontend::scalars::references_of(bodies[k].0, w.decl, &mut refs);
                !refs.is_empty()
            })
            .collect();
        let inside = |k: &usize| bodies[*k].1.start <= w.at.start && w.at.end <= bodies[*k].1.end;
        let Some(&writer) = users.iter().find(|k| inside(k)) else {
            // Written in a loop header of the chain: its loops read it.
            continue;
        };
        let used: Vec<(Cursor<'_>, Span)> = users.iter().map(|&k| bodies[k]).collect();
        let verdict = match users.iter().any(|&k| stages[k].analysable) {
            true => Verdict::Shared("a body that flextile analyses uses it".into()),
            false => verdict(unit, w, &used, function),
        };
        match verdict {
            Verdict::Private(copy) => users.iter().for_each(|&k| copies[k].push(copy.clone())),
            Verdict::Shared(why) => {
                let name = w.decl.spelling();
                for &k in &users {
                    let s = &mut stages[k];
                    for kind in [AccessKind::Write, AccessKind::Read] {
                        s.accesses.push(Access {
                            kind,
                            data: name.clone(),
                            index: Vec::new(),
                            span: w.at,
                            conditional: false,
                        });
                    }
                }
                warnings.push(serial_warning(unit, &stages[writer].label, w, &why));
            }
        }
    }
    for (s, copies) in stages.iter_mut().zip(copies) {
        if !copies.is_empty() {
            s.body
                .pieces
                .insert(0, Piece::Text(format!("{{ {} ", copies.join(" "))));
            s.body.pieces.push(Piece::Text(" }".into()));
        }
    }
}

/// One annotated nest: the pragma `p` (contents `np`), the statement after it,
/// its 1-based number in the chain, and what the chain assigns (everything,
/// and the variables declared outside the chain); what the nest tells
/// about the chain is added to `found`.
fn nest<'tu>(
    unit: &Unit<'tu>,
    p: &PragmaLine,
    np: &NestPragma,
    stmt: Cursor<'tu>,
    number: usize,
    (writes, outside): (&BTreeSet<String>, &BTreeSet<String>),
    found: &mut Found,
) -> Result<(Stage, Cursor<'tu>), Vec<Diagnostic>> {
    if stmt.kind() != CursorKind::ForStmt {
        let mut d = Diagnostic::error(p.span, "expected a for loop after '#pragma omplc for'");
        if let Some(sp) = stmt.span() {
            d = d.with_note(sp, "this statement is not a 'for' loop");
        }
        return Err(vec![d]);
    }
    let iterators: Vec<String> = np.iterators.iter().map(|(n, _)| n.clone()).collect();
    let (loops, body) = nest_loops(unit, p, np, stmt)?;
    let body_span = match (body.kind(), body.span()) {
        (CursorKind::CompoundStmt, Some(sp)) => sp,
        (_, Some(sp)) => unit.with_semicolon(sp),
        (_, None) => {
            return Err(vec![Diagnostic::error(
                p.span,
                "the body of this nest is not in the main file",
            )]);
        }
    };
    let scope = BodyScope {
        mode: Mode::Omplc,
        iterators: &iterators,
        local_range: body_span,
        locals: &[],
        region_writes: outside,
    };
    let analysis = analyse(unit, body, body_span, &scope);
    if !analysis.errors.is_empty() {
        return Err(analysis.errors);
    }
    let label = format!("nest {number} (line {})", unit.line_of(p.span.start));
    found.record(&analysis, &label, p.span);
    let domain = nest_domain(unit, np, &iterators)?;
    let accesses = np
        .accesses
        .iter()
        .flat_map(|a| {
            a.tuples.iter().map(|t| Access {
                kind: a.kind,
                data: a.data.clone(),
                index: t.exprs.iter().map(|e| freeze(unit, e.clone())).collect(),
                span: t.span,
                conditional: false,
            })
        })
        .collect();
    let iterator_types =
        unit.without_freezing(|| header_wraps(unit, &loops, &iterators, writes, found));
    found.wraps.ranges.extend(analysis.ranges.clone());
    push_wraps(
        &mut found.wraps,
        analysis.wraps.clone(),
        &iterators,
        &domain,
    );
    let stage = Stage {
        name: String::new(),
        label,
        span: p.span,
        iterators: iterators.clone(),
        iterator_types,
        domain,
        accesses,
        body: template_with_accesses(unit, body_span, &iterators, &analysis.holes),
        analysable: analysis.analysable,
        gathered: analysis.gathered(),
        observed: analysis.inexact.is_none().then_some(analysis.accesses),
        time_step: None,
        loop_bounds: unit.without_freezing(|| loop_bounds(unit, np, &loops, writes)),
        loop_spans: loops.iter().filter_map(|l| l.span()).map(keyword).collect(),
        reduction: None,
    };
    Ok((stage, body))
}

/// The perfectly nested loops of an annotated nest, outermost first, whose
/// variables are the iterators its pragma `p` (contents `np`) lists, and
/// the innermost one's body.
fn nest_loops<'tu>(
    unit: &Unit<'tu>,
    p: &PragmaLine,
    np: &NestPragma,
    stmt: Cursor<'tu>,
) -> Result<(Vec<Cursor<'tu>>, Cursor<'tu>), Vec<Diagnostic>> {
    let depth = np.iterators.len();
    let mut cur = stmt;
    let mut body = None;
    let mut loops = Vec::new();
    for (d, (want, want_span)) in np.iterators.iter().enumerate() {
        loops.push(cur);
        let Some(parts) = unit.for_parts(cur) else {
            return Err(vec![Diagnostic::error(
                cur.span().unwrap_or(p.span),
                "unsupported 'for' loop: flextile cannot read its header",
            )]);
        };
        match loop_variable(unit, parts.init) {
            Some(v) if v == *want => {}
            Some(v) => {
                return Err(vec![Diagnostic::error(
                    *want_span,
                    format!(
                        "'with' lists '{want}' at position {} but the loop at that depth iterates over '{v}'",
                        d + 1
                    ),
                )
                .with_note(parts.header, "loop is here")]);
            }
            None => {
                return Err(vec![Diagnostic::error(
                    parts.header,
                    format!("cannot find the variable of this loop ('with' expects '{want}')"),
                )]);
            }
        }
        if d + 1 == depth {
            body = Some(parts.body);
            break;
        }
        let b = parts.body;
        let inner = match b.kind() {
            CursorKind::ForStmt => Some(b),
            CursorKind::CompoundStmt => {
                let kids: Vec<Cursor<'tu>> = b
                    .children()
                    .into_iter()
                    .filter(|k| k.kind() != CursorKind::NullStmt)
                    .collect();
                match kids.as_slice() {
                    [only] if only.kind() == CursorKind::ForStmt => Some(*only),
                    _ => None,
                }
            }
            _ => None,
        };
        match inner {
            Some(i) => cur = i,
            None => {
                let found = d + 1;
                return Err(vec![Diagnostic::error(
                    np.with_span,
                    format!(
                        "'with' lists {depth} iterators but the nest has only {found} perfectly nested loop{}",
                        if found == 1 { "" } else { "s" }
                    ),
                )
                .with_note(parts.header, "innermost loop of the nest")]);
            }
        }
    }
    let Some(body) = body else {
        return Err(vec![Diagnostic::error(
            p.span,
            "'#pragma omplc for' lists no iterator",
        )]);
    };
    Ok((loops, body))
}

/// The iteration domain an annotated nest's pragma (`np`) declares over
/// `iterators`; an error where it names what is declared nowhere, or
/// multiplies an iterator by a name that is not a constant macro.
fn nest_domain(
    unit: &Unit<'_>,
    np: &NestPragma,
    iterators: &[String],
) -> Result<Vec<Constraint>, Vec<Diagnostic>> {
    let mut undeclared = Vec::new();
    for r in &np.ranges {
        let mut vars = BTreeSet::new();
        r.lo.collect_vars(&mut vars);
        r.hi.collect_vars(&mut vars);
        for v in vars {
            if !iterators.contains(&v) && !unit.declares(&v) {
                undeclared.push(Diagnostic::error(
                    r.span,
                    format!(
                        "'{v}' in the domain is declared nowhere (no variable, parameter, enumerator or macro of that name)"
                    ),
                ));
            }
        }
    }
    if !undeclared.is_empty() {
        return Err(undeclared);
    }
    check_declared_products(unit, np)?;
    let mut domain = Vec::new();
    for (r, it) in np.ranges.iter().zip(iterators) {
        domain.push(Constraint {
            lhs: Expr::Var(it.clone()),
            op: CmpOp::Ge,
            rhs: r.lo.clone(),
        });
        domain.push(Constraint {
            lhs: Expr::Var(it.clone()),
            op: CmpOp::Le,
            rhs: r.hi.clone(),
        });
    }
    Ok(domain)
}

/// A declared index that multiplies an iterator by a name (`i*W`) is affine
/// only where the name is a macro with a constant value that the body uses:
/// an error otherwise.
fn check_declared_products(unit: &Unit<'_>, np: &NestPragma) -> Result<(), Vec<Diagnostic>> {
    let errors: Vec<Diagnostic> = np
        .accesses
        .iter()
        .flat_map(|a| &a.tuples)
        .flat_map(|t| t.exprs.iter().map(move |e| (t.span, e)))
        .filter(|(_, e)| {
            !e.is_affine()
                && !unit
                    .without_freezing(|| freeze(unit, (*e).clone()))
                    .is_affine()
        })
        .map(|(span, e)| {
            Diagnostic::error(
                span,
                format!(
                    "non-affine index expression '{e}': a product of an iterator is affine only \
                     with a macro of constant value that the body uses as well; write '*' for a \
                     data-dependent index"
                ),
            )
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The C types of the variables of the nest's `loops` (one per iterator);
/// what their headers compute that may wrap goes to `found` (while the
/// headers are affine loops: the others are not read by the model).
fn header_wraps(
    unit: &Unit<'_>,
    loops: &[Cursor<'_>],
    iterators: &[String],
    writes: &BTreeSet<String>,
    found: &mut Found,
) -> Vec<String> {
    let mut types = Vec::new();
    let mut cons = Vec::new();
    let mut affine = true;
    for (d, l) in loops.iter().enumerate() {
        let h = match affine {
            true => read_header(unit, *l, &iterators[..d], writes).ok(),
            false => None,
        };
        let Some(h) = h else {
            affine = false;
            types.push(var_type(unit.for_parts(*l).and_then(|p| p.init)).0);
            continue;
        };
        found.wraps.ranges.extend(h.ranges);
        push_wraps(&mut found.wraps, h.outer_wraps, &iterators[..d], &cons);
        cons.extend(h.constraints);
        push_wraps(&mut found.wraps, h.inner_wraps, &iterators[..=d], &cons);
        types.push(h.ty);
    }
    types
}

/// The iterations the nest's `loops` (outermost first, one per iterator)
/// run, when every header is an affine loop over what the chain does not
/// assign and names no macro that stands for an expression (`_PB_N`: its
/// name and the domain's spelling of it would be different parameters).
fn loop_bounds(
    unit: &Unit<'_>,
    np: &NestPragma,
    loops: &[Cursor<'_>],
    writes: &BTreeSet<String>,
) -> Option<LoopBounds> {
    let iterators: Vec<String> = np.iterators.iter().map(|(n, _)| n.clone()).collect();
    let mut constraints = Vec::new();
    let mut known: BTreeSet<String> = iterators.iter().cloned().collect();
    let mut headers: Option<Span> = None;
    for (d, l) in loops.iter().enumerate() {
        let h = read_header(unit, *l, iterators.get(..d)?, writes).ok()?;
        if h.var != *iterators.get(d)? {
            return None;
        }
        let parts = unit.for_parts(*l)?;
        for part in [parts.init, parts.cond, parts.inc].into_iter().flatten() {
            known.extend(referenced_vars(part));
        }
        constraints.extend(h.constraints);
        headers = Some(headers.map_or(h.span, |s| s.to(h.span)));
    }
    // Macros with a constant value are parameters of the domain too.
    known.extend(unit.macro_params.borrow().keys().cloned());
    let mut vars = BTreeSet::new();
    for c in &constraints {
        c.lhs.collect_vars(&mut vars);
        c.rhs.collect_vars(&mut vars);
    }
    if !vars.is_subset(&known) {
        return None;
    }
    Some(LoopBounds {
        constraints,
        headers: headers?,
        domain: np.domain_span,
    })
}

#[cfg(test)]
mod tests {
    use crate::frontend::testutil::*;
    use crate::model::program::{RegionKind, ScheduleItem};

    const SPEC: &str = "\
void foo(double *c, double *b, int i);
void f(int N, double *A, double *B, double *C, double e) {
  #pragma omplc loopchain schedule( fuse(), tile( (16), parallel, serial ) )
  {
    #pragma omplc for domain(1:N-2) with (i) read A { (i-1), (i), (i+1) }, write B { (i) }
    for (int i = 1; i <= N-2; i += 1) { B[i] = (A[i-1] + A[i] + A[i+1]) * e; }

    #pragma omplc for domain(0:N-1) with (i) read B { (i) }, write C { (i) }
    for (int i = 0; i <= N-1; i += 1) { foo(C, B, i); }
  }
}
";

    #[test]
    fn spec_chain() {
        let p = ok(SPEC);
        assert_eq!(p.regions.len(), 1);
        let r = &p.regions[0];
        let RegionKind::Chain(s) = &r.kind else {
            panic!("not a chain")
        };
        assert!(matches!(
            s.items[0],
            ScheduleItem::Fuse { shifts: None, .. }
        ));
        let start = SPEC.find("  #pragma omplc loopchain").unwrap();
        let end = SPEC.rfind("  }\n}").unwrap() + 3;
        assert_eq!((r.span.start, r.span.end), (start, end));
        assert_eq!(
            &SPEC[r.pragma_span.start..r.pragma_span.start + 9],
            "#pragma o"
        );
        assert_eq!(r.indent, "  ");
        assert_eq!(tree(&r.tree), "i(#0) i(#1)");

        let s0 = &r.stages[0];
        assert_eq!(s0.name, "S0");
        assert_eq!(s0.label, "nest 1 (line 5)");
        assert!(SPEC[s0.span.start..s0.span.end].starts_with("#pragma omplc for domain(1:N-2)"));
        assert!(SPEC[s0.span.start..s0.span.end].ends_with("write B { (i) }"));
        assert_eq!(s0.iterators, vec!["i"]);
        assert_eq!(domain(s0), ["i >= 1", "i <= (N - 2)"]);
        assert_eq!(
            accesses(&s0.accesses),
            ["R A[(i - 1)]", "R A[i]", "R A[(i + 1)]", "W B[i]"]
        );
        assert!(s0.analysable);
        let obs = s0.observed.as_ref().expect("analysed");
        assert_eq!(
            accesses(obs),
            ["W B[i]", "R A[(i - 1)]", "R A[i]", "R A[(i + 1)]"]
        );
        let b = obs[0].span;
        assert_eq!(&SPEC[b.start..b.end], "B[i]");
        assert_eq!(
            template(s0),
            "{ B[<0>] = (A[<0>-1] + A[<0>] + A[<0>+1]) * e; }"
        );
        // Access holes index the observed accesses, not the declared ones.
        assert_eq!(
            holes(s0),
            "{ «0:B[<0>]» = («1:A[<0>-1]» + «2:A[<0>]» + «3:A[<0>+1]») * e; }"
        );
        assert!(std::ptr::eq(s0.analysed().unwrap(), obs.as_slice()));
        let body_span = SPEC.find("{ B[i]").unwrap()..SPEC.find("* e; }").unwrap() + 6;
        assert_eq!(s0.body.instantiate(&["i".into()]), SPEC[body_span]);

        let s1 = &r.stages[1];
        assert_eq!(s1.name, "S1");
        assert_eq!(s1.label, "nest 2 (line 8)");
        assert!(!s1.analysable);
        assert!(s1.observed.is_none());
        assert!(s1.analysed().is_none());
        assert_eq!(template(s1), "{ foo(C, B, <0>); }");
        assert_eq!(holes(s1), "{ foo(C, B, <0>); }");
        // Element types come from analysable bodies only (C is not accessed in one).
        let types: Vec<(&str, &str)> = r
            .data_types
            .iter()
            .map(|(a, t)| (a.as_str(), t.as_str()))
            .collect();
        assert_eq!(types, [("A", "double"), ("B", "double")]);
    }

    #[test]
    fn function_scope_iterators_braces_and_scalars() {
        let src = "\
void f(int n, int m, double A[n][m], double B[n][m], struct { int i; } s, double *sum) {
  int i, j; double acc = 0;
  for (int t = 0; t < 10; t++) {
#pragma omplc loopchain schedule(fuse((0,0),(0,1)))
    {
#pragma omplc for domain(0:n-1, 0:m-1) with (i, j) write B {(i,j)}, read A {(i,j)}
      for (i = 0; i < n; i++) {
        for (j = 0; j < m; j++)
          B[i][j] = 2 * A[i][j] + t;
      }
#pragma omplc for domain(0:n-1, 0:m-1) with (i, j) read B {(i,j)} write ACC {()}
      for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
          double x = B[i][j];
          acc += x;
          s.i = j;
        }
    }
  }
}
";
        let errs = errors(src);
        assert_eq!(
            errs,
            [(
                "expected an expression, found ')'".to_string(),
                ")".to_string()
            )]
        );
        let src = src.replace("write ACC {()}", "write ACC {(0)}");
        let p = ok(&src);
        let r = &p.regions[0];
        assert_eq!(tree(&r.tree), "i(j(#0)) i(j(#1))");
        let s0 = &r.stages[0];
        assert_eq!(
            domain(s0),
            ["i >= 0", "i <= (n - 1)", "j >= 0", "j <= (m - 1)"]
        );
        assert_eq!(template(s0), "B[<0>][<1>] = 2 * A[<0>][<1>] + t;");
        assert_eq!(holes(s0), "«0:B[<0>][<1>]» = 2 * «1:A[<0>][<1>]» + t;");
        assert_eq!(
            accesses(s0.observed.as_ref().unwrap()),
            ["W B[i][j]", "R A[i][j]"]
        );
        let s1 = &r.stages[1];
        assert!(!s1.analysable, "member access");
        assert!(template(s1).contains("s.i = <1>;"), "{}", template(s1));
        // Without the member access: the scalar accumulation is a 0-d write and read.
        let p = ok(&src.replace("s.i = j;", ""));
        let s1 = &p.regions[0].stages[1];
        assert_eq!(
            accesses(s1.observed.as_ref().unwrap()),
            ["R B[i][j]", "W acc[]", "R acc[]"]
        );
        assert!(holes(s1).contains("double x = «0:B[<0>][<1>]»;\n          acc += x;"));
        assert_eq!(p.regions[0].data_types.len(), 2);
        assert_eq!(p.regions[0].data_types["A"], "double");
    }

    #[test]
    fn macros_make_bodies_opaque_but_keep_iterator_holes() {
        let src = "\
#define N 100
#define AT(a, i) a[(i) + 1]
void f(double *A, double *B) {
#pragma omplc loopchain schedule()
  {
#pragma omplc for domain(0:N-1) with (i) read A {(i+1)} write B {(i)}
    for (int i = 0; i < N; i++) B[i] = AT(A, i) * N;
  }
}
";
        let p = ok(src);
        let s = &p.regions[0].stages[0];
        assert!(!s.analysable);
        // The macro's '+' is read through the expansion: the access is exact.
        let observed: Vec<String> = s
            .observed
            .iter()
            .flatten()
            .map(|a| {
                format!(
                    "{}{:?}",
                    a.data,
                    a.index.iter().map(|e| e.to_string()).collect::<Vec<_>>()
                )
            })
            .collect();
        assert_eq!(observed, ["B[\"i\"]", "A[\"(i + 1)\"]"]);
        assert_eq!(template(s), "B[<0>] = AT(A, <0>) * N;");
        assert_eq!(holes(s), "B[<0>] = AT(A, <0>) * N;");
        assert!(p.regions[0].data_types.is_empty());
        // A constant macro alone keeps the body analysable.
        let p = ok(&src.replace("AT(A, i)", "A[i + 1]"));
        let s = &p.regions[0].stages[0];
        assert!(s.analysable);
        assert_eq!(holes(s), "«0:B[<0>]» = «1:A[<0> + 1]» * N;");
        assert_eq!(
            accesses(s.observed.as_ref().unwrap()),
            ["W B[i]", "R A[(i + 1)]"]
        );
        // A macro that uses the iterator without taking it is an error.
        let errs = errors(&src.replace("#define AT(a, i) a[(i) + 1]", "#define AT(a, k) a[i + 1]"));
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0]
                .0
                .starts_with("macro 'AT' uses the loop iterator 'i'"),
            "{}",
            errs[0].0
        );
        assert_eq!(errs[0].1, "AT(A, i)");
    }

    #[test]
    fn loop_bounds_of_nests() {
        let src = "\
#define FULL (n + 4)
#define M 10
void f(int n, double A[n][M], double *B) {
  int i, k = 0;
#pragma omplc loopchain schedule()
  {
#pragma omplc for domain(0:n-1, 0:M-1) with (i, j) read B {(i)} write A {(i,j)}
    for (i = n - 1; i >= 0; i--)
      for (int j = 0; j < M; j += 3) A[i][j] = B[i];
#pragma omplc for domain(0:n-1) with (i) read A {(i,0)} write B {(i)}
    for (i = 0; i < FULL - 4; i++) B[i] = A[i][0];
#pragma omplc for domain(0:n-1) with (i) read A {(i,0)} write B {(i)}, write K {(0)}
    for (i = 0; i < n - k; i++) { B[i] = A[i][0]; k = 0; }
  }
}
";
        let p = ok(src);
        let r = &p.regions[0];
        let b = r.stages[0].loop_bounds.as_ref().expect("affine headers");
        let cons: Vec<String> = b
            .constraints
            .iter()
            .map(|c| format!("{} {} {}", c.lhs, c.op.as_str(), c.rhs))
            .collect();
        assert_eq!(
            cons,
            [
                "i <= (n - 1)",
                "i >= 0",
                "j >= 0",
                "j < M",
                "((j - 0) % 3) = 0"
            ]
        );
        assert_eq!(&src[b.domain.start..b.domain.end], "domain(0:n-1, 0:M-1)");
        assert!(src[b.headers.start..b.headers.end].starts_with("for (i = n - 1;"));
        // A macro standing for an expression is read through its expansion;
        // a variable the chain assigns makes no bounds.
        assert!(r.stages[1].loop_bounds.is_some());
        assert!(r.stages[2].loop_bounds.is_none());
    }

    #[test]
    fn nest_errors() {
        let base = "\
void f(int N, double *A, double *B) {
  int x = 0;
#pragma omplc loopchain schedule()
  {
#pragma omplc for domain(0:N-1) with (i) read A {(i)} write B {(i)}
    for (int i = 0; i < N; i++) B[i] = A[i];
  }
}
";
        let err = |from: &str, to: &str| {
            let e = errors(&base.replace(from, to));
            assert_eq!(e.len(), 1, "{e:?}");
            e.into_iter().next().unwrap()
        };
        assert_eq!(
            err("with (i)", "with (k)"),
            (
                "'with' lists 'k' at position 1 but the loop at that depth iterates over 'i'"
                    .into(),
                "k".into()
            )
        );
        let (m, t) = err("    for (int i = 0; i < N; i++) B[i] = A[i];", "    x = 1;");
        assert_eq!(m, "expected a for loop after '#pragma omplc for'");
        assert!(t.starts_with("#pragma omplc for domain"));
        assert_eq!(
            err("  }\n}", "    x++;\n  }\n}"),
            (
                "statement inside a loop chain that is not an annotated nest".into(),
                "x++".into()
            )
        );
        assert_eq!(
            err("domain(0:N-1) with (i)", "domain(0:N-1, 0:N-1) with (i, j)"),
            (
                "'with' lists 2 iterators but the nest has only 1 perfectly nested loop".into(),
                "with (i, j)".into()
            )
        );
        assert_eq!(
            err("B[i] = A[i];", "{ B[i] = A[i]; i++; }"),
            (
                "the loop iterator 'i' is assigned in the body of a stage".into(),
                "i".into()
            )
        );
        assert_eq!(
            err("B[i] = A[i];", "{ if (A[i] > 0) break; B[i] = A[i]; }"),
            (
                "'break' leaves the body of a stage; flextile cannot reorder such a body".into(),
                "break".into()
            )
        );
        let (m, t) = err("write B {(i)}", "write B {(i)}, read B {(i, 0)}");
        assert!(
            m.starts_with("tuple arity mismatch: 'B' is accessed with 2 indices here"),
            "{m}"
        );
        assert_eq!(t, "(i, 0)");
        let (m, t) = err("  {\n#pragma omplc for", "  x = 2;\n  {\n#pragma omplc for");
        assert_eq!(
            m,
            "expected a compound statement '{ ... }' after '#pragma omplc loopchain'"
        );
        assert!(t.starts_with("#pragma omplc loopchain"));
        let e = errors("void f(void) {\n#pragma omplc loopchain schedule()\n  { ; }\n}\n");
        assert_eq!(e[0].0, "loop chain without any '#pragma omplc for' nest");
        // A syntax error in the only nest pragma is the only error.
        let e = errors("void f(int N, double *B) {\n#pragma omplc loopchain schedule()\n  {\n#pragma omplc for domain(0:N-1) with (i) write B {(i)\n  for (int i = 0; i < N; i++) B[i] = 0;\n  }\n}\n");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].0.starts_with("expected ',' or '}'"), "{e:?}");
        let (m, _) = err("#pragma omplc loopchain schedule()\n", "");
        assert_eq!(m, "'#pragma omplc for' outside a loop chain");
    }

    #[test]
    fn chain_as_the_body_of_a_time_loop() {
        let src = "\
void f(int T, int N, double *A, double *B) {
  for (int t = 0; t < T; t++)
    #pragma omplc loopchain schedule(fuse())
    {
      #pragma omplc for domain(1:N-2) with (i) read A {(i-1),(i+1)} write B {(i)}
      for (int i = 1; i < N - 1; i++) B[i] = A[i-1] + A[i+1];
      #pragma omplc for domain(1:N-2) with (i) read B {(i)} write A {(i)}
      for (int i = 1; i < N - 1; i++) A[i] = B[i];
    }
}
";
        let p = ok(src);
        let r = &p.regions[0];
        assert_eq!(r.indent, "    ");
        assert_eq!(r.stages.len(), 2);
        assert_eq!(&src[r.span.start..r.span.start + 8], "    #pra");
        assert!(src[..r.span.end].ends_with("A[i] = B[i];\n    }"));
        assert_eq!(template(&r.stages[0]), "B[<0>] = A[<0>-1] + A[<0>+1];");
    }

    #[test]
    fn two_chains_number_stages_across_the_file() {
        let one = "\
#pragma omplc loopchain schedule()
  {
#pragma omplc for domain(0:N-1) with (i) read A {(i)} write B {(i)}
    for (int i = 0; i < N; i++) B[i] = A[i];
#pragma omplc for domain(0:N-1) with (i) read B {(i)} write A {(i)}
    for (int i = 0; i < N; i++) A[i] = B[i];
  }
";
        let src = format!("void f(int N, double *A, double *B) {{\n{one}}}\nvoid g(int N, double *A, double *B) {{\n{one}}}\n");
        let p = ok(&src);
        assert_eq!(p.regions.len(), 2);
        let names: Vec<&str> = p
            .regions
            .iter()
            .flat_map(|r| r.stages.iter().map(|s| s.name.as_str()))
            .collect();
        assert_eq!(names, ["S0", "S1", "S2", "S3"]);
        assert_eq!(p.regions[1].stages[0].label, "nest 1 (line 13)");
        assert!(p.regions[0].span.end < p.regions[1].span.start);
    }

    #[test]
    fn access_holes_with_compound_assignments_and_vla_pointers() {
        let src = "\
void f(int N, int C, float (*A)[C], const float (*B)[C], unsigned char *M) {
#pragma omplc loopchain schedule()
  {
#pragma omplc for domain(1:N-1, 0:C-1) with (i, j) read A {(i,j)}, read B {(i-1,j)} write A {(i,j)}, write M {(j)}
    for (int i = 1; i < N; i++)
      for (int j = 0; j < C; j++) {
        A[i][j] += B[i-1][j];
        M[j]++;
      }
  }
}
";
        let p = ok(src);
        let r = &p.regions[0];
        let s = &r.stages[0];
        let obs = s.analysed().expect("analysable");
        assert_eq!(
            accesses(obs),
            [
                "W A[i][j]",
                "R A[i][j]",
                "R B[(i - 1)][j]",
                "W M[j]",
                "R M[j]"
            ]
        );
        // The hole of a read-and-write access is its write.
        assert_eq!(
            holes(s),
            "{\n        «0:A[<0>][<1>]» += «2:B[<0>-1][<1>]»;\n        «3:M[<1>]»++;\n      }"
        );
        let types: Vec<(&str, &str)> = r
            .data_types
            .iter()
            .map(|(a, t)| (a.as_str(), t.as_str()))
            .collect();
        assert_eq!(
            types,
            [("A", "float"), ("B", "float"), ("M", "unsigned char")]
        );
    }

    #[test]
    fn undeclared_scalars_are_private_or_serial() {
        let src = "\
double h(double);
void f(int n, double A[n], double B[n]) {
  double r, g, s = 0;
#pragma omplc loopchain schedule()
  {
#pragma omplc for domain(0:n-1) with (i) write B {(i)}, read A {(i)}
    for (int i = 0; i < n; i++) {
      r = h(A[i]);
      g = r + 1;
      B[i] = g;
    }
#pragma omplc for domain(0:n-1) with (i) write B {(i)}, read A {(i)}
    for (int i = 0; i < n; i++) {
      s = s + h(A[i]);
      B[i] += s;
    }
  }
}
";
        let p = ok(src);
        let r = &p.regions[0];
        // Per-iteration temporaries: a local copy in the body.
        assert!(template(&r.stages[0]).starts_with("{ double r; double g; {"));
        assert!(accesses(&r.stages[0].accesses)
            .iter()
            .all(|a| !a.contains('r')));
        // A running sum: a declared write and read, and a warning.
        let s1 = accesses(&r.stages[1].accesses);
        assert!(s1.contains(&"W s[]".to_string()) && s1.contains(&"R s[]".to_string()));
        assert!(!template(&r.stages[1]).contains("double s;"));
        let writes: Vec<_> = p
            .warnings
            .iter()
            .filter(|w| w.message.contains(" writes "))
            .collect();
        assert_eq!(writes.len(), 1);
        assert!(writes[0].message.contains("writes 's'"));
        // Both bodies call 'h': their accesses cannot be checked, and each
        // nest gets a warning that names it and the call.
        let unchecked: Vec<_> = p
            .warnings
            .iter()
            .filter(|w| w.message.contains("cannot be checked"))
            .collect();
        assert_eq!(unchecked.len(), 2);
        assert!(unchecked[0].message.contains("nest 1") && unchecked[0].message.contains("'h'"));
        // Read after the region: no copy.
        let p = ok(&src.replace("  }\n}\n", "  }\n  A[0] = g;\n}\n"));
        assert!(!template(&p.regions[0].stages[0]).contains("double g;"));
        assert!(p.warnings.iter().any(|w| w.message.contains("writes 'g'")));
        // A cleanup function reads it after the region: no copy either.
        let cleanup = src.replace(
            "double r, g, s = 0;",
            "void show(double *);\n  double r __attribute__((cleanup(show))), g, s = 0;",
        );
        let p = ok(&cleanup);
        assert!(!template(&p.regions[0].stages[0]).contains("double r;"));
        assert!(p
            .warnings
            .iter()
            .any(|w| w.message.contains("writes 'r'") && w.message.contains("address is taken")));
    }
}
