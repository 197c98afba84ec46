//! How the variables a region accesses are declared ([`Storage`]): which of
//! them may share memory, for the run-time alias guard (`backend::alias`).
//!
//! Besides `restrict`, three facts of the function holding the region keep
//! variables apart, each decided here from the whole function and failing
//! closed (inline assembly in the function, a variable whose address is
//! taken, a `volatile` one or one a macro declares counts as assigned
//! anything):
//! - a local pointer every assignment of which (its initializer included)
//!   is the result of `malloc`, `calloc` or `aligned_alloc` (the C
//!   library's, possibly through casts) points to memory of its own
//!   ([`Origin::Fresh`]);
//! - a pointer parameter the function never assigns points to memory that
//!   existed when it was called ([`Origin::Entry`]): never into the
//!   function's own arrays (`StorageKind::Object { local: true }`) or
//!   allocations;
//! - under strict aliasing (no `-fno-strict-aliasing`), variables whose
//!   elements are of incompatible arithmetic types ([`Storage::element`])
//!   never share memory.

use std::collections::{BTreeMap, BTreeSet};

use super::ast::{strip, Unit};
use super::clang::{Cursor, CursorKind};
use crate::diag::Span;
use crate::model::program::{Declaration, Element, Origin, Storage, StorageKind};

/// The storage of the variable `decl` (a `VarDecl` or `ParmDecl`), or
/// `None` for a type whose memory flextile does not lay out (a struct).
/// A parameter is a pointer even where clang reports the array type it was
/// written with.
pub fn storage_of(unit: &Unit<'_>, decl: Cursor<'_>) -> Option<Storage> {
    let layout = decl.layout()?;
    let param = decl.kind() == CursorKind::ParmDecl;
    let kind = if layout.pointer || (param && layout.levels > 0) {
        StorageKind::Pointer {
            restrict: layout.restrict,
            origin: origin(unit, decl, param),
        }
    } else if layout.levels == 0 && decl.is_automatic() && !unit.address_taken(decl) {
        StorageKind::Private
    } else {
        StorageKind::Object {
            local: !param && decl.is_automatic(),
        }
    };
    Some(Storage {
        kind,
        levels: layout.levels,
        element: unit
            .strict_aliasing
            .then(|| element(decl, layout.levels))
            .flatten(),
    })
}

/// The element type of `decl` after `levels` subscripts, as strict
/// aliasing tells it apart (`None`: a character type, or one it does not).
fn element(decl: Cursor<'_>, levels: usize) -> Option<Element> {
    let mut ty = decl.ty();
    for _ in 0..levels {
        let t = ty.canonical();
        ty = t.pointee().or_else(|| t.element())?;
    }
    ty.strict_element()
}

/// What the main file's functions assign to their variables (by the
/// location of each variable's declaration), computed once per unit.
#[derive(Debug, Default)]
pub struct Assigned {
    /// Variables assigned the result of an allocation.
    fresh: BTreeSet<usize>,
    /// Variables assigned anything else (`=`, `+=`, `++`, or an operator of
    /// a macro body that may assign them).
    other: BTreeSet<usize>,
    /// Functions (by location) holding inline assembly, which may assign
    /// any of their variables.
    asm: BTreeSet<usize>,
}

impl Assigned {
    /// Walks every function of `unit`.
    fn collect(unit: &Unit<'_>) -> Assigned {
        let mut out = Assigned::default();
        for f in &unit.functions {
            let mut todo = vec![*f];
            while let Some(c) = todo.pop() {
                out.visit(unit, *f, c);
                todo.extend(c.children());
            }
        }
        out
    }

    /// Notes what node `c` of function `f` assigns.
    fn visit<'tu>(&mut self, unit: &Unit<'tu>, f: Cursor<'tu>, c: Cursor<'tu>) {
        let kids = || c.children();
        let may_assign =
            |t: &Cursor<'tu>| unit.macro_may_assign_to(c.span().unwrap_or_default(), *t);
        let (target, value) = match c.kind() {
            CursorKind::VarDecl => (Some(c), c.initializer()),
            CursorKind::BinaryOperator => match unit.binary_op(c).as_deref() {
                Some("=") => (kids().first().copied(), kids().get(1).copied()),
                Some(_) => (None, None),
                None => (kids().first().copied().filter(may_assign), None),
            },
            CursorKind::CompoundAssignOperator => (kids().first().copied(), None),
            CursorKind::UnaryOperator => match unit.unary_op(c) {
                Some((op, _)) if op == "++" || op == "--" => (kids().first().copied(), None),
                Some(_) => (None, None),
                None => (kids().first().copied().filter(may_assign), None),
            },
            CursorKind::Other if c.kind_name().contains("Asm") => {
                self.asm.extend(f.location());
                (None, None)
            }
            _ => (None, None),
        };
        let Some(target) = target else {
            return;
        };
        let var = match target.kind() {
            CursorKind::VarDecl => Some(target),
            _ => Some(strip(target))
                .filter(|t| t.kind() == CursorKind::DeclRefExpr)
                .and_then(|t| t.referenced()),
        };
        let Some(at) = var.and_then(|v| v.location()) else {
            return;
        };
        match value {
            Some(v) if is_allocation(v) => self.fresh.insert(at),
            None if c.kind() == CursorKind::VarDecl => false,
            _ => self.other.insert(at),
        };
    }
}

