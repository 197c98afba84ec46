//! Statement-local scalars of `#pragma scop` regions.
//!
//! A scalar that a loop body writes before it reads it, in every iteration,
//! carries no value from one iteration to the next: it is private to the
//! iteration (the live ranges of PPCG's live-range reordering, Verdoolaege &
//! Cohen, IMPACT'16; Polly's scalar dependences). flextile keeps each such
//! live range inside one stage: the consecutive statements of a block from
//! the scalar's first write to its last read become one stage, whose body
//! declares the scalar (its own declaration `float d = ...;`, or a copy of a
//! declaration made before the region). The scalar then is no data set of
//! the model: its dependences are gone, and the loops around it may run in
//! parallel, be tiled and be fused like any other.
//!
//! A variable qualifies when it is an integer or floating-point scalar of
//! automatic storage (not `volatile`, its address never taken, not a loop's
//! variable), every mention of it in the function lies in such a group, and
//! in each group its first use is an unconditional assignment of the whole
//! variable (or its declaration's initializer). A group holds no loop. A
//! variable declared before the region that does not qualify stays a
//! 0-dimensional data set, written and read by its statements (their loops
//! stay serial); [`Plan::shared`] says why. One declared inside the region
//! that does not qualify is an error.

use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::{is_label, Unit};
use crate::frontend::clang::{Cursor, CursorKind, TypeClass};
use crate::frontend::scalars::{copy_declaration, first_use, references_of, written_outside};

/// Consecutive statements of a block that become one stage.
#[derive(Clone, Debug)]
pub struct Group<'tu> {
    /// The statements, in order (at least one).
    pub stmts: Vec<Cursor<'tu>>,
    /// Variables declared before the region that are local to the stage:
    /// its body declares a copy of each (`copies`).
    pub locals: Vec<Cursor<'tu>>,
    /// The declarations of those copies (`double d;`).
    pub copies: Vec<String>,
}

/// The statement-local scalars of a region.
#[derive(Debug, Default)]
pub struct Plan<'tu> {
    groups: Vec<Group<'tu>>,
    /// Variables declared inside the region that cannot be kept inside one
    /// stage: errors.
    pub errors: Vec<Diagnostic>,
    /// Scalars declared before the region, written in it, that are not
    /// statement-local, and why.
    pub shared: Vec<(Cursor<'tu>, String)>,
}

impl<'tu> Plan<'tu> {
    /// The group that starts with the statement `c`, if any.
    pub fn group_at(&self, c: Cursor<'tu>) -> Option<&Group<'tu>> {
        self.groups.iter().find(|g| g.stmts.first() == Some(&c))
    }
}

/// A variable that may be local to a group: its declaration, whether it is
/// declared inside the region, and the first and last statements of the
/// block that mention it.
#[derive(Clone, Copy)]
struct Candidate<'tu> {
    decl: Cursor<'tu>,
    inside: bool,
    lo: usize,
    hi: usize,
}

