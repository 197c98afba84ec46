//! Declarations and names whose meaning differs between C and C++, from
//! ISO C++17, Annex C.1 "C++ and ISO C" ([diff.basic], [diff.dcl],
//! [diff.decl], [diff.class], [diff.stat], [diff.cpp]), and names CUDA's
//! headers declare. Each construct is rewritten to C++ that means what the
//! C meant, or refused with a located error naming it:
//!
//! * tentative definitions (C++ has none): all but the definition become
//!   `extern` declarations (`static` ones: all but the first, which must be
//!   the one with the initialiser); file-scope `const` objects (external
//!   linkage in C, internal in C++) get `extern` before their initialised
//!   definition; `const` objects without an initialiser are refused;
//! * K&R definitions become prototyped (refused where a parameter's type
//!   changes under the default argument promotions: callers in other C
//!   units pass the promoted type); unprototyped declarations (`int f();`,
//!   no parameters in C++) get the parameters of the file's definition;
//!   calls through one the file does not define are refused;
//! * `auto` and `register` as storage classes are removed; a `char` array
//!   initialised by a string literal with no room for its `'\0'` is
//!   respelled as a list of characters;
//! * designated initialisers g++ rejects: out of order (reordered when the
//!   values have no side effects), array designators and ranges (respelled
//!   positionally), nested designators (`.a.b = 1` -> `.a = {.b = 1}`);
//! * jumps past initialised declarations, struct tags or enumerators
//!   declared in a struct and used outside it, and types defined in casts,
//!   `sizeof` or parameters are refused (`return;` in a function that
//!   returns a value, and implicit function declarations, clang rejects
//!   already);
//! * file-scope names CUDA's headers declare (the built-in variables,
//!   `dim3`, the vector types and their `make_` functions, `min`, ...) are
//!   renamed by a `#define` before their first declaration; generated code
//!   that uses CUDA's own is guarded from it ([`super::CxxFixes::guard`]).

use std::collections::BTreeMap;

use super::{CxxFix, Pass, CUDA_NAMES, WHY};
use crate::diag::{Diagnostic, Span};
use crate::frontend::clang::{Cursor, CursorKind, Storage, TokenKind, Type, TypeKind};

mod init;
#[cfg(test)]
mod tests;

/// Names flextile's generated CUDA code uses for CUDA's own declarations.
pub const GENERATED_NAMES: &[&str] = &[
    "dim3",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "__syncthreads",
    "__syncwarp",
    "__shfl_sync",
    "cudaError_t",
    "cudaSuccess",
    "cudaMalloc",
    "cudaFree",
    "cudaMemcpy",
    "cudaMemset",
    "cudaMemcpyHostToDevice",
    "cudaMemcpyDeviceToHost",
    "cudaGetLastError",
    "cudaGetErrorString",
];

/// Other names CUDA's headers (`cuda_runtime.h`, which nvcc includes in
/// every `.cu`) declare in host code, besides [`CUDA_NAMES`], the vector
/// types and [`GENERATED_NAMES`].
const MORE_CUDA_NAMES: &[&str] = &[
    "warpSize",
    "atomicAdd",
    "atomicSub",
    "atomicExch",
    "atomicMin",
    "atomicMax",
    "atomicInc",
    "atomicDec",
    "atomicCAS",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
    "cudaDeviceSynchronize",
    "cudaMemcpyKind",
    "cudaStream_t",
    "cudaEvent_t",
    "cudaEventCreate",
    "cudaEventRecord",
    "cudaEventSynchronize",
    "cudaEventElapsedTime",
    "cudaEventDestroy",
    "cudaDeviceProp",
    "cudaGetDeviceProperties",
    "cudaSetDevice",
    "cudaGetDevice",
];

/// The element names of CUDA's vector types (`vector_types.h`): each with
/// 1 to 4 components (`float4`), and a `make_` function (`make_float4`).
const VECTOR_ELEMENTS: &[&str] = &[
    "char",
    "uchar",
    "short",
    "ushort",
    "int",
    "uint",
    "long",
    "ulong",
    "longlong",
    "ulonglong",
    "float",
    "double",
];

