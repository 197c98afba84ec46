//! The values loop variables hold after a region.
//!
//! flextile's generated loops count with their own counters, so a loop
//! variable declared outside the region (`int i; ... for (i = 0; ...)`) keeps
//! the value it had before the region. Where the program may read it after
//! the region — a global or `static` variable, one whose address is taken,
//! or a local that the code after the region may read before assigning it —
//! the region's output ends with a copy of the original loops around those
//! variables without their statements (the headers and `if` guards as
//! written, empty bodies). Running it leaves each variable with its final
//! value in the original program: the headers read only iterators and values
//! the region does not assign, so they run as they ran in the region (gcc
//! folds such empty loops to their final values at `-O2`).
//!
//! A statement of the region that uses such a variable outside its loops
//! (`A[0] = i;` after `for (i = ...)`) would read the value of before the
//! region: it is an error ([`uses_outside_loops`]).

use std::collections::BTreeSet;

use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::{strip, Unit};
use crate::frontend::clang::{Cursor, CursorKind};
use crate::frontend::function::{Functions, Walk};
use crate::frontend::loops::{loop_variable, read_header};
use crate::model::program::FinalValues;

/// The loops a region's statements hold: each of `stmts` with how many
/// levels of nested loops belong to the region (`usize::MAX` in a scop; the
/// `with` iterators of a loop chain's nest, whose deeper loops are part of
/// its body).
pub struct RegionLoops<'a, 'tu> {
    /// The region's bytes (pragmas included).
    pub span: Span,
    /// Its statements with their loop depths.
    pub stmts: &'a [(Cursor<'tu>, usize)],
    /// For a loop chain, the variables it assigns: a copied header must not
    /// read them (a scop's builder has checked its headers already).
    pub chain_writes: Option<&'a BTreeSet<String>>,
}