/// Plans the groups of the region made of `stmts`, whose bytes are `region`.
pub fn plan<'tu>(unit: &Unit<'tu>, stmts: &[Cursor<'tu>], region: Span) -> Plan<'tu> {
    let function = unit.function_around(region);
    let mut headers = Vec::new();
    for s in stmts {
        header_writes(unit, *s, &mut headers);
    }
    let mut excluded: Vec<(Cursor<'tu>, String)> = Vec::new();
    loop {
        let mut p = Planner {
            unit,
            region,
            headers: &headers,
            excluded: &excluded,
            plan: Plan::default(),
            loops: Vec::new(),
        };
        p.list(stmts);
        let mut more = std::mem::take(&mut p.plan.shared);
        more.extend(uncovered(unit, &p.plan, function, &more));
        // A loop between its uses says best why a variable is not local.
        for (d, why) in &mut more {
            if let Some((_, w)) = p.loops.iter().find(|(e, _)| e == d) {
                *why = w.clone();
            }
        }
        more.retain(|(d, _)| !excluded.iter().any(|(e, _)| e == d));
        if more.is_empty() {
            let mut plan = p.plan;
            plan.shared = excluded;
            return plan;
        }
        for m in more {
            if !excluded.iter().any(|(e, _)| *e == m.0) {
                excluded.push(m);
            }
        }
    }
}

/// The variables declared before the region that some group keeps local
/// but that the function mentions outside every group keeping them (or
/// that `failed` names already), with why.
fn uncovered<'tu>(
    unit: &Unit<'tu>,
    plan: &Plan<'tu>,
    function: Option<Cursor<'tu>>,
    failed: &[(Cursor<'tu>, String)],
) -> Vec<(Cursor<'tu>, String)> {
    let mut out: Vec<(Cursor<'tu>, String)> = Vec::new();
    for g in &plan.groups {
        for d in &g.locals {
            if out.iter().chain(failed).any(|(e, _)| e == d) {
                continue;
            }
            let mut refs = Vec::new();
            if let Some(f) = function {
                references_of(f, *d, &mut refs);
            }
            let covered = |s: &Span| {
                plan.groups.iter().any(|h| {
                    h.locals.contains(d)
                        && span_of(&h.stmts).is_some_and(|g| g.start <= s.start && s.end <= g.end)
                })
            };
            if function.is_none() {
                out.push((*d, "flextile cannot see its function".into()));
            } else if let Some(r) = refs.iter().find(|s| !covered(s)) {
                out.push((
                    *d,
                    format!(
                        "it is used on line {} outside the statements that assign it first",
                        unit.line_of(r.start)
                    ),
                ));
            }
        }
    }
    out
}

/// The bytes of consecutive statements `stmts`.
fn span_of(stmts: &[Cursor<'_>]) -> Option<Span> {
    let first = stmts.first()?.span()?;
    let last = stmts.last()?.span()?;
    Some(Span::new(first.start, last.end))
}

/// The variables written in the headers of the loops under `c`.
fn header_writes<'tu>(unit: &Unit<'tu>, c: Cursor<'tu>, out: &mut Vec<Cursor<'tu>>) {
    let kids = c.children();
    if c.kind() == CursorKind::ForStmt {
        for h in &kids[..kids.len().saturating_sub(1)] {
            out.extend(
                written_outside(unit, *h, Span::new(0, 0), &[])
                    .into_iter()
                    .map(|w| w.decl),
            );
        }
    }
    for k in kids {
        header_writes(unit, k, out);
    }
}

struct Planner<'p, 'tu> {
    unit: &'p Unit<'tu>,
    region: Span,
    headers: &'p [Cursor<'tu>],
    excluded: &'p [(Cursor<'tu>, String)],
    plan: Plan<'tu>,
    /// Variables declared before the region left to the blocks under a
    /// loop between their uses, with that reason.
    loops: Vec<(Cursor<'tu>, String)>,
}

impl<'tu> Planner<'_, 'tu> {
    /// Plans the statements `kids` of one block, then the blocks under the
    /// statements no group takes.
    fn list(&mut self, kids: &[Cursor<'tu>]) {
        let groups = self.groups(kids);
        let mut k = 0;
        while k < kids.len() {
            if let Some(g) = groups.iter().find(|g| g.stmts.first() == Some(&kids[k])) {
                k += g.stmts.len();
                continue;
            }
            for inner in blocks(kids[k]) {
                self.list(&inner);
            }
            k += 1;
        }
        self.plan.groups.extend(groups);
    }

    /// The groups of the block `kids`.
    fn groups(&mut self, kids: &[Cursor<'tu>]) -> Vec<Group<'tu>> {
        let mut cands = self.candidates(kids);
        loop {
            let intervals = merged(kids, &cands);
            // The others are planned in the blocks under their statement.
            cands.retain(|c| intervals.iter().any(|(lo, hi)| *lo <= c.lo && c.hi <= *hi));
            let bad: Vec<(usize, String)> = cands
                .iter()
                .enumerate()
                .filter_map(|(n, c)| self.why_not(kids, &intervals, c).map(|w| (n, w)))
                .collect();
            if bad.is_empty() {
                return intervals
                    .into_iter()
                    .map(|(lo, hi)| self.group(kids, &cands, lo, hi))
                    .collect();
            }
            for (n, why) in bad.iter().rev() {
                let c = cands.remove(*n);
                let across_loop = first_loop_in(&kids[c.lo..=c.hi]).is_some();
                if across_loop && !c.inside {
                    // Planned in the blocks under its statements (where it may
                    // still be local); this is why, if it is not.
                    self.loops.push((c.decl, why.clone()));
                } else if c.inside {
                    self.plan.errors.push(self.inside_error(c.decl, why));
                } else {
                    self.plan.shared.push((c.decl, why.clone()));
                }
            }
        }
    }

    fn group(
        &self,
        kids: &[Cursor<'tu>],
        cands: &[Candidate<'tu>],
        lo: usize,
        hi: usize,
    ) -> Group<'tu> {
        let locals: Vec<Cursor<'tu>> = cands
            .iter()
            .filter(|c| !c.inside && lo <= c.lo && c.hi <= hi)
            .map(|c| c.decl)
            .collect();
        Group {
            stmts: kids[lo..=hi].to_vec(),
            copies: locals.iter().filter_map(|d| copy_declaration(*d)).collect(),
            locals,
        }
    }

    /// The variables of the block `kids` that may be local to a group.
    fn candidates(&self, kids: &[Cursor<'tu>]) -> Vec<Candidate<'tu>> {
        let mut out: Vec<Candidate<'tu>> = Vec::new();
        for (k, kid) in kids.iter().enumerate() {
            if kid.kind() == CursorKind::DeclStmt {
                for v in kid
                    .children()
                    .into_iter()
                    .filter(|v| v.kind() == CursorKind::VarDecl)
                {
                    out.push(Candidate {
                        decl: v,
                        inside: true,
                        lo: k,
                        hi: k,
                    });
                }
            }
            for w in written_outside(self.unit, *kid, self.region, &[]) {
                let d = w.decl;
                let known = out.iter().any(|c| c.decl == d)
                    || self.headers.contains(&d)
                    || self.excluded.iter().any(|(e, _)| *e == d);
                if !known && matches!(d.type_class(), TypeClass::Integer | TypeClass::Floating) {
                    out.push(Candidate {
                        decl: d,
                        inside: false,
                        lo: k,
                        hi: k,
                    });
                }
            }
        }
        for c in &mut out {
            for (k, kid) in kids.iter().enumerate() {
                let mut refs = Vec::new();
                references_of(*kid, c.decl, &mut refs);
                if !refs.is_empty() {
                    c.lo = c.lo.min(k);
                    c.hi = c.hi.max(k);
                }
            }
        }
        out
    }

    /// Why candidate `c` cannot be local to the group of `intervals` that
    /// holds it, if it cannot.
    fn why_not(
        &self,
        kids: &[Cursor<'tu>],
        intervals: &[(usize, usize)],
        c: &Candidate<'tu>,
    ) -> Option<String> {
        let d = c.decl;
        let ty = d.type_spelling();
        if !d.is_automatic() {
            return Some("it is not a local variable of the function".into());
        }
        if ty.split_whitespace().any(|w| w == "volatile") {
            return Some("it is volatile".into());
        }
        if !matches!(d.type_class(), TypeClass::Integer | TypeClass::Floating) {
            return Some(format!(
                "its type '{ty}' is not an integer or floating-point type"
            ));
        }
        if self.unit.address_taken(d) {
            return Some("its address is taken".into());
        }
        if !c.inside && copy_declaration(d).is_none() {
            return Some("flextile cannot declare a copy of its type".into());
        }
        let &(lo, hi) = intervals
            .iter()
            .find(|(lo, hi)| *lo <= c.lo && c.hi <= *hi)?;
        if let Some(l) = first_loop_in(&kids[lo..=hi]) {
            let line = l.span().map_or(0, |s| self.unit.line_of(s.start));
            return Some(format!(
                "a loop (line {line}) lies among the statements from its first write to its last read"
            ));
        }
        let from = if c.inside {
            if d.initializer().is_some() {
                return None;
            }
            c.lo + 1
        } else {
            c.lo
        };
        if from > c.hi {
            return None;
        }
        let first = kids[from..=c.hi]
            .iter()
            .find_map(|k| first_use(self.unit, *k, d, false));
        match first {
            Some(true) | None => None,
            Some(false) => Some(
                "an iteration may read it before writing it (its value would carry from one iteration to the next)"
                    .into(),
            ),
        }
    }

    fn inside_error(&self, decl: Cursor<'tu>, why: &str) -> Diagnostic {
        let name = decl.spelling();
        let at = decl.span().unwrap_or_default();
        Diagnostic::error(
            at,
            format!(
                "'{name}' is declared inside the scop, but flextile cannot keep it inside one statement: {why}; declare '{name}' before '#pragma scop' (flextile then keeps the loops that use it serial)"
            ),
        )
    }
}

/// The intervals of statements the candidates `cands` join into groups:
/// each candidate's statements, merged where they overlap. A candidate
/// mentioned in one statement only makes a group where that statement is an
/// expression or a declaration (a block, `if` or loop is planned inside).
fn merged(kids: &[Cursor<'_>], cands: &[Candidate<'_>]) -> Vec<(usize, usize)> {
    let simple =
        |k: usize| kids[k].kind() == CursorKind::DeclStmt || kids[k].kind().is_expression();
    let mut spans: Vec<(usize, usize)> = cands
        .iter()
        .filter(|c| c.lo < c.hi || simple(c.lo))
        .map(|c| (c.lo, c.hi))
        .collect();
    spans.sort();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (lo, hi) in spans {
        match out.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// The first loop under the statements `kids`.
fn first_loop_in<'tu>(kids: &[Cursor<'tu>]) -> Option<Cursor<'tu>> {
    kids.iter().find_map(|k| first_loop(*k))
}

/// The first loop under `c` (itself included).
pub fn first_loop(c: Cursor<'_>) -> Option<Cursor<'_>> {
    if matches!(
        c.kind(),
        CursorKind::ForStmt | CursorKind::WhileStmt | CursorKind::DoStmt
    ) {
        return Some(c);
    }
    c.children().into_iter().find_map(first_loop)
}

/// The blocks of statements directly under `c`: a block's statements, a
/// loop's body, an `if`'s branches, a label's statement.
pub fn blocks<'tu>(c: Cursor<'tu>) -> Vec<Vec<Cursor<'tu>>> {
    let kids = c.children();
    let one = |k: Option<&Cursor<'tu>>| -> Vec<Vec<Cursor<'tu>>> {
        match k {
            Some(k) if k.kind() == CursorKind::CompoundStmt => vec![k.children()],
            Some(k) => vec![vec![*k]],
            None => Vec::new(),
        }
    };
    match c.kind() {
        CursorKind::CompoundStmt => vec![kids],
        CursorKind::ForStmt => one(kids.last()),
        CursorKind::IfStmt => kids.iter().skip(1).flat_map(|k| one(Some(k))).collect(),
        k if is_label(k) => one(kids.last()),
        _ => Vec::new(),
    }
}