/// True when CUDA's headers declare `name` at file scope.
pub fn clashes_with_cuda(name: &str) -> bool {
    let vector = name.strip_prefix("make_").unwrap_or(name);
    let is_vector = VECTOR_ELEMENTS.iter().any(|e| {
        vector
            .strip_prefix(e)
            .is_some_and(|n| matches!(n, "1" | "2" | "3" | "4"))
    });
    is_vector
        || CUDA_NAMES.contains(&name)
        || GENERATED_NAMES.contains(&name)
        || MORE_CUDA_NAMES.contains(&name)
}

/// Runs the checks of the module comment on the main file's declarations
/// (`root`'s children); returns the renamed names generated code must see
/// unrenamed, and the uses of [`GENERATED_NAMES`] in the file.
#[allow(clippy::type_complexity)]
pub(super) fn analyse<'tu>(
    pass: &mut Pass<'_, 'tu>,
    root: Cursor<'tu>,
    skipped: &[Span],
) -> (Vec<String>, Vec<(Span, String)>) {
    let decls: Vec<Cursor<'tu>> = root
        .children()
        .into_iter()
        .filter(|c| c.is_in_main_file() && c.kind() != CursorKind::MacroExpansion)
        .collect();
    let renamed = names(pass, &decls);
    tentative(pass, &decls);
    const_objects(pass, &decls);
    prototypes(pass, &decls);
    let mut walk = Walk::default();
    for d in &decls {
        walk.visit(pass, *d, None);
    }
    walk.finish(pass);
    let guarded = renamed
        .into_iter()
        .filter(|n| GENERATED_NAMES.contains(&n.as_str()))
        .collect();
    let uses = pass
        .unit
        .tokens
        .iter()
        .filter(|t| {
            t.kind == TokenKind::Identifier
                && GENERATED_NAMES.contains(&t.text.as_str())
                && !skipped
                    .iter()
                    .any(|s| s.start <= t.span.start && t.span.start < s.end)
        })
        .map(|t| (t.span, t.text.clone()))
        .collect();
    (guarded, uses)
}

/// The name a file-scope declaration declares (a tag's, a typedef's,
/// enumerators' too), with the cursor to rename it at.
fn declared_names<'tu>(d: Cursor<'tu>) -> Vec<String> {
    let mut out = Vec::new();
    match d.kind() {
        CursorKind::FunctionDecl | CursorKind::VarDecl => out.push(d.spelling()),
        _ => match d.kind_name().as_str() {
            "TypedefDecl" | "StructDecl" | "UnionDecl" => out.push(d.spelling()),
            "EnumDecl" => {
                out.push(d.spelling());
                out.extend(
                    d.children()
                        .into_iter()
                        .filter(|k| k.kind() == CursorKind::EnumConstantDecl)
                        .map(|k| k.spelling()),
                );
            }
            _ => {}
        },
    }
    out.retain(|n| !n.is_empty());
    out
}

/// Renames the file-scope names CUDA's headers declare; returns them.
fn names<'tu>(pass: &mut Pass<'_, 'tu>, decls: &[Cursor<'tu>]) -> Vec<String> {
    let mut renamed: Vec<String> = Vec::new();
    for d in decls {
        for name in declared_names(*d) {
            if clashes_with_cuda(&name) && !renamed.contains(&name) {
                pass.rename(*d, &name);
                renamed.push(name);
            }
        }
    }
    renamed
}

/// The offset of the first token `word` in `span`, before `upto`.
fn token_at(pass: &Pass<'_, '_>, span: Span, upto: usize, word: &str) -> Option<Span> {
    pass.unit
        .tokens_in(span)
        .iter()
        .take_while(|t| t.span.start < upto)
        .find(|t| t.text == word)
        .map(|t| t.span)
}

/// True when `ty` is a `const` object type (or an array of them).
fn is_const_object(ty: Type<'_>) -> bool {
    let mut t = ty;
    loop {
        let c = t.canonical();
        if t.is_const() || c.is_const() {
            return true;
        }
        match c.element() {
            Some(e) if c.kind() != TypeKind::Pointer => t = e,
            _ => return false,
        }
    }
}