/// True for `malloc(...)`, `calloc(...)` or `aligned_alloc(...)` of the C
/// library (declared in a system header), possibly in parentheses and casts.
fn is_allocation(value: Cursor<'_>) -> bool {
    const ALLOCATORS: &[&str] = &["malloc", "calloc", "aligned_alloc"];
    let call = strip(value);
    if call.kind() != CursorKind::CallExpr {
        return false;
    }
    let callee = call
        .children()
        .first()
        .map(|c| strip(*c))
        .filter(|c| c.kind() == CursorKind::DeclRefExpr)
        .and_then(|c| c.referenced());
    callee.is_some_and(|f| {
        f.kind() == CursorKind::FunctionDecl
            && f.is_in_system_header()
            && ALLOCATORS.contains(&f.spelling().as_str())
    })
}

/// Where the pointer `decl` (a parameter where `param`) may point (see
/// [`Origin`]).
fn origin(unit: &Unit<'_>, decl: Cursor<'_>, param: bool) -> Origin {
    let Some(at) = decl.location() else {
        return Origin::Any;
    };
    // Declared by a macro, its location may be another variable's.
    let written = unit
        .token_at_or_after(at)
        .is_some_and(|t| t.span.start == at && t.text == decl.spelling());
    let in_asm_function = || {
        let a = unit.assigned.get_or_init(|| Assigned::collect(unit));
        unit.function_around(Span::new(at, at))
            .is_none_or(|f| f.location().is_none_or(|l| a.asm.contains(&l)))
    };
    if !written
        || !decl.is_automatic()
        || decl.ty().is_volatile()
        || unit.address_taken(decl)
        || in_asm_function()
    {
        return Origin::Any;
    }
    let a = unit.assigned.get_or_init(|| Assigned::collect(unit));
    let (fresh, other) = (a.fresh.contains(&at), a.other.contains(&at));
    match (param, fresh, other) {
        (true, false, false) => Origin::Entry,
        (false, true, false) => Origin::Fresh,
        _ => Origin::Any,
    }
}

/// Where the pointer `decl` is declared, and the declaration with
/// `restrict` (`float *restrict a`, `double a[restrict N][M]`) where its
/// text is plain: the name written in the file, one declarator.
fn declaration(unit: &Unit<'_>, decl: Cursor<'_>) -> Option<Declaration> {
    let at = decl.location()?;
    let name = decl.spelling();
    let token = unit.token_at_or_after(at)?;
    if token.span.start != at || token.text != name {
        return None;
    }
    let span = Span::new(at, token.span.end);
    let restrict = decl.span().and_then(|whole| {
        let before = unit.slice(Span::new(whole.start, at));
        let after = unit.slice(Span::new(span.end, whole.end.max(span.end)));
        // A variable's initializer is not part of what is shown.
        let after = after.split('=').next().unwrap_or("").trim_end();
        let plain = |t: &str| !t.contains([',', ';', '{', '#', '\n']);
        if !plain(before) || !plain(after) {
            return None;
        }
        let text = if let Some(dims) = after.strip_prefix('[') {
            let gap = if dims.starts_with(']') { "" } else { " " };
            format!("{before}{name}[restrict{gap}{dims}")
        } else if before.trim_end().ends_with('*') {
            format!("{before}restrict {name}{after}")
        } else {
            return None;
        };
        Some(text.split_whitespace().collect::<Vec<_>>().join(" "))
    });
    Some(Declaration { span, restrict })
}

/// The variables of one region, by name, with the location of the
/// declaration each name was first seen with (`None`: a declaration outside
/// the main file, which is at file scope: one per name).
#[derive(Clone, Debug, Default)]
pub struct Declared {
    seen: BTreeMap<String, (Option<usize>, Option<Storage>)>,
    /// Where the pointers that are not `restrict` are declared.
    declarations: BTreeMap<String, Declaration>,
}

impl Declared {
    /// Notes that the region accesses `name`, declared by `decl`.
    pub fn note(&mut self, unit: &Unit<'_>, name: &str, decl: Cursor<'_>) {
        let at = decl.location();
        match self.seen.get_mut(name) {
            Some((first, storage)) => {
                if *first != at {
                    *storage = None;
                    self.declarations.remove(name);
                }
            }
            None => {
                let storage = storage_of(unit, decl);
                if let Some(Storage {
                    kind:
                        StorageKind::Pointer {
                            restrict: false, ..
                        },
                    ..
                }) = storage
                {
                    if let Some(d) = declaration(unit, decl) {
                        self.declarations.insert(name.to_string(), d);
                    }
                }
                self.seen.insert(name.to_string(), (at, storage));
            }
        }
    }

