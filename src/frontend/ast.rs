//! The parsed main file as the rest of the front end sees it: clang's AST
//! plus the file's raw tokens and macro invocations, with the queries the
//! region builders need (which statement follows a pragma, the parts of a
//! `for` header, the spelling of an operator).
//!
//! libclang 14 does not expose operator kinds. An operator is read from the
//! raw tokens between its operands, which is exact for code written in the
//! file and in macro *arguments*. Inside a macro *body* the tokens are not
//! visible (libclang maps every node of a body to the whole invocation), so
//! [`Unit::binary_op`] and [`Unit::unary_op`] answer `None` there and callers
//! fall back (constant evaluation, `min`/`max` macro names) or give up.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use crate::diag::Span;
use crate::frontend::clang::{
    invocation_args, Cursor, CursorKind, MacroExpansion, Token, TokenKind, TranslationUnit,
};
use crate::frontend::macro_ops;
use crate::frontend::thread_state::{find_state_reads, StateReads};

/// The main file's AST, tokens and macro invocations.
pub struct Unit<'tu> {
    /// The main file's text.
    pub text: &'tu str,
    /// Every raw token of the main file, in order.
    pub tokens: Vec<Token>,
    /// Macro invocations of the main file, in order, with their argument ranges.
    pub macros: Vec<MacroUse>,
    /// Function definitions of the main file, in order.
    pub functions: Vec<Cursor<'tu>>,
    /// For the CUDA target: the edits that keep the C meaning of
    /// expressions in C++ (`frontend::cxx::Meaning::rendered`: sorted,
    /// non-overlapping; empty for C), which body templates apply
    /// ([`Unit::edited`]).
    pub cxx_edits: Vec<(Span, String)>,
    /// The user's object-like macros with a constant value that bounds or
    /// subscripts use, read as parameters named after the macro (see
    /// [`crate::frontend::cexpr`]): name -> value.
    pub macro_params: RefCell<BTreeMap<String, i64>>,
    /// Names of the variables, parameters, enumerators and macros the
    /// translation unit declares (see [`Unit::declares`]), computed once.
    declared: std::cell::OnceCell<BTreeSet<String>>,
    /// Locations of the variables whose address some function of the main
    /// file takes (see [`Unit::address_taken`]), computed once.
    addressed: std::cell::OnceCell<BTreeSet<usize>>,
    /// The per-thread state the program reads (see [`Unit::state_reads`]),
    /// computed once.
    state_reads: std::cell::OnceCell<StateReads>,
    /// What the main file's functions assign to their variables (see
    /// [`crate::frontend::storage`]), computed once.
    pub(crate) assigned: std::cell::OnceCell<crate::frontend::storage::Assigned>,
    /// C's strict aliasing rules hold (no `-fno-strict-aliasing` among
    /// clang's arguments): variables of incompatible element types do not
    /// share memory.
    pub strict_aliasing: bool,
    /// The translation unit's root.
    root: Cursor<'tu>,
    /// Every macro definition, by name (empty when the main file invokes none).
    macro_table: MacroTable,
    /// Macros of `macro_params` whose value a bound or subscript had to use
    /// (`i * N`, not affine with `N` as a parameter), since the last
    /// [`Unit::take_frozen`].
    frozen: RefCell<BTreeSet<String>>,
    /// The operators of each macro invocation's expansion (by the
    /// invocation's start), read once when first asked for
    /// ([`Unit::expanded_op`]); `None` where they cannot be read.
    macro_ops: RefCell<std::collections::HashMap<usize, Option<macro_ops::Ops>>>,
}

/// A macro invocation and the byte ranges of its arguments.
#[derive(Clone, Debug)]
pub struct MacroUse {
    /// What clang reports.
    pub expansion: MacroExpansion,
    /// The argument texts (between the parentheses, split at top-level commas).
    pub args: Vec<Span>,
    /// The tokens the expansion may contain besides its arguments: the
    /// body's tokens other than parameters, and those of every macro named
    /// in it, transitively (by name, every definition of that name).
    pub expanded: Vec<(TokenKind, String)>,
}

/// Body tokens (name and parameters dropped) of a macro definition's tokens,
/// without the parameters' uses; and whether it is function-like.
fn own_body(def: &[(TokenKind, String)], function_like: bool) -> Vec<(TokenKind, String)> {
    let mut k = 1;
    let mut params = Vec::new();
    if function_like {
        k = 2;
        while k < def.len() && def[k].1 != ")" {
            if def[k].0 == TokenKind::Identifier {
                params.push(def[k].1.as_str());
            }
            k += 1;
        }
        k += 1;
    }
    def.get(k..)
        .unwrap_or(&[])
        .iter()
        .filter(|(kind, t)| !(*kind == TokenKind::Identifier && params.contains(&t.as_str())))
        .cloned()
        .collect()
}

/// Every macro definition of the translation unit, by name: `(tokens,
/// function-like)` for each definition of the name.
type MacroTable = macro_ops::Table;

/// The non-parameter body tokens of `body` and of every macro named in it,
/// transitively ([`MacroUse::expanded`]).
fn expand_closure(body: Vec<(TokenKind, String)>, table: &MacroTable) -> Vec<(TokenKind, String)> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut todo = vec![body];
    while let Some(toks) = todo.pop() {
        for (kind, t) in toks {
            if kind == TokenKind::Identifier && seen.insert(t.clone()) {
                for (def, fl) in table.get(&t).into_iter().flatten() {
                    todo.push(own_body(def, *fl));
                }
            }
            out.push((kind, t));
        }
    }
    out
}