/// The other variables declared by the same declaration as `d` (`int n, m;`).
fn same_declaration<'tu>(d: Cursor<'tu>, decls: &[Cursor<'tu>]) -> Vec<Cursor<'tu>> {
    let Some(s) = d.span() else { return Vec::new() };
    decls
        .iter()
        .filter(|o| o.kind() == CursorKind::VarDecl && **o != d)
        .filter(|o| o.span().is_some_and(|t| t.start == s.start))
        .copied()
        .collect()
}

/// The location of `d`'s name (for diagnostics).
fn name_span(d: Cursor<'_>) -> Span {
    let span = d.span().unwrap_or(Span::new(0, 0));
    d.location()
        .map_or(span, |l| Span::new(l, l + d.spelling().len()))
}

/// Tentative definitions: every declaration of a file-scope variable but its
/// definition becomes an `extern` declaration.
fn tentative<'tu>(pass: &mut Pass<'_, 'tu>, decls: &[Cursor<'tu>]) {
    let mut by_name: BTreeMap<String, Vec<Cursor<'tu>>> = BTreeMap::new();
    for d in decls.iter().filter(|d| d.kind() == CursorKind::VarDecl) {
        if d.storage() != Storage::Extern {
            by_name.entry(d.spelling()).or_default().push(*d);
        }
    }
    for (name, list) in by_name {
        if list.len() < 2 {
            continue;
        }
        let is_static = list.iter().any(|d| d.storage() == Storage::Static);
        let with_init = list.iter().position(|d| d.initializer().is_some());
        let definition = if is_static {
            if with_init.is_some_and(|k| k != 0) {
                pass.problems.push(Diagnostic::error(
                    name_span(list[0]),
                    format!(
                        "'{name}' is declared 'static' without an initialiser before its \
                         initialised definition (a tentative definition), and {WHY} \
                         rejects (C++ has no tentative definitions and cannot declare a \
                         'static' variable without defining it): remove this declaration"
                    ),
                ));
                continue;
            }
            0
        } else {
            with_init.unwrap_or_else(|| {
                list.iter()
                    .rposition(|d| d.ty().canonical().kind() != TypeKind::IncompleteArray)
                    .unwrap_or(list.len() - 1)
            })
        };
        for (k, d) in list.iter().enumerate() {
            if k != definition {
                make_extern(pass, *d, decls, &name);
            }
        }
    }
}

/// Makes the tentative definition `d` of `name` an `extern` declaration.
/// Inserts `extern ` where `span` starts.
fn extern_before(pass: &mut Pass<'_, '_>, span: Span) {
    let at = Span::new(span.start, span.start);
    pass.push(
        vec![at],
        CxxFix::Text {
            span: at,
            text: "extern ".to_string(),
        },
    );
}

fn make_extern<'tu>(pass: &mut Pass<'_, 'tu>, d: Cursor<'tu>, decls: &[Cursor<'tu>], name: &str) {
    let Some(span) = d.span() else { return };
    let refuse = |pass: &mut Pass<'_, 'tu>, why: &str| {
        pass.problems.push(Diagnostic::error(
            name_span(d),
            format!(
                "'{name}' is declared again here without 'extern' (a tentative definition), \
                 and {WHY} takes for a second definition; flextile cannot make it an \
                 'extern' declaration ({why}): write 'extern' before it"
            ),
        ));
    };
    if !pass.written(span) {
        return refuse(pass, "it is written in a macro");
    }
    if !same_declaration(d, decls).is_empty() {
        return refuse(pass, "its declaration declares other variables too");
    }
    let at = d.location().unwrap_or(span.end);
    if d.storage() == Storage::Static {
        match token_at(pass, span, at, "static") {
            Some(kw) => pass.push(
                vec![kw],
                CxxFix::Text {
                    span: kw,
                    text: "extern".to_string(),
                },
            ),
            None => refuse(pass, "its 'static' is not written in it"),
        }
    } else {
        extern_before(pass, span);
    }
}