    /// Adds what `other` saw (a name declared differently in both has no storage).
    pub fn merge(&mut self, other: &Declared) {
        for (name, (at, storage)) in &other.seen {
            match self.seen.get_mut(name) {
                Some((first, mine)) => {
                    if first != at || mine != storage {
                        *mine = None;
                        self.declarations.remove(name);
                    }
                }
                None => {
                    self.seen.insert(name.clone(), (*at, *storage));
                }
            }
        }
        for (name, d) in &other.declarations {
            if matches!(self.seen.get(name), Some((_, Some(_)))) {
                self.declarations
                    .entry(name.clone())
                    .or_insert_with(|| d.clone());
            }
        }
    }

    /// The storage of each name (`None`: declared differently in different places).
    pub fn storage(&self) -> BTreeMap<String, Option<Storage>> {
        self.seen
            .iter()
            .map(|(n, (_, s))| (n.clone(), *s))
            .collect()
    }

    /// Where each pointer that is not `restrict` is declared (see
    /// [`Declaration`]).
    pub fn declarations(&self) -> BTreeMap<String, Declaration> {
        self.declarations.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::clang::CursorKind;
    use crate::frontend::testutil;

    /// `name: kind levels` of every parameter and local of the first function.
    fn storages(src: &str) -> Vec<String> {
        testutil::with_unit(src, |unit| {
            let f = unit.functions[0];
            let mut decls: Vec<_> = f
                .children()
                .into_iter()
                .filter(|c| c.kind() == CursorKind::ParmDecl)
                .collect();
            decls.extend(testutil::find_all(unit, CursorKind::VarDecl));
            decls
                .iter()
                .map(|d| {
                    let s = match storage_of(unit, *d) {
                        Some(Storage {
                            kind,
                            levels,
                            element,
                        }) => format!("{kind:?} {levels} {element:?}"),
                        None => "none".to_string(),
                    };
                    format!("{}: {s}", d.spelling())
                })
                .collect()
        })
    }

    #[test]
    fn parameters_locals_and_globals() {
        let src = "#define M 8\ndouble G[4][M]; double *GP;\n\
            void f(int n, double *a, double *restrict b, double c[n][M], double d[restrict][M],\n\
                   const double e[restrict 10], double **p, float (*q)[M][3]) {\n\
              double loc[10]; double s = 0, t = 0; double *lp = a; int *ip = &n;\n\
              t = s + loc[0] + lp[0] + G[0][0] + GP[0] + *ip + t;\n\
            }\n";
        assert_eq!(
            storages(src),
            [
                "n: Object { local: false } 0 Some(Int)",
                "a: Pointer { restrict: false, origin: Entry } 1 Some(Double)",
                "b: Pointer { restrict: true, origin: Entry } 1 Some(Double)",
                "c: Pointer { restrict: false, origin: Entry } 2 Some(Double)",
                "d: Pointer { restrict: true, origin: Entry } 2 Some(Double)",
                "e: Pointer { restrict: true, origin: Entry } 1 Some(Double)",
                "p: Pointer { restrict: false, origin: Entry } 1 None",
                "q: Pointer { restrict: false, origin: Entry } 3 Some(Float)",
                "loc: Object { local: true } 1 Some(Double)",
                "s: Private 0 Some(Double)",
                "t: Private 0 Some(Double)",
                "lp: Pointer { restrict: false, origin: Any } 1 Some(Double)",
                "ip: Pointer { restrict: false, origin: Any } 1 Some(Int)",
            ]
        );
    }

    #[test]
    fn where_pointers_come_from() {
        let src = "#include <stdlib.h>\n\
            void g(float **);\n\
            void f(float *a, float *b, float *c, unsigned char *u, int n) {\n\
              float *m = malloc(4 * n); float *k; k = (float *)calloc(n, 4);\n\
              float *mixed = malloc(4); mixed = a; float *later = malloc(4); later++;\n\
              float *esc = malloc(4); g(&esc);\n\
              b += 1; c[0] = 1; u[0] = 0;\n\
              m[0] = k[0] + mixed[0] + later[0] + esc[0] + b[0];\n\
            }\n";
        let origin = |s: &str| s.split(" } ").next().unwrap_or("").to_string();
        let got: Vec<String> = storages(src).iter().map(|s| origin(s)).collect();
        assert_eq!(
            got,
            [
                "a: Pointer { restrict: false, origin: Entry",
                "b: Pointer { restrict: false, origin: Any",
                "c: Pointer { restrict: false, origin: Entry",
                "u: Pointer { restrict: false, origin: Entry",
                "n: Private 0 Some(Int)",
                "m: Pointer { restrict: false, origin: Fresh",
                "k: Pointer { restrict: false, origin: Fresh",
                "mixed: Pointer { restrict: false, origin: Any",
                "later: Pointer { restrict: false, origin: Any",
                "esc: Pointer { restrict: false, origin: Any",
            ]
        );
        // A character type may access any object: no element.
        assert!(storages(src)[3].ends_with("1 None"), "{:?}", storages(src));
    }
}