/// Tokens that assign the operand before them (`++`/`--` also after).
const ASSIGN_OPS: &[&str] = &[
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--",
];

/// The `(` of the call whose argument list holds position `pos` of `body`
/// (an identifier must precede it), and the index of that argument.
fn enclosing_call(body: &[(TokenKind, String)], pos: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut arg = 0;
    let mut j = pos;
    while j > 0 {
        j -= 1;
        match body[j].1.as_str() {
            ")" | "]" => depth += 1,
            "(" | "[" if depth > 0 => depth -= 1,
            "(" => {
                return (j > 0 && body[j - 1].0 == TokenKind::Identifier).then_some((j, arg));
            }
            "[" => return None,
            "," if depth == 0 => arg += 1,
            ";" | "{" | "}" => return None,
            _ => {}
        }
    }
    None
}

/// The `)` matching the `(` at `open`.
fn matching_close(body: &[(TokenKind, String)], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, (_, t)) in body.iter().enumerate().skip(open) {
        match t.as_str() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// A function-like macro definition's parameter names and body tokens.
fn split_definition(def: &[(TokenKind, String)]) -> (Vec<&str>, &[(TokenKind, String)]) {
    let mut params = Vec::new();
    let mut k = 2;
    while k < def.len() && def[k].1 != ")" {
        if def[k].0 == TokenKind::Identifier {
            params.push(def[k].1.as_str());
        }
        k += 1;
    }
    (params, def.get(k + 1..).unwrap_or(&[]))
}

/// True when every use of `param` in `body` is inside square brackets (a
/// subscript), so assigning the macro's result cannot assign it.
fn only_subscripted(body: &[(TokenKind, String)], param: &str) -> bool {
    let mut brackets = 0usize;
    for (kind, t) in body {
        match t.as_str() {
            "[" => brackets += 1,
            "]" => brackets = brackets.saturating_sub(1),
            _ if *kind == TokenKind::Identifier && t == param && brackets == 0 => return false,
            _ => {}
        }
    }
    true
}

impl MacroUse {
    /// Parameter names of a function-like macro, from its definition tokens.
    pub fn params(&self) -> Vec<String> {
        if !self.expansion.function_like {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (k, t) in self.expansion.definition.iter().skip(2) {
            if t == ")" {
                break;
            }
            if *k == TokenKind::Identifier {
                out.push(t.clone());
            }
        }
        out
    }

    /// The body tokens of the definition (after the name and parameter list).
    pub fn body(&self) -> &[(TokenKind, String)] {
        let def = &self.expansion.definition;
        let mut k = 1;
        if self.expansion.function_like {
            while k < def.len() && def[k].1 != ")" {
                k += 1;
            }
            k += 1;
        }
        def.get(k..).unwrap_or(&[])
    }

    /// True for an object-like macro whose body is only literals and
    /// punctuation (`#define N 100`): using it changes nothing for the analysis.
    pub fn is_constant(&self) -> bool {
        !self.expansion.function_like
            && self.body().iter().all(|(k, _)| {
                matches!(
                    k,
                    TokenKind::Literal | TokenKind::Punctuation | TokenKind::Comment
                )
            })
    }
}

/// The four parts of a `for` statement.
#[derive(Clone, Copy, Debug)]
pub struct ForParts<'tu> {
    /// The initialisation (a declaration or an expression), if any.
    pub init: Option<Cursor<'tu>>,
    /// The condition, if any.
    pub cond: Option<Cursor<'tu>>,
    /// The increment, if any.
    pub inc: Option<Cursor<'tu>>,
    /// The body.
    pub body: Cursor<'tu>,
    /// From `for` to the closing parenthesis of the header.
    pub header: Span,
}

/// True for the labels `case X:`, `default:` and `L:`.
pub fn is_label(k: CursorKind) -> bool {
    matches!(
        k,
        CursorKind::LabelStmt | CursorKind::CaseStmt | CursorKind::DefaultStmt
    )
}

/// The statement a label labels (through nested labels); `c` itself when it
/// is no label.
pub fn labelled(c: Cursor<'_>) -> Cursor<'_> {
    let mut cur = c;
    while is_label(cur.kind()) {
        match cur.children().last() {
            Some(k) => cur = *k,
            None => break,
        }
    }
    cur
}

/// True for cursor kinds that are statements holding other statements or
/// that may follow a pragma.
fn is_statement(k: CursorKind) -> bool {
    matches!(
        k,
        CursorKind::CompoundStmt
            | CursorKind::IfStmt
            | CursorKind::SwitchStmt
            | CursorKind::WhileStmt
            | CursorKind::DoStmt
            | CursorKind::ForStmt
            | CursorKind::LabelStmt
            | CursorKind::UnexposedStmt
    )
}

impl<'tu> Unit<'tu> {
    /// Collects the tokens, macro invocations and function definitions of `tu`,
    /// whose main file holds `text`.
    pub fn new(tu: &'tu TranslationUnit<'tu>, text: &'tu str) -> Unit<'tu> {
        let tokens = tu.tokens(Span::new(0, text.len()));
        let mut functions = Vec::new();
        for c in tu.root().children() {
            let has_body = || {
                c.children()
                    .iter()
                    .any(|k| k.kind() == CursorKind::CompoundStmt)
            };
            if c.kind() == CursorKind::FunctionDecl && c.is_in_main_file() && has_body() {
                functions.push(c);
            }
        }
        let mut unit = Unit {
            text,
            tokens,
            macros: Vec::new(),
            functions,
            cxx_edits: Vec::new(),
            macro_params: RefCell::default(),
            frozen: RefCell::default(),
            declared: std::cell::OnceCell::new(),
            addressed: std::cell::OnceCell::new(),
            state_reads: std::cell::OnceCell::new(),
            assigned: std::cell::OnceCell::new(),
            strict_aliasing: true,
            root: tu.root(),
            macro_table: MacroTable::new(),
            macro_ops: RefCell::default(),
        };
        let mut table = MacroTable::new();
        let expansions = tu.macro_expansions();
        if !expansions.is_empty() {
            for c in tu.root().children() {
                if c.kind() == CursorKind::MacroDefinition {
                    table
                        .entry(c.spelling())
                        .or_default()
                        .push((c.definition_tokens(), c.is_macro_function_like()));
                }
            }
        }
        let macros = expansions
            .into_iter()
            .map(|expansion| {
                let args = if expansion.function_like {
                    unit.macro_args(expansion.span)
                } else {
                    Vec::new()
                };
                let body = own_body(&expansion.definition, expansion.function_like);
                let expanded = expand_closure(body, &table);
                MacroUse {
                    expansion,
                    args,
                    expanded,
                }
            })
            .collect();
        unit.macros = macros;
        unit.macro_table = table;
        unit
    }

    /// The text under `span` ("" when out of range).
    pub fn slice(&self, span: Span) -> &'tu str {
        self.text.get(span.start..span.end).unwrap_or("")
    }

    /// The text under `span` with the [`Unit::cxx_edits`] inside it applied;
    /// an insertion at either end counts where `ends` says so (start, end).
    pub fn edited(&self, span: Span, ends: (bool, bool)) -> String {
        let mut out = String::new();
        let mut pos = span.start;
        let first = self
            .cxx_edits
            .partition_point(|(e, _)| e.start < span.start);
        for (e, text) in self.cxx_edits.get(first..).unwrap_or(&[]) {
            if e.start > span.end {
                break;
            }
            let inside = if e.start == e.end {
                (span.start < e.start || ends.0 && e.start == span.start)
                    && (e.start < span.end || ends.1 && e.start == span.end)
            } else {
                span.start <= e.start && e.end <= span.end
            };
            if inside && pos <= e.start {
                out.push_str(self.slice(Span::new(pos, e.start)));
                out.push_str(text);
                pos = e.end;
            }
        }
        out.push_str(self.slice(Span::new(pos, span.end.max(pos))));
        out
    }

    /// True when a replacement of [`Unit::cxx_edits`] overlaps `span`
    /// without lying inside it (`span`'s text is replaced, in part or whole).
    pub fn replaced(&self, span: Span) -> bool {
        self.cxx_edits.iter().any(|(e, _)| {
            let inside = span.start <= e.start && e.end <= span.end;
            e.start < e.end && e.start < span.end && span.start < e.end && !inside
        })
    }

    /// The tokens that start inside `span`.
    pub fn tokens_in(&self, span: Span) -> &[Token] {
        let a = self.tokens.partition_point(|t| t.span.start < span.start);
        let b = self.tokens.partition_point(|t| t.span.start < span.end);
        self.tokens.get(a..b.max(a)).unwrap_or(&[])
    }

    /// The first token starting at or after `pos`.
    pub fn token_at_or_after(&self, pos: usize) -> Option<&Token> {
        let a = self.tokens.partition_point(|t| t.span.start < pos);
        self.tokens.get(a)
    }

    /// Argument ranges of a function-like macro invocation at `span`.
    fn macro_args(&self, span: Span) -> Vec<Span> {
        invocation_args(self.tokens_in(span))
    }

    /// Macro invocations overlapping `span`.
    pub fn macros_in(&self, span: Span) -> impl Iterator<Item = &MacroUse> {
        self.macros
            .iter()
            .filter(move |m| m.expansion.span.start < span.end && span.start < m.expansion.span.end)
    }

    /// Whether `name` is declared anywhere in the translation unit: a global
    /// variable, an enumerator, a macro (headers and `-D` included), or a
    /// variable or parameter of a function of the main file.
    pub fn declares(&self, name: &str) -> bool {
        self.declared
            .get_or_init(|| {
                let mut out = BTreeSet::new();
                let mut todo = self.root.children();
                while let Some(c) = todo.pop() {
                    match c.kind() {
                        CursorKind::VarDecl
                        | CursorKind::ParmDecl
                        | CursorKind::EnumConstantDecl
                        | CursorKind::MacroDefinition => {
                            out.insert(c.spelling());
                            todo.extend(c.children());
                        }
                        CursorKind::FunctionDecl if !c.is_in_main_file() => {}
                        CursorKind::MacroExpansion => {}
                        _ => todo.extend(c.children()),
                    }
                }
                out
            })
            .contains(name)
    }

    /// Where the translation unit first reads errno and the floating-point
    /// environment (see [`crate::frontend::thread_state::find_state_reads`]).
    pub fn state_reads(&self) -> &StateReads {
        self.state_reads.get_or_init(|| find_state_reads(self.root))
    }

    /// The first attribute of the declaration `decl` that may use its
    /// variable outside the code that names it, and its text: `cleanup(f)`
    /// calls `f(&x)` when `x` leaves its scope, after any region inside it;
    /// any attribute but `aligned` and `unused` counts (fail closed: `used`,
    /// `section`, one a macro spells). `None` when there is none.
    pub fn escaping_attribute(&self, decl: Cursor<'tu>) -> Option<(Option<Span>, String)> {
        const HARMLESS: &[&str] = &["aligned", "unused", "maybe_unused"];
        decl.children().into_iter().find_map(|c| match c.kind() {
            CursorKind::AlignedAttr => None,
            CursorKind::Attribute => {
                let span = c.span();
                let text = span.map_or("", |s| self.slice(s));
                let word = span
                    .and_then(|s| self.tokens_in(s).first())
                    .filter(|t| t.kind == TokenKind::Identifier)
                    .map(|t| t.text.trim_matches('_'));
                // Spelled by a macro, the attribute's text is the invocation's.
                let plain = span.is_some_and(|s| self.macros_in(s).next().is_none());
                match word {
                    Some(w) if HARMLESS.contains(&w) && plain => None,
                    _ => Some((span, text.to_string())),
                }
            }
            _ => None,
        })
    }

    /// True when some function of the main file takes the address of the
    /// variable `decl` (`&x`, also through a macro whose operator cannot be
    /// read), when an attribute of its declaration may
    /// ([`Unit::escaping_attribute`]: `cleanup(f)` passes `&x` to `f`), or
    /// when `decl` is not in the main file.
    pub fn address_taken(&self, decl: Cursor<'tu>) -> bool {
        let Some(at) = decl.location() else {
            return true;
        };
        if self.escaping_attribute(decl).is_some() {
            return true;
        }
        self.addressed
            .get_or_init(|| {
                let mut out = BTreeSet::new();
                let mut todo = self.functions.clone();
                while let Some(c) = todo.pop() {
                    let kids = c.children();
                    if c.kind() == CursorKind::UnaryOperator
                        && self.unary_op(c).is_none_or(|(op, _)| op == "&")
                    {
                        let target = kids.first().map(|k| strip(*k));
                        if let Some(d) = target
                            .filter(|t| t.kind() == CursorKind::DeclRefExpr)
                            .and_then(|t| t.referenced())
                        {
                            out.extend(d.location());
                        }
                    }
                    todo.extend(kids);
                }
                out
            })
            .contains(&at)
    }

    /// Notes that the values of the macro parameters `names` were used.
    pub fn freeze(&self, names: impl IntoIterator<Item = String>) {
        self.frozen.borrow_mut().extend(names);
    }

    /// Runs `f` and forgets the macro values it used: for analyses that
    /// only check the program and build nothing of the model.
    pub fn without_freezing<R>(&self, f: impl FnOnce() -> R) -> R {
        let kept = self.frozen.borrow().clone();
        let r = f();
        *self.frozen.borrow_mut() = kept;
        r
    }

    /// The macros whose values were used since the last call, with their
    /// values (`N = 100`), and forgets them.
    pub fn take_frozen(&self) -> Vec<String> {
        let names = std::mem::take(&mut *self.frozen.borrow_mut());
        let values = self.macro_params.borrow();
        names
            .into_iter()
            .map(|n| match values.get(&n) {
                Some(v) => format!("{n} = {v}"),
                None => n,
            })
            .collect()
    }

    /// The macro invocation whose bytes are exactly `span`.
    pub fn macro_exactly(&self, span: Span) -> Option<&MacroUse> {
        self.macros.iter().find(|m| m.expansion.span == span)
    }

    /// True when the node at `span` is written in the file (or inside a single
    /// macro argument), so that the tokens between its parts are its own.
    pub fn is_clean(&self, span: Span) -> bool {
        self.macros_in(span).all(|m| {
            let e = m.expansion.span;
            let contains = span.start <= e.start && e.end <= span.end && span != e;
            let in_arg = m
                .args
                .iter()
                .any(|a| a.start <= span.start && span.end <= a.end);
            contains || in_arg
        })
    }

    /// True when one of `ops` may be among the tokens of the node at `span`:
    /// its own tokens in the file, or the expansion of a macro overlapping it
    /// ([`MacroUse::expanded`]).
    fn may_hold(&self, span: Span, ops: &[&str]) -> bool {
        let punct = |k: &TokenKind, t: &str| *k == TokenKind::Punctuation && ops.contains(&t);
        self.tokens_in(span).iter().any(|t| punct(&t.kind, &t.text))
            || self
                .macros_in(span)
                .any(|m| m.expanded.iter().any(|(k, t)| punct(k, t)))
    }

    /// True when the node at `span`, an operator that cannot be read, may be
    /// an assignment, `++` or `--` (fail closed: any such token in the node's
    /// text or in the expansion of a macro overlapping it).
    pub fn macro_may_assign(&self, span: Span) -> bool {
        self.may_hold(span, ASSIGN_OPS)
    }

    /// True when `target`, the left operand of the operator at `op` that
    /// cannot be read (a node of a macro body), may be what that operator
    /// assigns (`=`, `++`, `--`): [`Unit::macro_may_assign`], refined by the
    /// variable at the base of `target` (subscripts removed). A base written
    /// in a macro argument may be assigned where the macro may assign that
    /// argument ([`Unit::macro_may_assign_arg`]); a base spelled in a macro
    /// body only where one of its appearances in the bodies of the macros
    /// around `op` (transitively) may be assigned ([`appearance_may_assign`]).
    /// Anything else (no variable at the base, a name that no body spells)
    /// may be assigned: fail closed.
    pub fn macro_may_assign_to(&self, op: Span, target: Cursor<'tu>) -> bool {
        if !self.macro_may_assign(op) {
            return false;
        }
        let mut base = strip(target);
        while base.kind() == CursorKind::ArraySubscriptExpr {
            match base.children().into_iter().next() {
                Some(b) => base = strip(b),
                None => return true,
            }
        }
        let (CursorKind::DeclRefExpr, Some(span)) = (base.kind(), base.span()) else {
            return true;
        };
        let in_arg = self.macros_in(span).any(|m| {
            m.args
                .iter()
                .any(|a| a.start <= span.start && span.end <= a.end)
        });
        if in_arg {
            return self.macro_may_assign_arg(span);
        }
        let name = base.spelling();
        let mut seen = std::collections::HashSet::new();
        let mut todo: Vec<&[(TokenKind, String)]> = Vec::new();
        for m in self.macros_in(op) {
            if seen.insert(m.expansion.name.as_str()) {
                todo.push(m.body());
            }
        }
        let mut spelled = false;
        while let Some(body) = todo.pop() {
            for (k, (kind, t)) in body.iter().enumerate() {
                if *kind != TokenKind::Identifier {
                    continue;
                }
                if let Some(defs) = self.macro_table.get(t) {
                    if seen.insert(t.as_str()) {
                        for (def, function_like) in defs {
                            todo.push(if *function_like {
                                split_definition(def).1
                            } else {
                                def.get(1..).unwrap_or(&[])
                            });
                        }
                    }
                }
                if *t == name {
                    spelled = true;
                    if self.appearance_may_assign(body, k) {
                        return true;
                    }
                }
            }
        }
        !spelled
    }

    /// True when the identifier at `body[k]` of a macro body may be assigned
    /// once expanded: preceded (past grouping parentheses) by `++`, `--`, `&`
    /// or by nothing (the invoking text may put `++` there); followed (past
    /// closing parentheses and subscripts) by an assignment, `++`, `--`, `.`,
    /// `->`, `#`, `##`, an identifier (a parameter: its argument may be `=
    /// v`) or by nothing; or inside the argument list of a macro invocation.
    fn appearance_may_assign(&self, body: &[(TokenKind, String)], k: usize) -> bool {
        const BEFORE: &[&str] = &["++", "--", "&"];
        const AFTER: &[&str] = &[".", "->", "#", "##"];
        let is = |j: usize, t: &str| body.get(j).is_some_and(|(_, x)| x == t);
        let mut a = k;
        while a > 0 && is(a - 1, "(") && !(a >= 2 && body[a - 2].0 == TokenKind::Identifier) {
            a -= 1;
        }
        if a == 0 || BEFORE.contains(&body[a - 1].1.as_str()) {
            return true;
        }
        let mut b = k + 1;
        loop {
            if is(b, ")") {
                b += 1;
            } else if is(b, "[") {
                let mut depth = 0usize;
                while let Some((_, t)) = body.get(b) {
                    match t.as_str() {
                        "[" => depth += 1,
                        "]" => depth -= 1,
                        _ => {}
                    }
                    b += 1;
                    if depth == 0 {
                        break;
                    }
                }
            } else {
                break;
            }
        }
        let Some((kind, next)) = body.get(b) else {
            return true;
        };
        if *kind == TokenKind::Identifier
            || ASSIGN_OPS.contains(&next.as_str())
            || AFTER.contains(&next.as_str())
        {
            return true;
        }
        enclosing_call(body, k)
            .is_some_and(|(open, _)| self.macro_table.contains_key(&body[open - 1].1))
    }

    /// True when the token at `span`, an argument of the macro invocations
    /// around it, may be assigned by them: in some macro's body, its parameter
    /// is followed (past closing parentheses) by an assignment, `++` or `--`, or
    /// preceded (past opening parentheses) by `++`, `--` or `&`. Also true when
    /// `span` is not inside a macro argument (nothing is known then).
    pub fn macro_may_assign_arg(&self, span: Span) -> bool {
        let mut in_arg = false;
        for m in self.macros_in(span) {
            let Some(idx) = m
                .args
                .iter()
                .position(|a| a.start <= span.start && span.end <= a.end)
            else {
                continue;
            };
            in_arg = true;
            let Some(param) = m.params().get(idx).cloned() else {
                return true;
            };
            if self.param_may_assign(m.body(), &param, 0) {
                return true;
            }
        }
        !in_arg
    }

    /// True when parameter `param` of a macro whose body is `body` may be
    /// assigned by it: the parameter (in its own parentheses) is followed by
    /// an assignment, `++` or `--`, or preceded by `++`, `--` or `&`; or it
    /// is an argument of a macro invocation in the body whose own parameter
    /// may be assigned (recursively), or whose result is assigned while the
    /// parameter is not only a subscript there (`AT1(H, (p)) = v` with
    /// `AT1(a, x)` = `a[x]` assigns an element of `H`, not `p`). Unknown
    /// macros and deep nesting count as assigning (fail closed).
    fn param_may_assign(&self, body: &[(TokenKind, String)], param: &str, depth: usize) -> bool {
        const AFTER: &[&str] = ASSIGN_OPS;
        const BEFORE: &[&str] = &["++", "--", "&"];
        if depth > 8 {
            return true;
        }
        let is = |j: usize, t: &str| body.get(j).is_some_and(|(_, x)| x == t);
        for (k, (kind, t)) in body.iter().enumerate() {
            if *kind != TokenKind::Identifier || t != param {
                continue;
            }
            let mut a = k;
            let mut opens = 0;
            // grouping parentheses only: a call's `(` has a name before it
            while a > 0 && is(a - 1, "(") && !(a >= 2 && body[a - 2].0 == TokenKind::Identifier) {
                a -= 1;
                opens += 1;
            }
            if a > 0 && BEFORE.contains(&body[a - 1].1.as_str()) {
                return true;
            }
            let mut b = k + 1;
            let mut closes = 0;
            while closes < opens && is(b, ")") {
                b += 1;
                closes += 1;
            }
            if body
                .get(b)
                .is_some_and(|(_, x)| AFTER.contains(&x.as_str()))
            {
                return true;
            }
            // in the argument list of a call in the body?
            let Some((open, arg)) = enclosing_call(body, a) else {
                continue;
            };
            let callee = &body[open - 1].1;
            let Some(defs) = self.macro_table.get(callee) else {
                continue; // a function call cannot assign its argument
            };
            let close = matching_close(body, open);
            let result_assigned = close.is_none_or(|c| {
                body.get(c + 1)
                    .is_some_and(|(_, x)| AFTER.contains(&x.as_str()))
                    || (open >= 2 && BEFORE.contains(&body[open - 2].1.as_str()))
            });
            for (def, function_like) in defs {
                if !function_like {
                    return true;
                }
                let (params, cbody) = split_definition(def);
                let Some(p) = params.get(arg) else {
                    return true;
                };
                if self.param_may_assign(cbody, p, depth + 1) {
                    return true;
                }
                if result_assigned && !only_subscripted(cbody, p) {
                    return true;
                }
            }
        }
        false
    }

    /// True when the node at `span`, a unary operator that cannot be read,
    /// may be `++`, `--`, `*` or `&` (it may then write or reach memory
    /// through a pointer): as [`Unit::macro_may_assign`].
    pub fn macro_may_touch_memory(&self, span: Span) -> bool {
        const OPS: &[&str] = &["++", "--", "*", "&"];
        self.may_hold(span, OPS)
    }

    /// The spelling of a binary (or compound assignment) operator, when it can be read.
    pub fn binary_op(&self, c: Cursor<'tu>) -> Option<String> {
        let span = c.span()?;
        if !self.is_clean(span) {
            return self.expanded_op(c).map(|(op, _)| op);
        }
        let kids = c.children();
        let [l, r] = kids.as_slice() else {
            return None;
        };
        let (l, r) = (l.span()?, r.span()?);
        if l.end > r.start {
            return None;
        }
        let gap: Vec<&Token> = self
            .tokens_in(Span::new(l.end, r.start))
            .iter()
            .filter(|t| !self.in_sub_macro(span, t.span))
            .collect();
        match gap.as_slice() {
            [t] if t.kind == TokenKind::Punctuation => Some(t.text.clone()),
            _ => None,
        }
    }

    /// The operator of node `c`, written in the body of the macro invocation
    /// whose bytes are the node's, read through the invocation's expansion
    /// (see [`crate::frontend::macro_ops`]): its spelling, and for a unary
    /// operator whether it is prefix.
    fn expanded_op(&self, c: Cursor<'tu>) -> Option<(String, bool)> {
        let span = c.span()?;
        let m = self.macro_exactly(span)?;
        if !self.macro_ops.borrow().contains_key(&span.start) {
            let ops = self.expansion_ops(m);
            self.macro_ops.borrow_mut().insert(span.start, ops);
        }
        let ops = self.macro_ops.borrow();
        ops.get(&span.start)?.as_ref()?.get(&c.key()).cloned()
    }

    /// The operators of invocation `m`'s expansion, if it lines up with the
    /// subtree it produced.
    fn expansion_ops(&self, m: &MacroUse) -> Option<macro_ops::Ops> {
        let toks = self.expansion_tokens(m)?;
        let root = self.expansion_root(m.expansion.span)?;
        macro_ops::align(root, &toks)
    }

    /// True when node `c` comes from inside a macro invocation's expansion
    /// but is not all of it (`4` in `FULL` defined as `(n + 4)`), so that
    /// it must not stand for the macro.
    /// A macro argument used twice gives two such nodes, each all of the
    /// argument's expansion. Where the expansion cannot be read, `false`.
    pub fn inside_expansion(&self, c: Cursor<'tu>) -> bool {
        let Some(m) = c.span().and_then(|span| self.macro_exactly(span)) else {
            return false;
        };
        self.expansion_tokens(m)
            .is_some_and(|toks| macro_ops::align(c, &toks).is_none())
    }

    /// The tokens of invocation `m`, fully expanded, if they can be read.
    fn expansion_tokens(&self, m: &MacroUse) -> Option<Vec<macro_ops::Tok>> {
        let raw: Vec<macro_ops::Tok> = self
            .tokens_in(m.expansion.span)
            .iter()
            .map(|t| (t.kind, t.text.clone()))
            .collect();
        let first = (m.expansion.definition.clone(), m.expansion.function_like);
        macro_ops::expand_invocation(&raw, &first, &self.macro_table)
    }

    /// The outermost expression whose bytes are exactly `span` (an
    /// invocation), inside a function body.
    fn expansion_root(&self, span: Span) -> Option<Cursor<'tu>> {
        let mut cur = self.statement_containing(span.start + 1)?;
        loop {
            if cur.kind().is_expression() && cur.span() == Some(span) {
                return Some(cur);
            }
            cur = cur.children().into_iter().find(|k| {
                k.span()
                    .is_some_and(|s| s.start <= span.start && span.end <= s.end)
            })?;
        }
    }

    /// True when `tok` lies in a macro invocation written inside `node` (so it
    /// is not one of the node's own tokens).
    fn in_sub_macro(&self, node: Span, tok: Span) -> bool {
        self.macros_in(node).any(|m| {
            let e = m.expansion.span;
            node.start <= e.start
                && e.end <= node.end
                && e != node
                && e.start <= tok.start
                && tok.end <= e.end
        })
    }

    /// The spelling of a unary operator and whether it is prefix, when it can
    /// be read: a prefix operator is the node's first token, a postfix one
    /// (`++`, `--`) its last.
    pub fn unary_op(&self, c: Cursor<'tu>) -> Option<(String, bool)> {
        const PREFIX: &[&str] = &["-", "+", "!", "~", "*", "&", "++", "--"];
        let span = c.span()?;
        if !self.is_clean(span) {
            return self.expanded_op(c);
        }
        let toks = self.tokens_in(span);
        let own = |t: &&Token| t.kind == TokenKind::Punctuation && !self.in_sub_macro(span, t.span);
        let first = toks.first().filter(own);
        if let Some(t) = first.filter(|t| PREFIX.contains(&t.text.as_str())) {
            return Some((t.text.clone(), true));
        }
        let last = toks
            .iter()
            .rev()
            .find(|t| t.span.end <= span.end)
            .filter(own)?;
        (last.text == "++" || last.text == "--").then(|| (last.text.clone(), false))
    }

    /// The function whose definition holds all of `span`, if any.
    pub fn function_around(&self, span: Span) -> Option<Cursor<'tu>> {
        self.function_index(span).map(|k| self.functions[k])
    }

    /// The index in `functions` of [`Unit::function_around`]'s function.
    pub fn function_index(&self, span: Span) -> Option<usize> {
        self.functions.iter().position(|f| {
            f.span()
                .is_some_and(|s| s.start <= span.start && span.end <= s.end)
        })
    }

    /// The innermost statement of a function body that strictly contains `pos`
    /// (a compound statement, loop, `if`, ...), if `pos` is inside a function
    /// body. A label (`case`, `default`, `L:`) is looked through: `pos`
    /// between a label and the statement it labels is in the label's parent.
    pub fn statement_containing(&self, pos: usize) -> Option<Cursor<'tu>> {
        let inside = |c: &Cursor<'tu>| c.span().is_some_and(|s| s.start < pos && pos < s.end);
        let f = self.functions.iter().find(|f| inside(f))?;
        let mut cur = f
            .children()
            .into_iter()
            .find(|c| c.kind() == CursorKind::CompoundStmt && inside(c))?;
        loop {
            let next = cur
                .children()
                .into_iter()
                .find(|c| (is_statement(c.kind()) || is_label(c.kind())) && inside(c))
                .map(labelled)
                .filter(|c| is_statement(c.kind()) && inside(c));
            match next {
                Some(n) => cur = n,
                None => return Some(cur),
            }
        }
    }

    /// The direct children of `parent` that start at or after `pos`.
    pub fn children_after(&self, parent: Cursor<'tu>, pos: usize) -> Vec<Cursor<'tu>> {
        parent
            .children()
            .into_iter()
            .filter(|c| c.span().is_some_and(|s| s.start >= pos))
            .collect()
    }

    /// The statements of `parent` between the offsets `from` and `to`: its
    /// direct children inside, and for a label (`case`, `default`, `L:`)
    /// written before `from`, the statement it labels where that is inside.
    /// `Err` holds a child that straddles `from` or `to` otherwise.
    pub fn statements_between(
        &self,
        parent: Cursor<'tu>,
        from: usize,
        to: usize,
    ) -> Result<Vec<Cursor<'tu>>, Cursor<'tu>> {
        let within = |c: &Cursor<'tu>| c.span().is_some_and(|s| s.start >= from && s.end <= to);
        let mut out = Vec::new();
        for c in parent.children() {
            let Some(s) = c.span() else { continue };
            if s.end <= from || s.start >= to {
                continue;
            }
            if within(&c) {
                out.push(c);
                continue;
            }
            let inner = labelled(c);
            if s.start < from && inner != c && within(&inner) {
                out.push(inner);
            } else {
                return Err(c);
            }
        }
        Ok(out)
    }

    /// The parts of a `for` statement, found from the raw tokens of its header.
    pub fn for_parts(&self, c: Cursor<'tu>) -> Option<ForParts<'tu>> {
        if c.kind() != CursorKind::ForStmt {
            return None;
        }
        let span = c.span()?;
        let toks = self.tokens_in(span);
        if toks.first().map(|t| t.text.as_str()) != Some("for")
            || toks.get(1).map(|t| t.text.as_str()) != Some("(")
        {
            return None;
        }
        let mut depth = 0usize;
        let mut semis = Vec::new();
        let mut close = None;
        for t in toks.iter().skip(1) {
            if t.kind != TokenKind::Punctuation {
                continue;
            }
            match t.text.as_str() {
                "(" => depth += 1,
                ")" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        close = Some(t.span);
                        break;
                    }
                }
                ";" if depth == 1 => semis.push(t.span.start),
                _ => {}
            }
        }
        let close = close?;
        let (s1, s2) = match semis.as_slice() {
            [a, b] => (*a, *b),
            _ => return None,
        };
        let mut parts = ForParts {
            init: None,
            cond: None,
            inc: None,
            body: c,
            header: Span::new(span.start, close.end),
        };
        let mut body = None;
        for k in c.children() {
            let ks = k.span()?;
            if ks.start < s1 {
                parts.init = Some(k);
            } else if ks.start < s2 {
                parts.cond = Some(k);
            } else if ks.start < close.start {
                parts.inc = Some(k);
            } else {
                body = Some(k);
            }
        }
        parts.body = body?;
        Some(parts)
    }

    /// `span` extended over the `;` token that follows it, if the next token
    /// (comments aside) is one.
    pub fn with_semicolon(&self, span: Span) -> Span {
        let a = self.tokens.partition_point(|t| t.span.start < span.end);
        let next = self.tokens.get(a..).and_then(|ts| {
            ts.iter()
                .find(|t| t.kind != crate::frontend::clang::TokenKind::Comment)
        });
        match next {
            Some(t) if t.text == ";" => Span::new(span.start, t.span.end),
            _ => span,
        }
    }

    /// 1-based line of `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text
            .as_bytes()
            .get(..end)
            .map(|b| b.iter().filter(|&&c| c == b'\n').count())
            .unwrap_or(0)
            + 1
    }
}