/// File-scope `const` objects: `extern` keeps their external linkage (C++
/// gives them internal linkage); one without an initialiser is refused.
fn const_objects<'tu>(pass: &mut Pass<'_, 'tu>, decls: &[Cursor<'tu>]) {
    for d in decls.iter().filter(|d| d.kind() == CursorKind::VarDecl) {
        if !is_const_object(d.ty()) || d.storage() == Storage::Static {
            continue;
        }
        let name = d.spelling();
        let Some(span) = d.span() else { continue };
        if d.initializer().is_none() {
            let defined = decls.iter().any(|o| {
                o.kind() == CursorKind::VarDecl && o.spelling() == name && o.initializer().is_some()
            });
            if d.storage() != Storage::Extern && !defined {
                pass.problems.push(Diagnostic::error(
                    name_span(*d),
                    format!(
                        "'const' object '{name}' has no initialiser (C makes it zero), which \
                         {WHY} rejects: give it an initialiser ('= 0')"
                    ),
                ));
            }
            continue;
        }
        if d.storage() == Storage::Extern {
            continue;
        }
        let others = same_declaration(*d, decls);
        if others.iter().any(|o| o.initializer().is_none()) {
            pass.problems.push(Diagnostic::error(
                name_span(*d),
                format!(
                    "'const' object '{name}' has external linkage in C but internal linkage \
                     in C++, and flextile cannot add 'extern' (its declaration also declares \
                     variables without initialisers): declare it on its own"
                ),
            ));
            continue;
        }
        if others
            .iter()
            .any(|o| name_span(*o).start < name_span(*d).start)
        {
            continue;
        }
        if !pass.written(span) {
            continue;
        }
        extern_before(pass, span);
    }
}

/// The parameter list `(T a, U b)` of a function declaration (`None` for
/// parameter types this cannot spell).
fn parameter_list(f: Cursor<'_>) -> Option<String> {
    let mut out = Vec::new();
    for p in f
        .children()
        .into_iter()
        .filter(|k| k.kind() == CursorKind::ParmDecl)
    {
        let ty = p.ty();
        let s = ty.spelling();
        let name = p.spelling();
        if s.contains('(') || s.contains('[') {
            out.push(super::pointer_decl(ty, "")?.declare(&name));
        } else if s.ends_with('*') {
            out.push(format!("{s}{name}"));
        } else {
            out.push(format!("{s} {name}"));
        }
    }
    Some(if out.is_empty() {
        "(void)".to_string()
    } else {
        format!("({})", out.join(", "))
    })
}

/// Types the default argument promotions change (an unprototyped
/// function's callers pass them as `int` or `double`).
fn is_promoted(ty: Type<'_>) -> bool {
    let c = ty.canonical();
    let s = c.spelling();
    matches!(
        s.as_str(),
        "float"
            | "char"
            | "signed char"
            | "unsigned char"
            | "short"
            | "unsigned short"
            | "_Bool"
            | "bool"
    )
}

/// The span from the `(` after `f`'s name to the end of its parameter
/// declarations (the body's `{` for a definition, the `)` else), and the
/// offset of that `)`.
fn parameters_span(pass: &Pass<'_, '_>, f: Cursor<'_>) -> Option<(Span, usize)> {
    let span = f.span()?;
    let at = f.location()?;
    let toks = pass.unit.tokens_in(Span::new(at, span.end));
    let open = toks.iter().position(|t| t.text == "(")?;
    let mut depth = 0;
    let close = toks[open..].iter().position(|t| {
        match t.text.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ => {}
        }
        depth == 0
    })?;
    let close = toks[open + close].span;
    let body = f
        .children()
        .into_iter()
        .find(|k| k.kind() == CursorKind::CompoundStmt)
        .and_then(|b| b.span());
    let end = body.map_or(close.end, |b| b.start);
    Some((Span::new(toks[open].span.start, end), close.start))
}

/// True for an old-style (K&R) definition: its parameters are declared
/// after the parentheses (clang gives it a prototyped type).
fn is_knr(pass: &Pass<'_, '_>, f: Cursor<'_>) -> bool {
    let Some((_, close)) = parameters_span(pass, f) else {
        return false;
    };
    f.children()
        .iter()
        .any(|p| p.kind() == CursorKind::ParmDecl && p.location().is_some_and(|l| l > close))
}

