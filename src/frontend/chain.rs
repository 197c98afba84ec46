//! Loop chains: `#pragma omplc loopchain` and the compound statement after it,
//! whose annotated nests become the stages of a [`Region`].
//!
//! Each `#pragma omplc for` must directly precede a `for` nest with at least
//! as many perfectly nested loops as its `with` clause lists iterators (the
//! loops' variables must be those iterators, in order; braces around a single
//! inner loop are fine). The stage's domain and accesses are the pragma's; its
//! body is the innermost loop's body, whose accesses are analysed when
//! possible so the model can check them against the declared ones.

use std::collections::BTreeMap;

use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::{strip, Unit};
use crate::frontend::body::{analyse, template, BodyScope, Mode};
use crate::frontend::clang::{Cursor, CursorKind};
use crate::frontend::pragma::{NestPragma, PragmaKind, PragmaLine};
use crate::model::expr::Expr;
use crate::model::program::{
    Access, ChainSchedule, CmpOp, Constraint, OrigNode, Region, RegionKind, Stage,
};

/// Builds the region of the chain opened by `pragma` (with `schedule`), whose
/// compound statement is `compound`. `inner` are the nest pragmas inside the
/// compound statement (well-formed or malformed), in order.
pub fn build<'tu>(
    unit: &Unit<'tu>,
    pragma: &PragmaLine,
    schedule: &ChainSchedule,
    compound: Cursor<'tu>,
    inner: &[&PragmaLine],
) -> Result<Region, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let cspan = compound.span().unwrap_or(pragma.span);
    let mut stages: Vec<Stage> = Vec::new();
    let mut tree = Vec::new();
    let mut next = 0;
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
            match nest(unit, last, np, child, stages.len() + 1) {
                Ok(stage) => {
                    let mut node = OrigNode::Stage(stages.len());
                    for it in stage.iterators.iter().rev() {
                        node = OrigNode::Loop {
                            iter: it.clone(),
                            body: vec![node],
                        };
                    }
                    tree.push(node);
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
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Region {
        kind: RegionKind::Chain(schedule.clone()),
        span: Span::new(pragma.line_start, cspan.end),
        pragma_span: pragma.span,
        indent: pragma.indent.clone(),
        stages,
        tree,
    })
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

/// The variable a `for` loop initialises (`int i = ...` or `i = ...`).
pub fn loop_variable(unit: &Unit<'_>, init: Option<Cursor<'_>>) -> Option<String> {
    let init = init?;
    match init.kind() {
        CursorKind::DeclStmt => {
            let kids = init.children();
            let v = kids.iter().find(|k| k.kind() == CursorKind::VarDecl)?;
            Some(v.spelling())
        }
        _ => {
            let init = strip(init);
            if init.kind() != CursorKind::BinaryOperator
                || unit.binary_op(init).as_deref() != Some("=")
            {
                return None;
            }
            let lhs = strip(*init.children().first()?);
            (lhs.kind() == CursorKind::DeclRefExpr)
                .then(|| lhs.referenced().map(|d| d.spelling()))
                .flatten()
        }
    }
}

/// One annotated nest: the pragma `p` (contents `np`), the statement after it,
/// and its 1-based number in the chain.
fn nest<'tu>(
    unit: &Unit<'tu>,
    p: &PragmaLine,
    np: &NestPragma,
    stmt: Cursor<'tu>,
    number: usize,
) -> Result<Stage, Vec<Diagnostic>> {
    if stmt.kind() != CursorKind::ForStmt {
        let mut d = Diagnostic::error(p.span, "expected a for loop after '#pragma omplc for'");
        if let Some(sp) = stmt.span() {
            d = d.with_note(sp, "this statement is not a 'for' loop");
        }
        return Err(vec![d]);
    }
    let depth = np.iterators.len();
    let iterators: Vec<String> = np.iterators.iter().map(|(n, _)| n.clone()).collect();
    let mut cur = stmt;
    let mut body = None;
    for (d, (want, want_span)) in np.iterators.iter().enumerate() {
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
    let no_writes = Default::default();
    let scope = BodyScope {
        mode: Mode::Omplc,
        iterators: &iterators,
        local_range: body_span,
        region_writes: &no_writes,
    };
    let analysis = analyse(unit, body, body_span, &scope);
    if !analysis.errors.is_empty() {
        return Err(analysis.errors);
    }
    let mut domain = Vec::new();
    for (r, it) in np.ranges.iter().zip(&iterators) {
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
    let accesses = np
        .accesses
        .iter()
        .flat_map(|a| {
            a.tuples.iter().map(|t| Access {
                kind: a.kind,
                data: a.data.clone(),
                index: t.exprs.clone(),
                span: t.span,
            })
        })
        .collect();
    Ok(Stage {
        name: String::new(),
        label: format!("nest {number} (line {})", unit.line_of(p.span.start)),
        span: p.span,
        iterators: iterators.clone(),
        domain,
        accesses,
        body: template(unit, body_span, &iterators),
        analysable: analysis.analysable,
        observed: analysis.analysable.then_some(analysis.accesses),
    })
}
