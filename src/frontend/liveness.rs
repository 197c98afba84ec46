//! Liveness of the data sets a region writes (issue 18, item 1; the
//! macro-dataflow paper's temporary values, §3 and §4.4): a data set that no
//! one declared temporary is *proved* temporary when the enclosing function
//! owns its memory and nothing can read the values the region leaves in it.
//!
//! Owned: a local automatic array of the function (constant size or VLA),
//! or a local pointer whose every assignment stores a fresh block of
//! `malloc`, `calloc` or `aligned_alloc` (its initializer, or a statement
//! `p = malloc(...);`). Dead after the region: every mention of the variable
//! in the function is an element access `x[...]...` (subscripted down to a
//! scalar, its address not taken) that reads neither after the region nor
//! in a loop around it (the rule of [`super::temporaries`]), `sizeof`, or
//! for a pointer `free(p)` and a null check (`!p`, `p == NULL`). Anything else leaves it live-out (fail closed): a call, a
//! `return`, a copy, `&`, arithmetic, a cast, another declaration of the
//! name, a mention a macro body makes, `goto` or `setjmp` in the function,
//! an attribute of its declaration that may use it where no code names it
//! (`cleanup(f)` reads it when it leaves its scope; see
//! [`Unit::escaping_attribute`]).

use std::collections::HashMap;

use crate::diag::Span;
use crate::frontend::ast::{strip, Unit};
use crate::frontend::clang::{Cursor, CursorKind, TypeClass};
use crate::frontend::function::Walk;

/// A node of a function's AST and the index of its parent among the nodes.
#[derive(Clone, Copy)]
pub struct Node<'tu> {
    /// The node.
    pub cursor: Cursor<'tu>,
    /// Its parent (`None` for the function).
    pub parent: Option<usize>,
}

/// Every node under `root` (itself included) with its parent, in preorder,
/// walked without recursion (expressions may be deep).
fn tree(root: Cursor<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut todo = vec![(root, None)];
    while let Some((cursor, parent)) = todo.pop() {
        let me = out.len();
        out.push(Node { cursor, parent });
        let mut kids = cursor.children();
        kids.reverse();
        todo.extend(kids.into_iter().map(|k| (k, Some(me))));
    }
    out
}

/// How the function owns a data set proved temporary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// A local automatic array (VLA included).
    Array,
    /// A local pointer to memory the function allocates.
    Allocated,
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Owner::Array => "a local array",
            Owner::Allocated => "a local pointer to memory the function allocates",
        })
    }
}

/// A function's nodes and what every proof asks of all of them, found in
/// one walk: the first jump that disproves every data set, and the
/// references to variables by name.
pub struct Function<'tu> {
    /// Every node of the function, in preorder ([`tree`]).
    pub nodes: Vec<Node<'tu>>,
    /// The first `goto`, label or `setjmp` call, and why it disproves.
    jump: Option<(Cursor<'tu>, &'static str)>,
    /// The indices of the references (`DeclRefExpr`) to each name, in preorder.
    refs: HashMap<String, Vec<usize>>,
}

impl<'tu> Function<'tu> {
    /// The declaration the function's first reference to `name` names.
    pub fn declaration(&self, name: &str) -> Option<Cursor<'tu>> {
        let k = *self.refs.get(name)?.first()?;
        self.nodes.get(k)?.cursor.referenced()
    }

    /// Walks the function `root` once.
    pub fn new(root: Cursor<'tu>) -> Self {
        let nodes = tree(root);
        let mut jump = None;
        let mut refs: HashMap<String, Vec<usize>> = HashMap::new();
        for (k, n) in nodes.iter().enumerate() {
            let c = n.cursor;
            match c.kind() {
                CursorKind::GotoStmt | CursorKind::LabelStmt => {
                    jump = jump.or(Some((c, "the function jumps (goto or a label)")))
                }
                CursorKind::CallExpr if jump.is_none() && c.spelling().contains("setjmp") => {
                    jump = Some((c, "the function calls setjmp"))
                }
                CursorKind::DeclRefExpr => refs.entry(c.spelling()).or_default().push(k),
                _ => {}
            }
        }
        Function { nodes, jump, refs }
    }
}