/// K&R definitions, unprototyped declarations, and calls through them.
fn prototypes<'tu>(pass: &mut Pass<'_, 'tu>, decls: &[Cursor<'tu>]) {
    let mut lists: BTreeMap<String, Option<String>> = BTreeMap::new();
    for f in decls
        .iter()
        .filter(|f| f.kind() == CursorKind::FunctionDecl && f.is_definition())
    {
        let name = f.spelling();
        if !f.ty().is_unprototyped() && !is_knr(pass, *f) {
            lists.insert(name, parameter_list(*f));
            continue;
        }
        let params: Vec<Cursor<'tu>> = f
            .children()
            .into_iter()
            .filter(|k| k.kind() == CursorKind::ParmDecl)
            .collect();
        let list = if params.is_empty() {
            Some("(void)".to_string())
        } else {
            knr_definition(pass, *f, &params)
        };
        lists.insert(name, list);
    }
    for f in decls
        .iter()
        .filter(|f| f.kind() == CursorKind::FunctionDecl && !f.is_definition())
    {
        if !f.ty().is_unprototyped() {
            continue;
        }
        let Some(Some(list)) = lists.get(&f.spelling()) else {
            continue;
        };
        match parameters_span(pass, *f) {
            Some((span, _)) if pass.written(span) => pass.push(
                vec![span],
                CxxFix::Text {
                    span,
                    text: list.clone(),
                },
            ),
            _ => pass.problems.push(Diagnostic::error(
                name_span(*f),
                format!(
                    "'{}' is declared without parameters ('()'), and {WHY} reads as \
                     '(void)', and flextile cannot give it the definition's parameters here \
                     (macro): write them",
                    f.spelling()
                ),
            )),
        }
    }
    let defined: Vec<String> = lists.into_keys().collect();
    for d in decls {
        unprototyped_calls(pass, *d, &defined);
    }
}

/// Rewrites the K&R definition `f` with `params` to prototyped form;
/// returns its parameter list, `None` where refused.
fn knr_definition<'tu>(
    pass: &mut Pass<'_, 'tu>,
    f: Cursor<'tu>,
    params: &[Cursor<'tu>],
) -> Option<String> {
    let name = f.spelling();
    if let Some(p) = params.iter().find(|p| is_promoted(p.ty())) {
        pass.problems.push(Diagnostic::error(
            name_span(*p),
            format!(
                "'{name}' is an old-style (K&R) definition whose parameter '{}' has type \
                 '{}', which the default argument promotions change: its callers pass it \
                 promoted, and {WHY} needs a prototype, which would change what callers in \
                 other C files pass: declare the parameter with the promoted type ('int' or \
                 'double') and a prototype",
                p.spelling(),
                p.ty().spelling()
            ),
        ));
        return None;
    }
    let list = parameter_list(f);
    match (parameters_span(pass, f), &list) {
        (Some((span, _)), Some(l)) if pass.written(span) => {
            pass.push(
                vec![span],
                CxxFix::Text {
                    span,
                    text: format!("{l}\n"),
                },
            );
            list
        }
        _ => {
            pass.problems.push(Diagnostic::error(
                name_span(f),
                format!(
                    "'{name}' is an old-style (K&R) definition, and {WHY} rejects, and \
                     flextile cannot rewrite it (macro or parameter types it cannot spell): \
                     write it with a prototype"
                ),
            ));
            None
        }
    }
}

/// Calls with arguments of functions declared without a prototype that the
/// file does not define (`defined`: the functions it defines).
fn unprototyped_calls(pass: &mut Pass<'_, '_>, c: Cursor<'_>, defined: &[String]) {
    if c.kind() == CursorKind::CallExpr {
        let args = c
            .children()
            .into_iter()
            .filter(|k| k.kind().is_expression())
            .count();
        let callee = c.referenced();
        let unprototyped = callee
            .is_some_and(|f| f.kind() == CursorKind::FunctionDecl && f.ty().is_unprototyped());
        let name = c.spelling();
        if args > 1 && unprototyped && !defined.contains(&name) {
            if let Some(span) = c.span() {
                pass.problems.push(Diagnostic::error(
                    span,
                    format!(
                        "this call passes arguments to '{name}', declared without a \
                         prototype ('()'), and {WHY} reads as taking none: declare \
                         '{name}' with its parameters"
                    ),
                ));
            }
        }
    }
    for k in c.children() {
        unprototyped_calls(pass, k, defined);
    }
}

/// The statement-level checks, in one walk of the declarations.
#[derive(Default)]
struct Walk {
    /// Struct tags and enumerators declared inside a struct: name, the
    /// outer struct's span.
    nested: Vec<(String, Span)>,
    /// Uses of tags and enumerators: name, where.
    uses: Vec<(String, Span)>,
}