/// The statement-free copy of the region's loops that gives the loop
/// variables read after the region their final values, when there are such
/// variables; errors when a loop chain's header cannot be copied.
pub fn final_values<'tu>(
    unit: &Unit<'tu>,
    walks: &Functions<'tu>,
    region: &RegionLoops<'_, 'tu>,
) -> Result<Option<FinalValues>, Vec<Diagnostic>> {
    let mut vars = Vec::new();
    for &(s, depth) in region.stmts {
        assigned_loop_vars(unit, s, depth, &mut vars);
    }
    if vars.is_empty() {
        return Ok(None);
    }
    let Some(walk) = walks.walk(unit, region.span) else {
        return Ok(None);
    };
    let mut live = BTreeSet::new();
    for (name, decl) in &vars {
        if !live.contains(name) && is_live_after(unit, &walk, region.span, *decl) {
            live.insert(name.clone());
        }
    }
    if live.is_empty() {
        return Ok(None);
    }
    let copier = Copier {
        unit,
        live: &live,
        chain_writes: region.chain_writes,
    };
    let mut lines = Vec::new();
    let mut errors = Vec::new();
    for &(s, depth) in region.stmts {
        if let Some(mut l) = copier.stmt(s, depth, &mut Vec::new(), &mut errors) {
            lines.append(&mut l);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Some(FinalValues {
        variables: live.into_iter().collect(),
        lines,
    }))
}

/// The errors for statements of a region that use a variable of one of its
/// loops outside the loops over it: the generated code does not assign it.
/// `stages` are the stages' bodies with their iterators; `stmts` as in
/// [`RegionLoops`].
pub fn uses_outside_loops(
    unit: &Unit<'_>,
    stmts: &[(Cursor<'_>, usize)],
    stages: &[(Cursor<'_>, &[String])],
) -> Vec<Diagnostic> {
    let mut vars = Vec::new();
    for &(s, depth) in stmts {
        assigned_loop_vars(unit, s, depth, &mut vars);
    }
    let names: BTreeSet<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
    let mut errors = Vec::new();
    for (body, iterators) in stages {
        let mut seen = BTreeSet::new();
        for r in descendants(*body) {
            if r.kind() != CursorKind::DeclRefExpr {
                continue;
            }
            let Some(d) = r.referenced() else { continue };
            let name = d.spelling();
            if !names.contains(name.as_str())
                || iterators.contains(&name)
                || !matches!(d.kind(), CursorKind::VarDecl | CursorKind::ParmDecl)
                || !seen.insert(name.clone())
            {
                continue;
            }
            errors.push(Diagnostic::error(
                r.span().or(body.span()).unwrap_or_default(),
                format!(
                    "'{name}' is the variable of a loop of this region and is used here outside \
                     the loops over it: flextile's generated loops count with their own \
                     counters and do not assign '{name}'; use another variable"
                ),
            ));
        }
    }
    errors
}

/// The loops whose header assigns a variable declared elsewhere
/// (`for (i = ...)`, not `for (int i = ...)`), down to `depth` levels of
/// loops: (variable, its declaration).
fn assigned_loop_vars<'tu>(
    unit: &Unit<'tu>,
    c: Cursor<'tu>,
    depth: usize,
    out: &mut Vec<(String, Cursor<'tu>)>,
) {
    match c.kind() {
        CursorKind::CompoundStmt => {
            for k in c.children() {
                assigned_loop_vars(unit, k, depth, out);
            }
        }
        CursorKind::IfStmt => {
            for k in c.children().into_iter().skip(1) {
                assigned_loop_vars(unit, k, depth, out);
            }
        }
        CursorKind::ForStmt if depth > 0 => {
            let Some(parts) = unit.for_parts(c) else {
                return;
            };
            if let Some(decl) = parts.init.and_then(assigned_variable) {
                if let Some(name) = loop_variable(unit, parts.init) {
                    out.push((name, decl));
                }
            }
            assigned_loop_vars(unit, parts.body, depth - 1, out);
        }
        _ => {}
    }
}

/// The declaration of the variable an init expression `v = e` assigns
/// (`None` for a declaration `int v = e`).
fn assigned_variable(init: Cursor<'_>) -> Option<Cursor<'_>> {
    if init.kind() == CursorKind::DeclStmt {
        return None;
    }
    let init = strip(init);
    let lhs = strip(*init.children().first()?);
    (lhs.kind() == CursorKind::DeclRefExpr)
        .then(|| lhs.referenced())
        .flatten()
}

/// Every node under `c` (itself included), in preorder, walked without
/// recursion (expressions may be deep).
pub(crate) fn descendants(c: Cursor<'_>) -> Vec<Cursor<'_>> {
    let mut out = Vec::new();
    let mut todo = vec![c];
    while let Some(n) = todo.pop() {
        let mut kids = n.children();
        kids.reverse();
        todo.extend(kids);
        out.push(n);
    }
    out
}

/// Whether the program may read `decl` after the region `region` of
/// `function`. Only an automatic variable whose address is never taken (nor
/// given away by an attribute: `cleanup(f)` reads it at the end of its
/// scope, see [`Unit::escaping_attribute`]), in
/// a function without `goto` or labels, can be dead: then the statements
/// after the region are followed outwards, and the variable is dead when one
/// assigns it (`v = e;` or `for (v = e; ...)`, `e` not reading it) before
/// any mentions it, or when the function ends first. Anything else keeps it
/// live: a mention, a `break` or `continue` on the way (they skip
/// statements), or a loop around the region that mentions it elsewhere
/// (its next iteration runs that code after the region).
fn is_live_after<'tu>(unit: &Unit<'tu>, walk: &Walk<'tu>, region: Span, decl: Cursor<'tu>) -> bool {
    if !decl.is_automatic() || unit.escaping_attribute(decl).is_some() {
        return true;
    }
    let name = decl.spelling();
    let function = walk.cursor();
    if walk.jumps()
        || walk.address_taken(&name, decl, || {
            address_taken(unit, function, walk.cursors(), decl, &name)
        })
    {
        return true;
    }
    // The statements from the function body down to the one holding the region.
    let Some(body) = function
        .children()
        .into_iter()
        .find(|k| k.kind() == CursorKind::CompoundStmt)
    else {
        return true;
    };
    let mut path = vec![body];
    while let Some(next) = path.last().and_then(|p| {
        p.children().into_iter().find(|k| {
            k.span()
                .is_some_and(|s| s.start <= region.start && region.end <= s.end && s != region)
                && !k.kind().is_expression()
        })
    }) {
        path.push(next);
    }
    let mut from = region;
    for a in path.into_iter().rev() {
        match a.kind() {
            CursorKind::CompoundStmt => {
                let after: Vec<Cursor<'_>> = a
                    .children()
                    .into_iter()
                    .filter(|s| s.span().is_none_or(|sp| sp.start >= from.end))
                    .collect();
                if let Some(live) = scan(unit, &after, decl) {
                    return live;
                }
            }
            CursorKind::ForStmt | CursorKind::WhileStmt | CursorKind::DoStmt
                if mentions(a, decl, Some(region)) =>
            {
                return true;
            }
            _ => {}
        }
        match a.span() {
            Some(sp) => from = sp,
            None => return true,
        }
    }
    false
}

/// Whether `&name` occurs in `function` (as tokens, or as an address-of
/// operator clang shows on the variable, a macro's included).
fn address_taken<'tu>(
    unit: &Unit<'tu>,
    function: Cursor<'tu>,
    mut all: impl Iterator<Item = Cursor<'tu>>,
    decl: Cursor<'tu>,
    name: &str,
) -> bool {
    let toks = unit.tokens_in(function.span().unwrap_or_default());
    if toks
        .windows(2)
        .any(|w| w[0].text == "&" && w[1].text == name)
    {
        return true;
    }
    all.any(|n| {
        n.kind() == CursorKind::UnaryOperator
            && n.children()
                .first()
                .is_some_and(|k| refers_to(strip(*k), decl))
            && !matches!(unit.unary_op(n), Some((op, _)) if op != "&")
    })
}

/// True for a reference to `decl`.
fn refers_to(c: Cursor<'_>, decl: Cursor<'_>) -> bool {
    c.kind() == CursorKind::DeclRefExpr && c.referenced().is_some_and(|d| d == decl)
}

/// Whether `c` mentions the variable `decl` outside `skip`: a reference
/// clang shows (one a macro expands to included).
fn mentions(c: Cursor<'_>, decl: Cursor<'_>, skip: Option<Span>) -> bool {
    let outside = |sp: Span| !skip.is_some_and(|k| k.start <= sp.start && sp.end <= k.end);
    descendants(c)
        .iter()
        .any(|n| refers_to(*n, decl) && n.span().is_none_or(outside))
}

/// Follows the statements `stmts` in order: `Some(true)` when one may read
/// the variable `decl` before any assigns it (a mention that is not an
/// assignment [`assigns_first`], or a `break` or `continue`, which may skip
/// an assignment), `Some(false)` when one assigns it first, `None` when none
/// mentions it. Compound statements are followed into.
fn scan(unit: &Unit<'_>, stmts: &[Cursor<'_>], decl: Cursor<'_>) -> Option<bool> {
    for s in stmts {
        if s.kind() == CursorKind::CompoundStmt {
            match scan(unit, &s.children(), decl) {
                Some(live) => return Some(live),
                None => continue,
            }
        }
        if mentions(*s, decl, None) {
            return Some(!assigns_first(unit, *s, decl));
        }
        let jumps = descendants(*s)
            .iter()
            .any(|n| matches!(n.kind(), CursorKind::BreakStmt | CursorKind::ContinueStmt));
        if jumps {
            return Some(true);
        }
    }
    None
}

/// Whether statement `s` assigns the variable before reading it: `v = e;`
/// or `for (v = e; ...)` with `e` not mentioning it.
fn assigns_first(unit: &Unit<'_>, s: Cursor<'_>, decl: Cursor<'_>) -> bool {
    let assignment = match s.kind() {
        CursorKind::ForStmt => unit.for_parts(s).and_then(|p| p.init),
        k if k.is_expression() => Some(s),
        _ => None,
    };
    let Some(e) = assignment.map(strip) else {
        return false;
    };
    if e.kind() != CursorKind::BinaryOperator || unit.binary_op(e).as_deref() != Some("=") {
        return false;
    }
    match e.children().as_slice() {
        [l, r] => refers_to(strip(*l), decl) && !mentions(*r, decl, None),
        _ => false,
    }
}

/// Writes the statement-free copy of a region's loops.
struct Copier<'a, 'tu> {
    unit: &'a Unit<'tu>,
    /// The loop variables read after the region.
    live: &'a BTreeSet<String>,
    /// See [`RegionLoops::chain_writes`].
    chain_writes: Option<&'a BTreeSet<String>>,
}

impl<'tu> Copier<'_, 'tu> {
    /// The copy of statement `c` (lines, indented by two spaces per level),
    /// `None` when it holds no loop over a live variable. `depth` levels of
    /// loops belong to the region; `iters` are the variables of the loops
    /// copied around `c`.
    fn stmt(
        &self,
        c: Cursor<'tu>,
        depth: usize,
        iters: &mut Vec<String>,
        errors: &mut Vec<Diagnostic>,
    ) -> Option<Vec<String>> {
        match c.kind() {
            CursorKind::CompoundStmt => {
                let mut out = Vec::new();
                for k in c.children() {
                    if let Some(mut l) = self.stmt(k, depth, iters, errors) {
                        out.append(&mut l);
                    }
                }
                (!out.is_empty()).then_some(out)
            }
            CursorKind::IfStmt => {
                let kids = c.children();
                let cond = kids.first()?;
                let then = self.stmt(*kids.get(1)?, depth, iters, errors);
                let other = kids
                    .get(2)
                    .and_then(|e| self.stmt(*e, depth, iters, errors));
                if then.is_none() && other.is_none() {
                    return None;
                }
                let head = format!("if ({})", self.unit.slice(cond.span()?));
                let mut out = block(head, then.unwrap_or_default());
                if let Some(other) = other {
                    let first = block("else".to_string(), other);
                    if let (Some(close), Some(open)) = (out.pop(), first.first()) {
                        out.push(format!("{close} {open}"));
                    }
                    out.extend(first.into_iter().skip(1));
                }
                Some(out)
            }
            CursorKind::ForStmt if depth > 0 => {
                let parts = self.unit.for_parts(c)?;
                let var = loop_variable(self.unit, parts.init)?;
                iters.push(var.clone());
                let body = self.stmt(parts.body, depth - 1, iters, errors);
                iters.pop();
                let own =
                    self.live.contains(&var) && parts.init.and_then(assigned_variable).is_some();
                if body.is_none() && !own {
                    return None;
                }
                if let Some(writes) = self.chain_writes {
                    let read = self
                        .unit
                        .without_freezing(|| read_header(self.unit, c, iters, writes));
                    if let Err(why) = read {
                        let live: Vec<&str> = self.live.iter().map(String::as_str).collect();
                        errors.push(Diagnostic::error(
                            parts.header,
                            format!(
                                "the value of {} is read after this loop chain, and flextile \
                                     cannot recompute it from this loop: its header must be an \
                                     affine loop that reads nothing the chain assigns ({})",
                                quoted(&live),
                                why.message
                            ),
                        ));
                        return None;
                    }
                }
                let head = self.unit.slice(parts.header).to_string();
                Some(block(head, body.unwrap_or_default()))
            }
            _ => None,
        }
    }
}

/// `head {`, the body indented, `}`.
fn block(head: String, body: Vec<String>) -> Vec<String> {
    let mut out = vec![format!("{head} {{")];
    out.extend(body.into_iter().map(|l| format!("  {l}")));
    out.push("}".to_string());
    out
}

/// `'i'`, `'i' and 'j'`, `'i', 'j' and 'k'`.
fn quoted(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match q.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests;