/// Whether the data set `name`, written by the region at `region` of the
/// function `walk`, is proved temporary: how the function owns it, or
/// why not (with the line of the first use that disproves it). `reads` are
/// the element reads that may run after the region. What does not depend
/// on the region ([`owned`]) is computed once per function.
pub fn prove<'tu>(
    unit: &Unit<'tu>,
    walk: &Walk<'tu>,
    region: Span,
    name: &str,
    reads: &[(String, Span)],
) -> Result<Owner, String> {
    let function = &walk.liveness;
    if let Some((c, why)) = function.jump {
        return Err(at(unit, c.span(), why));
    }
    let refs: &[usize] = function.refs.get(name).map_or(&[], |r| r.as_slice());
    let inside = |s: Span| region.start <= s.start && s.end <= region.end;
    if refs.is_empty() {
        return Err("the function's code does not name it".to_string());
    }
    if !refs.iter().any(|k| walk.span(*k).is_some_and(inside)) {
        return Err("the region's code does not name it".to_string());
    }
    let owner = walk.owned(unit, name)?;
    if let Some((_, s)) = reads.iter().find(|(n, _)| n == name) {
        return Err(at(
            unit,
            Some(*s),
            "read after the region (or in a loop around it)",
        ));
    }
    Ok(owner)
}

/// `why`, with the line of `span` where there is one.
fn at(unit: &Unit<'_>, span: Option<Span>, why: &str) -> String {
    match span {
        Some(s) => format!("line {}: {why}", unit.line_of(s.start)),
        None => why.to_string(),
    }
}

/// The part of [`prove`] that does not depend on the region: how the
/// function `function`, which names `name` and has no jump, owns the data
/// set, or why it does not (a use that disproves it anywhere).
pub fn owned(unit: &Unit<'_>, function: &Function<'_>, name: &str) -> Result<Owner, String> {
    let at = |span: Option<Span>, why: &str| at(unit, span, why);
    let nodes = function.nodes.as_slice();
    let refs: &[usize] = function.refs.get(name).map_or(&[], |r| r.as_slice());
    let Some(first) = refs.first().map(|k| nodes[*k].cursor) else {
        return Err("the function's code does not name it".to_string());
    };
    let Some(decl) = first.referenced() else {
        return Err(at(first.span(), "its declaration is unknown"));
    };
    if let Some(k) = refs
        .iter()
        .find(|k| nodes[**k].cursor.referenced() != Some(decl))
    {
        let c = nodes[*k].cursor;
        return Err(at(c.span(), "the name refers to another declaration here"));
    }
    let function = nodes.first().and_then(|n| n.cursor.span());
    let local = decl
        .location()
        .is_some_and(|l| function.is_some_and(|f| f.start <= l && l < f.end));
    if decl.kind() == CursorKind::ParmDecl {
        return Err("a parameter".to_string());
    }
    if decl.kind() != CursorKind::VarDecl || !local {
        return Err("not a variable of the function".to_string());
    }
    let declared = decl.location().map(|l| Span::new(l, l + name.len()));
    if !decl.is_automatic() {
        return Err(at(declared, "declared static or extern"));
    }
    if let Some((span, text)) = unit.escaping_attribute(decl) {
        return Err(at(
            span.or(declared),
            &format!("its declaration's attribute '{text}' may use it after the region"),
        ));
    }
    let owner = match decl.type_class() {
        TypeClass::Array => Owner::Array,
        TypeClass::Pointer => {
            match decl.initializer() {
                Some(init) if !is_allocation(strip(init)) => {
                    return Err(at(
                        init.span(),
                        "initialized with something other than malloc, calloc or aligned_alloc",
                    ))
                }
                _ => {}
            }
            Owner::Allocated
        }
        _ => return Err(at(declared, "neither an array nor a pointer")),
    };
    let mut allocated = decl.initializer().is_some();
    for &k in refs {
        let c = nodes[k].cursor;
        let span = c.span();
        if span.map(|s| unit.slice(s)) != Some(name) {
            return Err(at(span, "named in a macro's body"));
        }
        match classify(unit, nodes, k, owner) {
            Use::Element(top) => {
                let scalar = matches!(top.type_class(), TypeClass::Integer | TypeClass::Floating);
                if !scalar {
                    return Err(at(
                        span,
                        "subscripted to a row, a pointer or a struct, not to a number",
                    ));
                }
            }
            Use::Allocated => allocated = true,
            Use::Harmless => {}
            Use::Other(why) => return Err(at(span, why)),
        }
    }
    if owner == Owner::Allocated && !allocated {
        return Err(at(declared, "never assigned an allocation"));
    }
    Ok(owner)
}