impl Walk {
    /// Visits `c` (`parent`: the node above it).
    fn visit<'tu>(
        &mut self,
        pass: &mut Pass<'_, 'tu>,
        c: Cursor<'tu>,
        parent: Option<Cursor<'tu>>,
    ) {
        match c.kind() {
            CursorKind::VarDecl => variable(pass, c),
            // A K&R definition's parameters are respelled whole.
            CursorKind::ParmDecl if !parent.is_some_and(|f| is_knr(pass, f)) => variable(pass, c),
            CursorKind::SwitchStmt => switch_jumps(pass, c),
            CursorKind::TypeRef | CursorKind::DeclRefExpr => {
                if let (Some(r), Some(s)) = (c.referenced(), c.span()) {
                    self.uses.push((r.spelling(), s));
                }
            }
            _ => {}
        }
        let kind = c.kind_name();
        if kind == "InitListExpr" {
            init::designators(pass, c);
        }
        if matches!(kind.as_str(), "StructDecl" | "UnionDecl" | "EnumDecl") {
            self.tag(pass, c, parent);
        }
        if c.kind() == CursorKind::FunctionDecl && c.is_definition() {
            // Labels belong to their function: its `goto`s, once.
            let mut gotos = Vec::new();
            collect(c, CursorKind::GotoStmt, &mut gotos);
            let mut blocks = Vec::new();
            collect(c, CursorKind::CompoundStmt, &mut blocks);
            if !gotos.is_empty() {
                for b in blocks {
                    goto_jumps(pass, b, &gotos);
                }
            }
        }
        for k in c.children() {
            self.visit(pass, k, Some(c));
        }
    }

    /// A struct, union or enum declaration: defined where C++ forbids it,
    /// or nested in a struct.
    fn tag<'tu>(&mut self, pass: &mut Pass<'_, 'tu>, c: Cursor<'tu>, parent: Option<Cursor<'tu>>) {
        let Some(p) = parent else { return };
        let pk = p.kind_name();
        let defines = c.is_definition();
        if defines
            && (matches!(p.kind(), CursorKind::CStyleCastExpr | CursorKind::UnaryExpr)
                || p.kind() == CursorKind::ParmDecl)
        {
            let place = match p.kind() {
                CursorKind::CStyleCastExpr => "a cast",
                CursorKind::UnaryExpr => "'sizeof' or '_Alignof'",
                _ => "a parameter's type",
            };
            pass.problems.push(Diagnostic::error(
                c.span().unwrap_or(name_span(c)),
                format!(
                    "a type is defined in {place}, and {WHY} rejects: define it before, \
                     at file scope"
                ),
            ));
        }
        if matches!(pk.as_str(), "StructDecl" | "UnionDecl") {
            if let Some(outer) = p.span() {
                let mut names = vec![c.spelling()];
                if c.kind_name() == "EnumDecl" {
                    names.extend(
                        c.children()
                            .into_iter()
                            .filter(|k| k.kind() == CursorKind::EnumConstantDecl)
                            .map(|k| k.spelling()),
                    );
                }
                for n in names
                    .into_iter()
                    .filter(|n| !n.is_empty() && !n.contains(' '))
                {
                    self.nested.push((n, outer));
                }
            }
        }
    }

    /// Refuses uses of nested tags and enumerators outside their struct.
    fn finish(self, pass: &mut Pass<'_, '_>) {
        for (name, outer) in &self.nested {
            let outside = self
                .uses
                .iter()
                .find(|(n, at)| n == name && !(outer.start <= at.start && at.end <= outer.end));
            if let Some((_, at)) = outside {
                pass.problems.push(Diagnostic::error(
                    *at,
                    format!(
                        "'{name}' is declared inside a struct and used outside it; in C \
                         it belongs to the file's scope, in C++ to the struct's, which \
                         {WHY} rejects here: declare it before the struct"
                    ),
                ));
            }
        }
    }
}

/// A variable or parameter: `auto` and `register` removed, a `const`
/// without initialiser refused, a string literal filling a `char` array
/// respelled.
fn variable(pass: &mut Pass<'_, '_>, v: Cursor<'_>) {
    let Some(span) = v.span() else { return };
    let at = v.location().unwrap_or(span.end);
    let name = v.spelling();
    let storage = v.storage();
    if matches!(storage, Storage::Auto | Storage::Register) {
        let word = if storage == Storage::Auto {
            "auto"
        } else {
            "register"
        };
        match token_at(pass, span, at, word) {
            Some(kw) if pass.written(kw) => {
                let end = pass.unit.text[kw.end..]
                    .find(|c: char| !c.is_whitespace())
                    .map_or(kw.end, |k| kw.end + k);
                let s = Span::new(kw.start, end);
                pass.push(
                    vec![s],
                    CxxFix::Text {
                        span: s,
                        text: String::new(),
                    },
                );
            }
            _ => pass.problems.push(Diagnostic::error(
                name_span(v),
                format!(
                    "'{word}' as a storage class is not C++17 (the CUDA output is \
                     compiled as C++17 by nvcc), and it is written in a macro here: remove it"
                ),
            )),
        }
    }
    let local = v.kind() == CursorKind::VarDecl
        && v.semantic_parent_type()
            .is_some_and(|t| t.kind() == TypeKind::Function);
    if local && v.initializer().is_none() && storage != Storage::Extern && is_const_object(v.ty()) {
        pass.problems.push(Diagnostic::error(
            name_span(v),
            format!(
                "'const' variable '{name}' has no initialiser, and {WHY} rejects: give it \
                 one"
            ),
        ));
    }
    if let Some(init) = v.initializer() {
        init::string_array(pass, v.ty(), init);
    }
}