/// Skips the nodes that do not change an expression's value for the analysis:
/// implicit casts (unexposed expressions with one child), parentheses and C casts.
pub fn strip<'tu>(mut c: Cursor<'tu>) -> Cursor<'tu> {
    loop {
        match c.kind() {
            CursorKind::ParenExpr | CursorKind::UnexposedExpr | CursorKind::CStyleCastExpr => {
                let kids = c.children();
                let exprs: Vec<Cursor<'tu>> = kids
                    .into_iter()
                    .filter(|k| k.kind().is_expression())
                    .collect();
                match exprs.as_slice() {
                    [only] => c = *only,
                    _ => return c,
                }
            }
            _ => return c,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::testutil::{find_all, with_unit};

    const SRC: &str = "\
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define LT(a, b) a < b
#define N 100
#define TWICE(x) (2 * (x))
void f(int n, int *p, double *A) {
  int i, j = 0;
  for (i = 0; i < MIN(n, N) - 1; i += 2) A[i] = -A[i] + j--;
  for (int k = 0; LT(k, n); ++k) *p = TWICE(k - 1);
  for (;;) break;
}
";

    #[test]
    fn operators_are_read_from_tokens() {
        with_unit(SRC, |u| {
            let bin: Vec<Option<String>> = find_all(u, CursorKind::BinaryOperator)
                .into_iter()
                .map(|c| u.binary_op(c))
                .collect();
            let bin: Vec<&str> = bin.iter().map(|o| o.as_deref().unwrap_or("?")).collect();
            // i = 0; i < MIN(..) - 1; MIN(..) - 1; (a) < (b) in MIN's body;
            // A[i] = ...; -A[i] + j--; k < n in LT's body; *p = ...; 2 * (x) in
            // TWICE's body; k - 1 in TWICE's argument. Those of macro bodies
            // are read through the expansion (`frontend::macro_ops`).
            assert_eq!(bin, ["=", "<", "-", "<", "=", "+", "<", "=", "*", "-"]);
            let comp: Vec<Option<String>> = find_all(u, CursorKind::CompoundAssignOperator)
                .into_iter()
                .map(|c| u.binary_op(c))
                .collect();
            assert_eq!(comp, [Some("+=".to_string())]);
            let un: Vec<Option<(String, bool)>> = find_all(u, CursorKind::UnaryOperator)
                .into_iter()
                .map(|c| u.unary_op(c))
                .collect();
            let un: Vec<(&str, bool)> = un
                .iter()
                .map(|o| {
                    o.as_ref()
                        .map(|(s, p)| (s.as_str(), *p))
                        .unwrap_or(("?", false))
                })
                .collect();
            assert_eq!(un, [("-", true), ("--", false), ("++", true), ("*", true)]);
        });
    }

    #[test]
    fn for_headers_and_statements() {
        with_unit(SRC, |u| {
            let fors = find_all(u, CursorKind::ForStmt);
            let text =
                |c: Option<Cursor<'_>>| c.and_then(|c| c.span()).map(|s| u.slice(s)).unwrap_or("-");
            let p = u.for_parts(fors[0]).unwrap();
            assert_eq!(text(p.init), "i = 0");
            assert_eq!(text(p.cond), "i < MIN(n, N) - 1");
            assert_eq!(text(p.inc), "i += 2");
            assert_eq!(text(Some(p.body)), "A[i] = -A[i] + j--");
            assert_eq!(u.slice(p.header), "for (i = 0; i < MIN(n, N) - 1; i += 2)");
            let body = p.body.span().unwrap();
            assert_eq!(u.slice(u.with_semicolon(body)), "A[i] = -A[i] + j--;");
            let p = u.for_parts(fors[1]).unwrap();
            assert_eq!(text(p.init), "int k = 0;");
            // A node of a macro body whose ends are arguments spans the
            // whole invocation.
            assert_eq!(text(p.cond), "LT(k, n)");
            let p = u.for_parts(fors[2]).unwrap();
            assert!(p.init.is_none() && p.cond.is_none() && p.inc.is_none());
            assert_eq!(text(Some(p.body)), "break");
            // The statement around a position inside the body of f, and what follows.
            let pos = SRC.find("  for (int k").unwrap();
            let s = u.statement_containing(pos).unwrap();
            assert_eq!(s.kind(), CursorKind::CompoundStmt);
            let next = u.children_after(s, pos);
            assert_eq!(next.len(), 2);
            assert_eq!(next[0].kind(), CursorKind::ForStmt);
            assert!(u.statement_containing(3).is_none());
            assert_eq!(u.line_of(pos), 8);
        });
    }

    #[test]
    fn macro_uses() {
        with_unit(SRC, |u| {
            let names: Vec<&str> = u.macros.iter().map(|m| m.expansion.name.as_str()).collect();
            assert_eq!(names, ["MIN", "N", "LT", "TWICE"]);
            let min = &u.macros[0];
            assert_eq!(min.params(), ["a", "b"]);
            let args: Vec<&str> = min.args.iter().map(|a| u.slice(*a)).collect();
            assert_eq!(args, ["n", " N"]);
            assert!(!min.is_constant());
            assert!(u.macros[1].is_constant());
            assert_eq!(u.macros[3].body().first().map(|t| t.1.as_str()), Some("("));
            let twice = u.macros[3].expansion.span;
            assert!(
                !u.is_clean(twice),
                "the invocation itself is the macro body"
            );
            assert!(!u.macro_may_assign(twice));
        });
    }
}