/// What a mention of the variable does.
enum Use<'tu> {
    /// An element access; the outermost subscript.
    Element(Cursor<'tu>),
    /// `p = malloc(...);` (or `calloc`, `aligned_alloc`).
    Allocated,
    /// `sizeof`, or `free(p)` of an allocated pointer.
    Harmless,
    /// Anything else: what it is.
    Other(&'static str),
}

/// What the reference `nodes[k]` to a variable owned as `owner` does.
fn classify<'tu>(unit: &Unit<'tu>, nodes: &[Node<'tu>], k: usize, owner: Owner) -> Use<'tu> {
    if under_sizeof(nodes, k) {
        return Use::Harmless;
    }
    let (x, parent) = climb(nodes, k);
    let Some(p) = parent else {
        return Use::Other("used in a way flextile does not classify");
    };
    let pc = nodes[p].cursor;
    let is_first = |c: Cursor<'tu>| c.children().first() == Some(&nodes[x].cursor);
    match pc.kind() {
        CursorKind::ArraySubscriptExpr if is_first(pc) => {
            // Down the subscripts whose base is this one.
            let mut top = p;
            loop {
                let (me, up) = climb(nodes, top);
                match up {
                    Some(u)
                        if nodes[u].cursor.kind() == CursorKind::ArraySubscriptExpr
                            && is_first_child(nodes, u, me) =>
                    {
                        top = u
                    }
                    Some(u) if nodes[u].cursor.kind() == CursorKind::UnaryOperator => {
                        let op = unit.unary_op(nodes[u].cursor);
                        if op.is_none_or(|(o, _)| o == "&") {
                            return Use::Other("the address of an element is taken");
                        }
                        return Use::Element(nodes[top].cursor);
                    }
                    _ => return Use::Element(nodes[top].cursor),
                }
            }
        }
        CursorKind::ArraySubscriptExpr => Use::Other("used as a subscript"),
        CursorKind::CallExpr if owner == Owner::Allocated && !is_first(pc) => {
            if pc.spelling() == "free" && from_library(pc) {
                Use::Harmless
            } else {
                Use::Other("passed to a call")
            }
        }
        CursorKind::CallExpr => Use::Other("passed to a call"),
        CursorKind::BinaryOperator if unit.binary_op(pc).as_deref() == Some("=") => {
            let statement = nodes[p]
                .parent
                .is_some_and(|g| nodes[g].cursor.kind() == CursorKind::CompoundStmt);
            let rhs = pc.children().get(1).map(|r| strip(*r));
            if !is_first(pc) {
                Use::Other("assigned to another variable")
            } else if owner == Owner::Allocated && statement && rhs.is_some_and(is_allocation) {
                Use::Allocated
            } else {
                Use::Other("assigned something other than a new allocation")
            }
        }
        // A null check of an allocated pointer reads nothing it points to.
        CursorKind::UnaryOperator
            if owner == Owner::Allocated && unit.unary_op(pc).is_some_and(|(o, _)| o == "!") =>
        {
            Use::Harmless
        }
        CursorKind::BinaryOperator
            if owner == Owner::Allocated
                && matches!(unit.binary_op(pc).as_deref(), Some("==" | "!="))
                && pc
                    .children()
                    .iter()
                    .any(|o| *o != nodes[x].cursor && strip(*o).eval_int() == Some(0)) =>
        {
            Use::Harmless
        }
        CursorKind::ReturnStmt => Use::Other("returned"),
        CursorKind::UnaryOperator => Use::Other("under a unary operator (&, *, ++, --)"),
        CursorKind::CStyleCastExpr => Use::Other("cast"),
        CursorKind::VarDecl => Use::Other("initializes another variable"),
        CursorKind::BinaryOperator | CursorKind::CompoundAssignOperator => {
            Use::Other("an operand of an operator (pointer arithmetic, comparison)")
        }
        _ => Use::Other("used in a way flextile does not classify"),
    }
}

/// From `nodes[k]` up through the nodes that only convert it (implicit
/// casts, parentheses): the last of them and its parent.
fn climb(nodes: &[Node<'_>], k: usize) -> (usize, Option<usize>) {
    let mut x = k;
    while let Some(p) = nodes[x].parent {
        let c = nodes[p].cursor;
        let wraps = match c.kind() {
            CursorKind::ParenExpr => true,
            CursorKind::UnexposedExpr => c.children().len() == 1,
            _ => false,
        };
        if !wraps {
            return (x, Some(p));
        }
        x = p;
    }
    (x, None)
}

/// Whether `nodes[k]` is inside the operand of a `sizeof` (or `_Alignof`)
/// of its expression: evaluated for its type only, never read.
fn under_sizeof(nodes: &[Node<'_>], k: usize) -> bool {
    let mut at = nodes[k].parent;
    while let Some(p) = at {
        let kind = nodes[p].cursor.kind();
        if kind == CursorKind::UnaryExpr {
            return true;
        }
        if !kind.is_expression() {
            return false;
        }
        at = nodes[p].parent;
    }
    false
}

/// Whether `nodes[child]` is the first child of `nodes[parent]`.
fn is_first_child(nodes: &[Node<'_>], parent: usize, child: usize) -> bool {
    nodes[parent].cursor.children().first() == Some(&nodes[child].cursor)
}

/// Whether `c` is a call of the C library's `malloc`, `calloc` or
/// `aligned_alloc`.
fn is_allocation(c: Cursor<'_>) -> bool {
    c.kind() == CursorKind::CallExpr
        && matches!(c.spelling().as_str(), "malloc" | "calloc" | "aligned_alloc")
        && from_library(c)
}

/// Whether the function a call names is declared in a system header (the C
/// library's, not one of the user's own).
fn from_library(call: Cursor<'_>) -> bool {
    call.referenced()
        .is_some_and(|f| f.kind() == CursorKind::FunctionDecl && f.is_in_system_header())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::testutil::with_unit;

    /// [`prove`] on `name` in the first function of `src`, whose region is
    /// the text from `#pragma scop` to the end of `#pragma endscop`.
    fn why(src: &str, name: &str) -> Result<Owner, String> {
        let start = src.find("#pragma scop").expect("scop");
        let end = src.find("#pragma endscop").expect("endscop") + "#pragma endscop".len();
        let region = Span::new(start, end);
        with_unit(src, |unit| {
            let walks = crate::frontend::function::Functions::new();
            let walk = walks.walk(unit, region).expect("function");
            let around = walk.loops_around(region);
            let reads = walk.reads_after(unit, &around, region);
            prove(unit, &walk, region, name, &reads)
        })
    }

    const HEAD: &str = "#include <stdlib.h>\nvoid use(double *);\n";

    fn with_body(decl: &str, after: &str) -> String {
        format!(
            "{HEAD}void f(int n, double *out) {{\n  int i;\n  {decl}\n#pragma scop\n  \
             for (i = 0; i < n; i++)\n    t[i] = i;\n  for (i = 0; i < n; i++)\n    \
             out[i] = t[i];\n#pragma endscop\n  {after}\n}}\n"
        )
    }

    #[test]
    fn owned_and_dead_arrays_are_proved() {
        assert_eq!(why(&with_body("double t[100];", ""), "t"), Ok(Owner::Array));
        assert_eq!(
            why(&with_body("double t[n];", "t[0] = 1;"), "t"),
            Ok(Owner::Array)
        );
        let m = "double *t = malloc(sizeof(double) * n);\n  if (!t) return;";
        assert_eq!(why(&with_body(m, "free(t);"), "t"), Ok(Owner::Allocated));
        let m = "double *t;\n  t = (double *)calloc(n, sizeof *t);\n  if (t == NULL) return;";
        assert_eq!(why(&with_body(m, "free(t);"), "t"), Ok(Owner::Allocated));
    }

    /// The reason `t` is not proved temporary.
    fn refused(src: &str) -> String {
        match why(src, "t") {
            Ok(o) => panic!("proved ({o}):\n{src}"),
            Err(e) => e,
        }
    }

    #[test]
    fn other_uses_keep_arrays_live() {
        let a = "double t[100];";
        let cases = [
            (with_body(a, "use(t);"), "line 12: passed to a call"),
            (
                with_body(a, "out[0] = t[1];"),
                "line 12: read after the region",
            ),
            (
                with_body(a, "double *q = t; (void)q;"),
                "initializes another variable",
            ),
            (
                with_body(a, "double *q = &t[0]; (void)q;"),
                "the address of an element",
            ),
            (
                with_body(a, "double *q; q = t + 1; (void)q;"),
                "an operand of an operator",
            ),
            (with_body(a, "(void)t;"), "cast"),
            (
                with_body("static double t[100];", ""),
                "line 5: declared static or extern",
            ),
            (
                with_body("double *t = out;", ""),
                "something other than malloc",
            ),
            (
                with_body("double *t = malloc(8 * n);", "t = realloc(t, 8); free(t);"),
                "assigned something other than a new allocation",
            ),
            (
                with_body(a, "{ double t[4]; t[0] = 1; }"),
                "another declaration",
            ),
            (with_body(a, "goto end; end: ;"), "the function jumps"),
            (
                format!("#define SET(i) t[i] = 0\n{}", with_body(a, "SET(0);")),
                "named in a macro's body",
            ),
        ];
        for (src, expected) in &cases {
            let e = refused(src);
            assert!(e.contains(expected), "{e:?} lacks {expected:?} in\n{src}");
        }
        let param = format!(
            "{HEAD}void f(int n, double *t, double *out) {{\n  int i;\n#pragma scop\n  \
             for (i = 0; i < n; i++)\n    t[i] = i;\n#pragma endscop\n  (void)out;\n}}\n"
        );
        assert_eq!(refused(&param), "a parameter");
        let global = format!("double t[100];\n{}", with_body("", ""));
        assert_eq!(refused(&global), "not a variable of the function");
        let returned =
            with_body("double *t = malloc(8 * n);", "return t;").replace("void f(", "double *f(");
        assert!(refused(&returned).contains("returned"));
        let in_loop = with_body(a, "")
            .replace(
                "#pragma scop",
                "for (int s = 0; s < 2; s++) {\n  out[s] = t[s];\n#pragma scop",
            )
            .replace("#pragma endscop", "#pragma endscop\n  }");
        assert!(refused(&in_loop).contains("read after the region (or in a loop around it)"));
    }

    #[test]
    fn attributes_that_may_use_the_variable_keep_it_live() {
        let head = "static void done(double (*)[100]);\nstatic void gone(double **);\n";
        let cleanup = format!(
            "{head}{}",
            with_body("double t[100] __attribute__((cleanup(done)));", "")
        );
        assert!(refused(&cleanup).contains("attribute 'cleanup(done)' may use it after the region"));
        let pointer = format!(
            "{head}{}",
            with_body(
                "double *t __attribute__((cleanup(gone))) = malloc(8 * n);",
                "free(t);"
            )
        );
        assert!(refused(&pointer).contains("attribute 'cleanup(gone)'"));
        let macro_spelled = format!(
            "#define KEEP __attribute__((unused))\n{}",
            with_body("double t[100] KEEP;", "")
        );
        assert!(refused(&macro_spelled).contains("attribute 'KEEP'"));
        for harmless in [
            "double t[100] __attribute__((aligned(64)));",
            "double t[100] __attribute__((unused));",
            "_Alignas(32) double t[100];",
        ] {
            assert_eq!(
                why(&with_body(harmless, ""), "t"),
                Ok(Owner::Array),
                "{harmless}"
            );
        }
    }

    #[test]
    fn rows_are_not_elements() {
        let src = format!(
            "{HEAD}void f(int n, double *out) {{\n  int i;\n  double t[10][10];\n\
             #pragma scop\n  for (i = 0; i < n; i++)\n    t[i][0] = i;\n#pragma endscop\n  \
             out[0] = 0; use(t[1]);\n}}\n"
        );
        assert!(refused(&src).contains("subscripted to a row"));
    }
}