/// True when `c` is a declaration statement declaring a variable with an
/// initialiser (or of variably modified type).
fn initialised_decl(c: Cursor<'_>) -> Option<Cursor<'_>> {
    if c.kind() != CursorKind::DeclStmt {
        return None;
    }
    c.children().into_iter().find(|v| {
        v.kind() == CursorKind::VarDecl
            && v.storage() != Storage::Static
            && v.storage() != Storage::Extern
            && (v.initializer().is_some() || super::variably_modified(v.ty()))
    })
}

/// The refusal of a jump past the initialised declaration `v`.
fn jump_error(v: Cursor<'_>, label: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        name_span(v),
        format!(
            "{what} jumps past the initialisation of '{}', and {WHY} rejects: put the \
             declaration and its uses in braces, or declare it before the jump",
            v.spelling()
        ),
    )
    .with_note(label, "the label jumped to")
}

/// A `case` or `default` label of the switch `s` after an initialised
/// declaration of its body.
fn switch_jumps(pass: &mut Pass<'_, '_>, s: Cursor<'_>) {
    let Some(body) = s
        .children()
        .into_iter()
        .find(|k| k.kind() == CursorKind::CompoundStmt)
    else {
        return;
    };
    let mut seen = None;
    for c in body.children() {
        let is_label = matches!(c.kind(), CursorKind::CaseStmt | CursorKind::DefaultStmt);
        if let (true, Some(v), Some(at)) = (is_label, seen, c.span()) {
            pass.problems.push(jump_error(
                v,
                Span::new(at.start, at.start + 4),
                "the switch",
            ));
            return;
        }
        // A declaration can follow a label's statement only as a sibling;
        // a nested label (`case 1: case 2:`) counts with its first.
        if let Some(v) = initialised_decl(c) {
            seen = Some(v);
        }
    }
}

/// `goto`s (`gotos`: those of the function) into the scope of an
/// initialised declaration of the compound statement `b`, from before it.
fn goto_jumps(pass: &mut Pass<'_, '_>, b: Cursor<'_>, gotos: &[Cursor<'_>]) {
    let kids = b.children();
    for (k, c) in kids.iter().enumerate() {
        let Some(v) = initialised_decl(*c) else {
            continue;
        };
        let Some(vs) = c.span() else { continue };
        let mut labels = Vec::new();
        for later in &kids[k + 1..] {
            collect(*later, CursorKind::LabelStmt, &mut labels);
        }
        if labels.is_empty() {
            continue;
        }
        for g in gotos {
            let (Some(gs), Some(target)) = (g.span(), g.children().first().copied()) else {
                continue;
            };
            let hit = labels.iter().find(|l| {
                l.spelling() == target.spelling() && l.span().is_some_and(|ls| ls.start > vs.end)
            });
            let inside = b
                .span()
                .is_some_and(|bs| bs.start <= gs.start && gs.end <= bs.end);
            let before = gs.end <= vs.start || !inside;
            if let (Some(l), true) = (hit, before) {
                let ls = l.span().unwrap_or(gs);
                pass.problems.push(jump_error(v, ls, "a 'goto'"));
                return;
            }
        }
    }
}

/// The descendants of `c` (itself included) of kind `kind`, into `out`.
fn collect<'tu>(c: Cursor<'tu>, kind: CursorKind, out: &mut Vec<Cursor<'tu>>) {
    if c.kind() == kind {
        out.push(c);
    }
    for k in c.children() {
        collect(k, kind, out);
    }
}
